//! Recognising which notation a pasted text is in.
//!
//! Users paste whatever they have: a link, a parameter block copied out of
//! one, a file. The notations are told apart by their first bytes, tried in
//! a fixed order (a link of either viewer, a bare parameter block, a
//! BoardDoc, a Puzzle JSON, a Puzzle CSV, a bare `board_edges` string,
//! `e2pieces.txt`), and the text is then handed to that notation's reader,
//! so a malformed input gets that reader's precise message instead of a
//! vague "not recognised".

use std::fmt;

use super::input::BoardInput;
use super::json_fields::parse;
use super::name::DEFAULT_NAME;
use super::{
    board_edges, boarddoc, e2pieces, puzzle_csv, puzzle_json, url, Duplicates, Strictness,
};
use crate::error::{Error, Result};
use crate::model::{Puzzle, MAX_COLOUR};

/// The notations an input can be in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum InputKind {
    /// An eternity2.dev or e2.bucas.name link.
    Link,
    /// `puzzle=...&board_edges=...` without a host.
    ParameterBlock,
    BoardDoc,
    PuzzleJson,
    PuzzleCsv,
    BoardEdges,
    E2Pieces,
}

impl fmt::Display for InputKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            InputKind::Link => "URL",
            InputKind::ParameterBlock => "parameter block",
            InputKind::BoardDoc => "BoardDoc JSON",
            InputKind::PuzzleJson => "Puzzle JSON",
            InputKind::PuzzleCsv => "Puzzle CSV",
            InputKind::BoardEdges => "board_edges",
            InputKind::E2Pieces => "e2pieces.txt",
        })
    }
}

/// What an input decodes to: a board, or a puzzle (piece set and hints).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Decoded {
    Board(BoardInput),
    Puzzle(Puzzle),
}

/// A decoded input, the notation it was recognised as, and (lenient
/// reading only) what could not be decoded.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Detected {
    pub kind: InputKind,
    pub decoded: Decoded,
    pub problems: Vec<Error>,
}

/// Recognises and reads `text` strictly. `name_hint` (usually a file stem)
/// names inputs that carry no name of their own.
pub fn read_any(text: &str, name_hint: Option<&str>) -> Result<Decoded> {
    detect(text, name_hint, Strictness::Strict).map(|d| d.decoded)
}

/// Recognises and reads `text`. Lenient reading decodes what it can of the
/// letter channel and accepts puzzles whose pieces repeat up to rotation.
pub fn detect(text: &str, name_hint: Option<&str>, strictness: Strictness) -> Result<Detected> {
    let kind = sniff(text)?;
    let board_name = name_hint.unwrap_or(DEFAULT_NAME);
    let duplicates = match strictness {
        Strictness::Strict => Duplicates::Refuse,
        Strictness::Lenient => Duplicates::Allow,
    };
    let mut problems = Vec::new();
    let decoded = match kind {
        InputKind::Link | InputKind::ParameterBlock => {
            let (input, found) = url::read(text, strictness)?;
            problems = found;
            Decoded::Board(input)
        }
        InputKind::BoardDoc => Decoded::Board(boarddoc::read(text)?),
        InputKind::PuzzleJson => Decoded::Puzzle(puzzle_json::read_with(text, duplicates)?),
        InputKind::PuzzleCsv => Decoded::Puzzle(puzzle_csv::read_with(
            text,
            name_hint.unwrap_or("puzzle"),
            duplicates,
        )?),
        InputKind::BoardEdges => {
            let board = match strictness {
                Strictness::Strict => board_edges::read(text, None, MAX_COLOUR)?,
                Strictness::Lenient => {
                    let (board, found) = board_edges::read_lenient(text, None, MAX_COLOUR)?;
                    problems = found;
                    board
                }
            };
            Decoded::Board(BoardInput::new(board_name, board))
        }
        InputKind::E2Pieces => Decoded::Board(BoardInput::new(
            board_name,
            e2pieces::read(text, None, MAX_COLOUR)?,
        )),
    };
    Ok(Detected {
        kind,
        decoded,
        problems,
    })
}

/// Reads a piece set given as Puzzle JSON or Puzzle CSV (the `--puzzle`
/// argument of the converter and of every solver).
pub fn read_puzzle(text: &str, name_hint: Option<&str>, duplicates: Duplicates) -> Result<Puzzle> {
    match sniff(text)? {
        InputKind::PuzzleJson => puzzle_json::read_with(text, duplicates),
        InputKind::PuzzleCsv => {
            puzzle_csv::read_with(text, name_hint.unwrap_or("puzzle"), duplicates)
        }
        other => Err(Error::format(
            "input",
            "start",
            format!("this is a {other}, not a puzzle: expected Puzzle JSON or Puzzle CSV"),
        )),
    }
}

/// The notation of `text`, from its first bytes.
pub fn sniff(text: &str) -> Result<InputKind> {
    let trimmed = text.trim();
    if trimmed.is_empty() {
        return Err(Error::format("input", "start", "the input is empty"));
    }
    if url::is_link(trimmed) {
        return Ok(InputKind::Link);
    }
    if trimmed.starts_with(['{', '[']) {
        let map = parse("JSON", trimmed)?;
        return if map.contains_key("board_edges") || map.contains_key("board") {
            Ok(InputKind::BoardDoc)
        } else if map.contains_key("pieces") {
            Ok(InputKind::PuzzleJson)
        } else {
            Err(Error::format(
                "JSON",
                "top level",
                "neither a BoardDoc (it has no \"board_edges\") nor a Puzzle (it has no \"pieces\")",
            ))
        };
    }
    // None of the other notations uses '=', and every parameter does.
    if trimmed.contains('=') {
        return Ok(InputKind::ParameterBlock);
    }
    let mut lines = trimmed.lines().map(str::trim).filter(|l| !l.is_empty());
    let first = lines.next().unwrap_or_default();
    if first.bytes().all(|b| b.is_ascii_digit()) && lines.next().is_some_and(|l| l.contains(',')) {
        return Ok(InputKind::PuzzleCsv);
    }
    if !trimmed.contains(char::is_whitespace) {
        if trimmed.bytes().all(|b| b.is_ascii_digit()) {
            return Err(Error::format(
                "input",
                "start",
                "only digits: board_pieces alone is an overlay, not a board; give it with board_edges in a parameter block",
            ));
        }
        return Ok(InputKind::BoardEdges);
    }
    if first.split_whitespace().count() == 4 {
        return Ok(InputKind::E2Pieces);
    }
    Err(Error::format(
        "input",
        "start",
        "not recognised: expected a URL, a parameter block, a BoardDoc or Puzzle JSON, a Puzzle CSV, a board_edges string or e2pieces.txt lines",
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_notation_is_recognised() {
        let cases = [
            (
                "https://eternity2.dev/viewer?puzzle=x&board_edges=abab",
                InputKind::Link,
            ),
            ("e2.bucas.name/#board_edges=abab", InputKind::Link),
            ("puzzle=x&board_edges=abab", InputKind::ParameterBlock),
            (
                "{\"board_edges\": \"\", \"board\": []}",
                InputKind::BoardDoc,
            ),
            ("{\"pieces\": []}", InputKind::PuzzleJson),
            ("2\n1111111111111111,1,1,1\n", InputKind::PuzzleCsv),
            ("  abab\n", InputKind::BoardEdges),
            ("1 2 3 4\n", InputKind::E2Pieces),
        ];
        for (text, kind) in cases {
            assert_eq!(sniff(text).unwrap(), kind, "{text}");
        }
    }

    #[test]
    fn unrecognisable_input_says_what_was_expected() {
        let e = sniff("hello world").unwrap_err().to_string();
        assert!(
            e.contains("not recognised") && e.contains("board_edges"),
            "{e}"
        );
        let e = sniff("{\"nothing\": 1}").unwrap_err().to_string();
        assert!(e.contains("neither a BoardDoc"), "{e}");
        let e = sniff("001002003004").unwrap_err().to_string();
        assert!(e.contains("board_pieces alone"), "{e}");
        let e = sniff("[1, 2]").unwrap_err().to_string();
        assert!(e.contains("expected a JSON object"), "{e}");
        let e = sniff("").unwrap_err().to_string();
        assert!(e.contains("empty"), "{e}");
    }

    #[test]
    fn bare_inputs_take_the_name_hint() {
        let Decoded::Board(input) = read_any("abab", Some("mine")).unwrap() else {
            panic!("a board_edges string is a board");
        };
        assert_eq!(input.name, "mine");
        assert_eq!(input.board.cells, vec![Some([0, 1, 0, 1])]);
    }
}
