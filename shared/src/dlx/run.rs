//! What a caller tells one run of Algorithm C, and what it hears back.
//!
//! The engine speaks in option numbers; the layers above (the E2 encoding,
//! the text reader) translate. A run is bounded by [`Limits`], may be
//! steered by a [`crate::search::Control`], reports to a [`Listener`], and
//! ends with a [`Report`] whose [`Position`] (when the run did not finish)
//! resumes it exactly.

use serde::{Deserialize, Serialize};

use crate::search::{RunEnd, POLL_INTERVAL};

/// Bounds on one run. The default is "run to the end".
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    /// Stop after visiting this many nodes in this run (a resumed run's
    /// earlier nodes do not count against it).
    pub max_nodes: Option<u64>,
    /// Stop once this many solutions have been counted in total (1 = first
    /// solution, 2 = uniqueness check).
    pub max_solutions: Option<u64>,
    /// Hand the listener a [`Position`] every this many nodes.
    pub checkpoint_every: Option<u64>,
    /// Poll the [`crate::search::Control`] every this many nodes (a power of
    /// two; tests lower it to provoke splits on small problems).
    pub poll_interval: u64,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            max_nodes: None,
            max_solutions: None,
            checkpoint_every: None,
            poll_interval: POLL_INTERVAL,
        }
    }
}

impl Limits {
    /// Run to the end.
    pub fn none() -> Self {
        Self::default()
    }

    /// At most `nodes` nodes.
    pub fn nodes(nodes: u64) -> Self {
        Limits {
            max_nodes: Some(nodes),
            ..Self::default()
        }
    }

    /// Stop at the `n`-th solution.
    pub fn solutions(n: u64) -> Self {
        Limits {
            max_solutions: Some(n),
            ..Self::default()
        }
    }
}

/// A resumable search position in option numbers.
///
/// `forced` are the options fixed above the searched subtree (the prefix,
/// extended by any levels a split froze); `path` is the option chosen at
/// each level below them. The position is "about to enter the node below
/// `path`": `solutions` and `nodes` were counted before it.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Position {
    pub forced: Vec<u32>,
    pub path: Vec<u32>,
    pub solutions: u64,
    pub nodes: u64,
}

/// The outcome of one run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Report {
    /// Solutions counted, including those of the position resumed from.
    pub solutions: u64,
    /// Search-tree nodes visited, including those of the position resumed
    /// from. A node is an entry to step C2, as Knuth's dlx2 counts them
    /// (a solution is a node too).
    pub nodes: u64,
    /// Knuth's updates in this run (removals of an item from the active
    /// list or of a node from an item list). Not carried across a resume.
    pub updates: u64,
    pub end: RunEnd,
    /// Where to resume, unless the subtree was finished.
    pub position: Option<Position>,
    /// The options of the first solution this run found, if any.
    pub first: Option<Vec<u32>>,
}

/// Hears what a run finds. Every method has a do-nothing default, and the
/// engine is generic over the listener, so a counting run pays nothing.
pub trait Listener {
    /// Set to `true` to receive [`Listener::solution`] calls (the engine
    /// then translates nodes to option numbers at each solution).
    const WANTS_SOLUTIONS: bool = false;
    /// Set to `true` if [`Listener::donate`] really hands work over; only
    /// then does the engine honour split requests.
    const ACCEPTS_DONATIONS: bool = false;

    /// A solution: all its options, the forced ones first.
    fn solution(&mut self, _options: &[u32]) {}
    /// A periodic checkpoint (see [`Limits::checkpoint_every`]).
    fn checkpoint(&mut self, _position: &Position) {}
    /// Subtrees the run gives away and will never search: each is a full
    /// list of forced options.
    fn donate(&mut self, _prefixes: Vec<Vec<u32>>) {}
    /// Prefix enumeration: a node at the requested depth (or a solution
    /// above it), as the full list of options leading to it.
    fn leaf(&mut self, _options: &[u32]) {}
}

/// A listener that only counts.
pub struct Quiet;

impl Listener for Quiet {}
