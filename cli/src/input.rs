//! Where command arguments come from: a path, a literal string, or stdin.
//!
//! Every board argument of `e2` may be a file, the text itself (a URL, a
//! `board_edges` string, ...) or `-` for standard input, so a board can be
//! pasted as easily as named. Errors say which argument and which file.

use std::io::Read;
use std::path::Path;

use anyhow::{Context, Result};
use e2_shared::formats::{self, Duplicates};
use e2_shared::Puzzle;

/// The text of an argument and a name hint (the file stem) for inputs that
/// carry no name of their own.
pub struct ArgText {
    pub text: String,
    pub name_hint: Option<String>,
    /// How to refer to the argument in errors: the path, `stdin` or `argument`.
    pub origin: String,
}

pub fn read_arg(arg: &str) -> Result<ArgText> {
    if arg == "-" {
        let mut text = String::new();
        std::io::stdin()
            .read_to_string(&mut text)
            .context("reading standard input")?;
        return Ok(ArgText {
            text,
            name_hint: None,
            origin: "stdin".into(),
        });
    }
    let path = Path::new(arg);
    // A long literal (a URL or a board) is never a path; avoid stat errors on it.
    if arg.len() < 4096 && path.is_file() {
        let text =
            std::fs::read_to_string(path).with_context(|| format!("reading {}", path.display()))?;
        let name_hint = path.file_stem().map(|s| s.to_string_lossy().into_owned());
        return Ok(ArgText {
            text,
            name_hint,
            origin: path.display().to_string(),
        });
    }
    if looks_like_a_path(arg) {
        anyhow::bail!("{arg}: no such file");
    }
    Ok(ArgText {
        text: arg.to_string(),
        name_hint: None,
        origin: "argument".into(),
    })
}

/// A short argument ending in a file extension is a path that does not
/// exist, not a literal board.
fn looks_like_a_path(arg: &str) -> bool {
    let lower = arg.to_ascii_lowercase();
    [".json", ".csv", ".txt", ".svg", ".dlx"]
        .iter()
        .any(|ext| lower.ends_with(ext))
        && !arg.contains('=')
}

/// Reads a piece set (Puzzle JSON or Puzzle CSV) from a path.
///
/// With [`Duplicates::Allow`], a set whose pieces repeat up to rotation (the
/// official clue puzzles, small generated boards) is accepted with a warning.
pub fn read_puzzle(arg: &str, duplicates: Duplicates) -> Result<Puzzle> {
    let input = read_arg(arg)?;
    let puzzle = formats::read_puzzle(&input.text, input.name_hint.as_deref(), duplicates)
        .with_context(|| format!("{}: not a valid puzzle", input.origin))?;
    if duplicates == Duplicates::Allow && puzzle.validate().is_err() {
        eprintln!(
            "note: {}: some pieces of \"{}\" repeat up to rotation; counts are of distinct boards",
            input.origin, puzzle.name
        );
    }
    Ok(puzzle)
}

/// Writes `text` to `path`, or to stdout when `path` is `None` or `-`.
pub fn write_out(path: Option<&Path>, text: &str) -> Result<()> {
    match path {
        Some(p) if p != Path::new("-") => {
            std::fs::write(p, text).with_context(|| format!("writing {}", p.display()))
        }
        _ => {
            crate::out!("{text}");
            Ok(())
        }
    }
}
