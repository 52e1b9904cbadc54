//! `e2 estimate`: how big a count's tree is before walking it.
//!
//! A count can take milliseconds or days, and the fill order alone moves
//! that by orders of magnitude, so this command answers first: Knuth's
//! random-probe estimate (`e2_shared::estimate`) of the tree `e2 count`
//! would walk, the same under every fill order the engine has, and the time
//! it would take at the node rate measured here and now with a short run of
//! the count itself. Probes are seeded, so the estimate is reproducible;
//! only the measured rate (and so the time) depends on the machine.

use std::time::Duration;

use anyhow::{anyhow, Result};
use clap::Args;
use e2_shared::count_plan::choose_tree;
use e2_shared::engine::{Engine, Subtree};
use e2_shared::estimate::{Estimate, Probes, MAX_PROBES};
use e2_shared::formats::Duplicates;
use e2_shared::order::FillOrder;
use e2_shared::search::Prefix;
use serde_json::{json, Value};

use crate::input::read_puzzle;

/// How long the count runs to measure the node rate.
const RATE_RUN: Duration = Duration::from_millis(300);

#[derive(Debug, Args)]
pub struct EstimateArgs {
    /// The puzzle (Puzzle JSON or CSV).
    #[arg(long, value_name = "P.json")]
    pub puzzle: String,
    /// The fill order whose tree `nodes` estimates. Default: the order
    /// `e2 count` would choose (the smallest estimated tree). Every order
    /// is estimated in `orders`.
    #[arg(long, value_name = "ORDER")]
    pub order: Option<FillOrder>,
    /// Estimate the whole tree, as `e2 count --no-symmetry` walks it, not
    /// the quarter (or half) the rotation reduction leaves.
    #[arg(long)]
    pub no_symmetry: bool,
    /// The engine whose tree is estimated: backtrack (nodes are
    /// placements) or dlx (nodes are DLX's level entries: the order's next
    /// empty cell, forced moves first). Each engine's probes walk its own
    /// tree, and the time uses its own node rate.
    #[arg(long, default_value = "backtrack", value_name = "ENGINE")]
    pub engine: Engine,
    /// Random root-to-leaf probes per order: more probes, smaller spread.
    #[arg(long, default_value_t = 20_000, value_name = "N", value_parser = probes_arg)]
    pub probes: u64,
    /// Seed of the probes: the same seed gives the same estimate.
    #[arg(long, default_value_t = 1, value_name = "S")]
    pub seed: u64,
    /// Engine threads the time estimate assumes (default: every core, as
    /// `e2 count`).
    #[arg(long, value_name = "N", value_parser = crate::commands::threads_arg)]
    pub threads: Option<usize>,
}

fn probes_arg(s: &str) -> Result<u64, String> {
    let n: u64 = s
        .parse()
        .map_err(|_| format!("\"{s}\" is not a number of probes"))?;
    if !(1..=MAX_PROBES).contains(&n) {
        return Err(format!("{n} is out of range 1..={MAX_PROBES}"));
    }
    Ok(n)
}

/// An estimate as JSON: nodes rounded to whole nodes, the spread as the
/// standard error and its ratio to the estimate.
fn figures(e: &Estimate) -> (Value, Value) {
    (
        json!(e.nodes.round()),
        json!({
            "stderr": e.stderr.round(),
            "relative": (e.relative_stderr() * 1000.0).round() / 1000.0,
        }),
    )
}

pub fn run(args: EstimateArgs) -> Result<()> {
    let puzzle = read_puzzle(&args.puzzle, Duplicates::Allow)?;
    let config = Probes {
        probes: args.probes,
        seed: args.seed,
    };
    // The tree `e2 count` would walk: the same reduction and order choice.
    let (reduction, _, count_order, _) = choose_tree(&puzzle, args.engine, !args.no_symmetry, None);
    let order = args.order.unwrap_or(count_order);
    // The pins sit where the estimated order meets the corners first.
    let reduction = reduction.along(&puzzle, order);
    let prefix = Prefix::new();
    let subtree = Subtree::new(&puzzle, &prefix).with_order(order);
    // Every part's estimate, summed (their spreads add as variances).
    let of_parts = |o: FillOrder| -> Result<Estimate> {
        let mut total: Option<Estimate> = None;
        for part in &reduction.along(&puzzle, o).parts(&puzzle) {
            let e = args
                .engine
                .estimate(&Subtree::new(part, &prefix).with_order(o), &config)
                .map_err(|e| anyhow!("{e}"))?;
            total = Some(match total {
                None => e,
                Some(t) => Estimate {
                    nodes: t.nodes + e.nodes,
                    stderr: (t.stderr.powi(2) + e.stderr.powi(2)).sqrt(),
                    solutions: t.solutions + e.solutions,
                    ..t
                },
            });
        }
        Ok(total.expect("at least one part"))
    };
    let headline = of_parts(order)?;

    let mut orders = Vec::new();
    for o in FillOrder::ALL {
        let e = if o == order {
            headline.clone()
        } else {
            of_parts(o)?
        };
        let (nodes, spread) = figures(&e);
        orders.push(json!({
            "order": o.name(),
            "nodes": nodes,
            "spread": spread,
            "count_uses": o == count_order,
        }));
    }

    let threads = crate::commands::run::threads(args.threads);
    let rate = args.engine.measure_rate(&subtree, RATE_RUN)?;
    let per_thread = rate.nodes_per_second();
    let seconds_estimate = headline.nodes / (per_thread * threads as f64);
    let (nodes, spread) = figures(&headline);
    let out = json!({
        "puzzle": puzzle.name,
        "engine": args.engine.name(),
        "order": order.name(),
        "count_order": count_order.name(),
        "symmetry": reduction.note,
        "symmetry_factor": reduction.factor,
        "nodes": nodes,
        "spread": spread,
        "probes": config.probes,
        "seed": config.seed,
        "seconds_estimate": (seconds_estimate * 1000.0).round() / 1000.0,
        "rate": {
            "nodes_per_second_per_thread": per_thread.round(),
            "threads": threads,
            "measured_nodes": rate.nodes,
            "measured_seconds": (rate.seconds * 1000.0).round() / 1000.0,
            "whole_tree": rate.whole_tree,
        },
        "orders": orders,
    });
    crate::outln!("{out}");
    Ok(())
}
