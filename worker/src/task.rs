//! One slot: lease a task, run it, report it, repeat.
//!
//! What to say to the coordinator and when is decided by the pure
//! [`TaskMachine`] (see `machine.rs`); this file is its driver. It owns the
//! real clock, the engine thread (`spawn_blocking` through the engine
//! contract) and the RPCs, feeds the machine what happens, and carries out
//! the actions it returns. It decides nothing about the protocol itself.
//!
//! A wake-up (a tick, shutdown, the answer to the call in flight, or the
//! engine's end) feeds the machine, in this order: the answer, the
//! shutdown, the boards found, the engine's end, and a tick. Boards are
//! collected only after checking whether the engine has ended, so none
//! found in its last moments is left behind; the tick comes last so that
//! everything it decides on is known.
//!
//! The engine's end wakes the driver itself, so a slot goes on to its next
//! slice or task at once instead of idling until a tick (a 7×7 count ends
//! a slice or a task about once a second per thread). The tick then only
//! times what the machine keeps time for (heartbeats, checkpoints, a
//! split's settle), and it is kept slow: on a machine whose cores all run
//! engines, each wake-up takes a core from an engine thread.
//!
//! At most one call is in flight at a time, as the machine never asks for
//! another before the first is answered or abandoned. Reports that must
//! arrive go through [`Session::call`], which retries until answered; the
//! machine says when to stop waiting ([`Action::AbandonCall`]), and the
//! driver then drops the call.

use std::future::Future;
use std::pin::Pin;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use e2_proto::pb::{
    self, Assignment, CompleteReply, CompleteRequest, FoundBoard, HeartbeatReply, HeartbeatRequest,
    LeaseRequest,
};
use e2_proto::TaskKind;
use e2_shared::engine::{BestLease, BestSearch, Engine, Limits, Subtree};
use e2_shared::order::FillOrder;
use e2_shared::search::{Checkpoint, Control, Prefix};
use e2_shared::Puzzle;
use tokio_util::sync::CancellationToken;

use crate::machine::{
    self, Action, Answer, Completion, EngineRun, Event, Outcome, Report, TaskMachine,
};
use crate::session::{CallError, Session};
use crate::{WorkerError, WorkerSummary};

/// How long a stopping worker keeps trying to hand its tasks back.
const RELEASE_GRACE: Duration = Duration::from_secs(10);
/// How long a stopping worker waits for the answer to a lease request.
const LEASE_GRACE: Duration = Duration::from_secs(2);
/// How often the driver looks at the clock (the engine's end and every
/// answer wake it at once).
const TICK: Duration = Duration::from_millis(50);
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

/// The machine's intervals: the coordinator's, and the worker's own.
fn timings(session: &Session) -> machine::Timings {
    let t = session.timings();
    machine::Timings {
        heartbeat: t.heartbeat,
        checkpoint: t.checkpoint,
        split_settle: SPLIT_SETTLE,
        release_grace: RELEASE_GRACE,
    }
}

/// What the engine thread needs, decoded once.
struct Job {
    engine: Engine,
    puzzle: Arc<Puzzle>,
    prefix: Arc<Prefix>,
    /// Best tasks: this round's seed and budget, and the job's settings.
    best: Option<(BestLease, BestSearch)>,
    /// Count tasks: the job's fill order, and whether DLX branches by
    /// Knuth's most-constrained rule instead.
    order: FillOrder,
    most_constrained: bool,
}

async fn run_assignment(
    session: &Session,
    shutdown: &CancellationToken,
    a: Assignment,
) -> Result<Outcome, WorkerError> {
    let lease = a.lease.unwrap_or_default();
    let timings = timings(session);
    let (machine, job) = match e2_proto::decode_assignment(&a) {
        Ok(work) => {
            let mut job = Job {
                engine: work.engine,
                puzzle: Arc::new(work.puzzle),
                prefix: Arc::new(work.prefix),
                best: None,
                order: e2_shared::engine::COUNT_ORDER,
                most_constrained: false,
            };
            let machine = match work.kind {
                TaskKind::Count {
                    checkpoint,
                    split_seq,
                    order,
                    most_constrained,
                } => {
                    job.order = order;
                    job.most_constrained = most_constrained;
                    TaskMachine::count(timings, checkpoint, split_seq)
                }
                TaskKind::Best { lease, search } => {
                    job.best = Some((lease, search));
                    TaskMachine::best(timings)
                }
            };
            (machine, Some(job))
        }
        Err(error) => (TaskMachine::failing(timings, error.to_string()), None),
    };
    let driver = Driver {
        session,
        shutdown,
        lease,
        job,
        engine: None,
        found: Arc::default(),
        call: None,
        shutdown_seen: false,
    };
    driver.run(machine).await
}

/// A call in flight and what it resolves to.
type CallFuture<'a> = Pin<Box<dyn Future<Output = Called> + Send + 'a>>;

/// How a call ended.
enum Called {
    /// A keep-alive: one attempt.
    KeepAlive(Result<HeartbeatReply, tonic::Status>),
    /// A report that must arrive.
    Heartbeat(Result<HeartbeatReply, CallError>),
    /// A completion or failure.
    Complete(Result<CompleteReply, CallError>),
}

/// The engine thread of the current slice.
struct EngineThread {
    control: Arc<Control>,
    handle: tokio::task::JoinHandle<Result<EngineRun, String>>,
}

/// Carries out a [`TaskMachine`]'s actions for one task.
struct Driver<'a> {
    session: &'a Session,
    shutdown: &'a CancellationToken,
    lease: pb::Lease,
    /// `None` when the assignment did not decode.
    job: Option<Job>,
    engine: Option<EngineThread>,
    /// Boards a best engine found, not yet handed to the machine.
    found: Arc<Mutex<Vec<FoundBoard>>>,
    call: Option<CallFuture<'a>>,
    /// The machine has been told about the shutdown.
    shutdown_seen: bool,
}

impl<'a> Driver<'a> {
    async fn run(mut self, mut machine: TaskMachine) -> Result<Outcome, WorkerError> {
        let epoch = Instant::now();
        let mut ticker = tokio::time::interval(TICK);
        ticker.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        let mut actions = machine.start(Duration::ZERO);
        loop {
            for action in std::mem::take(&mut actions) {
                if let Some(outcome) = self.perform(action) {
                    debug_assert_eq!(machine.outcome(), Some(outcome));
                    return Ok(outcome);
                }
            }
            // The engine's end wakes the driver at once: between tasks and
            // slices the engine threads would otherwise idle until the
            // next tick.
            let (called, ended) = {
                let (call, shutdown, engine) = (&mut self.call, self.shutdown, &mut self.engine);
                tokio::select! {
                    _ = ticker.tick() => (None, None),
                    _ = shutdown.cancelled(), if !self.shutdown_seen => (None, None),
                    called = in_flight(call) => (Some(called), None),
                    run = engine_end(engine) => (None, Some(run)),
                }
            };
            let now = epoch.elapsed();
            machine.retime(timings(self.session));
            if let Some(called) = called {
                self.call = None;
                let answer = self.answer(called)?;
                actions.extend(machine.on(now, Event::Answer(answer)));
            }
            if !self.shutdown_seen && self.shutdown.is_cancelled() {
                self.shutdown_seen = true;
                actions.extend(machine.on(now, Event::Shutdown));
            }
            // An engine that ended while another branch won is fed now,
            // before the tick, as the machine expects (see its doc).
            let ended = match ended {
                None if self.engine.as_ref().is_some_and(|e| e.handle.is_finished()) => {
                    Some(engine_end(&mut self.engine).await)
                }
                ended => ended,
            };
            let boards = std::mem::take(&mut *self.found.lock().expect("found lock"));
            if !boards.is_empty() {
                actions.extend(machine.on(now, Event::Found(boards)));
            }
            if let Some(run) = ended {
                self.engine = None;
                actions.extend(machine.on(now, Event::EngineEnded(run)));
            }
            actions.extend(machine.on(now, Event::Tick));
        }
    }

    /// Does one action; `Some` once the task is over.
    fn perform(&mut self, action: Action) -> Option<Outcome> {
        match action {
            Action::StartEngine { resume } => self.start_engine(resume),
            Action::RequestSplit => {
                if let Some(e) = &self.engine {
                    e.control.request_split();
                }
            }
            Action::StopEngine(reason) => {
                tracing::debug!(?reason, "stopping the engine");
                if let Some(e) = &self.engine {
                    e.control.stop();
                }
            }
            Action::KeepAlive {
                nodes,
                solutions,
                boards,
            } => {
                let request = HeartbeatRequest {
                    worker_id: self.session.worker_id(),
                    lease: Some(self.lease),
                    nodes,
                    solutions,
                    boards,
                    ..Default::default()
                };
                // A keep-alive is not worth blocking on: one attempt, and
                // if the coordinator is away the next interval tries again.
                let mut client = self.session.client();
                self.call = Some(Box::pin(async move {
                    Called::KeepAlive(client.heartbeat(request).await.map(|r| r.into_inner()))
                }));
            }
            Action::Report(report) => self.call = Some(self.report(report)),
            Action::Complete(completion) => {
                let request = self.completion(completion);
                self.call = Some(self.complete(request));
            }
            Action::Fail { error } => {
                tracing::error!(
                    job = self.lease.job_id,
                    task = self.lease.task_id,
                    "task failed: {error}"
                );
                let request = CompleteRequest {
                    lease: Some(self.lease),
                    error,
                    ..Default::default()
                };
                self.call = Some(self.complete(request));
            }
            Action::ExtendLease { deadline_unix_ms } => {
                self.lease.deadline_unix_ms = deadline_unix_ms;
            }
            Action::AbandonCall => self.call = None,
            Action::Done(outcome) => return Some(outcome),
        }
        None
    }

    /// Turns how a call ended into the machine's answer; a refusal ends
    /// the worker.
    fn answer(&self, called: Called) -> Result<Answer, WorkerError> {
        let heartbeat = |r: HeartbeatReply| Answer::Heartbeat {
            keep_going: r.keep_going,
            split_wanted: r.split_wanted,
            deadline_unix_ms: r.deadline_unix_ms,
        };
        Ok(match called {
            Called::KeepAlive(Ok(r)) => {
                if !r.keep_going {
                    tracing::info!(
                        job = self.lease.job_id,
                        task = self.lease.task_id,
                        "lease lost: {}",
                        r.reason
                    );
                }
                heartbeat(r)
            }
            Called::KeepAlive(Err(s)) => {
                tracing::warn!(code = ?s.code(), "heartbeat: {}", s.message());
                Answer::Unanswered
            }
            Called::Heartbeat(Ok(r)) => heartbeat(r),
            Called::Complete(Ok(r)) => {
                if !r.accepted {
                    tracing::info!("completion ignored: {}", r.reason);
                }
                Answer::Completion {
                    accepted: r.accepted,
                }
            }
            Called::Heartbeat(Err(CallError::Refused(m)))
            | Called::Complete(Err(CallError::Refused(m))) => return Err(WorkerError::Refused(m)),
            Called::Heartbeat(Err(CallError::GaveUp))
            | Called::Complete(Err(CallError::GaveUp)) => Answer::Unanswered,
        })
    }

    fn start_engine(&mut self, resume: Option<Checkpoint>) {
        let Some(job) = &self.job else {
            return;
        };
        let control = Control::new();
        let (puzzle, prefix, engine, order, most_constrained, c) = (
            Arc::clone(&job.puzzle),
            Arc::clone(&job.prefix),
            job.engine,
            job.order,
            job.most_constrained,
            Arc::clone(&control),
        );
        let handle = match job.best {
            None => tokio::task::spawn_blocking(move || {
                let limits = Limits::none().with_control(&c);
                let report = engine
                    .count(
                        &Subtree::new(&puzzle, &prefix)
                            .with_order(order)
                            .with_most_constrained(most_constrained),
                        resume.as_ref(),
                        &limits,
                        |_| {},
                    )
                    .map_err(|e| e.to_string())?;
                Ok(EngineRun {
                    nodes: report.nodes,
                    solutions: report.solutions,
                    end: report.end,
                    checkpoint: report.checkpoint,
                    donated: c.take_donated(),
                })
            }),
            Some((lease, search)) => {
                let found = Arc::clone(&self.found);
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
                    let report = engine
                        .best(
                            &Subtree::new(&puzzle, &prefix),
                            &search,
                            lease,
                            Some(&c),
                            &mut on_improved,
                        )
                        .map_err(|e| e.to_string())?;
                    Ok(EngineRun {
                        nodes: report.nodes,
                        solutions: 0,
                        end: report.end,
                        checkpoint: None,
                        donated: Vec::new(),
                    })
                })
            }
        };
        self.engine = Some(EngineThread { control, handle });
    }

    /// A heartbeat that must arrive (a checkpoint with or without a split,
    /// or a release).
    fn report(&self, report: Report) -> CallFuture<'a> {
        let request = HeartbeatRequest {
            worker_id: String::new(),
            lease: Some(self.lease),
            nodes: report.nodes,
            solutions: report.solutions,
            checkpoint: e2_proto::encode_checkpoint(report.checkpoint.as_ref()),
            split: report.split.map(encode_split),
            boards: report.boards,
            release: report.release,
        };
        let session = self.session;
        Box::pin(async move {
            // The machine decides when to stop waiting; this token is never
            // cancelled, the driver drops the call instead.
            let stop = CancellationToken::new();
            let reply = session
                .call(&stop, "heartbeat", |mut c, worker_id| {
                    let request = HeartbeatRequest {
                        worker_id,
                        ..request.clone()
                    };
                    async move { c.heartbeat(request).await }
                })
                .await;
            Called::Heartbeat(reply)
        })
    }

    fn completion(&self, c: Completion) -> CompleteRequest {
        CompleteRequest {
            worker_id: String::new(),
            lease: Some(self.lease),
            solutions: c.solutions,
            nodes: c.nodes,
            split: c.split.map(encode_split),
            boards: c.boards,
            error: String::new(),
        }
    }

    /// A completion or failure that must arrive.
    fn complete(&self, request: CompleteRequest) -> CallFuture<'a> {
        let session = self.session;
        Box::pin(async move {
            let stop = CancellationToken::new();
            let reply = session
                .call(&stop, "complete", |mut c, worker_id| {
                    let request = CompleteRequest {
                        worker_id,
                        ..request.clone()
                    };
                    async move { c.complete(request).await }
                })
                .await;
            Called::Complete(reply)
        })
    }
}

/// The end of the engine thread, if one runs (else never). The handle is
/// polled by reference, so the select that loses keeps it to poll again;
/// the caller drops it once this has returned.
async fn engine_end(engine: &mut Option<EngineThread>) -> Result<EngineRun, String> {
    match engine {
        Some(thread) => match (&mut thread.handle).await {
            Ok(run) => run,
            Err(join) => Err(format!("engine thread died: {join}")),
        },
        None => std::future::pending().await,
    }
}

/// The call in flight, or never when there is none.
async fn in_flight(call: &mut Option<CallFuture<'_>>) -> Called {
    match call {
        Some(call) => call.await,
        None => std::future::pending().await,
    }
}

fn encode_split(split: machine::Split) -> pb::Split {
    pb::Split {
        seq: split.seq,
        prefixes: split.prefixes.iter().map(e2_proto::encode_prefix).collect(),
    }
}
