//! The protocol of one task, as a pure state machine.
//!
//! A task's life is a conversation between three parties: the engine
//! thread, the coordinator and the clock. Deciding what to say next (a
//! keep-alive now, a checkpoint now, pass a split request on, give up on a
//! report) is the delicate part, and it is all here, in [`TaskMachine`]:
//! it takes [`Event`]s and answers with [`Action`]s, synchronously, reading
//! no clock and doing no I/O. The time is an argument of every call, a
//! logical clock (`Duration` since the task started), and the intervals
//! are [`Timings`] handed in. The async driver in `task.rs` owns the real
//! clock, the engine thread and the RPCs, and only carries out what the
//! machine decides.
//!
//! Built this way, every rule can be tested by feeding events at chosen
//! instants and looking at the actions, without sleeping, threads or a
//! coordinator: the tests in `machine/tests.rs` (and `machine/tests/`) do
//! exactly that.
//!
//! The rules, in short:
//!
//! * A keep-alive heartbeat goes out every heartbeat interval of a slice,
//!   reporting the progress of the checkpoint the slice resumed from and
//!   any boards found since the last one. It is not retried: if it goes
//!   unanswered, the next interval tries again. While one is in flight
//!   nothing else is decided; an engine that ends meanwhile is held until
//!   the answer.
//! * A count task runs as *slices*: at the checkpoint interval (or once a
//!   split has had its settle time) the engine is stopped, and its
//!   checkpoint, with any prefixes it donated, is reported. Only once the
//!   coordinator holds both does the engine resume from the checkpoint, so
//!   a donated prefix is never counted twice nor lost. Best tasks are never
//!   sliced and never split.
//! * Reports that change what the coordinator counts (a checkpoint, a
//!   split, a completion, a release) must arrive: the driver retries them
//!   until answered, and the machine decides when to give up: at once on
//!   shutdown for a task still running normally, after the release grace
//!   for a task that is stopping.
//! * A lost lease stops the engine and drops the work: nothing more is sent.
//! * Shutdown stops the engine at the next tick and hands the task back
//!   with its checkpoint (`release`). It is acted on at the tick rather
//!   than at once so that an engine that has already ended (the driver
//!   feeds that before the tick) is reported as ended, not stopped.

use std::time::Duration;

use e2_proto::pb::FoundBoard;
use e2_shared::search::{Checkpoint, Prefix, RunEnd};

/// The intervals a task keeps. Heartbeat and checkpoint come from the
/// coordinator; the other two are the worker's own.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Timings {
    /// Between keep-alives.
    pub heartbeat: Duration,
    /// Length of a count slice.
    pub checkpoint: Duration,
    /// After asking the engine to split, how long it has to reach a poll
    /// and donate before the slice is stopped to report the donation.
    pub split_settle: Duration,
    /// How long a stopping task keeps trying to deliver its last report.
    pub release_grace: Duration,
}

/// What happened, as the driver saw it.
#[derive(Debug, Clone, PartialEq)]
pub enum Event {
    /// Time passed: check whether something is due.
    Tick,
    /// Boards the engine found since the last event.
    Found(Vec<FoundBoard>),
    /// The engine thread returned: its run, or why it failed.
    EngineEnded(Result<EngineRun, String>),
    /// The answer to the call in flight.
    Answer(Answer),
    /// The worker is stopping.
    Shutdown,
}

/// What an engine run came to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EngineRun {
    /// Cumulative, including what the resumed checkpoint had counted.
    pub nodes: u64,
    pub solutions: u64,
    pub end: RunEnd,
    /// Where to resume; `None` once the subtree was searched to the end.
    pub checkpoint: Option<Checkpoint>,
    /// Prefixes the engine gave away during the run.
    pub donated: Vec<Prefix>,
}

/// The coordinator's answer to the call in flight.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Answer {
    /// To a keep-alive or a report.
    Heartbeat {
        keep_going: bool,
        split_wanted: bool,
        deadline_unix_ms: u64,
    },
    /// To a completion or a failure.
    Completion { accepted: bool },
    /// The call ended without an answer (a keep-alive that failed).
    Unanswered,
}

/// What the driver must do, in order.
#[derive(Debug, Clone, PartialEq)]
pub enum Action {
    /// Run the engine (again), resuming from `resume` when there is one.
    StartEngine { resume: Option<Checkpoint> },
    /// Ask the running engine to give away untried siblings.
    RequestSplit,
    /// Ask the running engine to stop at its next poll.
    StopEngine(StopReason),
    /// Send a keep-alive heartbeat, once, and answer with its reply (or
    /// [`Answer::Unanswered`]).
    KeepAlive {
        nodes: u64,
        solutions: u64,
        boards: Vec<FoundBoard>,
    },
    /// Send a heartbeat that must arrive: retry until answered.
    Report(Report),
    /// Send a completion that must arrive.
    Complete(Completion),
    /// Report that the task failed with `error`; it must arrive.
    Fail { error: String },
    /// The coordinator extended the lease to this deadline.
    ExtendLease { deadline_unix_ms: u64 },
    /// Stop waiting for the call in flight and drop it.
    AbandonCall,
    /// The task is over.
    Done(Outcome),
}

/// A heartbeat that carries a checkpoint (a slice ended), a split, or hands
/// the task back.
#[derive(Debug, Clone, PartialEq)]
pub struct Report {
    pub nodes: u64,
    pub solutions: u64,
    pub checkpoint: Option<Checkpoint>,
    pub split: Option<Split>,
    pub boards: Vec<FoundBoard>,
    /// The worker is leaving: requeue the task from `checkpoint`.
    pub release: bool,
}

/// The end of a task.
#[derive(Debug, Clone, PartialEq)]
pub struct Completion {
    pub solutions: u64,
    pub nodes: u64,
    /// A split made in the run's last moments.
    pub split: Option<Split>,
    pub boards: Vec<FoundBoard>,
}

/// Prefixes given away, numbered so the coordinator applies each split once.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Split {
    pub seq: u32,
    pub prefixes: Vec<Prefix>,
}

/// Why the machine stopped the engine.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StopReason {
    /// Time for a checkpoint, or to report a split.
    Slice,
    /// The lease is gone: drop the work.
    LeaseLost,
    /// The worker is stopping: hand the task back.
    Shutdown,
}

/// How a task ended, for the worker's summary.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Outcome {
    /// The coordinator accepted the completion (or the failure).
    Completed,
    /// Handed back on shutdown.
    Released,
    /// Dropped: the lease was gone, or a report could not be delivered.
    Abandoned,
}

/// The protocol state of one task. See the module docs.
#[derive(Debug)]
pub struct TaskMachine {
    timings: Timings,
    kind: Kind,
    /// Count tasks: where the current slice resumed from.
    checkpoint: Option<Checkpoint>,
    /// Count tasks: the last split number reported.
    split_seq: u32,
    /// Boards found and not yet sent.
    boards: Vec<FoundBoard>,
    shutdown: bool,
    phase: Phase,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Count,
    Best,
}

#[derive(Debug)]
enum Phase {
    /// Not started; `Some` when the task could not even be decoded.
    Idle(Option<String>),
    Running(Slice),
    /// A report that must arrive is in flight; the engine is not running.
    Calling(Call),
    Done(Outcome),
}

/// One engine run.
#[derive(Debug)]
struct Slice {
    /// The intervals of this slice, fixed when it started.
    timings: Timings,
    started: Duration,
    last_heartbeat: Duration,
    split_asked: Option<Duration>,
    stopping: Option<StopReason>,
    /// A keep-alive is in flight.
    keep_alive: bool,
    /// The engine ended while a keep-alive was in flight.
    ended: Option<Result<EngineRun, String>>,
}

impl Slice {
    fn new(timings: Timings, now: Duration) -> Self {
        Slice {
            timings,
            started: now,
            last_heartbeat: now,
            split_asked: None,
            stopping: None,
            keep_alive: false,
            ended: None,
        }
    }
}

#[derive(Debug)]
struct Call {
    pending: Pending,
    /// `None`: give up when the worker is told to stop. `Some`: give up at
    /// this instant.
    give_up_at: Option<Duration>,
}

#[derive(Debug)]
enum Pending {
    /// A slice's checkpoint: resume from it once the coordinator has it.
    Checkpoint(Option<Checkpoint>),
    Release,
    /// A completion or a failure.
    Completion,
}

impl TaskMachine {
    /// A count task, resuming from `checkpoint` when it has one; its last
    /// split was number `split_seq`.
    pub fn count(timings: Timings, checkpoint: Option<Checkpoint>, split_seq: u32) -> Self {
        Self::new(timings, Kind::Count, checkpoint, split_seq, None)
    }

    /// A best task: one engine run, never sliced.
    pub fn best(timings: Timings) -> Self {
        Self::new(timings, Kind::Best, None, 0, None)
    }

    /// A task that cannot run (its assignment did not decode): it only
    /// reports `error`.
    pub fn failing(timings: Timings, error: String) -> Self {
        Self::new(timings, Kind::Count, None, 0, Some(error))
    }

    fn new(
        timings: Timings,
        kind: Kind,
        checkpoint: Option<Checkpoint>,
        split_seq: u32,
        error: Option<String>,
    ) -> Self {
        TaskMachine {
            timings,
            kind,
            checkpoint,
            split_seq,
            boards: Vec::new(),
            shutdown: false,
            phase: Phase::Idle(error),
        }
    }

    /// New intervals (the worker registered again); the heartbeat and
    /// checkpoint intervals take effect from the next slice.
    pub fn retime(&mut self, timings: Timings) {
        self.timings = timings;
    }

    /// How the task ended, once it has.
    pub fn outcome(&self) -> Option<Outcome> {
        match self.phase {
            Phase::Done(outcome) => Some(outcome),
            _ => None,
        }
    }

    /// The first actions: run the engine, or report the failure.
    pub fn start(&mut self, now: Duration) -> Vec<Action> {
        match std::mem::replace(&mut self.phase, Phase::Idle(None)) {
            Phase::Idle(None) => self.run_slice(now),
            Phase::Idle(Some(error)) => self.fail(now, error),
            other => {
                self.phase = other;
                Vec::new()
            }
        }
    }

    /// Takes one event at logical time `now`; returns what to do.
    pub fn on(&mut self, now: Duration, event: Event) -> Vec<Action> {
        match event {
            Event::Tick => self.tick(now),
            Event::Found(boards) => {
                if matches!(self.phase, Phase::Running(_)) {
                    self.boards.extend(boards);
                }
                Vec::new()
            }
            Event::EngineEnded(run) => match &mut self.phase {
                Phase::Running(slice) if slice.keep_alive => {
                    slice.ended = Some(run);
                    Vec::new()
                }
                Phase::Running(slice) => {
                    let stop = slice.stopping;
                    self.engine_ended(now, stop, run)
                }
                _ => Vec::new(),
            },
            Event::Answer(answer) => self.answer(now, answer),
            Event::Shutdown => self.shutdown(now),
        }
    }

    fn run_slice(&mut self, now: Duration) -> Vec<Action> {
        self.phase = Phase::Running(Slice::new(self.timings, now));
        vec![Action::StartEngine {
            resume: self.checkpoint.clone(),
        }]
    }

    fn tick(&mut self, now: Duration) -> Vec<Action> {
        match &mut self.phase {
            Phase::Running(slice) => {
                if slice.keep_alive || slice.stopping.is_some() {
                    return Vec::new();
                }
                if self.shutdown {
                    slice.stopping = Some(StopReason::Shutdown);
                    return vec![Action::StopEngine(StopReason::Shutdown)];
                }
                let t = slice.timings;
                let slice_over = self.kind == Kind::Count
                    && (now.saturating_sub(slice.started) >= t.checkpoint
                        || slice
                            .split_asked
                            .is_some_and(|asked| now.saturating_sub(asked) >= t.split_settle));
                if slice_over {
                    slice.stopping = Some(StopReason::Slice);
                    return vec![Action::StopEngine(StopReason::Slice)];
                }
                if now.saturating_sub(slice.last_heartbeat) < t.heartbeat {
                    return Vec::new();
                }
                slice.last_heartbeat = now;
                slice.keep_alive = true;
                let (nodes, solutions) = self
                    .checkpoint
                    .as_ref()
                    .map_or((0, 0), |c| (c.nodes, c.solutions));
                vec![Action::KeepAlive {
                    nodes,
                    solutions,
                    boards: std::mem::take(&mut self.boards),
                }]
            }
            Phase::Calling(call) if call.give_up_at.is_some_and(|at| now >= at) => {
                self.phase = Phase::Done(Outcome::Abandoned);
                vec![Action::AbandonCall, Action::Done(Outcome::Abandoned)]
            }
            _ => Vec::new(),
        }
    }

    fn shutdown(&mut self, now: Duration) -> Vec<Action> {
        if self.shutdown {
            return Vec::new();
        }
        self.shutdown = true;
        match &mut self.phase {
            // Not worth waiting for: the tick will stop the engine.
            Phase::Running(slice) if slice.keep_alive => {
                slice.keep_alive = false;
                let mut actions = vec![Action::AbandonCall];
                if let Some(run) = slice.ended.take() {
                    let stop = slice.stopping;
                    actions.extend(self.engine_ended(now, stop, run));
                }
                actions
            }
            Phase::Calling(Call {
                give_up_at: None, ..
            }) => {
                self.phase = Phase::Done(Outcome::Abandoned);
                vec![Action::AbandonCall, Action::Done(Outcome::Abandoned)]
            }
            _ => Vec::new(),
        }
    }

    fn answer(&mut self, now: Duration, answer: Answer) -> Vec<Action> {
        match &mut self.phase {
            Phase::Running(slice) if slice.keep_alive => {
                slice.keep_alive = false;
                let engine_done = slice.ended.is_some();
                let mut actions = Vec::new();
                if let Answer::Heartbeat {
                    keep_going,
                    split_wanted,
                    ..
                } = answer
                {
                    if !keep_going {
                        slice.stopping = Some(StopReason::LeaseLost);
                        if !engine_done {
                            actions.push(Action::StopEngine(StopReason::LeaseLost));
                        }
                    } else if split_wanted
                        && self.kind == Kind::Count
                        && slice.split_asked.is_none()
                        && !engine_done
                    {
                        slice.split_asked = Some(now);
                        actions.push(Action::RequestSplit);
                    }
                }
                if let Some(run) = slice.ended.take() {
                    let stop = slice.stopping;
                    actions.extend(self.engine_ended(now, stop, run));
                }
                actions
            }
            Phase::Calling(call) => {
                let pending = std::mem::replace(&mut call.pending, Pending::Completion);
                match (pending, answer) {
                    (
                        Pending::Checkpoint(checkpoint),
                        Answer::Heartbeat {
                            keep_going: true,
                            deadline_unix_ms,
                            ..
                        },
                    ) => {
                        self.checkpoint = checkpoint;
                        let mut actions = vec![Action::ExtendLease { deadline_unix_ms }];
                        actions.extend(self.run_slice(now));
                        actions
                    }
                    (Pending::Release, Answer::Heartbeat { .. }) => self.done(Outcome::Released),
                    (Pending::Completion, Answer::Completion { accepted: true }) => {
                        self.done(Outcome::Completed)
                    }
                    _ => self.done(Outcome::Abandoned),
                }
            }
            _ => Vec::new(),
        }
    }

    /// The engine returned; `stop` is why the machine stopped it, if it did.
    fn engine_ended(
        &mut self,
        now: Duration,
        stop: Option<StopReason>,
        run: Result<EngineRun, String>,
    ) -> Vec<Action> {
        let run = match run {
            Ok(run) => run,
            Err(error) => return self.fail(now, error),
        };
        let boards = std::mem::take(&mut self.boards);
        if self.kind == Kind::Best {
            return match stop {
                Some(StopReason::LeaseLost) => self.done(Outcome::Abandoned),
                Some(StopReason::Shutdown) => self.report(
                    now,
                    Report {
                        nodes: run.nodes,
                        solutions: 0,
                        checkpoint: None,
                        split: None,
                        boards,
                        release: true,
                    },
                ),
                Some(StopReason::Slice) | None => self.complete(
                    now,
                    Completion {
                        solutions: 0,
                        nodes: run.nodes,
                        split: None,
                        boards,
                    },
                ),
            };
        }
        let split = (!run.donated.is_empty()).then(|| {
            self.split_seq += 1;
            Split {
                seq: self.split_seq,
                prefixes: run.donated,
            }
        });
        if run.end == RunEnd::Finished {
            return self.complete(
                now,
                Completion {
                    solutions: run.solutions,
                    nodes: run.nodes,
                    split,
                    boards,
                },
            );
        }
        if stop == Some(StopReason::LeaseLost) {
            return self.done(Outcome::Abandoned);
        }
        let release = stop == Some(StopReason::Shutdown) || self.shutdown;
        self.report(
            now,
            Report {
                nodes: run.nodes,
                solutions: run.solutions,
                checkpoint: run.checkpoint,
                split,
                boards,
                release,
            },
        )
    }

    fn report(&mut self, now: Duration, report: Report) -> Vec<Action> {
        let (pending, stopping) = if report.release {
            (Pending::Release, true)
        } else {
            (
                Pending::Checkpoint(report.checkpoint.clone()),
                self.shutdown,
            )
        };
        self.call(now, pending, stopping, Action::Report(report))
    }

    fn complete(&mut self, now: Duration, completion: Completion) -> Vec<Action> {
        // A finished task is worth delivering even while stopping.
        self.call(
            now,
            Pending::Completion,
            self.shutdown,
            Action::Complete(completion),
        )
    }

    fn fail(&mut self, now: Duration, error: String) -> Vec<Action> {
        self.call(
            now,
            Pending::Completion,
            self.shutdown,
            Action::Fail { error },
        )
    }

    /// Sends a call that must arrive. While running it is given up on
    /// shutdown; while stopping, after the release grace.
    fn call(
        &mut self,
        now: Duration,
        pending: Pending,
        stopping: bool,
        action: Action,
    ) -> Vec<Action> {
        let give_up_at = stopping.then(|| now + self.timings.release_grace);
        self.phase = Phase::Calling(Call {
            pending,
            give_up_at,
        });
        vec![action]
    }

    fn done(&mut self, outcome: Outcome) -> Vec<Action> {
        self.phase = Phase::Done(outcome);
        vec![Action::Done(outcome)]
    }
}

#[cfg(test)]
mod tests;
