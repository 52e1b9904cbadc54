//! Where command arguments come from: a path, a literal string, or stdin.
//!
//! Every board argument of `e2` may be a file, the text itself (a URL, a
//! `board_edges` string, ...) or `-` for standard input, so a board can be
//! pasted as easily as named. Errors say which argument and which file.

use std::io::Read;
use std::path::Path;

/// The largest input e2 reads: a 31×31 Puzzle JSON is about 60 KB and a
/// BoardDoc less, so anything near this is not a puzzle or a board, and
/// reading it whole would only cost memory before the same error.
pub const MAX_INPUT_BYTES: u64 = 8 * 1024 * 1024;

fn too_large(origin: &str, bytes: u64) -> anyhow::Error {
    too_large_for(origin, bytes, MAX_INPUT_BYTES)
}

fn too_large_for(origin: &str, bytes: u64, max: u64) -> anyhow::Error {
    anyhow::anyhow!(
        "{origin}: {:.1} MiB is too large (at most {} MiB)",
        bytes as f64 / (1024.0 * 1024.0),
        max / (1024 * 1024)
    )
}

/// Reads at most [`MAX_INPUT_BYTES`] of `reader` as UTF-8 text.
fn read_bounded(reader: impl Read, origin: &str) -> Result<String> {
    read_bounded_to(reader, origin, MAX_INPUT_BYTES)
}

fn read_bounded_to(reader: impl Read, origin: &str, max: u64) -> Result<String> {
    let mut bytes = Vec::new();
    reader
        .take(max + 1)
        .read_to_end(&mut bytes)
        .with_context(|| format!("reading {origin}"))?;
    if bytes.len() as u64 > max {
        return Err(too_large_for(origin, bytes.len() as u64, max));
    }
    String::from_utf8(bytes).map_err(|e| {
        anyhow::anyhow!(
            "{origin}: not UTF-8 text (invalid byte at offset {})",
            e.utf8_error().valid_up_to()
        )
    })
}

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

/// Reads a file of at most `max` bytes as text; a directory, a file too
/// large or not UTF-8 is an error naming the path.
pub fn read_file(path: &Path, max: u64) -> Result<String> {
    let origin = path.display().to_string();
    if path.is_dir() {
        anyhow::bail!("{origin}: is a directory; expected a file");
    }
    let file = std::fs::File::open(path).with_context(|| format!("cannot read {origin}"))?;
    let size = file.metadata().map(|m| m.len()).unwrap_or(0);
    if size > max {
        return Err(too_large_for(&origin, size, max));
    }
    read_bounded_to(file, &origin, max)
}

pub fn read_arg(arg: &str) -> Result<ArgText> {
    if arg == "-" {
        let text = read_bounded(std::io::stdin().lock(), "standard input")?;
        return Ok(ArgText {
            text,
            name_hint: None,
            origin: "stdin".into(),
        });
    }
    let path = Path::new(arg);
    // A long literal (a URL or a board) is never a path; avoid stat errors on it.
    if arg.len() < 4096 && path.is_dir() {
        anyhow::bail!(
            "{}: is a directory; expected a file, a literal or -",
            path.display()
        );
    }
    if arg.len() < 4096 && path.is_file() {
        let origin = path.display().to_string();
        let file = std::fs::File::open(path).with_context(|| format!("reading {origin}"))?;
        let size = file.metadata().map(|m| m.len()).unwrap_or(0);
        if size > MAX_INPUT_BYTES {
            return Err(too_large(&origin, size));
        }
        let text = read_bounded(file, &origin)?;
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
