//! The backtracker's tree as a [`ProbeTree`] for Knuth's estimate.
//!
//! A probe must see exactly the children the count's walk would try, or
//! the estimate would be of another tree: so it reads the same plan, the
//! same candidate run for the key of the placed neighbours, and the same
//! stock test, and places the chosen word the way the walk does. It is not
//! the walk's loop (a probe needs every child of a node counted before it
//! picks one, the walk never does), but it shares every table the loop
//! reads, so the two cannot drift apart.

use super::candidate::{class_of, Candidate};
use super::plan::Plan;
use super::state::SearchState;
use crate::estimate::ProbeTree;

/// A cursor on one node of the tree: levels `0..level` placed.
pub(crate) struct Probe<'a> {
    plan: &'a Plan,
    state: &'a mut SearchState,
    level: usize,
    /// The current node's children (candidates in stock).
    children: Vec<Candidate>,
}

impl<'a> Probe<'a> {
    pub(crate) fn new(plan: &'a Plan, state: &'a mut SearchState) -> Self {
        state.reset(plan);
        Probe {
            plan,
            state,
            level: 0,
            children: Vec::new(),
        }
    }
}

impl ProbeTree for Probe<'_> {
    fn restart(&mut self) {
        self.state.reset(self.plan);
        self.level = 0;
    }

    fn children(&mut self) -> u64 {
        self.children.clear();
        let Some(here) = self.plan.levels.get(self.level) else {
            return 0;
        };
        let k = self.plan.key_index(here, &self.state.board);
        let offsets = self.plan.tables.offsets();
        let run = &self.plan.tables.candidates()[offsets[k] as usize..offsets[k + 1] as usize];
        let stock = &self.state.stock;
        self.children
            .extend(run.iter().copied().filter(|&w| stock[class_of(w)] > 0));
        self.children.len() as u64
    }

    fn descend(&mut self, k: u64) {
        let word = self.children[k as usize];
        let pos = self.plan.levels[self.level].pos as usize;
        self.state.stock[class_of(word)] -= 1;
        self.state.board[pos] = word;
        self.level += 1;
    }

    fn complete(&self) -> bool {
        self.level == self.plan.levels.len()
    }
}
