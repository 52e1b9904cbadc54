//! The bitmask backtracker under the contract: a thin translation, since
//! the engine was built around the same vocabulary.

use crate::backtrack::{Backtracker, BestReport};
use crate::error::Result;
use crate::estimate::{Estimate, Probes};
use crate::model::{Board, Puzzle};
use crate::order::FillOrder;
use crate::search::{Checkpoint, Control, Prefix};

use super::{
    BestLease, BestSearch, Capabilities, Contract, CountReport, Cut, FirstReport, Limits, Subtree,
};

pub(super) struct Backtrack;

impl Contract for Backtrack {
    const CAPABILITIES: Capabilities = Capabilities {
        count: true,
        first: true,
        best: true,
        fill_orders: true,
    };

    fn cut(puzzle: &Puzzle, order: FillOrder, depth: usize) -> Result<Cut> {
        // A subtask does not count the placements of its own prefix.
        let (prefixes, nodes) = Backtracker::new(puzzle, order, &Prefix::new())?.cut(depth);
        Ok(Cut { prefixes, nodes })
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

    fn estimate(subtree: &Subtree<'_>, config: &Probes) -> Result<Estimate> {
        Backtracker::new(subtree.puzzle, subtree.order, subtree.prefix)?.estimate(config)
    }

    fn best(
        subtree: &Subtree<'_>,
        search: &BestSearch,
        lease: BestLease,
        control: Option<&Control>,
        mut on_improved: impl FnMut(&Board),
    ) -> Result<BestReport> {
        // A best job walks its own order, whatever the subtree's says.
        let mut bt = Backtracker::new(subtree.puzzle, search.order, subtree.prefix)?;
        if let Some(beam) = search.beam_below_best(subtree.puzzle, subtree.prefix, lease) {
            // A round from the best board: a beam below its kept cells.
            let report = bt.beam(&beam, control)?;
            if report.score > lease.beat {
                if let Some(board) = &report.board {
                    on_improved(board);
                }
            }
            return Ok(report);
        }
        bt.best_with(&search.config(lease), control, on_improved)
    }
}
