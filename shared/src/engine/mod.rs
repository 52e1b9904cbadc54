//! The one contract every engine meets.
//!
//! e2 has more than one way to search a subtree (today the bitmask
//! backtracker and Knuth's Algorithm C; tomorrow perhaps a faster counter or
//! a GPU walk), and everything that drives a search, from the worker's task
//! loop to `e2 count` and the benches, must not care which. So an engine is
//! two things:
//!
//! - a name, [`Engine`]: a small `Copy` enum like
//!   [`crate::order::FillOrder`], with [`Engine::ALL`], names, [`FromStr`],
//!   and the [`Capabilities`] it has. Asking an engine for what it cannot do
//!   (best-score search on DLX, which knows only perfect boards) is an
//!   [`Error`] from [`Engine::require`], raised where a job is accepted,
//!   never a silent substitute;
//! - an implementation of [`Contract`], one zero-sized type per engine
//!   (`engine/backtrack.rs`, `engine/dlx.rs`), reached through the
//!   dispatching methods on [`Engine`] ([`Engine::count`],
//!   [`Engine::first`], [`Engine::best`], [`Engine::prefixes`]). The
//!   dispatch is a `match`, not `dyn`: a run is one call, and inside it
//!   the engine's loop is fully monomorphised.
//!
//! Every engine speaks the same vocabulary ([`crate::search`]): a
//! [`Subtree`] is a puzzle, a fill order and a prefix of forced
//! placements; [`Limits`] bound a run (nodes, periodic checkpoints, a
//! [`Control`] to stop it or ask it to split); a run ends in one
//! [`CountReport`] whose [`Checkpoint`] (one type for all engines, tagged
//! with the engine that took it) resumes it exactly. Counts are cumulative:
//! a run resumed from a checkpoint reports the checkpoint's solutions and
//! nodes plus its own.
//!
//! `shared/tests/engine_contract.rs` runs one test suite over
//! [`Engine::ALL`]: resume at random points, periodic checkpoints, prefix
//! sums equal to the whole, splits that lose and duplicate nothing, stop.
//! Adding an engine means a variant of [`Engine`] (defined with the rest
//! of the vocabulary in `crate::search`), its [`Contract`] implementation,
//! and one arm per dispatching method; the suite then runs it too.
//!
//! See `docs/engines.md` for what each engine does and what a node is.

mod backtrack;
mod best_search;
mod dlx;

pub use crate::search::{CountReport, Engine, FirstReport, Limits};
pub use best_search::{BestSearch, ELITE_BEAM_FANOUT, ELITE_BEAM_WIDTH, TASK_DEPTH};

use crate::backtrack::BestReport;
use crate::error::{Error, Result};
use crate::estimate::{Estimate, Probes};
use crate::model::{Board, Puzzle};
use crate::order::FillOrder;
use crate::search::{Checkpoint, Control, Prefix, RunEnd};
use std::time::{Duration, Instant};

/// The fill order of count jobs: a checkpoint resumes only under the order
/// that took it, and prefixes are comparable only within one order.
pub const COUNT_ORDER: FillOrder = FillOrder::RowMajor;

/// What a caller can ask of an engine.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Ask {
    /// Count every perfect board of a subtree.
    Count,
    /// Find one perfect board.
    First,
    /// Search for the highest-scoring (possibly partial) boards.
    Best,
}

/// What an engine can do.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Capabilities {
    pub count: bool,
    pub first: bool,
    /// Best-score search: scoring partial boards.
    pub best: bool,
    /// Whether the engine walks the caller's fill order (otherwise the
    /// order of a [`Subtree`] is ignored and the engine picks its own).
    pub fill_orders: bool,
}

impl Engine {
    pub fn capabilities(self) -> Capabilities {
        match self {
            Engine::Backtrack => backtrack::Backtrack::CAPABILITIES,
            Engine::Dlx => dlx::Dlx::CAPABILITIES,
        }
    }

    /// Can this engine do `ask`?
    pub fn can(self, ask: Ask) -> bool {
        let c = self.capabilities();
        match ask {
            Ask::Count => c.count,
            Ask::First => c.first,
            Ask::Best => c.best,
        }
    }

    /// `Ok` when the engine can do `ask`, else the one-line reason.
    pub fn require(self, ask: Ask) -> Result<()> {
        if self.can(ask) {
            return Ok(());
        }
        Err(Error::Invalid(match (self, ask) {
            (Engine::Dlx, Ask::Best) => "engine dlx cannot run a best-score search: \
                DLX knows only perfect boards and cannot score partial boards \
                (use --engine backtrack)"
                .to_string(),
            _ => format!("engine {self} cannot {ask:?}"),
        }))
    }

    /// Every prefix `depth` levels down the engine's search of `puzzle`
    /// (under `order`, for engines that walk fill orders) that can still
    /// lead to a perfect board; their counts add up to the whole count.
    /// A depth beyond the free cells is clamped.
    pub fn prefixes(self, puzzle: &Puzzle, order: FillOrder, depth: usize) -> Result<Vec<Prefix>> {
        Ok(self.cut(puzzle, order, depth)?.prefixes)
    }

    /// [`Engine::prefixes`], with the nodes of the tree above them that no
    /// subtask under one of them visits: what a count cut at `depth` adds
    /// to its tasks' nodes to total the whole tree's.
    pub fn cut(self, puzzle: &Puzzle, order: FillOrder, depth: usize) -> Result<Cut> {
        match self {
            Engine::Backtrack => backtrack::Backtrack::cut(puzzle, order, depth),
            Engine::Dlx => dlx::Dlx::cut(puzzle, order, depth),
        }
    }

    /// Knuth's estimate of the tree this engine would walk to count
    /// `subtree` (its puzzle, fill order or rule, and prefix): each engine
    /// probes its own tree, so `nodes` is in the nodes its count reports
    /// (a placement for the backtracker, a level entry for DLX) and a time
    /// from its node rate is a time.
    pub fn estimate(self, subtree: &Subtree<'_>, config: &Probes) -> Result<Estimate> {
        crate::estimate::check(config)?;
        match self {
            Engine::Backtrack => backtrack::Backtrack::estimate(subtree, config),
            Engine::Dlx => dlx::Dlx::estimate(subtree, config),
        }
    }

    /// Runs this engine's count of `subtree` on this thread for about
    /// `at_least` (or to the end of the subtree, if sooner) and reports its
    /// node rate. Runs of growing node budgets, each from the start, so the
    /// one measured is a single uninterrupted stretch of the walk, at most
    /// twice the time.
    pub fn measure_rate(self, subtree: &Subtree<'_>, at_least: Duration) -> Result<Rate> {
        let mut budget: u64 = 1 << 16;
        loop {
            let start = Instant::now();
            let report = self.count(subtree, None, &Limits::nodes(budget), |_| {})?;
            let elapsed = start.elapsed();
            let whole_tree = report.end == RunEnd::Finished;
            if whole_tree || elapsed >= at_least {
                return Ok(Rate {
                    nodes: report.nodes,
                    seconds: elapsed.as_secs_f64(),
                    whole_tree,
                });
            }
            // Aim past `at_least` from what this run took, at least doubling.
            let scale = (at_least.as_secs_f64() / elapsed.as_secs_f64().max(1e-6) * 1.1).max(2.0);
            budget = (budget as f64 * scale.min(1e6)) as u64;
        }
    }

    /// Counts the perfect boards of `subtree`, or resumes from `resume`
    /// (a checkpoint this engine took in this subtree, whose prefix extends
    /// the subtree's once a split froze levels: one of another engine or
    /// from outside the subtree is refused), within `limits`, handing
    /// periodic checkpoints to `on_checkpoint`.
    pub fn count(
        self,
        subtree: &Subtree<'_>,
        resume: Option<&Checkpoint>,
        limits: &Limits<'_>,
        on_checkpoint: impl FnMut(&Checkpoint),
    ) -> Result<CountReport> {
        if let Some(cp) = resume {
            if cp.engine != self {
                return Err(Error::Invalid(format!(
                    "checkpoint: taken by the {} engine, cannot be resumed by {self}",
                    cp.engine
                )));
            }
            // A split freezes the levels above what it gave away, so a
            // checkpoint's prefix may extend the subtree's; it must not
            // leave it.
            if !cp.prefix.starts_with(subtree.prefix) {
                return Err(Error::Invalid(format!(
                    "checkpoint: taken under a prefix of {} placements outside \
                     this subtree's prefix of {} placements",
                    cp.prefix.len(),
                    subtree.prefix.len()
                )));
            }
        }
        match self {
            Engine::Backtrack => {
                backtrack::Backtrack::count(subtree, resume, limits, on_checkpoint)
            }
            Engine::Dlx => dlx::Dlx::count(subtree, resume, limits, on_checkpoint),
        }
    }

    /// The first perfect board of `subtree` in the engine's search order.
    pub fn first(self, subtree: &Subtree<'_>, limits: &Limits<'_>) -> Result<FirstReport> {
        match self {
            Engine::Backtrack => backtrack::Backtrack::first(subtree, limits),
            Engine::Dlx => dlx::Dlx::first(subtree, limits),
        }
    }

    /// Best-score search of `subtree` as `search` says for one lease of
    /// `budget` nodes seeded with `seed`, calling `on_improved` with each
    /// board better than every earlier one of the run. An engine that
    /// cannot score is an error (see [`Engine::require`]).
    pub fn best(
        self,
        subtree: &Subtree<'_>,
        search: &BestSearch,
        lease: BestLease,
        control: Option<&Control>,
        on_improved: impl FnMut(&Board),
    ) -> Result<BestReport> {
        self.require(Ask::Best)?;
        match self {
            Engine::Backtrack => {
                backtrack::Backtrack::best(subtree, search, lease, control, on_improved)
            }
            Engine::Dlx => dlx::Dlx::best(subtree, search, lease, control, on_improved),
        }
    }
}

/// What a search runs on: the subtree of `prefix` (forced placements laid
/// after the hints) of `puzzle`, walked in `order`.
#[derive(Debug, Clone, Copy)]
pub struct Subtree<'a> {
    pub puzzle: &'a Puzzle,
    pub order: FillOrder,
    pub prefix: &'a Prefix,
    /// DLX only: branch by Knuth's most-constrained rule (dlx2's tree)
    /// instead of on the order's next empty cell. Counts planned before DLX
    /// took fill orders keep it, so their checkpoints resume in the tree
    /// that took them; the backtracker ignores it.
    pub most_constrained: bool,
}

impl<'a> Subtree<'a> {
    /// The subtree of `prefix` under the count order.
    pub fn new(puzzle: &'a Puzzle, prefix: &'a Prefix) -> Self {
        Subtree {
            puzzle,
            order: COUNT_ORDER,
            prefix,
            most_constrained: false,
        }
    }

    pub fn with_order(self, order: FillOrder) -> Self {
        Subtree { order, ..self }
    }

    /// See [`Subtree::most_constrained`].
    pub fn with_most_constrained(self, most_constrained: bool) -> Self {
        Subtree {
            most_constrained,
            ..self
        }
    }
}

/// A node rate measured by running an engine's own count.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize)]
pub struct Rate {
    /// Nodes the measuring run visited.
    pub nodes: u64,
    pub seconds: f64,
    /// The run searched the whole subtree: `nodes` is then its exact size.
    pub whole_tree: bool,
}

impl Rate {
    pub fn nodes_per_second(&self) -> f64 {
        self.nodes as f64 / self.seconds.max(1e-9)
    }
}

/// One lease of a best job: its seed and its node budget (a whole-tree
/// search ignores both: see [`BestSearch`]).
/// The subtasks of a tree cut at one depth (see [`Engine::cut`]).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Cut {
    pub prefixes: Vec<Prefix>,
    /// Nodes above the cut that the subtasks do not visit themselves.
    pub nodes: u64,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BestLease {
    pub seed: u64,
    pub budget: u64,
    /// The job's best score when the lease was given: the lease searches
    /// only for better boards (see [`crate::backtrack::BestConfig::beat`]).
    pub beat: u32,
}

/// What an engine implements to join e2. Each method is the engine's
/// answer to one [`Engine`] dispatching method, which documents it.
trait Contract {
    const CAPABILITIES: Capabilities;

    fn cut(puzzle: &Puzzle, order: FillOrder, depth: usize) -> Result<Cut>;

    fn count(
        subtree: &Subtree<'_>,
        resume: Option<&Checkpoint>,
        limits: &Limits<'_>,
        on_checkpoint: impl FnMut(&Checkpoint),
    ) -> Result<CountReport>;

    fn first(subtree: &Subtree<'_>, limits: &Limits<'_>) -> Result<FirstReport>;

    /// Knuth's estimate of the tree `count` walks (see `crate::estimate`).
    fn estimate(subtree: &Subtree<'_>, config: &Probes) -> Result<Estimate>;

    /// Only engines whose [`Capabilities::best`] is true are called.
    fn best(
        subtree: &Subtree<'_>,
        search: &BestSearch,
        lease: BestLease,
        control: Option<&Control>,
        on_improved: impl FnMut(&Board),
    ) -> Result<BestReport>;
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip_and_unknown_names_list_the_valid_ones() {
        for e in Engine::ALL {
            assert_eq!(e.name().parse::<Engine>().unwrap(), e);
            assert_eq!(
                serde_json::to_string(&e).unwrap(),
                format!("\"{}\"", e.name())
            );
        }
        let err = "gpu".parse::<Engine>().unwrap_err().to_string();
        assert!(err.contains("backtrack") && err.contains("dlx"), "{err}");
    }

    #[test]
    fn dlx_cannot_score_and_says_so() {
        assert!(Engine::Backtrack.can(Ask::Best));
        let err = Engine::Dlx.require(Ask::Best).unwrap_err().to_string();
        assert!(err.contains("cannot score partial boards"), "{err}");
        assert!(!err.contains('\n'));
    }
}
