//! The mutable half of a search: board, stock, and per level the walk's
//! position, with the node and solution counters.
//!
//! Kept apart from the walk that drives it, so that what reads a stopped
//! walk (checkpoints, splits, the driver's poll) depends on the state, not
//! on the loop.

use super::candidate::Candidate;
use super::open::Open;
use super::plan::Plan;

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
    /// Per level, the masked walk's frame (see `masks`).
    pub frames: Vec<Frame>,
    /// The open-node walk's stack (see `open`); empty for plans it cannot run.
    pub open: Vec<Open>,
}

/// A level of the masked walk: its run (first candidate, classes) and the
/// classes of the run it has not tried yet, among those free when its turn came.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct Frame {
    pub rest: u64,
    pub classes: u64,
    /// The run's classes listed twice (two turns).
    pub twice: u64,
    pub start: u32,
    /// 1 when the lowest class of `rest` has had its first turn tried.
    pub second: u32,
}

impl SearchState {
    pub(crate) fn new(plan: &Plan) -> Self {
        let levels = plan.levels.len();
        SearchState {
            board: plan.pinned_board.clone(),
            stock: plan.stock.clone(),
            runs: vec![Run { next: 0, end: 0 }; levels],
            given_away: vec![false; levels],
            frames: vec![Frame::default(); levels],
            open: vec![Open::default(); plan.open.as_ref().map_or(0, |o| o.stack_len())],
        }
    }

    pub(crate) fn reset(&mut self, plan: &Plan) {
        self.board.copy_from_slice(&plan.pinned_board);
        self.stock.copy_from_slice(&plan.stock);
        self.given_away.iter_mut().for_each(|g| *g = false);
    }
}

/// Raw pointers to a state's board, stock and runs, for the chained walks
/// (`chain`, `best::chained`): their levels reach the stacks through the
/// walk's context rather than a borrow of the state, which the walk still
/// lends to its driver and visitor. Taken again after every such loan.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Stacks {
    pub board: *mut Candidate,
    pub board_len: usize,
    pub stock: *mut u16,
    pub runs: *mut Run,
}

impl SearchState {
    pub(crate) fn stacks(&mut self) -> Stacks {
        Stacks {
            board: self.board.as_mut_ptr(),
            board_len: self.board.len(),
            stock: self.stock.as_mut_ptr(),
            runs: self.runs.as_mut_ptr(),
        }
    }
}

/// The untried rest of a level's candidate run: `next..end`. Laid out as
/// two `u32` in this order: the compiled walk (`jit`) reads it.
#[derive(Debug, Clone, Copy)]
#[repr(C)]
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
