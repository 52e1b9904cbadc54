//! The vocabulary both engines share with whoever drives them.
//!
//! A *subtask* is a prefix: a list of forced placements. An engine runs the
//! subtree under a prefix, honouring the puzzle's hints, and reports counts
//! and boards. A [`Control`] lets its driver stop it or ask it to give away
//! untried sibling branches (as new prefixes) without locks in the hot loop:
//! the engine polls two atomics every few thousand nodes.
//!
//! A [`Checkpoint`] is a search position: the choice made at each level of
//! the engine's stack below the prefix, and what was counted before that
//! position. Resuming from it finishes with exactly the count an
//! uninterrupted run gives. It is plain serde data, so a worker can ship it
//! to the coordinator as opaque JSON.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

use serde::{Deserialize, Serialize};

/// One forced placement of a prefix: `piece` on `pos` at `rot`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub struct Forced {
    pub pos: usize,
    pub piece: usize,
    pub rot: u8,
}

/// A subtask: forced placements applied (after the hints) before searching.
pub type Prefix = Vec<Forced>;

/// How a run ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum RunEnd {
    /// The whole subtree was searched.
    Finished,
    /// The node budget ran out; a checkpoint says where.
    BudgetSpent,
    /// The stop flag was raised; a checkpoint says where.
    Stopped,
    /// First-solution mode found one.
    FoundFirst,
}

/// A resumable search position.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Checkpoint {
    /// The engine that took it (serialised by name, `"backtrack"` or
    /// `"dlx"`): a checkpoint resumes only that engine.
    pub engine: crate::engine::Engine,
    /// The prefix of the subtask the checkpoint belongs to.
    pub prefix: Prefix,
    /// The choice index at each level of the stack below the prefix; the
    /// position is "about to search the subtree of this node".
    pub path: Vec<u32>,
    /// Solutions counted before this position.
    pub solutions: u64,
    /// Nodes visited before this position.
    pub nodes: u64,
}

/// The driver's handle on a running engine: stop it, or ask it to split.
#[derive(Debug, Default)]
pub struct Control {
    stop: AtomicBool,
    split_requested: AtomicBool,
    donated: Mutex<Vec<Prefix>>,
}

impl Control {
    pub fn new() -> Arc<Self> {
        Arc::new(Control::default())
    }

    /// Asks the engine to stop at its next poll; it returns a checkpoint.
    pub fn stop(&self) {
        self.stop.store(true, Ordering::Relaxed);
    }

    pub fn is_stopped(&self) -> bool {
        self.stop.load(Ordering::Relaxed)
    }

    /// Asks the engine to give away its untried siblings at its shallowest
    /// open level. Collect them with [`Control::take_donated`].
    pub fn request_split(&self) {
        self.split_requested.store(true, Ordering::Relaxed);
    }

    /// Engine side: is a split wanted? Clears the request.
    pub fn split_wanted(&self) -> bool {
        self.split_requested.load(Ordering::Relaxed)
            && self.split_requested.swap(false, Ordering::AcqRel)
    }

    /// Engine side: hand over new prefixes the engine will no longer search.
    pub fn donate(&self, prefixes: Vec<Prefix>) {
        self.donated.lock().expect("donated lock").extend(prefixes);
    }

    /// Driver side: the prefixes donated since the last call.
    pub fn take_donated(&self) -> Vec<Prefix> {
        std::mem::take(&mut *self.donated.lock().expect("donated lock"))
    }
}

/// How often (in nodes) engines poll their [`Control`]; a power of two.
pub const POLL_INTERVAL: u64 = 1 << 14;
