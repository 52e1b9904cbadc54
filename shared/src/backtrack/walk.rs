//! The depth-first walk: an explicit stack over the plan's levels.
//!
//! No recursion and no allocation: per level the stack keeps the next
//! untried index and the end of the level's candidate run, the board keeps
//! the placed words, and the stock keeps how many pieces of each class are
//! left. The current level's cursor lives in registers; it is spilled to the
//! stack only on descent. What to do at a leaf (count, stop at the first
//! board, record a prefix) is a [`Visitor`] chosen at compile time, so the
//! loop carries no dynamic dispatch.
//!
//! The loop polls its driver only when the node count reaches a
//! precomputed mark (the next of: [`POLL_INTERVAL`] nodes, the budget, the
//! next periodic checkpoint), so the hot path pays one compare per node.
//! Whenever the walk stops early its state is "a node was just placed at
//! level `top` and its subtree is untouched", which is exactly what a
//! [`Checkpoint`] records and what [`Entry::Placed`] resumes.

use std::sync::atomic::Ordering;

use super::candidate::{class_of, Candidate};
use super::plan::Plan;
use super::CountLimits;
use crate::error::{Error, Result};
use crate::model::Puzzle;
use crate::search::{Checkpoint, Prefix, RunEnd, POLL_INTERVAL};

/// Marks a checkpoint path entry whose untried siblings were given away by
/// a split: resuming must not search them.
pub(crate) const GIVEN_AWAY: u32 = 1 << 31;

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

/// The driver's side of a walk: limits, the checkpoint callback, and what a
/// split needs to name donated prefixes.
pub(crate) struct Driver<'a, F: FnMut(&Checkpoint)> {
    pub limits: &'a CountLimits,
    pub puzzle: &'a Puzzle,
    pub on_checkpoint: F,
    /// Nodes at which the run's budget is spent.
    budget_end: u64,
    next_checkpoint: u64,
}

impl<'a, F: FnMut(&Checkpoint)> Driver<'a, F> {
    pub(crate) fn new(
        limits: &'a CountLimits,
        puzzle: &'a Puzzle,
        on_checkpoint: F,
        nodes_at_start: u64,
    ) -> Self {
        let budget_end = limits
            .node_budget
            .map_or(u64::MAX, |b| nodes_at_start.saturating_add(b));
        let next_checkpoint = limits
            .checkpoint_every
            .map_or(u64::MAX, |n| nodes_at_start.saturating_add(n.max(1)));
        Driver {
            limits,
            puzzle,
            on_checkpoint,
            budget_end,
            next_checkpoint,
        }
    }

    fn next_mark(&self, nodes: u64) -> u64 {
        (nodes + POLL_INTERVAL)
            .min(self.budget_end)
            .min(self.next_checkpoint)
    }

    /// Runs at each mark with levels `0..=top` placed. `Some(end)` stops the walk.
    #[cold]
    #[inline(never)]
    fn poll(
        &mut self,
        plan: &Plan,
        state: &mut SearchState,
        top: usize,
        counters: &Counters,
    ) -> Option<RunEnd> {
        if let Some(control) = &self.limits.control {
            if control.is_stopped() {
                return Some(RunEnd::Stopped);
            }
            if control.split_wanted() {
                let donated = split(plan, state, self.puzzle, top);
                if !donated.is_empty() {
                    control.donate(donated);
                }
            }
        }
        if counters.nodes >= self.budget_end {
            return Some(RunEnd::BudgetSpent);
        }
        let requested = self
            .limits
            .checkpoint_request
            .as_ref()
            .is_some_and(|r| r.swap(false, Ordering::AcqRel));
        if counters.nodes >= self.next_checkpoint || requested {
            (self.on_checkpoint)(&checkpoint(plan, state, Some(top), counters));
            if counters.nodes >= self.next_checkpoint {
                let every = self.limits.checkpoint_every.unwrap_or(u64::MAX).max(1);
                self.next_checkpoint = counters.nodes.saturating_add(every);
            }
        }
        None
    }
}

/// Walks the subtree from `entry` down to `leaf` levels. Returns how it
/// ended and, unless it finished, the level just placed when it stopped.
///
/// The loop indexes without bounds checks; each access carries its proof.
/// The proofs rest on three facts established when the plan is built:
/// every offset is at most `candidates.len()`; every candidate's class is
/// below `stock.len()`; and a key index stays inside its level's table,
/// because every colour on the board is at most `num_colors` (puzzles are
/// validated), so `Σ colour_j · 2·base^j ≤ 2·(base^n − 1)` while the table
/// holds `2·base^n + 1` offsets.
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
    let mut mark = driver.next_mark(counters.nodes);
    let mut nodes = counters.nodes;

    let (mut level, mut resume) = match entry {
        Entry::Fresh => (0, false),
        Entry::Placed(top) => (top, true),
    };
    let mut here = &levels[level];
    // The word on the current level's cell, kept in a register for the
    // next level's hot key term.
    let mut placed = state.board[here.pos as usize];
    let (mut i, mut end) = if resume {
        (state.runs[level].next, state.runs[level].end)
    } else {
        let k = plan.key_index(here, &state.board);
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
                    let left = unsafe { state.stock.get_unchecked_mut(class) };
                    if *left == 0 {
                        continue;
                    }
                    *left -= 1;
                    // SAFETY: a level's pos is a cell of the board.
                    unsafe { *state.board.get_unchecked_mut(here.pos as usize) = word };
                    placed = word;
                    nodes += 1;
                    if nodes >= mark {
                        state.runs[level] = Run { next: i, end };
                        counters.nodes = nodes;
                        if let Some(stop) = driver.poll(plan, state, level, counters) {
                            return (stop, Some(level));
                        }
                        // A split may have cut this level's run short.
                        end = state.runs[level].end;
                        mark = driver.next_mark(nodes);
                    }
                    break;
                }
                if level == 0 {
                    counters.nodes = nodes;
                    return (RunEnd::Finished, None);
                }
                level -= 1;
                // SAFETY: level < leaf ≤ levels.len(), and the stack arrays
                // hold at least `leaf` entries (asserted above).
                unsafe {
                    here = levels.get_unchecked(level);
                    let placed = *state.board.get_unchecked(here.pos as usize);
                    *state.stock.get_unchecked_mut(class_of(placed)) += 1;
                    Run { next: i, end } = *state.runs.get_unchecked(level);
                }
            }
        }
        resume = false;
        if level + 1 == leaf {
            counters.nodes = nodes;
            if visitor.leaf(plan, state, counters) {
                state.runs[level] = Run { next: i, end };
                return (RunEnd::FoundFirst, Some(level));
            }
            state.stock[class_of(placed)] += 1;
            continue;
        }
        // SAFETY: level + 1 < leaf ≤ levels.len() ≤ stack lengths; the key
        // index and its successor lie inside the level's table (see above).
        unsafe {
            *state.runs.get_unchecked_mut(level) = Run { next: i, end };
            level += 1;
            here = levels.get_unchecked(level);
            let k = here.key_index_unchecked(&state.board, placed);
            i = *offsets.get_unchecked(k);
            end = *offsets.get_unchecked(k + 1);
        }
    }
}

/// Start of the exact run of `level` on the current board.
fn run_start(plan: &Plan, state: &SearchState, level: usize) -> u32 {
    plan.tables.offsets()[plan.key_index(&plan.levels[level], &state.board)]
}

/// The checkpoint of a walk stopped with levels `0..=top` placed (or of a
/// fresh position when `top` is `None`).
pub(crate) fn checkpoint(
    plan: &Plan,
    state: &SearchState,
    top: Option<usize>,
    counters: &Counters,
) -> Checkpoint {
    let path = match top {
        None => Vec::new(),
        Some(top) => (0..=top)
            .map(|level| {
                let index = state.runs[level].next - 1 - run_start(plan, state, level);
                index
                    | if state.given_away[level] {
                        GIVEN_AWAY
                    } else {
                        0
                    }
            })
            .collect(),
    };
    Checkpoint {
        engine: super::ENGINE.to_string(),
        prefix: plan.prefix.clone(),
        path,
        solutions: counters.solutions,
        nodes: counters.nodes,
    }
}

/// Lays the placements of a checkpoint path back on a reset board. Returns
/// the top level placed, or `None` for an empty path.
pub(crate) fn replay(plan: &Plan, state: &mut SearchState, path: &[u32]) -> Result<Option<usize>> {
    state.reset(plan);
    if path.len() > plan.levels.len() {
        return Err(Error::Invalid(format!(
            "checkpoint path has {} levels but this subtask searches only {}",
            path.len(),
            plan.levels.len()
        )));
    }
    let offsets = plan.tables.offsets();
    for (level, &entry) in path.iter().enumerate() {
        let index = entry & !GIVEN_AWAY;
        let k = plan.key_index(&plan.levels[level], &state.board);
        let (start, end) = (offsets[k], offsets[k + 1]);
        if index >= end - start {
            return Err(Error::Invalid(format!(
                "checkpoint path level {level}: choice {index} is beyond the {} candidates there \
                 (was it taken under another fill order?)",
                end - start
            )));
        }
        let word = plan.tables.candidates()[(start + index) as usize];
        let class = class_of(word);
        if state.stock[class] == 0 {
            return Err(Error::Invalid(format!(
                "checkpoint path level {level}: choice {index} uses a piece already placed"
            )));
        }
        state.stock[class] -= 1;
        state.board[plan.levels[level].pos as usize] = word;
        let given_away = entry & GIVEN_AWAY != 0;
        state.runs[level] = Run {
            next: start + index + 1,
            end: if given_away { start + index + 1 } else { end },
        };
        state.given_away[level] = given_away;
    }
    Ok(path.len().checked_sub(1))
}

/// Gives away the untried siblings at the shallowest level (at or above
/// `top`) that has any a search could still place, as prefixes, and cuts
/// that level's run so this walk never searches them.
pub(crate) fn split(
    plan: &Plan,
    state: &mut SearchState,
    puzzle: &Puzzle,
    top: usize,
) -> Vec<Prefix> {
    let candidates = plan.tables.candidates();
    for level in 0..=top {
        let untried = state.runs[level].next..state.runs[level].end;
        // A sibling is tried with the levels below it empty, so a piece
        // they hold now is free for it.
        let available = |class: usize| {
            let held_deeper = (level..=top)
                .filter(|&l| class_of(state.board[plan.levels[l].pos as usize]) == class)
                .count();
            state.stock[class] as usize + held_deeper > 0
        };
        let siblings: Vec<Candidate> = candidates[untried.start as usize..untried.end as usize]
            .iter()
            .copied()
            .filter(|&w| available(class_of(w)))
            .collect();
        if siblings.is_empty() {
            continue;
        }
        state.runs[level].end = state.runs[level].next;
        state.given_away[level] = true;
        return siblings
            .into_iter()
            .map(|w| plan.forced(puzzle, &state.board, level, Some(w)))
            .collect();
    }
    Vec::new()
}
