//! Shared helpers for the tests that read the community data, and its
//! Puzzle JSON files. Such tests carry
//! `#[cfg_attr(e2_no_data, ignore = "...")]` (see `shared/build.rs`), so
//! they run only where the data is; there, a missing file is a failure.

#![allow(dead_code)]

use std::path::PathBuf;

use e2_shared::formats::{puzzle_json, Duplicates};
use e2_shared::model::Puzzle;

/// The community data directory beside the repository.
pub fn data_dir() -> PathBuf {
    let dir = PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/../../shared/data"));
    assert!(
        dir.is_dir(),
        "{} is absent: this test needs the community data (it is ignored on \
         clones built without it; `touch shared/build.rs` after adding it)",
        dir.display()
    );
    dir
}

/// Reads a Puzzle JSON file (docs/formats.md) with the one formats reader,
/// accepting sets whose pieces repeat (the clue puzzles do).
pub fn load_puzzle(path: &std::path::Path) -> Puzzle {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    puzzle_json::read_with(&text, Duplicates::Allow)
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// A puzzle from the data directory, e.g. `brendan/s1_06x06.json`.
pub fn puzzle(relative: &str) -> Puzzle {
    load_puzzle(&data_dir().join(relative))
}

/// The text of a data file, e.g. `dlx/queens10.dlx`.
pub fn data_file(relative: &str) -> String {
    let path = data_dir().join(relative);
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}
