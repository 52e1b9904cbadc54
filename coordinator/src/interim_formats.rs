//! TEMPORARY stand-ins for `e2_shared::formats` (Puzzle JSON in, BoardDoc
//! JSON out), which is being written on the `formats` branch.
//!
//! The coordinator reads a submitted puzzle and writes best boards through
//! these two functions only. Once `formats` is merged, replace their bodies
//! with `e2_shared::formats`' Puzzle JSON reader and BoardDoc writer and
//! delete the rest of this file.

use e2_shared::{Board, Error, Hint, Puzzle};
use serde::Deserialize;
use serde_json::json;

#[derive(Deserialize)]
struct PuzzleJson {
    name: String,
    width: usize,
    height: usize,
    #[serde(rename = "numColors")]
    num_colors: u8,
    pieces: Vec<[u8; 4]>,
    #[serde(default)]
    hints: Vec<HintJson>,
}

#[derive(Deserialize)]
struct HintJson {
    pos: usize,
    piece: usize,
    rot: u8,
}

/// Reads and validates Puzzle JSON (SPEC §4.6).
pub fn read_puzzle_json(text: &str) -> Result<Puzzle, Error> {
    let raw: PuzzleJson = serde_json::from_str(text)
        .map_err(|e| Error::format("Puzzle JSON", format!("line {} column {}", e.line(), e.column()), e))?;
    let puzzle = Puzzle {
        name: raw.name,
        width: raw.width,
        height: raw.height,
        num_colors: raw.num_colors,
        pieces: raw.pieces,
        hints: raw
            .hints
            .into_iter()
            .map(|h| Hint {
                pos: h.pos,
                piece: h.piece,
                rot: h.rot,
            })
            .collect(),
    };
    puzzle.validate_allowing_duplicates()?;
    Ok(puzzle)
}

/// BoardDoc JSON (SPEC §4.7) of a board whose identities are known.
pub fn board_doc(puzzle: &Puzzle, board: &Board) -> serde_json::Value {
    let codes = board.codes().unwrap_or_else(|| vec![-1; board.len()]);
    let score = e2_shared::score::evaluate(board);
    let edges: String = board
        .cells
        .iter()
        .flat_map(|c| c.unwrap_or([0; 4]))
        .map(|c| (b'a' + c) as char)
        .collect();
    let pieces: String = codes
        .iter()
        .map(|&c| if c < 0 { "000".to_string() } else { format!("{:03}", c / 4 + 1) })
        .collect();
    let name = url_name(&puzzle.name);
    let hints = puzzle
        .hints
        .iter()
        .map(|h| format!("{}.{}", h.pos, h.rot))
        .collect::<Vec<_>>()
        .join("-");
    let mut url = format!("https://eternity2.dev/viewer?puzzle={name}");
    if board.width == board.height {
        url += &format!("&puzzle_size={}", board.width);
    } else {
        url += &format!("&board_w={}&board_h={}", board.width, board.height);
    }
    url += &format!("&board_edges={edges}");
    if !hints.is_empty() {
        url += &format!("&hints={hints}");
    }
    let mut doc = json!({ "name": name });
    let map = doc.as_object_mut().expect("object");
    if board.width == board.height {
        map.insert("size".into(), json!(board.width));
    } else {
        map.insert("width".into(), json!(board.width));
        map.insert("height".into(), json!(board.height));
    }
    map.insert("score".into(), json!(score.score));
    map.insert("breaks".into(), json!(score.breaks));
    map.insert("board".into(), json!(codes));
    map.insert("board_hash".into(), json!(board_hash(&codes)));
    map.insert("board_edges".into(), json!(edges));
    map.insert("board_pieces".into(), json!(pieces));
    map.insert("url".into(), json!(url));
    if !hints.is_empty() {
        map.insert("hints".into(), json!(hints));
    }
    doc
}

/// FNV-1a 64 over each code as a little-endian i32 (SPEC §4.7).
pub fn board_hash(codes: &[i32]) -> u64 {
    codes
        .iter()
        .flat_map(|c| c.to_le_bytes())
        .fold(0xcbf2_9ce4_8422_2325u64, |h, b| (h ^ b as u64).wrapping_mul(0x100_0000_01b3))
}

/// SPEC §4.8 name rule: keep `[A-Za-z0-9_]`, squeeze the rest to one `_`.
fn url_name(name: &str) -> String {
    let mut out = String::new();
    for ch in name.chars() {
        if ch.is_ascii_alphanumeric() || ch == '_' {
            out.push(ch);
        } else if !out.ends_with('_') {
            out.push('_');
        }
    }
    if out.is_empty() {
        "eternity2_board".into()
    } else {
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_follow_the_url_rule() {
        assert_eq!(url_name("JBlackwood+PMcGavin_469"), "JBlackwood_PMcGavin_469");
        assert_eq!(url_name("a_-b"), "a_b");
        assert_eq!(url_name("+++"), "_");
        assert_eq!(url_name(""), "eternity2_board");
    }

    #[test]
    fn a_bad_puzzle_names_the_problem() {
        let e = read_puzzle_json(r#"{"name":"x","width":2,"height":1,"numColors":1,"pieces":[[0,1,0,0]]}"#)
            .unwrap_err()
            .to_string();
        assert!(e.contains("\"pieces\"") && e.contains("has 1 pieces"), "{e}");
        let e = read_puzzle_json("{").unwrap_err().to_string();
        assert!(e.starts_with("Puzzle JSON: line 1"), "{e}");
    }
}
