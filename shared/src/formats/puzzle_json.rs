//! Puzzle JSON: the only solver input (docs/formats.md).
//!
//! `{"name", "width", "height", "numColors", "pieces": [[u,r,d,l], ...],
//! "hints": [{"pos", "piece", "rot"}, ...]}`, pieces at rotation 0 with
//! border 0, `piece` a 0-based index into `pieces`.
//!
//! Reading walks the document field by field so a fault names its field,
//! then applies every rule of [`Puzzle::validate`]. Writing uses
//! `serde_json`'s two-space pretty layout, which is byte for byte the
//! layout of the published `variant_NN.json` files, so a puzzle read from
//! one of them writes back identical.

use serde::Serialize;

use super::json_fields::{parse, Object};
use super::Duplicates;
use crate::error::Result;
use crate::model::{Edges, Hint, Puzzle, MAX_COLOUR, MAX_SIDE};

const FORMAT: &str = "Puzzle JSON";

/// Reads and validates a puzzle whose pieces are distinct up to rotation.
pub fn read(text: &str) -> Result<Puzzle> {
    read_with(text, Duplicates::Refuse)
}

/// Reads a puzzle, allowing or refusing pieces that repeat up to rotation.
pub fn read_with(text: &str, duplicates: Duplicates) -> Result<Puzzle> {
    let map = parse(FORMAT, text)?;
    let puzzle = from_object(&Object::top(FORMAT, &map))?;
    duplicates.validate(&puzzle)?;
    Ok(puzzle)
}

/// The structural decoding, before the rules of a set are checked.
fn from_object(doc: &Object) -> Result<Puzzle> {
    let name = doc.string("name")?.to_string();
    let width = doc.uint("width", MAX_SIDE as u64)? as usize;
    let height = doc.uint("height", MAX_SIDE as u64)? as usize;
    let num_colors = doc.uint("numColors", MAX_COLOUR as u64)? as u8;
    let mut pieces = Vec::new();
    for (i, piece) in doc.array("pieces")?.iter().enumerate() {
        let path = format!("pieces[{i}]");
        let colours = doc.array_at(piece, &path)?;
        if colours.len() != 4 {
            return Err(doc.error(
                &path,
                format!(
                    "{} colours, expected 4 (up, right, down, left)",
                    colours.len()
                ),
            ));
        }
        let mut edges: Edges = [0; 4];
        for (side, colour) in colours.iter().enumerate() {
            edges[side] = doc.uint_at(colour, &format!("{path}[{side}]"), MAX_COLOUR as u64)? as u8;
        }
        pieces.push(edges);
    }
    let mut hints = Vec::new();
    if doc.optional("hints").is_some() {
        for (k, hint) in doc.array("hints")?.iter().enumerate() {
            let hint = doc.object_at(hint, format!("hints[{k}]"))?;
            hints.push(Hint {
                pos: hint.uint("pos", u32::MAX as u64)? as usize,
                piece: hint.uint("piece", u32::MAX as u64)? as usize,
                rot: hint.uint("rot", 3)? as u8,
            });
        }
    }
    Ok(Puzzle {
        name,
        width,
        height,
        num_colors,
        pieces,
        hints,
    })
}

/// The document in the published layout: two-space indent, one number per
/// line, no trailing newline.
pub fn write(puzzle: &Puzzle) -> String {
    #[derive(Serialize)]
    struct HintDoc {
        pos: usize,
        piece: usize,
        rot: u8,
    }
    #[derive(Serialize)]
    #[serde(rename_all = "camelCase")]
    struct PuzzleDoc<'a> {
        name: &'a str,
        width: usize,
        height: usize,
        num_colors: u8,
        pieces: &'a [Edges],
        hints: Vec<HintDoc>,
    }
    let doc = PuzzleDoc {
        name: &puzzle.name,
        width: puzzle.width,
        height: puzzle.height,
        num_colors: puzzle.num_colors,
        pieces: &puzzle.pieces,
        hints: puzzle
            .hints
            .iter()
            .map(|h| HintDoc {
                pos: h.pos,
                piece: h.piece,
                rot: h.rot,
            })
            .collect(),
    };
    serde_json::to_string_pretty(&doc).expect("a puzzle always serialises")
}

#[cfg(test)]
mod tests {
    use super::*;

    const TWO_BY_TWO: &str = r#"{"name": "t", "width": 2, "height": 2, "numColors": 2,
        "pieces": [[0,1,2,0],[0,0,1,1],[2,2,0,0],[1,0,0,2]],
        "hints": [{"pos": 3, "piece": 2, "rot": 2}]}"#;

    #[test]
    fn reads_and_writes_back() {
        let puzzle = read(TWO_BY_TWO).unwrap();
        assert_eq!(puzzle.pieces[2], [2, 2, 0, 0]);
        assert_eq!(
            puzzle.hints,
            vec![Hint {
                pos: 3,
                piece: 2,
                rot: 2
            }]
        );
        assert_eq!(read(&write(&puzzle)).unwrap(), puzzle);
    }

    #[test]
    fn structural_faults_name_the_field() {
        let e = read(&TWO_BY_TWO.replace("[2,2,0,0]", "[2,2,0]"))
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("field \"pieces[2]\"") && e.contains("3 colours, expected 4"),
            "{e}"
        );
        let e = read(&TWO_BY_TWO.replace("[2,2,0,0]", "[2,2,\"x\",0]"))
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("field \"pieces[2][2]\"") && e.contains("\"x\""),
            "{e}"
        );
        let e = read(&TWO_BY_TWO.replace("\"numColors\": 2,", ""))
            .unwrap_err()
            .to_string();
        assert!(e.contains("field \"numColors\": missing"), "{e}");
        let e = read(&TWO_BY_TWO.replace("\"rot\": 2", "\"rot\": 4"))
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("field \"hints[0].rot\"") && e.contains("0..=3"),
            "{e}"
        );
        let e = read("{\"name\": ").unwrap_err().to_string();
        assert!(
            e.contains("line 1, column") && e.contains("not valid JSON"),
            "{e}"
        );
    }

    #[test]
    fn duplicate_pieces_need_permission() {
        let text = TWO_BY_TWO.replace("[1,0,0,2]", "[2,0,0,1]");
        let e = read(&text).unwrap_err().to_string();
        assert!(
            e.contains("piece 3") && e.contains("equals piece 0") && e.contains("up to rotation"),
            "{e}"
        );
        read_with(&text, Duplicates::Allow).unwrap();
    }
}
