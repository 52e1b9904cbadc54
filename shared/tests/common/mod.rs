//! Shared helpers for the backtracker tests and bench: locating the
//! community data and reading Puzzle JSON without the formats module.

#![allow(dead_code)]

use std::path::PathBuf;

use e2_shared::model::{Hint, Puzzle};

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

/// Reads a Puzzle JSON file (SPEC §4.6).
pub fn load_puzzle(path: &std::path::Path) -> Puzzle {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let v: serde_json::Value = serde_json::from_str(&text).expect("puzzle JSON");
    let num = |v: &serde_json::Value| v.as_u64().expect("a number") as usize;
    Puzzle {
        name: v["name"].as_str().unwrap_or("puzzle").to_string(),
        width: num(&v["width"]),
        height: num(&v["height"]),
        num_colors: num(&v["numColors"]) as u8,
        pieces: v["pieces"]
            .as_array()
            .expect("pieces")
            .iter()
            .map(|p| {
                let e: Vec<u8> = p.as_array().unwrap().iter().map(|c| num(c) as u8).collect();
                [e[0], e[1], e[2], e[3]]
            })
            .collect(),
        hints: v["hints"]
            .as_array()
            .map(|hs| {
                hs.iter()
                    .map(|h| Hint {
                        pos: num(&h["pos"]),
                        piece: num(&h["piece"]),
                        rot: num(&h["rot"]) as u8,
                    })
                    .collect()
            })
            .unwrap_or_default(),
    }
}

/// A puzzle from the data directory, e.g. `brendan/s1_06x06.json`.
pub fn puzzle(relative: &str) -> Option<Puzzle> {
    data_dir().map(|d| load_puzzle(&d.join(relative)))
}
