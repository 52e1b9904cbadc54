//! One slot: lease a task, run it, report it, repeat.
//!
//! The engine runs on a blocking thread; this async side watches it. Every
//! tick it may send a heartbeat (keeping the lease), stop the engine for a
//! checkpoint, pass on a split request, or stop it for good (lease lost,
//! shutdown). A count task therefore runs as a series of *slices*, each
//! ending in a checkpoint the coordinator stores, so a lost worker costs at
//! most one checkpoint interval.
//!
//! Reports that change what the coordinator must count (a split, a
//! completion) are retried until answered: a split is only safe once the
//! coordinator holds both the donated prefixes and the checkpoint that
//! excludes them, and it acknowledges only after writing both to disk.

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use e2_proto::pb::{
    self, Assignment, CompleteRequest, FoundBoard, HeartbeatRequest, LeaseRequest, Split,
};
use e2_proto::TaskKind;
use e2_shared::engine::{BestLease, BestSearch, Engine, Limits, Subtree};
use e2_shared::search::{Checkpoint, Control, Prefix, RunEnd};
use e2_shared::Puzzle;
use tokio_util::sync::CancellationToken;

use crate::session::{CallError, Session};
use crate::{WorkerError, WorkerSummary};

/// How long a stopping worker keeps trying to hand its tasks back.
const RELEASE_GRACE: Duration = Duration::from_secs(10);
/// How long a stopping worker waits for the answer to a lease request.
const LEASE_GRACE: Duration = Duration::from_secs(2);
/// How often the watcher looks at the engine and the clock.
const TICK: Duration = Duration::from_millis(20);
/// After asking the engine to split, let it reach a poll before stopping
/// the slice so the donation is reported promptly.
const SPLIT_SETTLE: Duration = Duration::from_millis(30);

pub async fn slot_loop(
    slot: usize,
    session: Arc<Session>,
    shutdown: CancellationToken,
) -> Result<WorkerSummary, WorkerError> {
    let mut summary = WorkerSummary::default();
    // A lease request already sent when the worker is told to stop must
    // still get its answer: the coordinator may have granted the lease, and
    // a lease nobody knows about would sit idle until it expires. So the
    // request gives up only a little after shutdown, and whatever it brings
    // is run, which stops at once and hands the task back.
    let lease_give_up = CancellationToken::new();
    {
        let (shutdown, give_up) = (shutdown.clone(), lease_give_up.clone());
        tokio::spawn(async move {
            shutdown.cancelled().await;
            tokio::time::sleep(LEASE_GRACE).await;
            give_up.cancel();
        });
    }
    while !shutdown.is_cancelled() {
        let max_tasks = 1;
        let reply = match session
            .call(&lease_give_up, "lease", |mut c, worker_id| async move {
                c.lease(LeaseRequest {
                    worker_id,
                    max_tasks,
                })
                .await
            })
            .await
        {
            Ok(r) => r,
            Err(CallError::GaveUp) => break,
            Err(CallError::Refused(m)) => return Err(WorkerError::Refused(m)),
        };
        if reply.assignments.is_empty() {
            let wait = Duration::from_millis(reply.retry_after_ms.clamp(10, 2_000));
            tokio::select! {
                _ = tokio::time::sleep(wait) => {}
                _ = shutdown.cancelled() => break,
            }
            continue;
        }
        for assignment in reply.assignments {
            let outcome = run_assignment(&session, &shutdown, assignment).await?;
            tracing::debug!(slot, ?outcome, "task over");
            match outcome {
                Outcome::Completed => summary.tasks_completed += 1,
                Outcome::Released => summary.tasks_released += 1,
                Outcome::Abandoned => summary.tasks_abandoned += 1,
            }
        }
    }
    Ok(summary)
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Outcome {
    Completed,
    Released,
    Abandoned,
}

/// Everything a task needs, decoded once.
struct Task {
    lease: pb::Lease,
    engine: Engine,
    puzzle: Arc<Puzzle>,
    prefix: Arc<Prefix>,
    checkpoint: Option<Checkpoint>,
    split_seq: u32,
    /// Best tasks: this round's seed and budget, and the job's settings.
    best: BestLease,
    search: BestSearch,
}

async fn run_assignment(
    session: &Session,
    shutdown: &CancellationToken,
    a: Assignment,
) -> Result<Outcome, WorkerError> {
    let lease = a.lease.unwrap_or_default();
    let work = match e2_proto::decode_assignment(&a) {
        Ok(w) => w,
        Err(error) => return fail(session, shutdown, lease, error.to_string()).await,
    };
    let mut task = Task {
        lease,
        engine: work.engine,
        puzzle: Arc::new(work.puzzle),
        prefix: Arc::new(work.prefix),
        checkpoint: None,
        split_seq: 0,
        best: BestLease { seed: 0, budget: 0 },
        search: BestSearch::default(),
    };
    match work.kind {
        TaskKind::Best { lease, search } => {
            task.best = lease;
            task.search = search;
            run_best(session, shutdown, task).await
        }
        TaskKind::Count {
            checkpoint,
            split_seq,
        } => {
            task.checkpoint = checkpoint;
            task.split_seq = split_seq;
            run_count(session, shutdown, task).await
        }
    }
}

/// Why the watcher stopped the engine.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum StopReason {
    /// Time for a checkpoint, or to report a split.
    Slice,
    /// The lease is gone: drop the work.
    LeaseLost,
    /// The worker is stopping: hand the task back.
    Shutdown,
}

async fn run_count(
    session: &Session,
    shutdown: &CancellationToken,
    mut task: Task,
) -> Result<Outcome, WorkerError> {
    loop {
        let control = Control::new();
        let engine_run = {
            let (puzzle, prefix, checkpoint, control, engine) = (
                Arc::clone(&task.puzzle),
                Arc::clone(&task.prefix),
                task.checkpoint.clone(),
                Arc::clone(&control),
                task.engine,
            );
            tokio::task::spawn_blocking(move || {
                let limits = Limits::none().with_control(&control);
                engine.count(
                    &Subtree::new(&puzzle, &prefix),
                    checkpoint.as_ref(),
                    &limits,
                    |_| {},
                )
            })
        };
        let progress = Progress {
            nodes: task.checkpoint.as_ref().map_or(0, |c| c.nodes),
            solutions: task.checkpoint.as_ref().map_or(0, |c| c.solutions),
        };
        let stop = watch(
            session,
            shutdown,
            &task,
            &control,
            &engine_run.abort_handle(),
            progress,
            None,
            true,
        )
        .await;
        let run = match engine_result(engine_run.await) {
            Ok(run) => run,
            Err(error) => return fail(session, shutdown, task.lease, error).await,
        };
        let donated = control.take_donated();
        let split = (!donated.is_empty()).then(|| {
            task.split_seq += 1;
            Split {
                seq: task.split_seq,
                prefixes: donated.iter().map(e2_proto::encode_prefix).collect(),
            }
        });
        if run.end == RunEnd::Finished {
            return complete(
                session,
                shutdown,
                &task,
                run.solutions,
                run.nodes,
                split,
                Vec::new(),
            )
            .await;
        }
        let checkpoint = run.checkpoint.clone();
        if stop == Some(StopReason::LeaseLost) {
            return Ok(Outcome::Abandoned);
        }
        let release = stop == Some(StopReason::Shutdown) || shutdown.is_cancelled();
        let request = HeartbeatRequest {
            worker_id: String::new(),
            lease: Some(task.lease),
            nodes: run.nodes,
            solutions: run.solutions,
            checkpoint: e2_proto::encode_checkpoint(checkpoint.as_ref()),
            split,
            boards: Vec::new(),
            release,
        };
        let reply = report(session, shutdown, release, request).await?;
        if release {
            return Ok(if reply.is_some() {
                Outcome::Released
            } else {
                Outcome::Abandoned
            });
        }
        match reply {
            Some(r) if r.keep_going => {
                task.lease.deadline_unix_ms = r.deadline_unix_ms;
                task.checkpoint = checkpoint;
            }
            _ => return Ok(Outcome::Abandoned),
        }
    }
}

async fn run_best(
    session: &Session,
    shutdown: &CancellationToken,
    task: Task,
) -> Result<Outcome, WorkerError> {
    let control = Control::new();
    let found: Arc<Mutex<Vec<FoundBoard>>> = Arc::default();
    let engine_run = {
        let (puzzle, prefix, control, found, engine) = (
            Arc::clone(&task.puzzle),
            Arc::clone(&task.prefix),
            Arc::clone(&control),
            Arc::clone(&found),
            task.engine,
        );
        let (lease, search) = (task.best, task.search);
        tokio::task::spawn_blocking(move || {
            let mut on_improved = |board: &e2_shared::Board| {
                if let Some(codes) = board.codes() {
                    let claimed_score = e2_shared::score::score(board);
                    found.lock().expect("found lock").push(FoundBoard {
                        codes,
                        claimed_score,
                    });
                }
            };
            engine.best(
                &Subtree::new(&puzzle, &prefix),
                &search,
                lease,
                Some(&control),
                &mut on_improved,
            )
        })
    };
    let stop = watch(
        session,
        shutdown,
        &task,
        &control,
        &engine_run.abort_handle(),
        Progress::default(),
        Some(&found),
        false,
    )
    .await;
    let run = match engine_result(engine_run.await) {
        Ok(run) => run,
        Err(error) => return fail(session, shutdown, task.lease, error).await,
    };
    let boards = std::mem::take(&mut *found.lock().expect("found lock"));
    match stop {
        Some(StopReason::LeaseLost) => Ok(Outcome::Abandoned),
        Some(StopReason::Shutdown) => {
            let request = HeartbeatRequest {
                lease: Some(task.lease),
                nodes: run.nodes,
                boards,
                release: true,
                ..Default::default()
            };
            let reply = report(session, shutdown, true, request).await?;
            Ok(if reply.is_some() {
                Outcome::Released
            } else {
                Outcome::Abandoned
            })
        }
        Some(StopReason::Slice) | None => {
            complete(session, shutdown, &task, 0, run.nodes, None, boards).await
        }
    }
}

#[derive(Debug, Clone, Copy, Default)]
struct Progress {
    nodes: u64,
    solutions: u64,
}

/// Watches a running engine until it returns. Sends keep-alive heartbeats
/// (with any boards found), stops the engine for a checkpoint when one is
/// due (`slices`), passes on split requests, and stops it for good when the
/// lease is lost or the worker shuts down. Returns why it stopped the
/// engine, if it did.
#[allow(clippy::too_many_arguments)]
async fn watch(
    session: &Session,
    shutdown: &CancellationToken,
    task: &Task,
    control: &Control,
    engine: &tokio::task::AbortHandle,
    progress: Progress,
    found: Option<&Mutex<Vec<FoundBoard>>>,
    slices: bool,
) -> Option<StopReason> {
    let timings = session.timings();
    let started = Instant::now();
    let mut last_heartbeat = Instant::now();
    let mut split_asked: Option<Instant> = None;
    let mut stopped: Option<StopReason> = None;
    let mut ticker = tokio::time::interval(TICK);
    ticker.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    loop {
        tokio::select! {
            _ = ticker.tick() => {}
            _ = shutdown.cancelled(), if stopped.is_none() => {}
        }
        if engine.is_finished() {
            return stopped;
        }
        if stopped.is_some() {
            continue;
        }
        if shutdown.is_cancelled() {
            control.stop();
            stopped = Some(StopReason::Shutdown);
            continue;
        }
        let slice_over = slices
            && (started.elapsed() >= timings.checkpoint
                || split_asked.is_some_and(|t| t.elapsed() >= SPLIT_SETTLE));
        if slice_over {
            control.stop();
            stopped = Some(StopReason::Slice);
            continue;
        }
        if last_heartbeat.elapsed() < timings.heartbeat {
            continue;
        }
        last_heartbeat = Instant::now();
        let boards = found
            .map(|f| std::mem::take(&mut *f.lock().expect("found lock")))
            .unwrap_or_default();
        let request = HeartbeatRequest {
            worker_id: String::new(),
            lease: Some(task.lease),
            nodes: progress.nodes,
            solutions: progress.solutions,
            boards,
            ..Default::default()
        };
        // A keep-alive is not worth blocking on: if the coordinator is away,
        // try again next interval.
        let mut client = session.client();
        let worker_id = session.worker_id();
        let reply = tokio::select! {
            r = client.heartbeat(HeartbeatRequest { worker_id, ..request }) => r,
            _ = shutdown.cancelled() => continue,
        };
        match reply {
            Ok(r) => {
                let r = r.into_inner();
                if !r.keep_going {
                    tracing::info!(
                        job = task.lease.job_id,
                        task = task.lease.task_id,
                        "lease lost: {}",
                        r.reason
                    );
                    control.stop();
                    stopped = Some(StopReason::LeaseLost);
                } else if r.split_wanted && slices && split_asked.is_none() {
                    control.request_split();
                    split_asked = Some(Instant::now());
                }
            }
            Err(s) => tracing::warn!(code = ?s.code(), "heartbeat: {}", s.message()),
        }
    }
}

/// Sends a report that must arrive (a checkpoint with or without a split,
/// or a release). `None` when the worker had to give up: while stopping,
/// only for [`RELEASE_GRACE`].
async fn report(
    session: &Session,
    shutdown: &CancellationToken,
    releasing: bool,
    request: HeartbeatRequest,
) -> Result<Option<pb::HeartbeatReply>, WorkerError> {
    let give_up = give_up_token(shutdown, releasing);
    match session
        .call(&give_up, "heartbeat", |mut c, worker_id| {
            let request = HeartbeatRequest {
                worker_id,
                ..request.clone()
            };
            async move { c.heartbeat(request).await }
        })
        .await
    {
        Ok(r) => Ok(Some(r)),
        Err(CallError::GaveUp) => Ok(None),
        Err(CallError::Refused(m)) => Err(WorkerError::Refused(m)),
    }
}

/// While running, give up only on shutdown; while stopping, after a grace.
fn give_up_token(shutdown: &CancellationToken, stopping: bool) -> CancellationToken {
    if !stopping && !shutdown.is_cancelled() {
        return shutdown.clone();
    }
    let token = CancellationToken::new();
    let later = token.clone();
    tokio::spawn(async move {
        tokio::time::sleep(RELEASE_GRACE).await;
        later.cancel();
    });
    token
}

async fn complete(
    session: &Session,
    shutdown: &CancellationToken,
    task: &Task,
    solutions: u64,
    nodes: u64,
    split: Option<Split>,
    boards: Vec<FoundBoard>,
) -> Result<Outcome, WorkerError> {
    let request = CompleteRequest {
        worker_id: String::new(),
        lease: Some(task.lease),
        solutions,
        nodes,
        split,
        boards,
        error: String::new(),
    };
    send_completion(session, shutdown, request).await
}

/// Reports an engine failure: the coordinator fails the job with `error`.
/// The engine thread's result, or the one-line reason the task failed.
fn engine_result<T, E: std::fmt::Display>(
    joined: Result<Result<T, E>, tokio::task::JoinError>,
) -> Result<T, String> {
    match joined {
        Ok(Ok(run)) => Ok(run),
        Ok(Err(e)) => Err(e.to_string()),
        Err(join) => Err(format!("engine thread died: {join}")),
    }
}

async fn fail(
    session: &Session,
    shutdown: &CancellationToken,
    lease: pb::Lease,
    error: String,
) -> Result<Outcome, WorkerError> {
    tracing::error!(
        job = lease.job_id,
        task = lease.task_id,
        "task failed: {error}"
    );
    let request = CompleteRequest {
        lease: Some(lease),
        error,
        ..Default::default()
    };
    send_completion(session, shutdown, request).await
}

async fn send_completion(
    session: &Session,
    shutdown: &CancellationToken,
    request: CompleteRequest,
) -> Result<Outcome, WorkerError> {
    // A finished task is worth delivering even while stopping.
    let give_up = give_up_token(shutdown, shutdown.is_cancelled());
    match session
        .call(&give_up, "complete", |mut c, worker_id| {
            let request = CompleteRequest {
                worker_id,
                ..request.clone()
            };
            async move { c.complete(request).await }
        })
        .await
    {
        Ok(r) if r.accepted => Ok(Outcome::Completed),
        Ok(r) => {
            tracing::info!("completion ignored: {}", r.reason);
            Ok(Outcome::Abandoned)
        }
        Err(CallError::GaveUp) => Ok(Outcome::Abandoned),
        Err(CallError::Refused(m)) => Err(WorkerError::Refused(m)),
    }
}
