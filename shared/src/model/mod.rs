//! The board model: the one representation every format, engine and command
//! agrees on.
//!
//! A *puzzle* is a piece set (each piece its URDL colours at rotation 0) and
//! pinned hints. A *board* is a grid of cells, each empty or holding a placed
//! edge quadruple; when the piece set is known, each filled cell also carries
//! its piece identity and rotation. Edges are the board (they render and
//! score); identity is an overlay recovered by matching quadruples against
//! the piece set (docs/formats.md), so a board read from a notation that carries only
//! edges is still a whole board.

mod board;
mod edges;
mod puzzle;

pub use board::{Board, Placement};
pub use edges::{canonical_form, rotate, rotation_to, Colour, Edges, DOWN, LEFT, RIGHT, UP};
pub use puzzle::{Hint, PieceIndex, Puzzle, MAX_COLOUR, MAX_SIDE};
