//! The one reader of submitted puzzles: Puzzle JSON through
//! `e2_shared::formats`, with the rules `e2 convert` applies (pieces may
//! repeat up to rotation, as in the official clue puzzles), so a puzzle
//! refused here is refused there with the same message.
//!
//! A job's name is shown on every status line, metric and page, so a name
//! longer than [`MAX_NAME_BYTES`] is refused rather than carried around.

use e2_shared::formats::{puzzle_json, Duplicates};
use e2_shared::{Error, Puzzle};

/// The longest puzzle name a job may carry.
pub const MAX_NAME_BYTES: usize = 256;

pub fn read(text: &str) -> Result<Puzzle, Error> {
    let puzzle = puzzle_json::read_with(text, Duplicates::Allow)?;
    if puzzle.name.len() > MAX_NAME_BYTES {
        return Err(Error::puzzle(
            "name",
            format!("{} bytes long; at most {MAX_NAME_BYTES}", puzzle.name.len()),
        ));
    }
    Ok(puzzle)
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_name_too_long_to_show_is_refused() {
        let json = |name: &str| {
            format!(
                r#"{{"name":"{name}","width":1,"height":1,"numColors":0,"pieces":[[0,0,0,0]],"hints":[]}}"#
            )
        };
        assert!(super::read(&json("ok")).is_ok());
        let e = super::read(&json(&"x".repeat(1 << 20))).unwrap_err();
        assert!(e.to_string().contains("at most 256"), "{e}");
    }
}
