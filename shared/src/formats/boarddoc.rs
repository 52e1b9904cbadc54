//! BoardDoc JSON: the only solver output (docs/formats.md).
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
use std::io;

use serde::Serialize;
use serde_json::ser::Formatter;
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

/// FNV-1a 64 of a byte stream (offset basis 0xcbf29ce484222325, prime
/// 0x100000001b3).
pub fn fnv1a64(bytes: impl IntoIterator<Item = u8>) -> u64 {
    bytes.into_iter().fold(FNV_OFFSET_BASIS, |hash, byte| {
        (hash ^ byte as u64).wrapping_mul(FNV_PRIME)
    })
}

/// FNV-1a 64 of a placement vector, each entry as 4 little-endian bytes.
pub fn board_hash(codes: &[i32]) -> u64 {
    fnv1a64(codes.iter().flat_map(|code| code.to_le_bytes()))
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

    /// The document as JSON: one field per line, two-space indent, and
    /// arrays on one line (`"board": [3, 16, ...]`),
    /// so the 256-entry vector stays one line rather than 256.
    pub fn to_json(&self) -> String {
        let mut out = Vec::new();
        let mut writer = serde_json::Serializer::with_formatter(&mut out, FieldPerLine::default());
        self.serialize(&mut writer)
            .expect("a BoardDoc always serialises");
        String::from_utf8(out).expect("serde_json writes UTF-8")
    }

    /// Parses a complete document (every field this crate writes) and
    /// checks it against itself: sizes, channels, hash and score must all
    /// describe the same board.
    pub fn parse(text: &str) -> Result<BoardDoc> {
        let stated = Stated::parse(text)?;
        stated.to_input()?;
        let missing = |key: &str| Error::format(FORMAT, format!("field \"{key}\""), "missing");
        Ok(BoardDoc {
            score: stated.score.ok_or_else(|| missing("score"))?,
            breaks: stated.breaks.ok_or_else(|| missing("breaks"))?,
            board_hash: stated.board_hash.ok_or_else(|| missing("board_hash"))?,
            board: stated.board.ok_or_else(|| missing("board"))?,
            board_pieces: stated.board_pieces.ok_or_else(|| missing("board_pieces"))?,
            url: stated.url.ok_or_else(|| missing("url"))?,
            name: stated.name,
            size: stated.size,
            width: stated.width,
            height: stated.height,
            board_edges: stated.board_edges,
            hints: stated.hints,
            extra: stated.extra,
        })
    }

    /// The board this document describes, identities taken from `board`.
    pub fn to_input(&self) -> Result<BoardInput> {
        Stated {
            name: self.name.clone(),
            size: self.size,
            width: self.width,
            height: self.height,
            score: Some(self.score),
            breaks: Some(self.breaks),
            board: Some(self.board.clone()),
            board_hash: Some(self.board_hash),
            board_edges: self.board_edges.clone(),
            board_pieces: Some(self.board_pieces.clone()).filter(|p| !p.is_empty()),
            url: Some(self.url.clone()),
            hints: self.hints.clone(),
            extra: BTreeMap::new(),
        }
        .to_input()
    }
}

/// What a document states. Only `name` and `board_edges` are required to
/// read a board back: documents from other tools may lack the identity
/// channels, and every field present is checked against the others.
struct Stated {
    name: String,
    size: Option<usize>,
    width: Option<usize>,
    height: Option<usize>,
    score: Option<u32>,
    breaks: Option<u32>,
    board: Option<Vec<i32>>,
    board_hash: Option<u64>,
    board_edges: String,
    board_pieces: Option<String>,
    url: Option<String>,
    hints: Option<String>,
    extra: BTreeMap<String, Value>,
}

const KNOWN_FIELDS: [&str; 12] = [
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

impl Stated {
    fn parse(text: &str) -> Result<Stated> {
        let map = parse(FORMAT, text)?;
        let doc = Object::top(FORMAT, &map);
        let side = |key: &str| -> Result<Option<usize>> {
            Ok(doc.optional_uint(key, MAX_SIDE as u64)?.map(|s| s as usize))
        };
        let count = |key: &str| -> Result<Option<u32>> {
            Ok(doc.optional_uint(key, u32::MAX as u64)?.map(|n| n as u32))
        };
        let board = match doc.optional("board") {
            None => None,
            Some(_) => Some(
                doc.array("board")?
                    .iter()
                    .enumerate()
                    .map(|(pos, entry)| {
                        Ok(
                            doc.int_at(entry, &format!("board[{pos}]"), -1, i32::MAX as i64)?
                                as i32,
                        )
                    })
                    .collect::<Result<Vec<i32>>>()?,
            ),
        };
        Ok(Stated {
            name: doc.string("name")?.to_string(),
            size: side("size")?,
            width: side("width")?,
            height: side("height")?,
            score: count("score")?,
            breaks: count("breaks")?,
            board,
            board_hash: doc.optional_uint("board_hash", u64::MAX)?,
            board_edges: doc.string("board_edges")?.to_string(),
            board_pieces: doc.optional_string("board_pieces")?.map(str::to_string),
            url: doc.optional_string("url")?.map(str::to_string),
            hints: doc.optional_string("hints")?.map(str::to_string),
            extra: map
                .iter()
                .filter(|(key, _)| !KNOWN_FIELDS.contains(&key.as_str()))
                .map(|(key, value)| (key.clone(), value.clone()))
                .collect(),
        })
    }

    /// `(width, height)` from `size` or `width`/`height`; with neither,
    /// the board is square and `board_edges` says how big.
    fn dimensions(&self) -> Result<Option<(usize, usize)>> {
        match (self.size, self.width, self.height) {
            (None, None, None) => Ok(None),
            (Some(s), None, None) => Ok(Some((s, s))),
            (Some(s), Some(w), Some(h)) if (s, s) == (w, h) => Ok(Some((s, s))),
            (None, Some(w), Some(h)) => Ok(Some((w, h))),
            _ => Err(Error::format(
                FORMAT,
                "field \"size\"",
                "expected either size or both width and height, agreeing when all are given",
            )),
        }
    }

    fn to_input(&self) -> Result<BoardInput> {
        let field =
            |name: &str, reason: String| Error::format(FORMAT, format!("field \"{name}\""), reason);
        let mut board = board_edges::read(&self.board_edges, self.dimensions()?, MAX_COLOUR)?;
        let (width, height) = (board.width, board.height);
        if let Some(codes) = &self.board {
            board.placements = Some(placements_of(codes, &board)?);
            let hash = board_hash(codes);
            if let Some(stated) = self.board_hash.filter(|&stated| stated != hash) {
                return Err(field(
                    "board_hash",
                    format!("{stated} is not the hash of the board vector, which is {hash}"),
                ));
            }
        }
        let score = evaluate(&board);
        let stated_score = (
            self.score.unwrap_or(score.score),
            self.breaks.unwrap_or(score.breaks),
        );
        if stated_score != (score.score, score.breaks) {
            return Err(field(
                "score",
                format!(
                    "says score {} breaks {}, but the board scores {} / {} (breaks {})",
                    stated_score.0, stated_score.1, score.score, score.max, score.breaks
                ),
            ));
        }
        let mut input = BoardInput::new(self.name.clone(), board);
        if let Some(digits) = &self.board_pieces {
            let stated = board_pieces::read(digits, width, height, None)?;
            match board_pieces::of_board(&input.board) {
                Some(from_board) => {
                    if let Some(pos) = (0..stated.len()).find(|&pos| stated[pos] != from_board[pos])
                    {
                        return Err(field(
                            "board_pieces",
                            format!("{} disagrees with the board vector", cell_place(pos, width)),
                        ));
                    }
                }
                None => input.pieces_overlay = Some(stated),
            }
        }
        if let Some(text) = &self.hints {
            input.hints = hints::read(text, width, height)?;
        }
        input.check()?;
        Ok(input)
    }
}

/// The placements of a `board` vector, which must fill exactly the cells
/// `board_edges` fills.
fn placements_of(codes: &[i32], board: &Board) -> Result<Vec<Option<Placement>>> {
    let width = board.width;
    let fail = |reason: String| Error::format(FORMAT, "field \"board\"", reason);
    if codes.len() != board.cells.len() {
        return Err(fail(format!(
            "{} entries, expected {}*{} = {}",
            codes.len(),
            board.width,
            board.height,
            board.cells.len()
        )));
    }
    codes
        .iter()
        .zip(&board.cells)
        .enumerate()
        .map(|(pos, (&code, cell))| {
            let placement = match code {
                -1 => None,
                code if code >= 0 => Some(Placement {
                    piece: code as usize / 4,
                    rot: (code % 4) as u8,
                }),
                code => {
                    return Err(fail(format!(
                        "{}: entry {code} is neither -1 nor piece*4+rot",
                        cell_place(pos, width)
                    )))
                }
            };
            if placement.is_some() != cell.is_some() {
                return Err(fail(format!(
                    "{}: entry {code} but board_edges has the cell {}",
                    cell_place(pos, width),
                    if cell.is_some() { "filled" } else { "empty" }
                )));
            }
            Ok(placement)
        })
        .collect()
}

/// A JSON layout with each object member on its own indented line and
/// arrays kept inline, `[1, 2, 3]`.
#[derive(Default)]
struct FieldPerLine {
    depth: usize,
    members_written: bool,
}

impl FieldPerLine {
    fn indent<W: ?Sized + io::Write>(&self, writer: &mut W) -> io::Result<()> {
        (0..self.depth).try_for_each(|_| writer.write_all(b"  "))
    }
}

impl Formatter for FieldPerLine {
    fn begin_object<W: ?Sized + io::Write>(&mut self, writer: &mut W) -> io::Result<()> {
        self.depth += 1;
        self.members_written = false;
        writer.write_all(b"{")
    }

    fn end_object<W: ?Sized + io::Write>(&mut self, writer: &mut W) -> io::Result<()> {
        self.depth -= 1;
        if self.members_written {
            writer.write_all(b"\n")?;
            self.indent(writer)?;
        }
        writer.write_all(b"}")
    }

    fn begin_object_key<W: ?Sized + io::Write>(
        &mut self,
        writer: &mut W,
        first: bool,
    ) -> io::Result<()> {
        writer.write_all(if first { b"\n" } else { b",\n" })?;
        self.indent(writer)
    }

    fn begin_object_value<W: ?Sized + io::Write>(&mut self, writer: &mut W) -> io::Result<()> {
        writer.write_all(b": ")
    }

    fn end_object_value<W: ?Sized + io::Write>(&mut self, _writer: &mut W) -> io::Result<()> {
        self.members_written = true;
        Ok(())
    }

    fn begin_array_value<W: ?Sized + io::Write>(
        &mut self,
        writer: &mut W,
        first: bool,
    ) -> io::Result<()> {
        if first {
            Ok(())
        } else {
            writer.write_all(b", ")
        }
    }
}

/// Reads a BoardDoc back to its board. Beyond `name` and `board_edges`
/// every field is optional, and each one present must agree with the rest.
pub fn read(text: &str) -> Result<BoardInput> {
    Stated::parse(text)?.to_input()
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
        assert!(
            text.starts_with("{\n  \"name\": \"two_cells\",\n  \"width\": 2,\n"),
            "{text}"
        );
        assert!(text.contains("\n  \"board\": [6, 2],\n"), "{text}");
        assert!(text.ends_with("\n  \"hints\": \"1.2\"\n}"), "{text}");
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
    fn documents_without_identities_still_give_their_board() {
        let text = r#"{"name": "edges only", "board_edges": "abaaaaab"}"#;
        let e = read(text).unwrap_err().to_string();
        assert!(e.contains("8 letters is not 4*n*n"), "{e}");
        let text = r#"{"name": "e", "width": 2, "height": 1, "board_edges": "abaaaaab", "board_pieces": "002001"}"#;
        let input = read(text).unwrap();
        assert_eq!(
            input.board.cells,
            vec![Some([0, 1, 0, 0]), Some([0, 0, 0, 1])]
        );
        assert_eq!(input.board.placements, None);
        assert_eq!(input.pieces_overlay, Some(vec![Some(1), Some(0)]));
        // The typed document needs every field this crate writes.
        let e = BoardDoc::parse(text).unwrap_err().to_string();
        assert!(e.contains("field \"score\": missing"), "{e}");
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
