//! Helpers shared by the `dlx_*` integration tests: where the community
//! data lives, and a minimal Puzzle JSON reader (the real one belongs to
//! `formats`, which these tests must not depend on).

#![allow(dead_code)]

use std::path::PathBuf;

use e2_shared::model::{Hint, Puzzle};

/// `shared/data` beside the repository, or `None` (with a notice) if absent.
pub fn data_dir() -> Option<PathBuf> {
    let dir = PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/../../shared/data"));
    if dir.is_dir() {
        Some(dir)
    } else {
        eprintln!("skipped: no data directory at {}", dir.display());
        None
    }
}

/// Reads a data file, or `None` (with a notice) if the data is absent.
pub fn data_file(relative: &str) -> Option<String> {
    let path = data_dir()?.join(relative);
    match std::fs::read_to_string(&path) {
        Ok(text) => Some(text),
        Err(e) => {
            eprintln!("skipped: cannot read {}: {e}", path.display());
            None
        }
    }
}

/// A Puzzle JSON document (SPEC §4.6).
pub fn puzzle_from_json(text: &str) -> Puzzle {
    let v: serde_json::Value = serde_json::from_str(text).expect("puzzle JSON");
    let edges = |e: &serde_json::Value| -> [u8; 4] {
        let a = e.as_array().expect("four colours");
        [0, 1, 2, 3].map(|k| a[k].as_u64().expect("colour") as u8)
    };
    Puzzle {
        name: v["name"].as_str().unwrap_or("").to_string(),
        width: v["width"].as_u64().expect("width") as usize,
        height: v["height"].as_u64().expect("height") as usize,
        num_colors: v["numColors"].as_u64().expect("numColors") as u8,
        pieces: v["pieces"]
            .as_array()
            .expect("pieces")
            .iter()
            .map(edges)
            .collect(),
        hints: v["hints"]
            .as_array()
            .map(|hints| {
                hints
                    .iter()
                    .map(|h| Hint {
                        pos: h["pos"].as_u64().unwrap() as usize,
                        piece: h["piece"].as_u64().unwrap() as usize,
                        rot: h["rot"].as_u64().unwrap() as u8,
                    })
                    .collect()
            })
            .unwrap_or_default(),
    }
}

/// A puzzle from the data directory, e.g. `brendan/s1_04x04.json`.
pub fn data_puzzle(relative: &str) -> Option<Puzzle> {
    data_file(relative).map(|text| puzzle_from_json(&text))
}
