//! How a best job searches: the settings a user submits, and what they mean
//! for one lease and for cutting the job into tasks.
//!
//! The coordinator checks and stores these settings, the worker turns them
//! into a run: both read them here, so neither depends on the other. Their
//! wire form lives in the proto crate.
//!
//! A round either starts afresh (its task's prefix, a new shuffle) or, half
//! the time, from the best board the job builds on (the coordinator's
//! current lineage's, docs/cluster.md "Lineages"): some of its first cells
//! in the fill order are kept and the round searches below them for a
//! better board ([`BestSearch::round_start`]). A fresh round is the
//! depth-first break-tolerant walk. A round from the best board is one of
//! two kinds, half and half ([`BestSearch::beam_below_best`]):
//!
//! - a *beam*: it keeps between 150 and 190 cells of 256 and grows
//!   thousands of tails side by side below them, the best-scoring kept at
//!   each cell, instead of one walk that commits to its first choices;
//! - a *tail walk*: it keeps the first 176 cells (eleven rows of sixteen
//!   in the row scan) and walks the last five rows depth-first, with the
//!   usual ramp of breaks and the job's best score as its bound. It finds
//!   better endings of the best board's own early rows that the beam,
//!   ranking tails by their score so far, passes by (docs/cluster.md,
//!   "Best jobs", tells how this showed).
//!
//! (README, "Benchmarks", has the measured gain of each.) A board's score is
//! decided in its last rows, by how well the pieces left after the early
//! rows fit one another; the best board's early rows are a start known to
//! leave a good remainder, and changing the rows just above the ones that
//! decide tries its neighbours instead of another random start. Restarts
//! alone spend every round on a new random basin; this pools what the
//! rounds have found, on one machine or on many (README, "Benchmarks", has
//! the measured gain).

use std::time::Duration;

use crate::backtrack::{scale_depth, BeamConfig, BestConfig};
use crate::error::Result;
use crate::model::{Board, Puzzle};
use crate::order::FillOrder;
use crate::rng::Rng;
use crate::search::{Forced, Prefix};

use super::{BestLease, Engine, COUNT_ORDER};

/// The share of a best job's rounds (in percent) that restart from its best
/// board ([`BestSearch::round_start`]).
pub const ELITE_PERCENT: u64 = 50;

/// The range of cells (fill order, for 256 cells; scaled to the board)
/// such a round keeps from the best board.
pub const ELITE_DEPTHS: (u32, u32) = (150, 190);

/// The share of the rounds from the best board (in percent) that are tail
/// walks: they keep [`TAIL_DEPTH`] cells and walk depth-first below them
/// instead of running the beam.
pub const TAIL_PERCENT: u64 = 50;

/// The cells a tail walk keeps from the best board (fill order, for 256
/// cells; scaled to the board).
pub const TAIL_DEPTH: u32 = 176;

/// Members kept per cell by the beam of a round from the best board.
pub const ELITE_BEAM_WIDTH: usize = 4000;

/// Children one member of that beam offers per cell, at most.
pub const ELITE_BEAM_FANOUT: usize = 8;

/// Placements in the prefix of a best job's task (the first cell of its
/// fill order); a round with a longer prefix restarts from the best board.
pub const TASK_DEPTH: usize = 1;

/// The random stream of the restart choice, apart from the search's own
/// shuffles (streams 0, 1, ... of the same seed).
const ELITE_STREAM: u64 = 0x45_4C49_5445;

/// What a round from the best board runs below the cells it keeps.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Below {
    Beam,
    Walk,
}

/// A best job's search settings, decoded and checked.
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
            order: COUNT_ORDER,
            max_breaks: None,
            whole_tree: false,
            total_node_budget: 0,
        }
    }
}

impl BestSearch {
    /// The backtracker's settings for one lease. A whole-tree run ignores
    /// the lease's seed, budget and score to beat: it is the strict (or
    /// capped) walk of seed 0 for the job's total budget, without
    /// restarts, so it depends on nothing but the puzzle and the settings.
    /// A round searches only for boards above the lease's score to beat,
    /// the job's best when it was leased: the job's rounds share one
    /// bound instead of each starting from nothing.
    pub fn config(&self, lease: BestLease) -> BestConfig {
        if self.whole_tree {
            return BestConfig {
                max_breaks: self.max_breaks.unwrap_or(0),
                node_budget: (self.total_node_budget > 0).then_some(self.total_node_budget),
                ..BestConfig::default()
            };
        }
        let (seed, budget, beat) = (lease.seed, Some(lease.budget.max(1)), lease.beat);
        match self.max_breaks {
            None => BestConfig {
                seed,
                node_budget: budget,
                time_limit: None,
                beat,
                ..BestConfig::break_tolerant(Duration::MAX, seed)
            },
            Some(cap) => BestConfig {
                max_breaks: cap,
                seed,
                node_budget: budget,
                beat,
                ..BestConfig::default()
            },
        }
    }

    /// Where the round of `seed` starts, given the job's best board so far
    /// (`best` is asked only for the rounds that restart from it):
    /// `Some(prefix)` keeps the board's cells above a depth of the fill
    /// order (hint cells stay pinned as hints), `None` starts from the
    /// task's own prefix. Half the rounds (drawn from `seed`) restart so;
    /// never a whole-tree job, a strict or capped search (measured with
    /// the tuned search only), or a board without piece identities. A
    /// beam's depth is drawn between [`ELITE_DEPTHS`], a tail walk keeps
    /// [`TAIL_DEPTH`] (both given for 256 cells, scaled as the break
    /// schedule's depths are), and the prefix stops early at the first
    /// empty cell of a partial board.
    pub fn round_start(
        &self,
        puzzle: &Puzzle,
        seed: u64,
        best: impl FnOnce() -> Option<Board>,
    ) -> Option<Prefix> {
        let cells = puzzle.width * puzzle.height;
        let (keep, _) = self.round_from_best(seed, cells)?;
        let board = best()?;
        let placements = board.placements.as_ref()?;
        if placements.len() != cells {
            return None;
        }
        let hints: Vec<usize> = puzzle.hints.iter().map(|h| h.pos).collect();
        // Depths count every cell of the walk, hints too, as the break
        // schedule's do: the kept cells end before its ramp starts, and a
        // board with many hints still has its last rows searched.
        let prefix: Prefix = self
            .order
            .cells(puzzle.width, puzzle.height, &hints)
            .into_iter()
            .take(keep)
            .filter(|pos| !hints.contains(pos))
            .map_while(|pos| {
                placements[pos].map(|p| Forced {
                    pos,
                    piece: p.piece,
                    rot: p.rot,
                })
            })
            .collect();
        (!prefix.is_empty()).then_some(prefix)
    }

    /// Whether the round of `seed` starts from the best board, and if so
    /// how many cells of the fill order it keeps and what it runs below
    /// them. The draws are made in this order (restart, beam depth, kind)
    /// so that the coordinator, which chooses the prefix, and the worker,
    /// which runs the round, decide alike from the seed alone.
    fn round_from_best(&self, seed: u64, cells: usize) -> Option<(usize, Below)> {
        if !self.restarts_from_best() {
            return None;
        }
        let mut rng = Rng::fork(seed, ELITE_STREAM);
        if rng.below(100) >= ELITE_PERCENT {
            return None;
        }
        let (low, high) = (
            u64::from(scale_depth(ELITE_DEPTHS.0, cells)),
            u64::from(scale_depth(ELITE_DEPTHS.1, cells)),
        );
        let beam_keep = (low + rng.below(high - low + 1)) as usize;
        Some(if rng.below(100) < TAIL_PERCENT {
            (scale_depth(TAIL_DEPTH, cells) as usize, Below::Walk)
        } else {
            (beam_keep, Below::Beam)
        })
    }

    /// Whether rounds restart from the best board: the tuned search only
    /// (never a whole-tree job, a strict or a capped search).
    fn restarts_from_best(&self) -> bool {
        !self.whole_tree && self.max_breaks.is_none()
    }

    /// The beam that a round whose prefix is `prefix` runs on `puzzle`,
    /// when the round restarts from the job's best board (its prefix is
    /// longer than a task's, see [`BestSearch::round_start`]) and its seed
    /// made it a beam; `None` for a fresh round or a tail walk, which walk
    /// depth-first. Only the tuned search restarts so.
    pub fn beam_below_best(
        &self,
        puzzle: &Puzzle,
        prefix: &Prefix,
        lease: BestLease,
    ) -> Option<BeamConfig> {
        let beam = prefix.len() > TASK_DEPTH
            && matches!(
                self.round_from_best(lease.seed, puzzle.width * puzzle.height),
                Some((_, Below::Beam))
            );
        beam.then_some(BeamConfig {
            width: ELITE_BEAM_WIDTH,
            fanout: ELITE_BEAM_FANOUT,
            seed: lease.seed,
        })
    }

    /// The prefixes of `depth` placements a best job is cut into, in its
    /// own fill order (a prefix means "the first cells of the walk" only
    /// under the order that made it). A whole-tree job is one task, the
    /// empty prefix.
    pub fn prefixes(&self, engine: Engine, puzzle: &Puzzle, depth: usize) -> Result<Vec<Prefix>> {
        if self.whole_tree {
            return Ok(vec![Vec::new()]);
        }
        engine.prefixes(puzzle, self.order, depth)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::generator::{generate, GenSpec};
    use crate::layouts::Layout;

    fn puzzle_and_board(size: usize, layout: Layout) -> (Puzzle, Board) {
        let g = generate(&GenSpec {
            layout,
            ..GenSpec::square(size, 5)
        })
        .unwrap();
        (g.puzzle, g.solution)
    }

    #[test]
    fn half_the_rounds_keep_the_best_boards_first_cells_in_fill_order() {
        let (puzzle, board) = puzzle_and_board(16, Layout::Official5);
        let hints: Vec<usize> = puzzle.hints.iter().map(|h| h.pos).collect();
        assert!(!hints.is_empty());
        let search = BestSearch::default();
        let walk = search.order.cells(16, 16, &hints);
        let free: Vec<usize> = walk
            .iter()
            .copied()
            .filter(|p| !hints.contains(p))
            .collect();
        let placements = board.placements.as_ref().unwrap();
        let (mut restarts, mut tails, mut kept) = (0, 0, std::collections::BTreeSet::new());
        for seed in 0..400 {
            let Some(prefix) = search.round_start(&puzzle, seed, || Some(board.clone())) else {
                continue;
            };
            restarts += 1;
            // The depth counts the hint cells above it (none of the
            // official five lies at depth 149..190 of the row scan).
            let last = prefix.last().unwrap().pos;
            let depth = walk.iter().position(|&p| p == last).unwrap() + 1;
            assert!((150..=190).contains(&depth), "{depth}");
            let lease = BestLease {
                seed,
                budget: 1,
                beat: 0,
            };
            if search.beam_below_best(&puzzle, &prefix, lease).is_none() {
                // A tail walk: eleven rows of sixteen.
                assert_eq!(depth, TAIL_DEPTH as usize);
                tails += 1;
            }
            let hints_above = walk[..depth].iter().filter(|p| hints.contains(p)).count();
            assert_eq!(prefix.len(), depth - hints_above);
            kept.insert(depth);
            for (f, &pos) in prefix.iter().zip(&free) {
                let p = placements[pos].unwrap();
                assert_eq!((f.pos, f.piece, f.rot), (pos, p.piece, p.rot));
            }
            // The worker's backtracker takes it as the round's subtree.
            crate::backtrack::Backtracker::new(&puzzle, search.order, &prefix).unwrap();
        }
        assert!((150..=250).contains(&restarts), "{restarts} of 400");
        assert!(
            (restarts / 4..=restarts * 3 / 4).contains(&tails),
            "{tails} tail walks of {restarts}"
        );
        assert!(kept.len() > 20, "depths drawn: {kept:?}");
        // The same seed always decides the same way.
        assert_eq!(
            search.round_start(&puzzle, 7, || Some(board.clone())),
            search.round_start(&puzzle, 7, || Some(board.clone()))
        );
    }

    #[test]
    fn rounds_from_the_best_board_run_a_beam_or_a_tail_walk_and_fresh_rounds_walk() {
        let (puzzle, board) = puzzle_and_board(8, Layout::None);
        let search = BestSearch::default();
        let lease = BestLease {
            seed: 3,
            budget: 1_000_000,
            beat: 0,
        };
        let tasks = search
            .prefixes(Engine::Backtrack, &puzzle, TASK_DEPTH)
            .unwrap();
        let (seed, restart) = (0..50)
            .find_map(|seed| {
                let restart = search.round_start(&puzzle, seed, || Some(board.clone()))?;
                let lease = BestLease { seed, ..lease };
                search
                    .beam_below_best(&puzzle, &restart, lease)
                    .map(|_| (seed, restart))
            })
            .unwrap();
        let lease = BestLease { seed, ..lease };
        assert!(tasks
            .iter()
            .all(|t| search.beam_below_best(&puzzle, t, lease).is_none()));
        let beam = search.beam_below_best(&puzzle, &restart, lease).unwrap();
        assert_eq!((beam.width, beam.seed), (ELITE_BEAM_WIDTH, seed));
        // Strict, capped and whole-tree searches never restart so.
        for other in [
            BestSearch {
                max_breaks: Some(0),
                ..search
            },
            BestSearch {
                max_breaks: Some(4),
                ..search
            },
            BestSearch {
                whole_tree: true,
                ..search
            },
        ] {
            assert!(other.beam_below_best(&puzzle, &restart, lease).is_none());
        }
        // The round reports its full board only when it beats the lease's score.
        let run = |beat: u32| {
            let mut reported = Vec::new();
            let report = Engine::Backtrack
                .best(
                    &super::super::Subtree::new(&puzzle, &restart),
                    &search,
                    BestLease { beat, ..lease },
                    None,
                    |b| reported.push(b.clone()),
                )
                .unwrap();
            (report, reported)
        };
        let (report, reported) = run(0);
        let full = report.board.clone().unwrap();
        assert!(full.is_full());
        assert_eq!(reported, vec![full.clone()]);
        assert_eq!(report.score, crate::score::score(&full));
        let placements = full.placements.as_ref().unwrap();
        for f in &restart {
            let p = placements[f.pos].unwrap();
            assert_eq!((p.piece, p.rot), (f.piece, f.rot), "the kept cells stay");
        }
        assert!(run(report.score).1.is_empty());
        // A tail walk keeps the board's first rows and walks depth-first
        // below them (here the generator's perfect board is the best one,
        // so the walk below its rows finds a full board).
        let (tail_seed, tail) = (0..200)
            .find_map(|seed| {
                let prefix = search.round_start(&puzzle, seed, || Some(board.clone()))?;
                let lease = BestLease { seed, ..lease };
                let walks = search.beam_below_best(&puzzle, &prefix, lease).is_none();
                walks.then_some((seed, prefix))
            })
            .unwrap();
        assert_eq!(tail.len(), scale_depth(TAIL_DEPTH, 64) as usize);
        let mut reported = Vec::new();
        let report = Engine::Backtrack
            .best(
                &super::super::Subtree::new(&puzzle, &tail),
                &search,
                BestLease {
                    seed: tail_seed,
                    ..lease
                },
                None,
                |b| reported.push(b.clone()),
            )
            .unwrap();
        let full = report.board.unwrap();
        assert!(full.is_full());
        assert_eq!(reported.last(), Some(&full));
        let placements = full.placements.as_ref().unwrap();
        for f in &tail {
            let p = placements[f.pos].unwrap();
            assert_eq!((p.piece, p.rot), (f.piece, f.rot), "the kept cells stay");
        }
    }

    #[test]
    fn the_kept_depth_scales_and_stops_at_a_partial_boards_first_gap() {
        let (puzzle, board) = puzzle_and_board(8, Layout::None);
        let search = BestSearch::default();
        let lengths: Vec<usize> = (0..200)
            .filter_map(|s| search.round_start(&puzzle, s, || Some(board.clone())))
            .map(|p| p.len())
            .collect();
        // 150..190 of 256, scaled to 64 cells.
        assert!(lengths.iter().all(|l| (38..=48).contains(l)), "{lengths:?}");
        let mut partial = board.clone();
        partial.placements.as_mut().unwrap()[20] = None;
        partial.cells[20] = None;
        for seed in 0..50 {
            if let Some(p) = search.round_start(&puzzle, seed, || Some(partial.clone())) {
                assert_eq!(p.len(), 20);
            }
        }
    }

    #[test]
    fn no_restart_from_a_board_without_it_or_outside_the_tuned_search() {
        let (puzzle, board) = puzzle_and_board(8, Layout::None);
        let strict = BestSearch {
            max_breaks: Some(0),
            ..BestSearch::default()
        };
        let whole = BestSearch {
            whole_tree: true,
            ..BestSearch::default()
        };
        let mut edges_only = board.clone();
        edges_only.placements = None;
        for seed in 0..100 {
            assert_eq!(
                strict.round_start(&puzzle, seed, || Some(board.clone())),
                None
            );
            assert_eq!(
                whole.round_start(&puzzle, seed, || Some(board.clone())),
                None
            );
            let tuned = BestSearch::default();
            assert_eq!(tuned.round_start(&puzzle, seed, || None), None);
            assert_eq!(
                tuned.round_start(&puzzle, seed, || Some(edges_only.clone())),
                None
            );
        }
    }
}
