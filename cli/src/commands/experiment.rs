//! `e2 experiment hint-study`: the hint study, run on a cluster.
//!
//! The grid (every fill order × the `none` baseline and every hinted
//! layout × seeds × sizes) comes from `e2_shared::study`; this command only
//! carries each run to a coordinator and back. Every run is a *whole-tree*
//! best job: one task, strict DFS in the run's fill order, seed 0, no
//! restarts, a fixed node budget. Such a job's board depends on nothing but
//! the puzzle, the order and the budget, so the cluster adds no noise, and
//! its result is rebuilt with the same [`RunResult::from_board`] that
//! `study::run_one` uses locally.
//!
//! Budgets are in nodes, never in milliseconds: a time budget would make
//! the report depend on the machine and its load. Results are written in
//! grid order whatever order jobs finish in, and no file carries a time, so
//! two runs of the same command write byte-identical files.
//!
//! Without `--coordinator` the command starts a coordinator and a worker
//! inside this process ([`LocalCluster`]) and speaks to it over gRPC
//! exactly as it would to a remote one.

use std::path::{Path, PathBuf};
use std::time::Duration;

use anyhow::{anyhow, bail, Context, Result};
use clap::{Args, Subcommand};
use e2_coordinator::client::{self, Client, SubmitOptions};
use e2_local::LocalCluster;
use e2_proto::pb;
use e2_shared::layouts::Layout;
use e2_shared::order::FillOrder;
use e2_shared::study::{self, PuzzleCache, RunResult, RunSpec, StudySpec};
use e2_shared::{Board, Puzzle};

/// How often a job that is not over yet is asked again.
const POLL: Duration = Duration::from_millis(20);

#[derive(Debug, Args)]
pub struct ExperimentArgs {
    #[command(subcommand)]
    pub study: Study,
}

#[derive(Debug, Subcommand)]
pub enum Study {
    /// What hints are worth to a strict DFS, and whether the fill order
    /// matters more: every fill order × every hint layout (each paired with
    /// the same puzzle without hints) × seeds. Writes runs.jsonl, report.md
    /// and chart.svg.
    HintStudy(HintStudyArgs),
}

#[derive(Debug, Args)]
pub struct HintStudyArgs {
    /// Board sizes (square), comma-separated.
    #[arg(long, value_delimiter = ',', default_value = "16", value_name = "N,N")]
    pub sizes: Vec<usize>,
    /// Seeds 1..=N: each a distinct generated puzzle.
    #[arg(long, default_value_t = 15, value_name = "N")]
    pub seeds: u64,
    /// Nodes each run may visit. The study's results are a function of
    /// this budget (and nothing else), so reruns agree byte for byte.
    #[arg(long, default_value_t = 2_000_000, value_name = "N")]
    pub budget_nodes: u64,
    /// Refused: a time budget would tie the results to the machine and its
    /// load. Use --budget-nodes.
    #[arg(long, value_name = "MS")]
    pub budget_ms: Option<u64>,
    /// Only these fill orders (comma-separated). Default: all of them.
    #[arg(long, value_delimiter = ',', value_name = "ORDER,..")]
    pub orders: Vec<String>,
    /// Only these hinted layouts (comma-separated; `none` is always run as
    /// the baseline). Default: all.
    #[arg(long, value_delimiter = ',', value_name = "LAYOUT,..")]
    pub layouts: Vec<String>,
    /// Run on this coordinator (its workers do the searching).
    #[arg(long, env = "E2_COORDINATOR")]
    pub coordinator: Option<String>,
    /// Bearer token the coordinator was started with.
    #[arg(long, env = "E2_TOKEN", hide_env_values = true)]
    pub token: Option<String>,
    /// Run on a coordinator and worker inside this process (the default
    /// without --coordinator; wins over an E2_COORDINATOR in the environment).
    #[arg(long)]
    pub embedded: bool,
    /// Embedded: engine threads (default: every core).
    #[arg(long, value_name = "N", value_parser = crate::commands::threads_arg)]
    pub threads: Option<usize>,
    /// Where runs.jsonl, report.md and chart.svg are written.
    #[arg(long, default_value = "study-out", value_name = "DIR")]
    pub out: PathBuf,
}

pub fn run(args: ExperimentArgs) -> Result<()> {
    match args.study {
        Study::HintStudy(a) => hint_study(a),
    }
}

fn hint_study(args: HintStudyArgs) -> Result<()> {
    let spec = study_spec(&args)?;
    let runs = spec.runs();
    eprintln!(
        "hint study: {} runs ({} sizes × {} seeds × {} orders × {} layouts), {} nodes each",
        runs.len(),
        spec.sizes.len(),
        spec.seeds,
        spec.orders.len(),
        spec.layouts.len() + 1,
        spec.budget_nodes
    );
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .context("cannot start the async runtime")?;
    let results = runtime.block_on(async {
        let remote = args.coordinator.as_ref().filter(|_| !args.embedded);
        match remote {
            Some(url) => {
                let url = crate::cluster::with_scheme(url);
                let mut client = Client::connect(&url, args.token.as_deref()).await?;
                run_grid(&mut client, &runs).await
            }
            None => {
                let threads = args
                    .threads
                    .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()));
                let cluster = LocalCluster::start(threads).await?;
                let outcome = async {
                    let mut client = Client::connect(&cluster.url(), None).await?;
                    run_grid(&mut client, &runs).await
                }
                .await;
                cluster.shutdown().await?;
                outcome
            }
        }
    })?;
    write_report(&args.out, &results)?;
    eprintln!(
        "wrote {} runs to {}",
        results.len(),
        args.out.join("report.md").display()
    );
    Ok(())
}

/// The grid the arguments ask for, every name checked.
fn study_spec(args: &HintStudyArgs) -> Result<StudySpec> {
    if args.budget_ms.is_some() {
        bail!(
            "--budget-ms: refused: a time budget makes the study depend on the machine and its load, \
             so reruns would disagree; give a node budget with --budget-nodes instead"
        );
    }
    if args.budget_nodes == 0 {
        bail!("--budget-nodes: must be at least 1");
    }
    if args.seeds == 0 {
        bail!("--seeds: must be at least 1");
    }
    if let Some(&size) = args.sizes.iter().find(|&&s| s < 2) {
        bail!("--sizes: {size} is too small, boards are at least 2×2");
    }
    let mut spec = StudySpec::full(args.sizes.clone(), args.seeds, args.budget_nodes);
    if !args.orders.is_empty() {
        spec.orders = args
            .orders
            .iter()
            .map(|name| {
                name.parse::<FillOrder>()
                    .map_err(|e| anyhow!("--orders: {e}"))
            })
            .collect::<Result<_>>()?;
    }
    if !args.layouts.is_empty() {
        spec.layouts = args
            .layouts
            .iter()
            .map(|name| {
                name.parse::<Layout>()
                    .map_err(|e| anyhow!("--layouts: {e}"))
            })
            .filter(|l| !matches!(l, Ok(Layout::None)))
            .collect::<Result<_>>()?;
    }
    Ok(spec)
}

/// The settings that make a best job one strict, deterministic run of
/// `run`: the same search `study::run_one` does locally.
fn whole_tree(run: &RunSpec) -> pb::SearchSettings {
    pb::SearchSettings {
        order: run.order.name().to_string(),
        max_breaks: Some(0),
        whole_tree: true,
        total_node_budget: run.budget_nodes,
    }
}

/// Submits every run, then collects each one's result in grid order.
/// Submitting first lets every worker of the cluster take runs at once.
pub async fn run_grid(client: &mut Client, runs: &[RunSpec]) -> Result<Vec<RunResult>> {
    let mut puzzles = PuzzleCache::default();
    let mut submitted = Vec::with_capacity(runs.len());
    for run in runs {
        let (puzzle, floor) = puzzles.puzzle(run)?;
        let options = SubmitOptions {
            top_k: Some(1),
            search: Some(whole_tree(run)),
            ..SubmitOptions::best(e2_shared::engine::Engine::Backtrack)
        };
        let text = e2_shared::formats::puzzle_json::write(&puzzle);
        let job = client
            .submit(&text, &options)
            .await
            .with_context(|| format!("run {} was not submitted", describe(run)))?;
        submitted.push((run, puzzle, floor, job));
    }
    let mut results = Vec::with_capacity(runs.len());
    for (i, (run, puzzle, floor, job)) in submitted.iter().enumerate() {
        let status = loop {
            let status = client.status(*job).await?;
            if client::is_over(&status) {
                break status;
            }
            tokio::time::sleep(POLL).await;
        };
        if client::state_name(&status) != "done" {
            bail!(
                "run {} (job {job}) ended {}: {}",
                describe(run),
                client::state_name(&status),
                status.error
            );
        }
        let docs = client.best(*job, 1).await?;
        let board = match docs.first() {
            Some(doc) => Some(board_of(puzzle, doc).with_context(|| {
                format!("run {} (job {job}): the returned board", describe(run))
            })?),
            None => None,
        };
        results.push(RunResult::from_board(
            run,
            puzzle,
            *floor,
            board.as_ref(),
            status.nodes,
        ));
        if (i + 1) % 100 == 0 {
            eprintln!("{} of {} runs collected", i + 1, submitted.len());
        }
    }
    Ok(results)
}

/// The board of a BoardDoc, rebuilt from its `board` codes on `puzzle`.
fn board_of(puzzle: &Puzzle, doc: &str) -> Result<Board> {
    let value: serde_json::Value = serde_json::from_str(doc).context("BoardDoc JSON")?;
    let codes = value["board"]
        .as_array()
        .ok_or_else(|| anyhow!("BoardDoc without a \"board\" array"))?
        .iter()
        .map(|c| {
            c.as_i64()
                .and_then(|c| i32::try_from(c).ok())
                .ok_or_else(|| anyhow!("BoardDoc \"board\": {c} is not a code"))
        })
        .collect::<Result<Vec<i32>>>()?;
    Ok(Board::from_codes(puzzle, &codes)?)
}

fn describe(run: &RunSpec) -> String {
    format!(
        "{}×{} seed {} order {} layout {}",
        run.size, run.size, run.seed, run.order, run.layout
    )
}

/// Writes runs.jsonl, report.md and chart.svg into `out`.
fn write_report(out: &Path, results: &[RunResult]) -> Result<()> {
    std::fs::create_dir_all(out).with_context(|| format!("cannot create {}", out.display()))?;
    for (name, text) in [
        ("runs.jsonl", study::jsonl(results)),
        ("report.md", study::markdown(results)),
        ("chart.svg", study::chart_svg(results)),
    ] {
        let path = out.join(name);
        std::fs::write(&path, text).with_context(|| format!("cannot write {}", path.display()))?;
    }
    Ok(())
}
