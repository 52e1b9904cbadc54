//! The one error type of the core crate.
//!
//! Every variant names *where* the problem is (the format and the place in
//! it: a cell, a line, a field) and *why*, so a one-line rendering of the
//! error is enough for a user to fix their input.

use std::fmt;

/// An error from reading, validating or converting puzzles and boards.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Error {
    /// Input in some notation could not be decoded.
    #[error("{format}: {place}: {reason}")]
    Format {
        /// The notation being read (`board_edges`, `Puzzle CSV`, ...).
        format: &'static str,
        /// Where in the input: `cell 17 (row 1, col 1)`, `line 3`, `field "hints"`.
        place: String,
        /// What was wrong and what was expected.
        reason: String,
    },
    /// A puzzle that decodes but breaks a rule of a piece set (docs/formats.md).
    #[error("puzzle: {place}: {reason}")]
    Puzzle { place: String, reason: String },
    /// A board that decodes but does not fit the puzzle it is checked against.
    #[error("board: {place}: {reason}")]
    Board { place: String, reason: String },
    /// An engine or generator was asked for something it cannot do.
    #[error("{0}")]
    Invalid(String),
}

impl Error {
    pub fn format(
        format: &'static str,
        place: impl fmt::Display,
        reason: impl fmt::Display,
    ) -> Self {
        Error::Format {
            format,
            place: place.to_string(),
            reason: reason.to_string(),
        }
    }
    pub fn puzzle(place: impl fmt::Display, reason: impl fmt::Display) -> Self {
        Error::Puzzle {
            place: place.to_string(),
            reason: reason.to_string(),
        }
    }
    pub fn board(place: impl fmt::Display, reason: impl fmt::Display) -> Self {
        Error::Board {
            place: place.to_string(),
            reason: reason.to_string(),
        }
    }
}

/// Names a cell the way every error message does: `cell 17 (row 1, col 1)`.
pub fn cell_place(pos: usize, width: usize) -> String {
    if width == 0 {
        return format!("cell {pos}");
    }
    format!("cell {pos} (row {}, col {})", pos / width, pos % width)
}

pub type Result<T> = std::result::Result<T, Error>;
