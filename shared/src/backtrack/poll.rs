//! Polling: how a running walk hears its driver without slowing down.
//!
//! The walk compares its node count with one precomputed mark per node;
//! only at the mark (the next of: [`POLL_INTERVAL`] nodes, or
//! [`crate::search::OPEN_POLL_INTERVAL`] in the open-node walk; the budget; the
//! next periodic checkpoint) does it call [`Driver::poll`], which reads the
//! stop and split requests, enforces the budget and hands out checkpoints.
//! The stop and split flags are atomics in [`crate::search::Control`], so
//! no lock is ever taken on the hot path.

use super::checkpoint::checkpoint;
use super::plan::Plan;
use super::split::split;
use super::state::{Counters, SearchState};
use super::Limits;
use crate::model::Puzzle;
use crate::search::{Checkpoint, RunEnd, POLL_INTERVAL};

/// What a walk asks of its driver at its marks. The chained walk (`chain`)
/// reaches it through a pointer, so that the chain is compiled once per
/// visitor, in this crate, whatever the checkpoint callback.
pub(crate) trait Polls {
    fn next_mark(&self, nodes: u64) -> u64;
    fn poll(
        &mut self,
        plan: &Plan,
        state: &mut SearchState,
        top: usize,
        counters: &mut Counters,
    ) -> Option<RunEnd>;
}

/// The driver's side of a walk: limits, the checkpoint callback, and what a
/// split needs to name donated prefixes.
pub(crate) struct Driver<'a, F: FnMut(&Checkpoint)> {
    pub limits: &'a Limits<'a>,
    pub puzzle: &'a Puzzle,
    pub on_checkpoint: F,
    /// Nodes at which the run's budget is spent.
    budget_end: u64,
    next_checkpoint: u64,
}

impl<'a, F: FnMut(&Checkpoint)> Driver<'a, F> {
    pub(crate) fn new(
        limits: &'a Limits<'a>,
        puzzle: &'a Puzzle,
        on_checkpoint: F,
        nodes_at_start: u64,
    ) -> Self {
        let budget_end = limits
            .max_nodes
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

    /// The next mark of a walk that polls every `interval` nodes: the
    /// budget's end and the next checkpoint are marks whatever the interval,
    /// so checkpoints and budget stops fall on the same nodes in every walk.
    pub(crate) fn next_mark_every(&self, nodes: u64, interval: u64) -> u64 {
        (nodes + interval)
            .min(self.budget_end)
            .min(self.next_checkpoint)
    }
}

impl<F: FnMut(&Checkpoint)> Polls for Driver<'_, F> {
    /// The next mark of a walk that polls every [`POLL_INTERVAL`] nodes.
    fn next_mark(&self, nodes: u64) -> u64 {
        self.next_mark_every(nodes, POLL_INTERVAL)
    }

    /// Runs at each mark with levels `0..=top` placed. `Some(end)` stops the walk.
    #[cold]
    #[inline(never)]
    fn poll(
        &mut self,
        plan: &Plan,
        state: &mut SearchState,
        top: usize,
        counters: &mut Counters,
    ) -> Option<RunEnd> {
        if let Some(control) = self.limits.control {
            if control.is_stopped() {
                return Some(RunEnd::Stopped);
            }
            if control.split_wanted() {
                let donated = split(plan, state, self.puzzle, top);
                if !donated.is_empty() {
                    // Each given sibling is a placement this walk would have
                    // made, and the prefix of the subtask that takes it: it
                    // is counted here, where the uncut walk counts it.
                    counters.nodes += donated.len() as u64;
                    control.donate(donated);
                }
            }
        }
        if counters.nodes >= self.budget_end {
            return Some(RunEnd::BudgetSpent);
        }
        if counters.nodes >= self.next_checkpoint {
            (self.on_checkpoint)(&checkpoint(plan, state, Some(top), counters));
            let every = self.limits.checkpoint_every.unwrap_or(u64::MAX).max(1);
            self.next_checkpoint = counters.nodes.saturating_add(every);
        }
        None
    }
}
