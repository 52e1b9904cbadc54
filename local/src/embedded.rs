//! `e2 count` and `e2 solve` on one machine: the same coordinator and
//! workers, inside one process.
//!
//! Running the distributed machinery even locally means one code path for
//! every count: the same ledger, checkpoints and exactly-once completions,
//! and the same resume story. The coordinator listens on an ephemeral port
//! of 127.0.0.1 and a worker in the same process dials it. With a data
//! directory, an interrupted count (Ctrl-C) is handed back and flushed, and
//! the same command later resumes it; without one, a temporary directory is
//! used and removed.
//!
//! This module runs inside a runtime it is handed and is stopped by a
//! token it is handed: the binary owns the runtime, the signals and the
//! terminal, and hears progress through a callback.

use std::path::PathBuf;
use std::sync::Arc;
use std::time::{Duration, Instant};

use anyhow::{Context, Result};
use e2_coordinator::client;
use e2_coordinator::ledger::{JobPlan, LedgerConfig};
use e2_coordinator::records::Mode;
use e2_coordinator::service::{self, Shared};
use e2_proto::pb;
use e2_shared::engine::{BestSearch, Engine};
use e2_shared::order::FillOrder;
use e2_shared::Puzzle;
use e2_worker::WorkerConfig;
use tokio_util::sync::CancellationToken;

use crate::cluster::start_loopback;

/// How an embedded count ended.
#[derive(Debug, Clone, PartialEq)]
pub struct CountOutcome {
    pub job_id: u64,
    /// Perfect boards (complete only when `finished`).
    pub solutions: u64,
    pub nodes: u64,
    pub tasks: u64,
    /// False when interrupted: rerun with the same `--data` to resume.
    pub finished: bool,
    /// The job was found in the data directory rather than submitted.
    pub resumed: bool,
    pub elapsed: Duration,
    /// The job's last status: how the count was planned (its symmetry, fill
    /// order, estimate) and the labelled count.
    pub status: pb::JobStatus,
}

/// Options of an embedded count.
#[derive(Debug, Clone)]
pub struct CountOptions {
    /// Count a quarter (or half) of the tree where a board rotation makes
    /// that exact (the default); false counts the whole tree.
    pub symmetry: bool,
    /// The fill order; `None`: the one with the smallest estimated tree.
    pub order: Option<FillOrder>,
    /// Write a backup of the data directory this often while counting.
    pub backup: Option<e2_coordinator::backup::Schedule>,
}

impl Default for CountOptions {
    fn default() -> Self {
        CountOptions {
            symmetry: true,
            order: None,
            backup: None,
        }
    }
}

/// Options of an embedded best-score search.
#[derive(Debug, Clone, Default)]
pub struct BestOptions {
    pub time_limit: Option<Duration>,
    /// Stop at this score (default: the maximum score).
    pub target_score: Option<u32>,
    /// Boards to keep and return (default 10).
    pub top_k: Option<u32>,
    /// Fill order, breaks, whole-tree run (default: the tuned search).
    pub search: BestSearch,
}

/// How an embedded best-score search ended.
#[derive(Debug, Clone, PartialEq)]
pub struct BestOutcome {
    pub job_id: u64,
    pub best_score: Option<u32>,
    /// BoardDoc JSON, best first.
    pub boards: Vec<String>,
    pub finished: bool,
    pub resumed: bool,
    pub elapsed: Duration,
}

/// Counts the perfect boards of `puzzle` with `threads` engine threads
/// until done or until `interrupt` fires (then, with `data_dir`, the job
/// is left resumable there). `on_status` hears the job's status at most
/// every half second while it runs, at once when the first task is done,
/// and once at the end.
pub async fn count(
    puzzle: &Puzzle,
    engine: Engine,
    options: CountOptions,
    data_dir: Option<PathBuf>,
    threads: usize,
    interrupt: CancellationToken,
    on_status: impl FnMut(&pb::JobStatus),
) -> Result<CountOutcome> {
    let plan = JobPlan {
        symmetry: options.symmetry,
        count_order: options.order,
        ..JobPlan::count(puzzle, engine)
    };
    let run = run_job(
        plan,
        data_dir,
        options.backup,
        threads,
        interrupt,
        on_status,
    )
    .await?;
    Ok(CountOutcome {
        job_id: run.status.job_id,
        solutions: run.status.solutions,
        nodes: run.status.nodes,
        tasks: run.status.tasks_total,
        finished: run.finished,
        resumed: run.resumed,
        elapsed: run.elapsed,
        status: run.status,
    })
}

/// Searches for the best boards of `puzzle` until the time or target score
/// is reached, or `interrupt` fires; `on_status` as for [`count`].
pub async fn best(
    puzzle: &Puzzle,
    engine: Engine,
    data_dir: Option<PathBuf>,
    threads: usize,
    options: BestOptions,
    interrupt: CancellationToken,
    on_status: impl FnMut(&pb::JobStatus),
) -> Result<BestOutcome> {
    let top = options.top_k.unwrap_or(10);
    let plan = JobPlan {
        mode: Mode::Best,
        time_limit: options.time_limit,
        target_score: options.target_score,
        top_k: Some(top),
        search: options.search,
        ..JobPlan::count(puzzle, engine)
    };
    let run = run_job(plan, data_dir, None, threads, interrupt, on_status).await?;
    Ok(BestOutcome {
        job_id: run.status.job_id,
        best_score: run.status.best_score,
        boards: run.boards,
        finished: run.finished,
        resumed: run.resumed,
        elapsed: run.elapsed,
    })
}

struct JobRun {
    status: pb::JobStatus,
    boards: Vec<String>,
    finished: bool,
    resumed: bool,
    elapsed: Duration,
}

async fn run_job(
    plan: JobPlan,
    data_dir: Option<PathBuf>,
    backup: Option<e2_coordinator::backup::Schedule>,
    threads: usize,
    interrupt: CancellationToken,
    on_status: impl FnMut(&pb::JobStatus),
) -> Result<JobRun> {
    plan.puzzle.validate_allowing_duplicates()?;
    if plan.mode == Mode::Best {
        plan.engine.require(e2_shared::engine::Ask::Best)?;
    }
    let started = Instant::now();
    let temp = match data_dir {
        Some(_) => None,
        None => Some(tempfile::tempdir().context("cannot create a temporary data directory")?),
    };
    let data_dir =
        data_dir.unwrap_or_else(|| temp.as_ref().expect("temp dir").path().to_path_buf());
    std::fs::create_dir_all(&data_dir)
        .with_context(|| format!("cannot create {}", data_dir.display()))?;
    let ledger = LedgerConfig {
        checkpoint: Duration::from_secs(10),
        ..LedgerConfig::default()
    };
    let (running, stop_server) = start_loopback(data_dir, ledger, backup).await?;
    let shared = Arc::clone(&running.shared);
    let threads = threads.max(1);

    let mode = plan.mode;
    let resumable = shared.read(|l, _| l.find_resumable(&plan, mode == Mode::Count));
    let (job_id, resumed) = match resumable {
        Some(id) => (id, true),
        None => (
            service::submit_plan(&shared, plan, threads)
                .await
                .map_err(|s| anyhow::anyhow!("{}", s.message()))?,
            false,
        ),
    };
    if resumed {
        tracing::info!(job = job_id, "resuming the job found in the data directory");
    }

    let stop_worker = CancellationToken::new();
    let worker = tokio::spawn(e2_worker::run(
        WorkerConfig::new(running.url(), threads),
        stop_worker.clone(),
    ));
    // A coordinator that stops on its own (a write to the data directory
    // failed) ends the wait too: its error is what `running.wait` returns.
    let finished = wait_for_job(&shared, job_id, &interrupt, &running.stopped(), on_status).await?;
    stop_worker.cancel();
    let worked = worker.await.context("worker task")?;
    let status = shared
        .read(|l, clock| l.status(job_id, clock))
        .map_err(|s| anyhow::anyhow!("{}", s.message()))?;
    let boards = shared
        .read(|l, _| l.best(job_id, usize::MAX))
        .unwrap_or_default();
    stop_server.cancel();
    drop(shared);
    running.wait().await?;
    worked?;
    if client::state_name(&status) == "failed" {
        anyhow::bail!("job {job_id} failed: {}", status.error);
    }
    drop(temp);
    Ok(JobRun {
        status,
        boards,
        finished,
        resumed,
        elapsed: started.elapsed(),
    })
}

/// Waits until the job is over (true) or `interrupt` fires or the
/// coordinator stops (`stopped`; false), telling `on_status` at most every
/// half second, at once when the first task is done (so a caller sees the
/// first finished work, and can act on it, however fast the machine), and
/// once at the end.
pub(crate) async fn wait_for_job(
    shared: &Shared,
    job_id: u64,
    interrupt: &CancellationToken,
    stopped: &CancellationToken,
    mut on_status: impl FnMut(&pb::JobStatus),
) -> Result<bool> {
    let mut changes = shared.subscribe();
    let mut last_shown = Instant::now() - Duration::from_secs(10);
    let mut shown_a_task_done = false;
    loop {
        let status = shared
            .read(|l, clock| l.status(job_id, clock))
            .map_err(|s| anyhow::anyhow!("{}", s.message()))?;
        let over = client::is_over(&status);
        let first_done = status.tasks_done > 0 && !shown_a_task_done;
        if over || first_done || last_shown.elapsed() >= Duration::from_millis(500) {
            on_status(&status);
            last_shown = Instant::now();
            shown_a_task_done |= status.tasks_done > 0;
        }
        if over {
            return Ok(true);
        }
        tokio::select! {
            _ = changes.changed() => {}
            _ = tokio::time::sleep(Duration::from_millis(500)) => {}
            _ = interrupt.cancelled() => return Ok(false),
            _ = stopped.cancelled() => return Ok(false),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Four distinct corners that close into one 2x2 board.
    fn ring() -> Puzzle {
        Puzzle {
            name: "ring".into(),
            width: 2,
            height: 2,
            num_colors: 2,
            pieces: vec![[0, 1, 2, 0], [0, 0, 1, 1], [2, 2, 0, 0], [1, 0, 0, 2]],
            hints: vec![],
        }
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn an_embedded_count_matches_the_engine_and_resumes_when_done() {
        let dir = tempfile::tempdir().unwrap();
        let puzzle = ring();
        let expected = {
            let root = Vec::new();
            let subtree = e2_shared::engine::Subtree::new(&puzzle, &root);
            Engine::Backtrack
                .count(&subtree, None, &Default::default(), |_| {})
                .unwrap()
                .solutions
        };
        let first = count(
            &puzzle,
            Engine::Backtrack,
            CountOptions::default(),
            Some(dir.path().into()),
            2,
            CancellationToken::new(),
            |_| {},
        )
        .await
        .unwrap();
        assert!(first.finished && !first.resumed);
        assert_eq!(first.solutions, expected);
        let again = count(
            &puzzle,
            Engine::Backtrack,
            CountOptions::default(),
            Some(dir.path().into()),
            1,
            CancellationToken::new(),
            |_| {},
        )
        .await
        .unwrap();
        assert!(again.resumed);
        assert_eq!((again.job_id, again.solutions), (first.job_id, expected));
    }

    /// Ctrl-C (here: the interrupt token) then the same call resumes the
    /// count from the data directory, and the total is unchanged.
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn an_interrupted_count_resumes_to_the_same_total() {
        // A generated 5x5 with five colours, counted whole by DLX: 225,808
        // boards cut into dozens of tasks. The interruption below fires at
        // the first status showing a task done, which the wait reports at
        // once, so it lands with most tasks still to do however fast the
        // machine (a half-second progress tick alone let a fast host finish
        // first). The expected total is the backtracker's, a fraction of a
        // second.
        let puzzle = e2_shared::generator::generate(&e2_shared::generator::GenSpec {
            colours: Some(5),
            border_colours: Some(2),
            ..e2_shared::generator::GenSpec::square(5, 1)
        })
        .unwrap()
        .puzzle;
        let options = CountOptions {
            symmetry: false,
            ..CountOptions::default()
        };
        let expected = {
            let root = Vec::new();
            let subtree = e2_shared::engine::Subtree::new(&puzzle, &root);
            Engine::Backtrack
                .count(&subtree, None, &Default::default(), |_| {})
                .unwrap()
                .solutions
        };
        let dir = tempfile::tempdir().unwrap();
        // Interrupted once some task is done (on disk), whatever the speed
        // of the machine: the resumed count must take up what is left.
        let interrupt = CancellationToken::new();
        let stop = interrupt.clone();
        let first = count(
            &puzzle,
            Engine::Dlx,
            options.clone(),
            Some(dir.path().into()),
            2,
            interrupt,
            move |status| {
                if status.tasks_done >= 1 {
                    stop.cancel();
                }
            },
        )
        .await
        .unwrap();
        assert!(
            !first.finished,
            "finished before the first status that showed a task done: the interruption was not tested"
        );
        assert!(
            first.status.tasks_done >= 1 && first.status.tasks_done < first.tasks,
            "the interruption should leave done and undone tasks: {:?}",
            first.status
        );
        let second = count(
            &puzzle,
            Engine::Dlx,
            options,
            Some(dir.path().into()),
            2,
            CancellationToken::new(),
            |_| {},
        )
        .await
        .unwrap();
        assert!(second.resumed && second.finished);
        assert_eq!(second.job_id, first.job_id);
        assert_eq!(second.solutions, expected);
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn an_embedded_best_search_reaches_a_perfect_ring() {
        let outcome = best(
            &ring(),
            Engine::Backtrack,
            None,
            1,
            BestOptions::default(),
            CancellationToken::new(),
            |_| {},
        )
        .await
        .unwrap();
        assert!(outcome.finished);
        assert_eq!(outcome.best_score, Some(4));
        let doc: serde_json::Value = serde_json::from_str(&outcome.boards[0]).unwrap();
        assert_eq!(doc["score"], 4);
    }
}
