//! `e2 count` and `e2 solve`: the whole system in one process.
//!
//! Both run the real coordinator and real workers embedded (the same code a
//! cluster runs, with the engine threads in-process), over a temporary sled
//! directory or the one given with `--data`. Interrupted with Ctrl-C, the
//! same command with the same `--data` resumes: finished tasks are kept,
//! in-flight ones restart from their checkpoints.

use std::path::PathBuf;
use std::time::Duration;

use anyhow::{anyhow, bail, Result};
use clap::Args;
use e2_coordinator::{run_best, run_count, BestOptions, BestSearch, Engine};
use e2_shared::formats::Duplicates;
use e2_shared::order::FillOrder;
use e2_shared::Puzzle;

use crate::cluster::EngineArg;
use crate::input::read_puzzle;

/// The puzzle `e2 solve` searches when none is given.
const BUNDLED: &str = include_str!("../../../examples/e2_16x16_official5_s1.json");
const BUNDLED_NAME: &str = "examples/e2_16x16_official5_s1.json";

#[derive(Debug, Args)]
pub struct CountArgs {
    /// The puzzle (Puzzle JSON or CSV).
    #[arg(long, value_name = "P.json")]
    pub puzzle: String,
    /// dlx: Knuth's Algorithm C, choosing the most constrained item;
    /// backtrack: the bitmask backtracker, row by row.
    #[arg(long, value_enum, default_value = "backtrack")]
    pub engine: EngineArg,
    /// Keep the job in this sled directory: rerun the same command to resume
    /// after Ctrl-C. Default: a temporary directory.
    #[arg(long, value_name = "DIR")]
    pub data: Option<PathBuf>,
    /// Engine threads (default: every core).
    #[arg(long, value_name = "N")]
    pub threads: Option<usize>,
}

#[derive(Debug, Args)]
pub struct SolveArgs {
    /// The puzzle (Puzzle JSON or CSV). Default: the bundled 16×16 puzzle
    /// with the official five clue cells.
    #[arg(long, value_name = "P.json")]
    pub puzzle: Option<String>,
    /// Stop after this many seconds.
    #[arg(long = "time", value_name = "SECS", default_value_t = 60)]
    pub time: u64,
    /// Stop once a board reaches this score (default: the maximum).
    #[arg(long, value_name = "S")]
    pub target_score: Option<u32>,
    /// How many of the best boards to keep; the best one is printed.
    #[arg(long, value_name = "K", default_value_t = 10)]
    pub top: u32,
    /// Print all kept boards (best first), not only the best.
    #[arg(long)]
    pub all: bool,
    /// Fill order (SPEC §6): row-major, row-major-bottom-up, spiral-in,
    /// spiral-out, border-first, verhaard-comb, hint-rows-first,
    /// connect-hints-first. Default: row-major.
    #[arg(long, value_name = "ORDER")]
    pub order: Option<String>,
    /// Most unmatched seams a board may carry: 0 is strict DFS (every
    /// placed seam matches), K a flat cap of K breaks. Default: the tuned
    /// break-tolerant search (strict early, then a ramp of breaks).
    #[arg(long, value_name = "K")]
    pub max_breaks: Option<u32>,
    /// Keep the job in this sled directory (resumable). Default: temporary.
    #[arg(long, value_name = "DIR")]
    pub data: Option<PathBuf>,
    /// Engine threads (default: every core).
    #[arg(long, value_name = "N")]
    pub threads: Option<usize>,
}

/// The search settings of `--order` and `--max-breaks`, checked here so a
/// bad order name is refused before anything starts.
pub fn search_settings(order: Option<&str>, max_breaks: Option<u32>) -> Result<BestSearch> {
    let order = match order {
        Some(name) => name
            .parse::<FillOrder>()
            .map_err(|e| anyhow!("--order: {e}"))?,
        None => BestSearch::default().order,
    };
    Ok(BestSearch {
        order,
        max_breaks,
        ..BestSearch::default()
    })
}

fn threads(requested: Option<usize>) -> usize {
    requested
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()))
        .max(1)
}

fn engine(arg: EngineArg) -> Engine {
    match arg {
        EngineArg::Dlx => Engine::Dlx,
        EngineArg::Backtrack => Engine::Backtrack,
    }
}

pub fn count(args: CountArgs) -> Result<()> {
    let puzzle = read_puzzle(&args.puzzle, Duplicates::Allow)?;
    let outcome = run_count(
        &puzzle,
        engine(args.engine),
        args.data.clone(),
        threads(args.threads),
    )?;
    let seconds = outcome.elapsed.as_secs_f64();
    let out = serde_json::json!({
        "puzzle": puzzle.name,
        "engine": format!("{:?}", args.engine).to_lowercase(),
        "solutions": outcome.solutions,
        "complete": outcome.finished,
        "nodes": outcome.nodes,
        "tasks": outcome.tasks,
        "seconds": (seconds * 1000.0).round() / 1000.0,
        "job": outcome.job_id,
        "resumed": outcome.resumed,
    });
    println!("{out}");
    if !outcome.finished {
        match &args.data {
            Some(dir) => eprintln!(
                "interrupted: the count so far is kept in {}; run the same command again to resume",
                dir.display()
            ),
            None => {
                eprintln!("interrupted: pass --data DIR to keep an interrupted count and resume it")
            }
        }
        std::process::exit(130);
    }
    Ok(())
}

pub fn solve(args: SolveArgs) -> Result<()> {
    let search = search_settings(args.order.as_deref(), args.max_breaks)?;
    let puzzle: Puzzle = match &args.puzzle {
        Some(p) => read_puzzle(p, Duplicates::Allow)?,
        None => {
            eprintln!("no --puzzle: searching the bundled {BUNDLED_NAME}");
            e2_shared::formats::puzzle_json::read(BUNDLED)?
        }
    };
    if args.time == 0 && args.target_score.is_none() {
        eprintln!(
            "note: --time 0 and no --target-score: searching until the maximum score or Ctrl-C"
        );
    }
    let options = BestOptions {
        time_limit: (args.time > 0).then(|| Duration::from_secs(args.time)),
        target_score: args.target_score,
        top_k: Some(args.top.max(1)),
        search,
    };
    let outcome = run_best(
        &puzzle,
        Engine::Backtrack,
        args.data.clone(),
        threads(args.threads),
        options,
    )?;
    let Some(best) = outcome.boards.first() else {
        bail!("no board was found before the search stopped");
    };
    if args.all {
        for doc in &outcome.boards {
            println!("{}", doc.trim_end());
        }
    } else {
        println!("{}", best.trim_end());
    }
    eprintln!(
        "best score {} after {:.1} s{}",
        outcome.best_score.unwrap_or(0),
        outcome.elapsed.as_secs_f64(),
        if outcome.finished {
            ""
        } else {
            " (interrupted)"
        }
    );
    Ok(())
}
