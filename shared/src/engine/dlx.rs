//! Knuth's Algorithm C under the contract. The encoding speaks in option
//! numbers and reports Knuth's update counts; the contract hears placements
//! and the common report. DLX branches on the subtree's fill order (the
//! next empty cell, unless a cell or piece is down to one option or none),
//! or, for counts planned before it did, on Knuth's most-constrained item;
//! it cannot score partial boards.

use crate::backtrack::BestReport;
use crate::dlx::{self, E2Cover, Hooks};
use crate::error::Result;
use crate::estimate::{Estimate, Probes};
use crate::model::{Board, Puzzle};
use crate::order::FillOrder;
use crate::search::{Checkpoint, Control};

use super::{
    Ask, BestLease, BestSearch, Capabilities, Contract, CountReport, Cut, Engine, FirstReport,
    Limits, Subtree,
};

pub(super) struct Dlx;

/// The encoding `subtree` is searched on (see [`Subtree::most_constrained`]).
fn cover(subtree: &Subtree<'_>) -> Result<E2Cover> {
    if subtree.most_constrained {
        E2Cover::new(subtree.puzzle)
    } else {
        E2Cover::ordered(subtree.puzzle, subtree.order)
    }
}

fn dlx_limits(limits: &Limits<'_>) -> dlx::Limits {
    dlx::Limits {
        max_nodes: limits.max_nodes,
        checkpoint_every: limits.checkpoint_every,
        ..dlx::Limits::default()
    }
}

impl Contract for Dlx {
    const CAPABILITIES: Capabilities = Capabilities {
        count: true,
        first: true,
        best: false,
        fill_orders: true,
    };

    fn cut(puzzle: &Puzzle, order: FillOrder, depth: usize) -> Result<Cut> {
        let (prefixes, nodes) = E2Cover::ordered(puzzle, order)?.cut(&Vec::new(), depth)?;
        Ok(Cut { prefixes, nodes })
    }

    fn count(
        subtree: &Subtree<'_>,
        resume: Option<&Checkpoint>,
        limits: &Limits<'_>,
        mut on_checkpoint: impl FnMut(&Checkpoint),
    ) -> Result<CountReport> {
        let cover = cover(subtree)?;
        let mut forward = |cp: Checkpoint| on_checkpoint(&cp);
        let hooks = Hooks {
            control: limits.control,
            on_checkpoint: Some(&mut forward),
            on_board: None,
        };
        let report = match resume {
            Some(cp) => cover.resume(cp, &dlx_limits(limits), hooks)?,
            None => cover.count(subtree.prefix, &dlx_limits(limits), hooks)?,
        };
        Ok(CountReport {
            solutions: report.solutions,
            nodes: report.nodes,
            end: report.end,
            checkpoint: report.checkpoint,
        })
    }

    fn first(subtree: &Subtree<'_>, limits: &Limits<'_>) -> Result<FirstReport> {
        let dlx_limits = dlx::Limits {
            max_solutions: Some(1),
            ..dlx_limits(limits)
        };
        let hooks = Hooks {
            control: limits.control,
            ..Hooks::default()
        };
        let report = cover(subtree)?.count(subtree.prefix, &dlx_limits, hooks)?;
        Ok(FirstReport {
            board: report.first,
            nodes: report.nodes,
            end: report.end,
        })
    }

    fn estimate(subtree: &Subtree<'_>, config: &Probes) -> Result<Estimate> {
        cover(subtree)?.estimate(subtree.prefix, config)
    }

    fn best(
        _subtree: &Subtree<'_>,
        _search: &BestSearch,
        _lease: BestLease,
        _control: Option<&Control>,
        _on_improved: impl FnMut(&Board),
    ) -> Result<BestReport> {
        // `Engine::best` refuses first; the reason is written once, there.
        Err(Engine::Dlx
            .require(Ask::Best)
            .expect_err("dlx has no best-score capability"))
    }
}
