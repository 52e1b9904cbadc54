//! The converter: any decoded input to every output notation at once.
//!
//! Some outputs need more than the input carries. A bare `board_edges`
//! string has no piece identities, so `board-pieces` and `boarddoc` need
//! the piece set, and a board alone is not a puzzle. Rather than fail the
//! whole conversion, each output is either its text or a one-line reason
//! it cannot be derived, so `e2 convert` can print everything it can and
//! say exactly what to add for the rest. A piece set that contradicts the
//! input (a cell whose edges match no piece) is an error, not a reason:
//! the user asked for a pairing that does not exist.

use std::fmt;
use std::str::FromStr;

use super::detect::Decoded;
use super::input::BoardInput;
use super::{board_edges, board_pieces, boarddoc, e2pieces, hints, puzzle_csv, puzzle_json, url};
use crate::error::{Error, Result};
use crate::model::Puzzle;
use crate::score::{evaluate, Score};

/// Every output the converter writes, named as the CLI's `--to` takes them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum OutputFormat {
    BoardEdges,
    Hints,
    BoardPieces,
    E2Pieces,
    BoardDoc,
    Url,
    BucasUrl,
    PuzzleJson,
    PuzzleCsv,
}

impl OutputFormat {
    /// All outputs, in the order the report prints them.
    pub const ALL: [OutputFormat; 9] = [
        OutputFormat::BoardEdges,
        OutputFormat::Hints,
        OutputFormat::BoardPieces,
        OutputFormat::E2Pieces,
        OutputFormat::BoardDoc,
        OutputFormat::Url,
        OutputFormat::BucasUrl,
        OutputFormat::PuzzleJson,
        OutputFormat::PuzzleCsv,
    ];

    pub fn name(self) -> &'static str {
        match self {
            OutputFormat::BoardEdges => "board-edges",
            OutputFormat::Hints => "hints",
            OutputFormat::BoardPieces => "board-pieces",
            OutputFormat::E2Pieces => "e2pieces",
            OutputFormat::BoardDoc => "boarddoc",
            OutputFormat::Url => "url",
            OutputFormat::BucasUrl => "bucas-url",
            OutputFormat::PuzzleJson => "puzzle-json",
            OutputFormat::PuzzleCsv => "puzzle-csv",
        }
    }
}

impl fmt::Display for OutputFormat {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for OutputFormat {
    type Err = Error;

    fn from_str(s: &str) -> Result<Self> {
        OutputFormat::ALL
            .into_iter()
            .find(|f| f.name() == s)
            .ok_or_else(|| {
                let names: Vec<&str> = OutputFormat::ALL.iter().map(|f| f.name()).collect();
                Error::Invalid(format!(
                    "unknown output format {s:?}; expected one of {}",
                    names.join(", ")
                ))
            })
    }
}

/// One output: its text, or why it cannot be derived from this input.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Output {
    pub format: OutputFormat,
    /// The text, or the reason (without the format name) it is unavailable.
    pub value: std::result::Result<String, String>,
}

impl Output {
    /// The text, or the one-line message to print instead, e.g.
    /// `board-pieces: needs the piece set: pass --puzzle`.
    pub fn text(&self) -> std::result::Result<&str, String> {
        self.value
            .as_deref()
            .map_err(|reason| format!("{}: {reason}", self.format))
    }
}

/// Every output of one input, with the board's score.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Conversion {
    /// One entry per [`OutputFormat::ALL`], in that order.
    pub outputs: Vec<Output>,
    /// Of the board (for a puzzle input, of its hints alone).
    pub score: Score,
}

impl Conversion {
    pub fn get(&self, format: OutputFormat) -> &Output {
        self.outputs
            .iter()
            .find(|o| o.format == format)
            .expect("every format has an output")
    }

    /// The "print everything" report: each format's name then its value,
    /// one block each, then `score: S / MAX (breaks B)`.
    pub fn report(&self) -> String {
        let mut out = String::new();
        for output in &self.outputs {
            out.push_str(output.format.name());
            out.push('\n');
            match &output.value {
                Ok(text) if text.is_empty() => out.push_str("(none)"),
                Ok(text) => out.push_str(text.trim_end_matches('\n')),
                Err(reason) => {
                    out.push_str("(unavailable: ");
                    out.push_str(reason);
                    out.push(')');
                }
            }
            out.push_str("\n\n");
        }
        out.push_str(&format!(
            "score: {} / {} (breaks {})\n",
            self.score.score, self.score.max, self.score.breaks
        ));
        out
    }
}

const NEEDS_SET: &str = "needs the piece set: pass --puzzle";

/// Converts `decoded` to every output. `set` is the piece set to match a
/// board against; a puzzle input is its own set.
pub fn convert(decoded: &Decoded, set: Option<&Puzzle>) -> Result<Conversion> {
    let (input, puzzle) = match decoded {
        Decoded::Puzzle(puzzle) => {
            if let Some(set) = set.filter(|set| set.pieces != puzzle.pieces) {
                return Err(Error::Invalid(format!(
                    "the input is already a puzzle and its pieces differ from those of \"{}\": leave out --puzzle",
                    set.name
                )));
            }
            (BoardInput::from_puzzle_hints(puzzle)?, Some(puzzle.clone()))
        }
        Decoded::Board(input) => {
            let mut input = input.clone();
            let puzzle = match set {
                Some(set) => {
                    input.identify(set)?;
                    Some(input.to_puzzle(set)?)
                }
                None => None,
            };
            (input, puzzle)
        }
    };
    let outputs = OutputFormat::ALL
        .into_iter()
        .map(|format| Output {
            format,
            value: render(format, &input, puzzle.as_ref()),
        })
        .collect();
    Ok(Conversion {
        outputs,
        score: evaluate(&input.board),
    })
}

fn render(
    format: OutputFormat,
    input: &BoardInput,
    puzzle: Option<&Puzzle>,
) -> std::result::Result<String, String> {
    let board = &input.board;
    let not_a_puzzle =
        || "a board alone is not a puzzle: pass --puzzle with its piece set".to_string();
    match format {
        OutputFormat::BoardEdges => Ok(board_edges::write(board)),
        OutputFormat::Hints => Ok(hints::write(&input.hints)),
        OutputFormat::BoardPieces => board_pieces::of_board(board)
            .or_else(|| input.pieces_overlay.clone())
            .map(|overlay| board_pieces::write(&overlay))
            .ok_or_else(|| NEEDS_SET.to_string()),
        OutputFormat::E2Pieces => Ok(e2pieces::write(board)),
        OutputFormat::BoardDoc => match board.placements {
            Some(_) => boarddoc::write(&input.name, board, &input.hints).map_err(|e| reason(&e)),
            None => Err(NEEDS_SET.to_string()),
        },
        OutputFormat::Url => Ok(url::write(&input.name, board, &input.hints)),
        OutputFormat::BucasUrl => Ok(url::write_bucas(&input.name, board)),
        OutputFormat::PuzzleJson => puzzle.map(puzzle_json::write).ok_or_else(not_a_puzzle),
        OutputFormat::PuzzleCsv => match puzzle {
            Some(puzzle) => puzzle_csv::write(puzzle).map_err(|e| reason(&e)),
            None => Err(not_a_puzzle()),
        },
    }
}

/// An error as a reason under an output's name: the notation is already
/// named by the output, so only the place and the cause remain.
fn reason(error: &Error) -> String {
    match error {
        Error::Format { place, reason, .. } => format!("{place}: {reason}"),
        other => other.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::formats::detect::read_any;

    #[test]
    fn output_names_parse_back() {
        for format in OutputFormat::ALL {
            assert_eq!(format.name().parse::<OutputFormat>().unwrap(), format);
        }
        let e = "board_edges"
            .parse::<OutputFormat>()
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("\"board_edges\"") && e.contains("board-edges"),
            "{e}"
        );
    }

    #[test]
    fn a_bare_board_says_what_it_needs() {
        let decoded = read_any("abaaaaab", None).unwrap_err();
        // 8 letters is not 4*n*n: a bare string must be square.
        assert!(decoded.to_string().contains("8 letters"));
        let decoded = read_any("puzzle=p&board_w=2&board_h=1&board_edges=abaaaaab", None).unwrap();
        let conversion = convert(&decoded, None).unwrap();
        assert_eq!(
            conversion.get(OutputFormat::BoardEdges).value.as_deref(),
            Ok("abaaaaab")
        );
        assert_eq!(
            conversion
                .get(OutputFormat::BoardPieces)
                .text()
                .unwrap_err(),
            "board-pieces: needs the piece set: pass --puzzle"
        );
        assert!(conversion.get(OutputFormat::PuzzleCsv).value.is_err());
        assert_eq!(
            conversion.score,
            Score {
                score: 1,
                max: 1,
                breaks: 0
            }
        );
        let report = conversion.report();
        assert!(
            report.starts_with("board-edges\nabaaaaab\n\nhints\n(none)\n\n"),
            "{report}"
        );
        assert!(report.ends_with("score: 1 / 1 (breaks 0)\n"), "{report}");
    }
}
