//! # e2-shared: the crate every part of e2 uses
//!
//! Everything that is true of Eternity II boards independently of how the
//! search is distributed lives here, one concept per module:
//!
//! - [`model`]: colours, edge quadruples, rotation, the puzzle (piece set and
//!   hints) and the board (placed edges plus, when known, piece identities).
//! - [`score`]: the one canonical scorer (docs/formats.md). Every score e2 prints or
//!   stores comes from it.
//! - [`formats`]: one module per community notation, each reading and writing
//!   the one board model, byte for byte (docs/formats.md).
//! - [`generator`] and [`layouts`]: seeded, faithful puzzles at any size and
//!   the hint layouts with their pinned-seam floor.
//! - [`order`]: fill orders as pure functions of (size, hints) (docs/engines.md).
//! - [`engine`]: the one contract every engine meets ([`engine::Engine`],
//!   capabilities, count / first / best on a prefix subtree, one checkpoint
//!   type), and the best-job settings both coordinator and worker read.
//! - [`backtrack`] and [`dlx`]: the two engines. They know nothing of gRPC,
//!   run a prefix subtree, and stop and resume exactly.
//! - [`estimate`]: Knuth's random-probe estimate of a count's tree, by
//!   puzzle, order and prefix, before walking it.
//! - [`render`]: an SVG picture of a board.
//!
//! The crate has no I/O beyond what its callers hand it and no async: the
//! coordinator and workers wrap it, never the other way round.

// The chained walk instantiates one function per level, each calling the next.
#![recursion_limit = "1024"]

pub mod backtrack;
pub mod count_plan;
pub mod dlx;
pub mod engine;
pub mod error;
pub mod estimate;
pub mod formats;
pub mod generator;
pub mod layouts;
pub mod model;
pub mod order;
pub mod render;
pub mod rng;
pub mod score;
pub mod search;
pub mod study;
pub mod symmetry;

pub use error::Error;
pub use model::{rotate, Board, Edges, Hint, Placement, Puzzle};
