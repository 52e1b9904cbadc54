//! Community notations (docs/formats.md), each read and written byte for byte
//! through the one board model.
//!
//! The community has written the same board a dozen ways; each notation
//! here is its own module with a `read` and a `write`, and nothing else
//! knows its bytes. They meet in two places: [`input::BoardInput`], the
//! board every board notation decodes to (edges, hints, and the piece
//! identities when the notation carries them), and [`convert()`], which turns
//! any decoded input into every output at once. [`detect()`] recognises which
//! notation a pasted text is in, so a user never has to say.
//!
//! Readers are strict by default: a wrong length, a letter out of range or
//! an undecodable cell is an [`Error`](crate::Error) naming the cell, line
//! or field and what was expected. The only forgiving reader is the
//! letters channel read with [`Strictness::Lenient`], which decodes what it
//! can and reports the rest as empty cells plus a list of problems.

pub mod board_edges;
pub mod board_pieces;
pub mod boarddoc;
pub mod convert;
pub mod detect;
pub mod e2pieces;
pub mod hints;
pub mod input;
mod json_fields;
pub mod motifs;
pub mod name;
pub mod puzzle_csv;
pub mod puzzle_json;
pub mod url;

pub use boarddoc::{board_hash, BoardDoc};
pub use convert::{convert, Conversion, Output, OutputFormat};
pub use detect::{detect, read_any, read_puzzle, Decoded, Detected, InputKind};
pub use hints::Pin;
pub use input::BoardInput;
pub use motifs::MotifsOrder;

/// How a reader treats input it cannot fully decode.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Strictness {
    /// Any fault is an error (the default).
    #[default]
    Strict,
    /// Undecodable cells become empty and are reported as problems; a
    /// puzzle may repeat pieces up to rotation.
    Lenient,
}

/// Whether a puzzle reader accepts pieces that repeat up to rotation.
///
/// A real set never does, so refusing is the default; the official clue
/// puzzles do, and engines can still count their distinct boards.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Duplicates {
    #[default]
    Refuse,
    Allow,
}

impl Duplicates {
    fn validate(self, puzzle: &crate::Puzzle) -> crate::error::Result<()> {
        match self {
            Duplicates::Refuse => puzzle.validate(),
            Duplicates::Allow => puzzle.validate_allowing_duplicates(),
        }
    }
}
