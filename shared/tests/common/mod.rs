//! Shared helpers for the backtracker tests and bench: locating the
//! community data and reading its Puzzle JSON files.

#![allow(dead_code)]

use std::path::PathBuf;

use e2_shared::formats::{puzzle_json, Duplicates};
use e2_shared::model::Puzzle;

/// The community data directory beside the repository, if present.
pub fn data_dir() -> Option<PathBuf> {
    let dir = PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/../../shared/data"));
    if dir.is_dir() {
        Some(dir)
    } else {
        eprintln!("skipping: data directory {} is absent", dir.display());
        None
    }
}

/// Reads a Puzzle JSON file (docs/formats.md) with the one formats reader,
/// accepting sets whose pieces repeat (the clue puzzles do).
pub fn load_puzzle(path: &std::path::Path) -> Puzzle {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    puzzle_json::read_with(&text, Duplicates::Allow)
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// A puzzle from the data directory, e.g. `brendan/s1_06x06.json`.
pub fn puzzle(relative: &str) -> Option<Puzzle> {
    data_dir().map(|d| load_puzzle(&d.join(relative)))
}

/// The text of a data file, e.g. `dlx/queens10.dlx`, or `None` with a notice.
pub fn data_file(relative: &str) -> Option<String> {
    let path = data_dir()?.join(relative);
    match std::fs::read_to_string(&path) {
        Ok(text) => Some(text),
        Err(e) => {
            eprintln!("skipping: cannot read {}: {e}", path.display());
            None
        }
    }
}
