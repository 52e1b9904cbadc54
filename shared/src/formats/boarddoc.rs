//! BoardDoc JSON: the only solver output (SPEC §4.7).
//!
//! One self-describing document per board: name, size, score and breaks,
//! the placement vector `board` (`piece*4 + rot`, `-1` empty), its
//! `board_hash`, both letter channels and the canonical viewer URL, so a
//! downstream tool needs nothing else. Score and breaks always come from
//! the canonical scorer; a document whose stored score, hash or channels
//! disagree with its board is refused on reading, because those fields are
//! what "did these two runs produce the same board" is answered with.
//!
//! `board_hash` is FNV-1a 64 over each entry of `board` as a 4-byte
//! little-endian i32. It is written as an unsigned JSON integer and kept as
//! a `u64` end to end: going through `f64` or `i64` would corrupt half of
//! all hashes.

use std::collections::BTreeMap;

use serde::Serialize;
use serde_json::Value;

use super::hints::{self, Pin};
use super::input::BoardInput;
use super::json_fields::{parse, Object};
use super::name::sanitize;
use super::{board_edges, board_pieces, url};
use crate::error::{cell_place, Error, Result};
use crate::model::{Board, Placement, MAX_COLOUR, MAX_SIDE};
use crate::score::evaluate;

const FORMAT: &str = "BoardDoc";
const FNV_OFFSET_BASIS: u64 = 0xcbf2_9ce4_8422_2325;
const FNV_PRIME: u64 = 0x0000_0100_0000_01b3;

/// FNV-1a 64 of a placement vector, each entry as 4 little-endian bytes.
pub fn board_hash(codes: &[i32]) -> u64 {
    codes
        .iter()
        .flat_map(|code| code.to_le_bytes())
        .fold(FNV_OFFSET_BASIS, |hash, byte| {
            (hash ^ byte as u64).wrapping_mul(FNV_PRIME)
        })
}

/// A BoardDoc, field for field in the order it is written.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct BoardDoc {
    pub name: String,
    /// Square boards only; otherwise `width` and `height`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub size: Option<usize>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub width: Option<usize>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub height: Option<usize>,
    pub score: u32,
    pub breaks: u32,
    pub board: Vec<i32>,
    pub board_hash: u64,
    pub board_edges: String,
    pub board_pieces: String,
    pub url: String,
    /// The `hints` string of the pinned cells, when there are any.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub hints: Option<String>,
    /// Fields added by whoever wrote the document (provenance: engine,
    /// seed, date...). Kept on reading and written back after the others.
    #[serde(flatten)]
    pub extra: BTreeMap<String, Value>,
}

impl BoardDoc {
    /// The document of an identified board. Fails when the board has no
    /// piece identities (match it against its set first).
    pub fn new(name: &str, board: &Board, pins: &[Pin]) -> Result<BoardDoc> {
        let codes = board.codes().ok_or_else(|| {
            Error::Invalid(
                "boarddoc: the board has no piece identities; match it against its piece set first"
                    .into(),
            )
        })?;
        let overlay = board_pieces::of_board(board).expect("identities are known");
        let name = sanitize(name);
        let score = evaluate(board);
        let square = board.width == board.height;
        Ok(BoardDoc {
            size: square.then_some(board.width),
            width: (!square).then_some(board.width),
            height: (!square).then_some(board.height),
            score: score.score,
            breaks: score.breaks,
            board_hash: board_hash(&codes),
            board: codes,
            board_edges: board_edges::write(board),
            board_pieces: board_pieces::write(&overlay),
            url: url::write(&name, board, pins),
            hints: (!pins.is_empty()).then(|| hints::write(pins)),
            extra: BTreeMap::new(),
            name,
        })
    }

    /// Pretty JSON, two-space indent like the Puzzle JSON files.
    pub fn to_json(&self) -> String {
        serde_json::to_string_pretty(self).expect("a BoardDoc always serialises")
    }

    /// Parses a document and checks it against itself: sizes, channels,
    /// hash and score must all describe the same board.
    pub fn parse(text: &str) -> Result<BoardDoc> {
        let map = parse(FORMAT, text)?;
        let doc = Object::top(FORMAT, &map);
        let name = doc.string("name")?.to_string();
        let size = doc
            .optional_uint("size", MAX_SIDE as u64)?
            .map(|s| s as usize);
        let width = doc
            .optional_uint("width", MAX_SIDE as u64)?
            .map(|s| s as usize);
        let height = doc
            .optional_uint("height", MAX_SIDE as u64)?
            .map(|s| s as usize);
        let mut board = Vec::new();
        for (pos, entry) in doc.array("board")?.iter().enumerate() {
            board.push(doc.int_at(entry, &format!("board[{pos}]"), -1, i32::MAX as i64)? as i32);
        }
        const KNOWN: [&str; 12] = [
            "name",
            "size",
            "width",
            "height",
            "score",
            "breaks",
            "board",
            "board_hash",
            "board_edges",
            "board_pieces",
            "url",
            "hints",
        ];
        let parsed = BoardDoc {
            name,
            size,
            width,
            height,
            score: doc.uint("score", u32::MAX as u64)? as u32,
            breaks: doc.uint("breaks", u32::MAX as u64)? as u32,
            board,
            board_hash: doc.uint("board_hash", u64::MAX)?,
            board_edges: doc.string("board_edges")?.to_string(),
            board_pieces: doc
                .optional_string("board_pieces")?
                .unwrap_or_default()
                .to_string(),
            url: doc.optional_string("url")?.unwrap_or_default().to_string(),
            hints: doc.optional_string("hints")?.map(str::to_string),
            extra: map
                .iter()
                .filter(|(key, _)| !KNOWN.contains(&key.as_str()))
                .map(|(key, value)| (key.clone(), value.clone()))
                .collect(),
        };
        parsed.to_input()?;
        Ok(parsed)
    }

    /// `(width, height)` from `size` or `width`/`height`.
    fn dimensions(&self) -> Result<(usize, usize)> {
        match (self.size, self.width, self.height) {
            (Some(s), None, None) => Ok((s, s)),
            (Some(s), Some(w), Some(h)) if (s, s) == (w, h) => Ok((s, s)),
            (None, Some(w), Some(h)) => Ok((w, h)),
            _ => Err(Error::format(
                FORMAT,
                "field \"size\"",
                "expected either size or both width and height, agreeing when all are given",
            )),
        }
    }

    /// The board this document describes, identities taken from `board`.
    pub fn to_input(&self) -> Result<BoardInput> {
        let (width, height) = self.dimensions()?;
        let field =
            |name: &str, reason: String| Error::format(FORMAT, format!("field \"{name}\""), reason);
        let mut board = board_edges::read(&self.board_edges, Some((width, height)), MAX_COLOUR)?;
        if self.board.len() != width * height {
            return Err(field(
                "board",
                format!(
                    "{} entries, expected {width}*{height} = {}",
                    self.board.len(),
                    width * height
                ),
            ));
        }
        let mut placements = Vec::with_capacity(self.board.len());
        for (pos, (&code, cell)) in self.board.iter().zip(&board.cells).enumerate() {
            let placement = match code {
                -1 => None,
                code if code >= 0 => Some(Placement {
                    piece: code as usize / 4,
                    rot: (code % 4) as u8,
                }),
                code => {
                    return Err(field(
                        "board",
                        format!(
                            "{}: entry {code} is neither -1 nor piece*4+rot",
                            cell_place(pos, width)
                        ),
                    ))
                }
            };
            if placement.is_some() != cell.is_some() {
                return Err(field(
                    "board",
                    format!(
                        "{}: entry {code} but board_edges has the cell {}",
                        cell_place(pos, width),
                        if cell.is_some() { "filled" } else { "empty" }
                    ),
                ));
            }
            placements.push(placement);
        }
        board.placements = Some(placements);
        let hash = board_hash(&self.board);
        if hash != self.board_hash {
            return Err(field(
                "board_hash",
                format!(
                    "{} is not the hash of the board vector, which is {hash}",
                    self.board_hash
                ),
            ));
        }
        let score = evaluate(&board);
        if (self.score, self.breaks) != (score.score, score.breaks) {
            return Err(field(
                "score",
                format!(
                    "says score {} breaks {}, but the board scores {} / {} (breaks {})",
                    self.score, self.breaks, score.score, score.max, score.breaks
                ),
            ));
        }
        let overlay = board_pieces::of_board(&board).expect("placements were just set");
        if !self.board_pieces.is_empty() {
            let stored = board_pieces::read(&self.board_pieces, width, height, None)?;
            if let Some(pos) = (0..stored.len()).find(|&pos| stored[pos] != overlay[pos]) {
                return Err(field(
                    "board_pieces",
                    format!("{} disagrees with the board vector", cell_place(pos, width)),
                ));
            }
        }
        let mut input = BoardInput::new(self.name.clone(), board);
        if let Some(text) = &self.hints {
            input.hints = hints::read(text, width, height)?;
        }
        input.check()?;
        Ok(input)
    }
}

/// Reads a BoardDoc back to its board.
pub fn read(text: &str) -> Result<BoardInput> {
    BoardDoc::parse(text)?.to_input()
}

/// Writes the BoardDoc of an identified board.
pub fn write(name: &str, board: &Board, pins: &[Pin]) -> Result<String> {
    Ok(BoardDoc::new(name, board, pins)?.to_json())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::Puzzle;

    fn puzzle() -> Puzzle {
        Puzzle {
            name: "t".into(),
            width: 2,
            height: 1,
            num_colors: 2,
            pieces: vec![[0, 1, 0, 0], [0, 0, 2, 1]],
            hints: vec![],
        }
    }

    #[test]
    fn hash_of_nothing_is_the_offset_basis() {
        assert_eq!(board_hash(&[]), FNV_OFFSET_BASIS);
    }

    #[test]
    fn writes_and_reads_back() {
        let p = puzzle();
        // Piece 1 turned twice shows colour 1 on its right, facing piece 0
        // turned twice: one matched seam.
        let board = Board::from_codes(&p, &[4 + 2, 2]).unwrap();
        let pins = [Pin { pos: 1, rot: 2 }];
        let text = write("two cells", &board, &pins).unwrap();
        let input = read(&text).unwrap();
        assert_eq!(input.board, board);
        assert_eq!(input.hints, pins);
        assert_eq!(input.name, "two_cells");
        let doc = BoardDoc::parse(&text).unwrap();
        assert_eq!((doc.width, doc.height, doc.size), (Some(2), Some(1), None));
        assert_eq!(doc.score, 1);
    }

    #[test]
    fn a_document_that_contradicts_itself_is_refused() {
        let p = puzzle();
        let board = Board::from_codes(&p, &[6, 2]).unwrap();
        let text = write("t", &board, &[]).unwrap();
        let doc = BoardDoc::parse(&text).unwrap();
        let bad_hash = text.replace(
            &doc.board_hash.to_string(),
            &(doc.board_hash ^ 1).to_string(),
        );
        let e = read(&bad_hash).unwrap_err().to_string();
        assert!(
            e.contains("field \"board_hash\"") && e.contains("is not the hash"),
            "{e}"
        );
        let bad_score = text.replace("\"score\": 1", "\"score\": 2");
        let e = read(&bad_score).unwrap_err().to_string();
        assert!(
            e.contains("field \"score\"") && e.contains("scores 1 / 1"),
            "{e}"
        );
        let bad_pieces = text.replace("002001", "001002");
        let e = read(&bad_pieces).unwrap_err().to_string();
        assert!(
            e.contains("field \"board_pieces\"") && e.contains("cell 0"),
            "{e}"
        );
    }

    #[test]
    fn unidentified_boards_have_no_document() {
        let board = Board::from_edges(1, 1, vec![Some([1, 1, 1, 1])]);
        let e = BoardDoc::new("x", &board, &[]).unwrap_err().to_string();
        assert!(e.contains("no piece identities"), "{e}");
    }

    #[test]
    fn extra_fields_survive() {
        let p = puzzle();
        let board = Board::from_codes(&p, &[6, 2]).unwrap();
        let mut doc = BoardDoc::new("t", &board, &[]).unwrap();
        doc.extra.insert("engine".into(), Value::from("backtrack"));
        let back = BoardDoc::parse(&doc.to_json()).unwrap();
        assert_eq!(back, doc);
    }
}
