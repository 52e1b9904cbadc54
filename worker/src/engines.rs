//! The one door between the distributed machinery and the engines.
//!
//! Everything else in the worker and coordinator sees engines only through
//! these functions, so an engine's internals can change without touching
//! leases, ledgers or RPCs:
//!
//! - [`prefixes`]: the subtasks at a given depth (used by the coordinator to
//!   cut a job before any worker runs);
//! - [`count`]: count the perfect boards under a prefix, or resume from a
//!   checkpoint, for at most a node budget, obeying a [`Control`];
//! - [`best`]: spend a node budget searching for high-scoring boards,
//!   reporting each improvement, as a job's [`BestSearch`] settings say.
//!
//! `backtrack` is `e2_shared::backtrack`; counts run under the row-major fill
//! order (one fixed order: a checkpoint resumes only under the order that
//! took it, and prefixes are only comparable within one order). A best job
//! names its own order, and its prefixes are cut under that order
//! ([`best_prefixes`]) so every task of the job walks one tree. `dlx` is
//! `e2_shared::dlx`, Knuth's Algorithm C. Best-score searches always use the
//! backtracker: DLX knows only perfect boards.
//!
//! Counts are *cumulative*: a run resumed from a checkpoint reports the
//! checkpoint's solutions and nodes plus its own, so a task's final count is
//! whatever its last run says.

use std::sync::Arc;

use e2_shared::backtrack::{self, Backtracker, BestConfig, CountLimits};
use e2_shared::dlx::{self, Hooks, Limits};
use e2_shared::order::FillOrder;
use e2_shared::search::{Checkpoint, Control, Prefix, RunEnd};
use e2_shared::{Board, Error, Puzzle};

pub use e2_proto::pb::Engine;

/// The backtracker's fill order for counts.
const ORDER: FillOrder = FillOrder::RowMajor;

/// How a best job searches: its `SearchSettings`, decoded and checked.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BestSearch {
    pub order: FillOrder,
    /// `None`: the tuned break-tolerant search; `Some(0)`: strict DFS;
    /// `Some(k)`: a flat cap of `k` breaks.
    pub max_breaks: Option<u32>,
    /// One deterministic task over the whole tree (see [`BestSearch::config`]).
    pub whole_tree: bool,
    /// Whole-tree jobs: the node budget of the one task (0 = no limit).
    pub total_node_budget: u64,
}

impl Default for BestSearch {
    fn default() -> Self {
        BestSearch {
            order: ORDER,
            max_breaks: None,
            whole_tree: false,
            total_node_budget: 0,
        }
    }
}

impl BestSearch {
    /// Decodes wire settings; an unknown order is an error naming the field
    /// and listing the valid names.
    pub fn from_wire(wire: &e2_proto::pb::SearchSettings) -> Result<Self, Error> {
        let order = if wire.order.is_empty() {
            ORDER
        } else {
            wire.order
                .parse()
                .map_err(|e| Error::Invalid(format!("search.order: {e}")))?
        };
        Ok(BestSearch {
            order,
            max_breaks: wire.max_breaks,
            whole_tree: wire.whole_tree,
            total_node_budget: wire.total_node_budget,
        })
    }

    pub fn to_wire(&self) -> e2_proto::pb::SearchSettings {
        e2_proto::pb::SearchSettings {
            order: self.order.name().to_string(),
            max_breaks: self.max_breaks,
            whole_tree: self.whole_tree,
            total_node_budget: self.total_node_budget,
        }
    }

    /// The backtracker's settings for one lease of `budget` nodes seeded
    /// with `seed`. A whole-tree run ignores both: it is the strict (or
    /// capped) walk of seed 0 for the job's total budget, without restarts,
    /// so it depends on nothing but the puzzle and the settings.
    pub fn config(&self, seed: u64, budget: u64, control: &Arc<Control>) -> BestConfig {
        let control = Some(Arc::clone(control));
        if self.whole_tree {
            return BestConfig {
                max_breaks: self.max_breaks.unwrap_or(0),
                node_budget: (self.total_node_budget > 0).then_some(self.total_node_budget),
                control,
                ..BestConfig::default()
            };
        }
        match self.max_breaks {
            None => BestConfig {
                seed,
                node_budget: Some(budget.max(1)),
                time_limit: None,
                control,
                ..BestConfig::break_tolerant(std::time::Duration::MAX, seed)
            },
            Some(cap) => BestConfig {
                max_breaks: cap,
                seed,
                node_budget: Some(budget.max(1)),
                control,
                ..BestConfig::default()
            },
        }
    }
}

/// What one call to [`count`] did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CountRun {
    /// Perfect boards counted in the task so far (cumulative).
    pub solutions: u64,
    /// Nodes visited in the task so far (cumulative).
    pub nodes: u64,
    pub end: RunEnd,
    /// Where to resume; `None` once the subtree is finished.
    pub checkpoint: Option<Checkpoint>,
}

/// What one call to [`best`] did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BestRun {
    pub nodes: u64,
    pub best_score: Option<u32>,
    pub end: RunEnd,
}

/// Every prefix of `depth` forced placements that can still lead to a
/// perfect board, in the engine's search order; their counts add up to the
/// whole count. A depth beyond the free cells is clamped.
pub fn prefixes(puzzle: &Puzzle, engine: Engine, depth: usize) -> Result<Vec<Prefix>, Error> {
    match engine {
        Engine::Dlx => dlx::prefixes(puzzle, depth),
        Engine::Backtrack | Engine::Unspecified => backtrack::prefixes(puzzle, ORDER, depth),
    }
}

/// The prefixes of `depth` placements a best job under `search` is cut
/// into: in its own fill order, since a prefix means "the first cells of
/// the walk" only under the order that made it. A whole-tree job is one
/// task, the empty prefix.
pub fn best_prefixes(
    puzzle: &Puzzle,
    search: &BestSearch,
    depth: usize,
) -> Result<Vec<Prefix>, Error> {
    if search.whole_tree {
        return Ok(vec![Vec::new()]);
    }
    backtrack::prefixes(puzzle, search.order, depth)
}

/// Counts the perfect boards under `prefix` (or from `resume`, whose prefix
/// supersedes it), visiting at most `budget` nodes (`u64::MAX`: no limit).
///
/// A split asked through `control` donates untried siblings with
/// [`Control::donate`]; the checkpoint returned afterwards describes only
/// what is left to this run (its prefix is extended accordingly).
pub fn count(
    puzzle: &Puzzle,
    engine: Engine,
    prefix: &Prefix,
    resume: Option<&Checkpoint>,
    budget: u64,
    control: &Arc<Control>,
) -> Result<CountRun, Error> {
    let budget = (budget != u64::MAX).then_some(budget);
    match engine {
        Engine::Dlx => {
            let limits = Limits {
                max_nodes: budget,
                ..Limits::default()
            };
            let hooks = Hooks {
                control: Some(control),
                ..Hooks::default()
            };
            let report = match resume {
                Some(cp) => dlx::resume(puzzle, cp, &limits, hooks)?,
                None => dlx::count_puzzle(puzzle, prefix, &limits, hooks)?,
            };
            Ok(CountRun {
                solutions: report.solutions,
                nodes: report.nodes,
                end: report.end,
                checkpoint: report.checkpoint,
            })
        }
        Engine::Backtrack | Engine::Unspecified => {
            let limits = CountLimits {
                node_budget: budget,
                control: Some(Arc::clone(control)),
                ..CountLimits::default()
            };
            let report = match resume {
                Some(cp) => {
                    Backtracker::new(puzzle, ORDER, &cp.prefix)?.resume(cp, &limits, |_| {})?
                }
                None => Backtracker::new(puzzle, ORDER, prefix)?.count(&limits),
            };
            Ok(CountRun {
                solutions: report.solutions,
                nodes: report.nodes,
                end: report.end,
                checkpoint: report.checkpoint,
            })
        }
    }
}

/// Searches the subtree of `prefix` for high-scoring boards for `budget`
/// nodes as `search` says (by default: seeded restarts, breaks allowed
/// late), calling `on_improved` with each board better than every earlier
/// one of this run. Boards honour the hints and the prefix.
#[allow(clippy::too_many_arguments)]
pub fn best(
    puzzle: &Puzzle,
    engine: Engine,
    prefix: &Prefix,
    seed: u64,
    budget: u64,
    search: &BestSearch,
    control: &Arc<Control>,
    on_improved: &mut dyn FnMut(&Board),
) -> Result<BestRun, Error> {
    let _ = engine;
    let config = search.config(seed, budget, control);
    let report =
        Backtracker::new(puzzle, search.order, prefix)?.best(&config, |b| on_improved(b))?;
    Ok(BestRun {
        nodes: report.nodes,
        best_score: report.board.as_ref().map(|_| report.score),
        end: report.end,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Four distinct corners that close into one 2x2 board; turning the
    /// whole board gives the other three solutions.
    fn ring() -> Puzzle {
        Puzzle {
            name: "ring".into(),
            width: 2,
            height: 2,
            num_colors: 2,
            pieces: vec![[0, 1, 2, 0], [0, 0, 1, 1], [2, 2, 0, 0], [1, 0, 0, 2]],
            hints: vec![],
        }
    }

    fn count_all(p: &Puzzle, engine: Engine, prefix: &Prefix) -> u64 {
        let run = count(p, engine, prefix, None, u64::MAX, &Control::new()).unwrap();
        assert_eq!(run.end, RunEnd::Finished);
        run.solutions
    }

    #[test]
    fn both_engines_count_the_ring_and_its_prefixes_alike() {
        let p = ring();
        for engine in [Engine::Backtrack, Engine::Dlx] {
            assert_eq!(count_all(&p, engine, &Vec::new()), 4, "{engine:?}");
            for depth in 1..=4 {
                let parts: u64 = prefixes(&p, engine, depth)
                    .unwrap()
                    .iter()
                    .map(|x| count_all(&p, engine, x))
                    .sum();
                assert_eq!(parts, 4, "{engine:?} depth {depth}");
            }
        }
    }

    #[test]
    fn best_reports_boards_that_score_what_they_claim() {
        let p = ring();
        let mut seen = Vec::new();
        let run = best(
            &p,
            Engine::Backtrack,
            &Vec::new(),
            7,
            10_000,
            &BestSearch::default(),
            &Control::new(),
            &mut |b| seen.push(e2_shared::score::score(b)),
        )
        .unwrap();
        assert_eq!(run.best_score, seen.last().copied());
        assert!(seen.windows(2).all(|w| w[0] < w[1]), "{seen:?}");
        assert_eq!(run.best_score, Some(4));
    }

    #[test]
    fn a_whole_tree_search_is_the_plain_strict_walk_of_its_order() {
        let puzzle = e2_shared::generator::generate(&e2_shared::generator::GenSpec::square(5, 2))
            .unwrap()
            .puzzle;
        let search = BestSearch {
            order: FillOrder::SpiralIn,
            max_breaks: Some(0),
            whole_tree: true,
            total_node_budget: 3_000,
        };
        // The lease's seed and budget must not matter to a whole-tree run.
        let mut last = None;
        let run = best(
            &puzzle,
            Engine::Backtrack,
            &Vec::new(),
            12345,
            7,
            &search,
            &Control::new(),
            &mut |b| last = b.codes(),
        )
        .unwrap();
        let config = BestConfig {
            node_budget: Some(3_000),
            ..BestConfig::default()
        };
        let local = Backtracker::new(&puzzle, FillOrder::SpiralIn, &Vec::new())
            .unwrap()
            .best(&config, |_| {})
            .unwrap();
        assert_eq!(run.nodes, local.nodes);
        assert_eq!(last, local.board.and_then(|b| b.codes()));
    }

    #[test]
    fn an_unknown_order_is_refused_by_field_with_the_valid_names() {
        let wire = e2_proto::pb::SearchSettings {
            order: "zigzag".into(),
            ..Default::default()
        };
        let e = BestSearch::from_wire(&wire).unwrap_err().to_string();
        assert!(e.contains("search.order") && e.contains("spiral-in"), "{e}");
        let round = BestSearch {
            order: FillOrder::BorderFirst,
            max_breaks: Some(3),
            ..BestSearch::default()
        };
        assert_eq!(BestSearch::from_wire(&round.to_wire()).unwrap(), round);
    }
}
