//! `e2 count` and `e2 solve`: the whole system in one process.
//!
//! Both run the real coordinator and real workers embedded (the same code a
//! cluster runs, with the engine threads in-process), over a temporary sled
//! directory or the one given with `--data`. Interrupted with Ctrl-C, the
//! same command with the same `--data` resumes: finished tasks are kept,
//! in-flight ones restart from their checkpoints.
//!
//! The runner itself is `e2_local::embedded`; this command owns what a
//! binary owns: the runtime, Ctrl-C and SIGTERM, and the progress line on
//! a terminal.

use std::future::Future;
use std::io::IsTerminal;
use std::path::PathBuf;
use std::time::Duration;

use anyhow::{anyhow, bail, Context, Result};
use clap::Args;
use e2_coordinator::client;
use e2_local::embedded::{self, BestOptions};
use e2_proto::pb;
use e2_shared::engine::{BestSearch, Engine};
use e2_shared::formats::Duplicates;
use e2_shared::order::FillOrder;
use e2_shared::Puzzle;
use tokio_util::sync::CancellationToken;

use crate::input::read_puzzle;

/// The puzzle `e2 solve` searches when none is given.
const BUNDLED: &str = include_str!("../../../examples/e2_16x16_official5_s1.json");
const BUNDLED_NAME: &str = "examples/e2_16x16_official5_s1.json";

#[derive(Debug, Args)]
pub struct CountArgs {
    /// The puzzle (Puzzle JSON or CSV).
    #[arg(long, value_name = "P.json")]
    pub puzzle: String,
    /// dlx: Knuth's Algorithm C, branching on the fill order's next empty
    /// cell unless a cell or piece is forced; backtrack: the bitmask
    /// backtracker, cell by cell in the fill order (docs/engines.md).
    #[arg(long, default_value = "backtrack", value_name = "ENGINE")]
    pub engine: Engine,
    /// Keep the job in this sled directory: rerun the same command to resume
    /// after Ctrl-C. Default: a temporary directory.
    #[arg(long, value_name = "DIR")]
    pub data: Option<PathBuf>,
    /// Engine threads (default: every core).
    #[arg(long, value_name = "N", value_parser = crate::commands::threads_arg)]
    pub threads: Option<usize>,
    /// The fill order of the tree (both engines; e.g. row-major,
    /// border-first; `e2 estimate` lists them with their estimated
    /// sizes). Default: the order with the smallest estimated tree, which
    /// the output names. A resumed count keeps the order it started with.
    #[arg(long, value_name = "ORDER")]
    pub order: Option<FillOrder>,
    /// Count the whole tree. By default, when a board rotation makes it
    /// exact (a square without clues, or clues a turn keeps, and a corner
    /// piece without a twin), one corner piece is pinned in the corner the
    /// fill order reaches first and the count multiplied by 4 (a half turn:
    /// two parts, two neighbouring corners, ×2); on a large tree every
    /// such corner piece is estimated and the smallest tree is walked. The
    /// output's "symmetry" says which piece, corner and factor were used.
    #[arg(long)]
    pub no_symmetry: bool,
    /// While running, write a backup of the data directory to this file
    /// every --backup-every seconds (what `e2 backup` writes, without
    /// stopping): each is written whole beside it, then renamed over it, so
    /// the file is always a complete backup. `e2 restore --data NEW FILE`
    /// brings the job back on any machine; keep the file on another disk,
    /// or copy it off the machine, so that a long count outlives its host.
    /// A clean stop (Ctrl-C) writes a last one.
    #[arg(long, value_name = "FILE")]
    pub backup: Option<PathBuf>,
    /// Seconds between two backups of --backup.
    #[arg(long, value_name = "S", default_value_t = 600, requires = "backup",
          value_parser = clap::value_parser!(u64).range(1..))]
    pub backup_every: u64,
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
    /// Fill order: row-major, row-major-bottom-up, spiral-in,
    /// spiral-out, border-first, verhaard-comb, hint-rows-first,
    /// connect-hints-first. Default: row-major.
    #[arg(long, value_name = "ORDER")]
    pub order: Option<String>,
    /// Most unmatched seams a board may carry: 0 is strict DFS (every
    /// placed seam matches), K a flat cap of K breaks. Default: the tuned
    /// break-tolerant search (strict early, then a ramp of breaks; half
    /// the rounds restart below the best board's first rows).
    #[arg(long, value_name = "K")]
    pub max_breaks: Option<u32>,
    /// Keep the job in this sled directory (resumable). Default: temporary.
    #[arg(long, value_name = "DIR")]
    pub data: Option<PathBuf>,
    /// Engine threads (default: every core).
    #[arg(long, value_name = "N", value_parser = crate::commands::threads_arg)]
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

pub(crate) fn threads(requested: Option<usize>) -> usize {
    requested
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()))
        .max(1)
}

/// Runs an embedded job on a runtime of its own: the first Ctrl-C (or
/// SIGTERM) interrupts it, and a terminal shows a live progress line
/// (anything else gets one line every [`LOG_PROGRESS_EVERY`]).
fn run_embedded<T, F: Future<Output = Result<T>>>(
    job: impl FnOnce(CancellationToken, Box<dyn FnMut(&pb::JobStatus) + Send>) -> F,
) -> Result<T> {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .context("cannot start the async runtime")?;
    runtime.block_on(async {
        let interrupt = CancellationToken::new();
        let cancel = interrupt.clone();
        tokio::spawn(async move {
            crate::signals::terminated().await;
            cancel.cancel();
        });
        let show = std::io::stderr().is_terminal();
        // Not a terminal (a log file, nohup): one plain line a minute.
        let mut logged = std::time::Instant::now();
        let progress = Box::new(move |status: &pb::JobStatus| {
            if !show {
                if logged.elapsed() >= LOG_PROGRESS_EVERY || client::is_over(status) {
                    logged = std::time::Instant::now();
                    eprintln!("{}", client::progress_line(status));
                }
                return;
            }
            if client::is_over(status) {
                eprintln!("\r\x1b[2K{}", client::progress_line(status));
            } else {
                eprint!("\r\x1b[2K{}", client::progress_line(status));
            }
        });
        let out = job(interrupt.clone(), progress).await;
        if show && interrupt.is_cancelled() {
            eprintln!();
        }
        out
    })
}

/// How often a run whose stderr is not a terminal logs its progress.
const LOG_PROGRESS_EVERY: std::time::Duration = std::time::Duration::from_secs(60);

pub fn count(args: CountArgs) -> Result<()> {
    let puzzle = read_puzzle(&args.puzzle, Duplicates::Allow)?;
    let (engine, data, threads) = (args.engine, args.data.clone(), threads(args.threads));
    let options = embedded::CountOptions {
        symmetry: !args.no_symmetry,
        order: args.order,
        backup: crate::commands::backup::schedule(args.backup.as_deref(), args.backup_every)?,
    };
    let outcome = run_embedded(|interrupt, progress| {
        embedded::count(&puzzle, engine, options, data, threads, interrupt, progress)
    })?;
    let seconds = outcome.elapsed.as_secs_f64();
    let s = &outcome.status;
    let mut out = serde_json::json!({
        "puzzle": puzzle.name,
        "engine": args.engine.name(),
        "solutions": outcome.solutions,
        "complete": outcome.finished,
        "nodes": outcome.nodes,
        "tasks": outcome.tasks,
        "seconds": (seconds * 1000.0).round() / 1000.0,
        "job": outcome.job_id,
        "resumed": outcome.resumed,
        "symmetry": s.symmetry,
        "symmetry_factor": s.symmetry_factor,
        "order": s.count_order,
        "order_chosen": s.count_order_chosen,
    });
    if !s.labelled_solutions.is_empty() {
        out["labelled_solutions"] = e2_coordinator::client::labelled(&s.labelled_solutions);
    }
    if s.estimated_nodes > 0 {
        out["estimated_nodes"] = serde_json::json!(s.estimated_nodes);
    }
    crate::outln!("{out}");
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
    let (data, threads) = (args.data.clone(), threads(args.threads));
    let outcome = run_embedded(|interrupt, progress| {
        embedded::best(
            &puzzle,
            Engine::Backtrack,
            data,
            threads,
            options,
            interrupt,
            progress,
        )
    })?;
    let Some(best) = outcome.boards.first() else {
        bail!("no board was found before the search stopped");
    };
    if args.all {
        for doc in &outcome.boards {
            crate::outln!("{}", doc.trim_end());
        }
    } else {
        crate::outln!("{}", best.trim_end());
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
