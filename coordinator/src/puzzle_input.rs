//! The one reader of submitted puzzles: Puzzle JSON through
//! `e2_shared::formats`, with the rules `e2 convert` applies (pieces may
//! repeat up to rotation, as in the official clue puzzles), so a puzzle
//! refused here is refused there with the same message.

use e2_shared::formats::{puzzle_json, Duplicates};
use e2_shared::{Error, Puzzle};

pub fn read(text: &str) -> Result<Puzzle, Error> {
    puzzle_json::read_with(text, Duplicates::Allow)
}
