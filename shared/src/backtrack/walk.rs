//! The depth-first walk: an explicit stack over the plan's levels.
//!
//! No recursion and no allocation: per level the stack keeps the rest of
//! the level's candidate run, the board keeps the placed words, and the
//! stock keeps how many pieces of each class are left. The current level's
//! cursor lives in registers; it is spilled to the stack only on descent.
//! What to do at a leaf (count, stop at the first board, record a prefix)
//! is a [`Visitor`] chosen at compile time, so the loop carries no dynamic
//! dispatch.
//!
//! Whenever the walk stops early its state is "a node was just placed at
//! level `top` and its subtree is untouched", which is exactly what a
//! checkpoint records and what [`Entry::Placed`] resumes.

use super::candidate::{class_of, Candidate};
use super::plan::Plan;
use super::poll::Driver;
use crate::search::{Checkpoint, RunEnd};

/// The mutable half of a search.
#[derive(Debug, Clone)]
pub(crate) struct SearchState {
    /// One word per cell (0 = empty), plus the always-empty dummy cell.
    pub board: Vec<Candidate>,
    /// Pieces left per class.
    pub stock: Vec<u16>,
    /// Per level: the rest of its candidate run.
    pub runs: Vec<Run>,
    /// Per level: its untried siblings were given away by a split.
    pub given_away: Vec<bool>,
}

impl SearchState {
    pub(crate) fn new(plan: &Plan) -> Self {
        let levels = plan.levels.len();
        SearchState {
            board: plan.pinned_board.clone(),
            stock: plan.stock.clone(),
            runs: vec![Run { next: 0, end: 0 }; levels],
            given_away: vec![false; levels],
        }
    }

    pub(crate) fn reset(&mut self, plan: &Plan) {
        self.board.copy_from_slice(&plan.pinned_board);
        self.stock.copy_from_slice(&plan.stock);
        self.given_away.iter_mut().for_each(|g| *g = false);
    }
}

/// The untried rest of a level's candidate run: `next..end`.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Run {
    pub next: u32,
    pub end: u32,
}

/// Nodes and solutions counted so far (including those of a resumed checkpoint).
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct Counters {
    pub nodes: u64,
    pub solutions: u64,
}

/// What happens when the walk places its last level.
pub(crate) trait Visitor {
    /// Called with levels `0..leaf` placed; returns true to stop the walk.
    fn leaf(&mut self, plan: &Plan, state: &SearchState, counters: &mut Counters) -> bool;
}

/// Counts every leaf.
pub(crate) struct Count;

impl Visitor for Count {
    #[inline(always)]
    fn leaf(&mut self, _: &Plan, _: &SearchState, counters: &mut Counters) -> bool {
        counters.solutions += 1;
        false
    }
}

/// Where a walk starts.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Entry {
    /// Nothing placed: start at level 0.
    Fresh,
    /// Levels `0..=top` placed (by a replay); the subtree of `top` is next.
    Placed(usize),
}

/// Walks the subtree from `entry` down to `leaf` levels. Returns how it
/// ended and, unless it finished, the level just placed when it stopped.
///
/// The loop indexes without bounds checks; each access carries its proof.
/// The proofs rest on three facts established when the plan is built:
/// every offset is at most `candidates.len()`; every candidate's class is
/// below `stock.len()`; and a key index stays inside its level's table,
/// because every colour on the board is at most `num_colors` (puzzles are
/// validated), so with `r` runs per key `Σ colour_j · r·base^j ≤ r·(base^n − 1)`
/// while the table holds `r·base^n + 1` offsets.
pub(crate) fn walk<V: Visitor, F: FnMut(&Checkpoint)>(
    plan: &Plan,
    state: &mut SearchState,
    leaf: usize,
    entry: Entry,
    counters: &mut Counters,
    driver: &mut Driver<'_, F>,
    visitor: &mut V,
) -> (RunEnd, Option<usize>) {
    assert!(leaf >= 1 && leaf <= plan.levels.len());
    assert!(state.runs.len() >= leaf);
    let levels = &plan.levels[..leaf];
    let offsets = plan.tables.offsets();
    let candidates = plan.tables.candidates();
    // The three stacks as plain slices (pointer and length in registers):
    // through `state` the compiler would reload each vector's pointer after
    // every store, since a store into one buffer might change another's
    // header. They are rebound after every call that takes `state`.
    let (mut board, mut stock, mut runs) = (
        state.board.as_mut_slice(),
        state.stock.as_mut_slice(),
        state.runs.as_mut_slice(),
    );
    macro_rules! rebind {
        () => {
            (board, stock, runs) = (
                state.board.as_mut_slice(),
                state.stock.as_mut_slice(),
                state.runs.as_mut_slice(),
            )
        };
    }
    // Nodes are counted down to the driver's next mark, which keeps one
    // register free: `nodes = mark - countdown`. A mark is always at least
    // one node ahead, so the count never starts at zero.
    let mut mark = driver.next_mark(counters.nodes).max(counters.nodes + 1);
    let mut countdown = mark - counters.nodes;

    let (mut level, mut resume) = match entry {
        Entry::Fresh => (0, false),
        Entry::Placed(top) => (top, true),
    };
    let mut here = &levels[level];
    // The word on the current level's cell, kept in a register for the
    // next level's hot key term.
    let mut placed = board[here.pos as usize];
    let (mut i, mut end) = if resume {
        (runs[level].next, runs[level].end)
    } else {
        let k = plan.key_index(here, board);
        (offsets[k], offsets[k + 1])
    };

    loop {
        if !resume {
            // Find the next placement at `level`, backtracking as needed.
            loop {
                if i < end {
                    // SAFETY: i < end ≤ candidates.len() (offsets never exceed it).
                    let word = unsafe { *candidates.get_unchecked(i as usize) };
                    i += 1;
                    let class = class_of(word);
                    // SAFETY: every candidate's class is below stock.len().
                    let left = unsafe { stock.get_unchecked_mut(class) };
                    if *left == 0 {
                        continue;
                    }
                    *left -= 1;
                    // SAFETY: a level's pos is a cell of the board.
                    unsafe { *board.get_unchecked_mut(here.pos as usize) = word };
                    placed = word;
                    countdown -= 1;
                    if countdown == 0 {
                        runs[level] = Run { next: i, end };
                        counters.nodes = mark;
                        let stop = driver.poll(plan, state, level, counters);
                        rebind!();
                        if let Some(stop) = stop {
                            return (stop, Some(level));
                        }
                        // A split may have cut this level's run short.
                        end = runs[level].end;
                        mark = driver.next_mark(counters.nodes).max(counters.nodes + 1);
                        countdown = mark - counters.nodes;
                    }
                    break;
                }
                if level == 0 {
                    counters.nodes = mark - countdown;
                    return (RunEnd::Finished, None);
                }
                level -= 1;
                // SAFETY: level < leaf ≤ levels.len(), and the stack arrays
                // hold at least `leaf` entries (asserted above).
                unsafe {
                    here = levels.get_unchecked(level);
                    let placed = *board.get_unchecked(here.pos as usize);
                    *stock.get_unchecked_mut(class_of(placed)) += 1;
                    Run { next: i, end } = *runs.get_unchecked(level);
                }
            }
        }
        resume = false;
        if level + 1 == leaf {
            counters.nodes = mark - countdown;
            let stop = visitor.leaf(plan, state, counters);
            rebind!();
            if stop {
                runs[level] = Run { next: i, end };
                return (RunEnd::FoundFirst, Some(level));
            }
            stock[class_of(placed)] += 1;
            continue;
        }
        // SAFETY: level + 1 < leaf ≤ levels.len() ≤ stack lengths; the key
        // index and its successor lie inside the level's table (see above).
        unsafe {
            *runs.get_unchecked_mut(level) = Run { next: i, end };
            level += 1;
            here = levels.get_unchecked(level);
            let k = here.key_index_unchecked(board, placed);
            i = *offsets.get_unchecked(k);
            end = *offsets.get_unchecked(k + 1);
        }
    }
}
