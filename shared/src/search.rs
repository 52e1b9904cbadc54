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
//!
//! The words of the engine contract live here too ([`Engine`], [`Limits`],
//! [`CountReport`], [`FirstReport`]), so that the engines use the contract's
//! vocabulary without depending on `crate::engine`, which dispatches to
//! them: the arrows run one way, engine -> backtrack/dlx -> search.

use std::fmt;
use std::str::FromStr;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

use serde::{Deserialize, Serialize};

use crate::error::{Error, Result};
use crate::model::Board;

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
    pub engine: Engine,
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
/// The backtracker's open-node walk polls less often
/// ([`OPEN_POLL_INTERVAL`]); [`Engine::poll_interval`] gives each engine's
/// longest interval.
pub const POLL_INTERVAL: u64 = 1 << 14;

/// How often the backtracker's open-node walk (its counting walk on sets of
/// distinct pieces) polls. Each of its polls is a hand-over: the open stack
/// is laid down as the masked walk's state, the masked walk runs to the
/// mark and polls, and the open stack is laid again (`backtrack/open.rs`).
/// At [`POLL_INTERVAL`] those hand-overs cost about 2% of a 7×7 count
/// (paired runs of the two binaries: 1.010–1.024 faster at this interval);
/// eight times further apart they cost an eighth of that, and a stop or
/// split still lands within about a millisecond on a release build.
pub const OPEN_POLL_INTERVAL: u64 = 1 << 17;

/// An engine, by name.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Engine {
    /// The bitmask backtracker (`crate::backtrack`): counts, first
    /// solutions and best-score search, under any fill order.
    #[default]
    Backtrack,
    /// Knuth's Algorithm C over the XCC encoding (`crate::dlx`): counts and
    /// first solutions; its own most-constrained-item order.
    Dlx,
}

impl Engine {
    /// Every engine, in a fixed order (the contract suite runs them all).
    pub const ALL: [Engine; 2] = [Engine::Backtrack, Engine::Dlx];

    /// The most nodes the engine walks between two looks at its
    /// [`Control`] when no budget or checkpoint comes sooner: a stop or a
    /// split request is answered within this many nodes.
    pub fn poll_interval(self) -> u64 {
        match self {
            Engine::Backtrack => OPEN_POLL_INTERVAL,
            Engine::Dlx => POLL_INTERVAL,
        }
    }

    /// The name used on the command line, in job records and checkpoints.
    pub fn name(self) -> &'static str {
        match self {
            Engine::Backtrack => "backtrack",
            Engine::Dlx => "dlx",
        }
    }
}

impl fmt::Display for Engine {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for Engine {
    type Err = Error;

    fn from_str(s: &str) -> Result<Self> {
        Engine::ALL
            .into_iter()
            .find(|e| e.name() == s)
            .ok_or_else(|| {
                let names: Vec<&str> = Engine::ALL.iter().map(|e| e.name()).collect();
                Error::Invalid(format!(
                    "unknown engine \"{s}\"; expected one of: {}",
                    names.join(", ")
                ))
            })
    }
}

/// Bounds on one run, the same for every engine. The default runs to the
/// end, uninterrupted.
#[derive(Debug, Clone, Copy, Default)]
pub struct Limits<'a> {
    /// Nodes this call may visit before stopping with a checkpoint (a
    /// resumed run's earlier nodes do not count against it).
    pub max_nodes: Option<u64>,
    /// Hand a checkpoint to the callback every this many nodes.
    pub checkpoint_every: Option<u64>,
    /// Stop and split requests from the driver; donated prefixes go to
    /// [`Control::donate`].
    pub control: Option<&'a Control>,
}

impl<'a> Limits<'a> {
    /// Run to the end.
    pub fn none() -> Self {
        Self::default()
    }

    /// At most `nodes` nodes in this run.
    pub fn nodes(nodes: u64) -> Self {
        Limits {
            max_nodes: Some(nodes),
            ..Self::default()
        }
    }

    pub fn with_control(self, control: &'a Control) -> Self {
        Limits {
            control: Some(control),
            ..self
        }
    }
}

/// The outcome of a count, the same for every engine. `solutions` and
/// `nodes` include what a resumed checkpoint had already counted.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CountReport {
    /// Distinct perfect boards counted in the subtree so far.
    pub solutions: u64,
    /// Nodes visited in the subtree so far (what a node is depends on the
    /// engine: see `docs/engines.md`).
    pub nodes: u64,
    pub end: RunEnd,
    /// Where to resume; `None` once the subtree was searched to the end.
    pub checkpoint: Option<Checkpoint>,
}

/// The outcome of a first-solution search.
#[derive(Debug, Clone)]
pub struct FirstReport {
    pub board: Option<Board>,
    pub nodes: u64,
    pub end: RunEnd,
}
