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

/// Where benches look for the anchors, for the notice when they did not run.
pub const ANCHOR_HELP: &str =
    "../shared/anchors/run.sh beside the repository; anchor=none or E2_BENCH_ANCHOR=none skips it";

/// The anchors' `run.sh` beside the repository, unless absent or
/// `E2_BENCH_ANCHOR=none`: benches run an anchor on the same input in the
/// same run, since a figure from one host says nothing about the next.
pub fn anchors() -> Option<PathBuf> {
    let run_sh = PathBuf::from(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../shared/anchors/run.sh"
    ));
    let skipped = std::env::var("E2_BENCH_ANCHOR").is_ok_and(|v| v == "none");
    (!skipped && run_sh.is_file()).then_some(run_sh)
}

/// Runs `run.sh ARGS...` and returns its one JSON line; `None`, with the
/// reason on stderr, when it fails.
pub fn run_anchor(run_sh: &std::path::Path, args: &[&str]) -> Option<serde_json::Value> {
    let out = std::process::Command::new("bash")
        .arg(run_sh)
        .args(args)
        .output()
        .map_err(|e| eprintln!("anchor {}: {e}", run_sh.display()))
        .ok()?;
    let text = String::from_utf8_lossy(&out.stdout);
    let line = text.lines().rev().find(|l| l.trim_start().starts_with('{'));
    match line.and_then(|l| serde_json::from_str(l).ok()) {
        Some(v) if out.status.success() => Some(v),
        _ => {
            eprintln!(
                "anchor {} {}: no JSON line ({}): {}",
                run_sh.display(),
                args.join(" "),
                out.status,
                String::from_utf8_lossy(&out.stderr)
                    .lines()
                    .last()
                    .unwrap_or("")
            );
            None
        }
    }
}
