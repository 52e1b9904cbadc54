//! How a best job searches: the settings a user submits, and what they mean
//! for one lease and for cutting the job into tasks.
//!
//! The coordinator checks and stores these settings, the worker turns them
//! into a run: both read them here, so neither depends on the other. Their
//! wire form lives in the proto crate.

use std::time::Duration;

use crate::backtrack::BestConfig;
use crate::error::Result;
use crate::model::Puzzle;
use crate::order::FillOrder;
use crate::search::Prefix;

use super::{BestLease, Engine, COUNT_ORDER};

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
