//! The bitmask backtracker under the contract: a thin translation, since
//! the engine was built around the same vocabulary.

use crate::backtrack::{self, Backtracker, BestReport};
use crate::error::Result;
use crate::model::{Board, Puzzle};
use crate::order::FillOrder;
use crate::search::{Checkpoint, Control, Prefix};

use super::{
    BestLease, BestSearch, Capabilities, Contract, CountReport, FirstReport, Limits, Subtree,
};

pub(super) struct Backtrack;

impl Contract for Backtrack {
    const CAPABILITIES: Capabilities = Capabilities {
        count: true,
        first: true,
        best: true,
        fill_orders: true,
    };

    fn prefixes(puzzle: &Puzzle, order: FillOrder, depth: usize) -> Result<Vec<Prefix>> {
        backtrack::prefixes(puzzle, order, depth)
    }

    fn count(
        subtree: &Subtree<'_>,
        resume: Option<&Checkpoint>,
        limits: &Limits<'_>,
        on_checkpoint: impl FnMut(&Checkpoint),
    ) -> Result<CountReport> {
        match resume {
            Some(cp) => Backtracker::new(subtree.puzzle, subtree.order, &cp.prefix)?.resume(
                cp,
                limits,
                on_checkpoint,
            ),
            None => Ok(
                Backtracker::new(subtree.puzzle, subtree.order, subtree.prefix)?
                    .count_with(limits, on_checkpoint),
            ),
        }
    }

    fn first(subtree: &Subtree<'_>, limits: &Limits<'_>) -> Result<FirstReport> {
        Ok(Backtracker::new(subtree.puzzle, subtree.order, subtree.prefix)?.first_solution(limits))
    }

    fn best(
        subtree: &Subtree<'_>,
        search: &BestSearch,
        lease: BestLease,
        control: Option<&Control>,
        on_improved: impl FnMut(&Board),
    ) -> Result<BestReport> {
        // A best job walks its own order, whatever the subtree's says.
        Backtracker::new(subtree.puzzle, search.order, subtree.prefix)?.best_with(
            &search.config(lease),
            control,
            on_improved,
        )
    }
}
