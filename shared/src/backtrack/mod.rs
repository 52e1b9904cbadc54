//! The cache-friendly bitmask backtracker: exhaustive counting, first
//! solution, prefix subtasks, and best-score search (docs/engines.md).
//!
//! The engine is built for raw node rate, because every use of it is a race
//! against an exponential tree:
//!
//! - `plan` fixes everything the fill order decides before the search
//!   starts: per searched cell, its table and the neighbours that key it.
//! - `tables` holds one flat candidate array and one flat offsets array:
//!   the candidates of a cell for the colours its placed neighbours show
//!   are one contiguous run, found by a multiply-add per constrained side.
//! - `candidate` packs a placement in one `u32` that the board stores as is.
//! - `classes` makes pieces equal up to rotation one class with a stock,
//!   so a solution is counted once per distinct board (docs/engines.md).
//! - `masks` lets the walk visit only pieces in stock: when a set has at
//!   most 64 piece classes, the classes left are one word and every run is
//!   the word of its classes, so a cell's choices are one AND.
//! - `state` is the mutable half of a search (board, stock, per-level
//!   positions, counters), which the walk drives and checkpoints, splits
//!   and polls read.
//! - `walk` is the explicit-stack depth-first loop shared by counting,
//!   first-solution and prefix enumeration; `open` walks the same tree
//!   for counts on sets of unique pieces, expanding a node's children at
//!   once onto a stack of open nodes, and lends the masked walk each poll
//!   so that the driver sees the same walk; `chain` is the walk with one
//!   copy of its code per level, and `jit` the same walk written as
//!   machine code for one plan at run time, which counts take on x86-64;
//!   `poll` is how it hears its
//!   driver, `checkpoint` how its position is saved and laid back, and
//!   `split` how it gives untried branches away.
//! - `probe` shows the same tree to Knuth's estimator (`crate::estimate`).
//! - `best` is the best-score search: strict (deepest partial board) or
//!   break-tolerant with a depth schedule, with seeded restarts.
//!
//! Hints and a subtask's forced placements are *pinned*: laid on the board
//! before the search and treated as placed before every cell, so the
//! neighbours of a pinned cell simply see one more constrained side.
//!
//! Used pieces are tracked as a stock count per piece class rather than a
//! bit per piece: for a real set every class holds one piece and the count
//! is the bit, and for sets that repeat pieces (the clue puzzles) the same
//! test-and-decrement makes twins one candidate, so each distinct board is
//! counted once. The count is one load and one compare, as a bit test is;
//! beside it, the masked walk keeps the classes with a piece left as bits,
//! so it never even looks at a used piece.
//!
//! A *node* is one successful placement. Counts, first solutions, prefix
//! enumeration, checkpoints and splits run on `walk`; the best-score
//! search has its own loop because it carries breaks and scores per level.

mod beam;
mod best;
mod candidate;
mod chain;
mod checkpoint;
mod classes;
mod jit;
mod masks;
mod open;
mod plan;
mod poll;
mod probe;
mod split;
mod state;
mod strided;
mod tables;
mod walk;

pub use beam::BeamConfig;
pub use best::{scale_depth, BestConfig, BestReport, BreakSchedule};

use crate::error::{Error, Result};
use crate::estimate::{knuth, Estimate, Probes};
use crate::model::{Board, Puzzle};
use crate::order::FillOrder;
use crate::search::Engine;
use crate::search::{Checkpoint, Prefix, RunEnd};
pub use crate::search::{CountReport, FirstReport, Limits};
use plan::{Plan, Purpose};
use poll::Driver;
use state::{Counters, SearchState};
use walk::{Count, Entry, Visitor};

/// A backtracker for one subtask: a puzzle, a fill order and a prefix.
#[derive(Debug, Clone)]
pub struct Backtracker {
    puzzle: Puzzle,
    plan: Plan,
    state: SearchState,
}

impl Backtracker {
    /// Plans the search of the subtree under `prefix` (forced placements
    /// applied like hints). Errors name a bad puzzle field or prefix entry.
    pub fn new(puzzle: &Puzzle, order: FillOrder, prefix: &Prefix) -> Result<Self> {
        let plan = Plan::new(puzzle, order, prefix, Purpose::Count)?;
        let state = SearchState::new(&plan);
        Ok(Backtracker {
            puzzle: puzzle.clone(),
            plan,
            state,
        })
    }

    pub fn order(&self) -> FillOrder {
        self.plan.order
    }

    pub fn prefix(&self) -> &Prefix {
        &self.plan.prefix
    }

    /// Cells the search fills (all cells minus hints and forced placements).
    pub fn searched_cells(&self) -> usize {
        self.plan.levels.len()
    }

    /// Counts every complete board of the subtree.
    pub fn count(&mut self, limits: &Limits) -> CountReport {
        self.count_with(limits, |_| {})
    }

    /// [`Backtracker::count`], handing periodic and requested checkpoints to `on_checkpoint`.
    pub fn count_with(
        &mut self,
        limits: &Limits,
        on_checkpoint: impl FnMut(&Checkpoint),
    ) -> CountReport {
        self.state.reset(&self.plan);
        self.run_count(Entry::Fresh, Counters::default(), limits, on_checkpoint)
    }

    /// Continues a count from `checkpoint`; the final totals equal an
    /// uninterrupted run's. The checkpoint must come from this subtask
    /// under the same fill order.
    pub fn resume(
        &mut self,
        checkpoint: &Checkpoint,
        limits: &Limits,
        on_checkpoint: impl FnMut(&Checkpoint),
    ) -> Result<CountReport> {
        let entry = self.replay(checkpoint)?;
        let counters = Counters {
            nodes: checkpoint.nodes,
            solutions: checkpoint.solutions,
        };
        Ok(self.run_count(entry, counters, limits, on_checkpoint))
    }

    /// Searches for one complete board.
    pub fn first_solution(&mut self, limits: &Limits) -> FirstReport {
        self.state.reset(&self.plan);
        if let Some(trivial) = self.trivial() {
            return FirstReport {
                board: (trivial.solutions == 1)
                    .then(|| self.plan.board(&self.puzzle, &self.state.board, 0)),
                nodes: 0,
                end: if trivial.solutions == 1 {
                    RunEnd::FoundFirst
                } else {
                    RunEnd::Finished
                },
            };
        }
        let mut visitor = FirstBoard {
            puzzle: &self.puzzle,
            board: None,
        };
        let mut counters = Counters::default();
        let mut driver = Driver::new(limits, &self.puzzle, |_: &Checkpoint| {}, 0);
        let leaf = self.plan.levels.len();
        let (end, _) = walk::walk(
            &self.plan,
            &mut self.state,
            leaf,
            Entry::Fresh,
            &mut counters,
            &mut driver,
            &mut visitor,
        );
        FirstReport {
            board: visitor.board,
            nodes: counters.nodes,
            end,
        }
    }

    /// Every consistent placement of the first `depth` searched cells of the
    /// fill order, as prefixes extending this subtask's own. Their counts sum
    /// to this subtask's count. `depth` beyond the searched cells is clamped.
    pub fn prefixes(&mut self, depth: usize) -> Vec<Prefix> {
        self.cut(depth).0
    }

    /// [`Backtracker::prefixes`], and the nodes of the walk that lists
    /// them: every placement above and on the cut. No subtask counts the
    /// placements of its own prefix, so a count cut here adds these to its
    /// subtasks' nodes to total the uncut tree's.
    pub fn cut(&mut self, depth: usize) -> (Vec<Prefix>, u64) {
        self.state.reset(&self.plan);
        if !self.plan.pinned_consistent {
            return (Vec::new(), 0);
        }
        let depth = depth.min(self.plan.levels.len());
        if depth == 0 {
            return (vec![self.plan.prefix.clone()], 0);
        }
        let mut visitor = CollectPrefixes {
            puzzle: &self.puzzle,
            depth,
            prefixes: Vec::new(),
        };
        let limits = Limits::default();
        let mut driver = Driver::new(&limits, &self.puzzle, |_: &Checkpoint| {}, 0);
        let mut counters = Counters::default();
        walk::walk(
            &self.plan,
            &mut self.state,
            depth,
            Entry::Fresh,
            &mut counters,
            &mut driver,
            &mut visitor,
        );
        (visitor.prefixes, counters.nodes)
    }

    /// Nodes at each depth `1..=max_depth` of this subtask's tree: entry
    /// `d - 1` is how many placements the count makes on the `d`-th searched
    /// cell of the fill order (each fits every placed neighbour, the frame
    /// and the stock). Their sum over every depth is the count's `nodes`.
    ///
    /// Each depth is its own walk cut at that depth, counting its leaves, so
    /// the counting loop carries no per-depth counter; the price is the sum
    /// of the cumulative counts, about twice a walk to `max_depth`. Depths
    /// beyond the searched cells are left out.
    pub fn nodes_per_depth(&mut self, max_depth: usize) -> Vec<u64> {
        let depth = max_depth.min(self.plan.levels.len());
        let mut out = vec![0; depth];
        if !self.plan.pinned_consistent {
            return out;
        }
        let limits = Limits::default();
        for d in 1..=depth {
            self.state.reset(&self.plan);
            let mut counters = Counters::default();
            let mut driver = Driver::new(&limits, &self.puzzle, |_: &Checkpoint| {}, 0);
            walk::walk(
                &self.plan,
                &mut self.state,
                d,
                Entry::Fresh,
                &mut counters,
                &mut driver,
                &mut Count,
            );
            out[d - 1] = counters.solutions;
            if counters.solutions == 0 {
                break;
            }
        }
        out
    }

    /// Knuth's estimate of the tree [`Backtracker::count`] walks (see
    /// `crate::estimate`): its nodes, spread and boards, from
    /// `config.probes` random root-to-leaf probes.
    pub fn estimate(&mut self, config: &Probes) -> Result<Estimate> {
        if let Some(trivial) = self.trivial() {
            return Ok(Estimate::empty(config.probes, trivial.solutions as f64));
        }
        knuth(&mut probe::Probe::new(&self.plan, &mut self.state), config)
    }

    /// The answer when there is nothing to search: no board if the pinned
    /// cells disagree, the pinned board itself if they cover everything.
    fn trivial(&self) -> Option<Counters> {
        if !self.plan.pinned_consistent {
            return Some(Counters::default());
        }
        self.plan.levels.is_empty().then_some(Counters {
            nodes: 0,
            solutions: 1,
        })
    }

    fn replay(&mut self, checkpoint: &Checkpoint) -> Result<Entry> {
        if checkpoint.engine != Engine::Backtrack {
            return Err(Error::Invalid(format!(
                "checkpoint: taken by the {} engine, cannot be resumed by backtrack",
                checkpoint.engine
            )));
        }
        if checkpoint.prefix != self.plan.prefix {
            return Err(Error::Invalid(
                "checkpoint: its prefix is not this subtask's prefix".to_string(),
            ));
        }
        Ok(
            match checkpoint::replay(&self.plan, &mut self.state, &checkpoint.path)? {
                Some(top) => Entry::Placed(top),
                None => Entry::Fresh,
            },
        )
    }

    fn run_count(
        &mut self,
        entry: Entry,
        mut counters: Counters,
        limits: &Limits,
        on_checkpoint: impl FnMut(&Checkpoint),
    ) -> CountReport {
        if let Some(trivial) = self.trivial() {
            return CountReport {
                solutions: trivial.solutions,
                nodes: counters.nodes,
                end: RunEnd::Finished,
                checkpoint: None,
            };
        }
        let mut driver = Driver::new(limits, &self.puzzle, on_checkpoint, counters.nodes);
        let leaf = self.plan.levels.len();
        let (end, top) = walk::walk(
            &self.plan,
            &mut self.state,
            leaf,
            entry,
            &mut counters,
            &mut driver,
            &mut Count,
        );
        CountReport {
            solutions: counters.solutions,
            nodes: counters.nodes,
            end,
            checkpoint: top
                .map(|t| checkpoint::checkpoint(&self.plan, &self.state, Some(t), &counters)),
        }
    }
}

/// Every consistent placement of the first `depth` searched cells of
/// `order` on `puzzle`, as prefixes (see [`Backtracker::prefixes`]).
pub fn prefixes(puzzle: &Puzzle, order: FillOrder, depth: usize) -> Result<Vec<Prefix>> {
    Ok(Backtracker::new(puzzle, order, &Prefix::new())?.prefixes(depth))
}

struct FirstBoard<'a> {
    puzzle: &'a Puzzle,
    board: Option<Board>,
}

impl Visitor for FirstBoard<'_> {
    fn leaf(&mut self, plan: &Plan, state: &SearchState, _: &mut Counters) -> bool {
        self.board = Some(plan.board(self.puzzle, &state.board, plan.levels.len()));
        true
    }

    walk::chained_by_chain!();
}

struct CollectPrefixes<'a> {
    puzzle: &'a Puzzle,
    depth: usize,
    prefixes: Vec<Prefix>,
}

impl Visitor for CollectPrefixes<'_> {
    fn leaf(&mut self, plan: &Plan, state: &SearchState, _: &mut Counters) -> bool {
        self.prefixes
            .push(plan.forced(self.puzzle, &state.board, self.depth, None));
        false
    }

    walk::chained_by_chain!();
}
