//! What differs between kinds of job, behind one trait.
//!
//! The lease rules (epochs, expiry, splits, exactly-once completion) are
//! the same for every job; what a job's tasks are, what a worker is told
//! to do with one, and what a finished task means are not. Each kind says
//! so in one [`JobPolicy`], and [`policy`] is the one place that maps a job
//! to its kind, so the rest of the ledger never asks a job what it is.

use e2_proto::pb;
use e2_shared::engine::{Ask, BestSearch, Engine};
use e2_shared::search::Prefix;
use e2_shared::{Error, Puzzle};
use tonic::Status;

use super::{best, count, finish, Clock, Job, LedgerConfig};
use crate::records::{
    JobRecord, JobState, Mode, StoredCount, TaskId, TaskRecord, TaskState, WorkerRef,
};
use crate::store::Writes;
use e2_shared::order::FillOrder;

/// What an accepted completion reports.
#[derive(Debug, Clone)]
pub(super) struct Completion {
    pub solutions: u64,
    pub nodes: u64,
    /// The lease holder that reported it.
    pub by: WorkerRef,
}

/// The rules of one kind of job.
pub(super) trait JobPolicy: Sync {
    /// What the engine must be able to do to run it.
    fn ask(&self) -> Ask;

    /// Whether it takes search settings (fill order, breaks, whole tree);
    /// a kind that does not runs with the defaults whatever is stored.
    fn takes_search(&self) -> bool;

    /// The first tasks of a new job. Only asked when the puzzle has a
    /// free cell.
    fn first_tasks(
        &self,
        puzzle: &Puzzle,
        engine: Engine,
        search: &BestSearch,
        ask: &PlanAsk,
    ) -> Result<Planned, Error>;

    /// The subtree one lease of `task` searches: the task's own prefix,
    /// unless the kind starts its leases elsewhere.
    fn lease_prefix(&self, _job: &Job, task: &TaskRecord) -> Prefix {
        task.prefix.clone()
    }

    /// What one lease of `task` asks the worker to do.
    fn assignment(
        &self,
        job: &Job,
        task: &TaskRecord,
        config: &LedgerConfig,
    ) -> pb::assignment::Kind;

    // The flags below default to "no": each kind states what it adds.

    /// Whether long leases are asked to give work away to idle workers.
    fn splits(&self) -> bool {
        false
    }

    /// Whether reported boards are checked and kept.
    fn keeps_boards(&self) -> bool {
        false
    }

    /// Whether reaching the target score (or the maximum) ends the job.
    fn ends_at_target(&self) -> bool {
        false
    }

    /// Whether the job's tasks go round again (so none is ever done, and
    /// what it finishes are rounds, not tasks).
    fn goes_round(&self) -> bool {
        false
    }

    /// Whether the job is over by time: by default, once a time limit it
    /// was given has passed.
    fn past_deadline(&self, job: &JobRecord, clock: Clock) -> bool {
        job.deadline_unix_ms.is_some_and(|d| d <= clock.unix_ms)
    }

    /// What an accepted completion of task `tid` (whose lease is already
    /// gone) does to the task and to the job.
    fn complete(
        &self,
        job: &mut Job,
        tid: TaskId,
        done: Completion,
        clock: Clock,
        writes: &mut Writes,
    );

    /// Seconds left, as far as the status can tell; `None` when unknown.
    fn eta_secs(&self, _job: &Job, _partial_nodes: u64, _nodes_per_sec: f64) -> Option<f64> {
        None
    }
}

/// The one registration: every kind of job, by its stored mode.
pub(super) fn policy(mode: Mode, whole_tree: bool) -> &'static dyn JobPolicy {
    match mode {
        Mode::Count => &count::Count,
        Mode::Best if whole_tree => &best::WholeTree,
        Mode::Best => &best::Rounds,
    }
}

pub(super) fn policy_of(job: &JobRecord) -> &'static dyn JobPolicy {
    policy(job.mode, job.search.whole_tree)
}

/// A submitted mode, or `None` if this coordinator has no such kind.
pub fn mode_from_wire(mode: i32) -> Option<Mode> {
    match pb::Mode::try_from(mode) {
        Ok(pb::Mode::Count) => Some(Mode::Count),
        Ok(pb::Mode::Best) => Some(Mode::Best),
        _ => None,
    }
}

/// The mode of a job on the wire.
pub(super) fn mode_to_wire(mode: Mode) -> pb::Mode {
    match mode {
        Mode::Count => pb::Mode::Count,
        Mode::Best => pb::Mode::Best,
    }
}

/// What planning a job's first tasks takes into account.
#[derive(Debug, Clone, Copy)]
pub struct PlanAsk {
    /// Worker threads the tasks are for.
    pub threads: usize,
    /// Count jobs: use the rotation reduction where exact ...
    pub symmetry: bool,
    /// ... and this fill order (`None`: the smallest estimated tree).
    pub count_order: Option<FillOrder>,
    /// Count jobs whose tasks never split (verified ones): cut finely
    /// whatever the estimate.
    pub fine: bool,
}

/// A job's first tasks.
#[derive(Debug, Clone)]
pub struct Planned {
    pub prefixes: Vec<Prefix>,
    /// The part of the count each prefix belongs to (empty: all part 0).
    pub parts: Vec<u32>,
    /// Each prefix's estimated subtree in nodes (empty: not estimated).
    pub estimates: Vec<u64>,
    /// Count jobs: how the count was planned.
    pub count: Option<StoredCount>,
}

impl Planned {
    /// Tasks of one part, with nothing more to record.
    pub fn plain(prefixes: Vec<Prefix>) -> Self {
        Planned {
            prefixes,
            parts: Vec::new(),
            estimates: Vec::new(),
            count: None,
        }
    }
}

/// Checks that a job of `mode` can run on `engine` with the submitted
/// search settings, and decodes them (`None`: the defaults).
pub fn admit(
    mode: Mode,
    engine: Engine,
    search: Option<&pb::SearchSettings>,
) -> Result<BestSearch, Status> {
    let policy = policy(mode, search.is_some_and(|s| s.whole_tree));
    engine
        .require(policy.ask())
        .map_err(|e| Status::invalid_argument(e.to_string()))?;
    let search = match search {
        Some(wire) => {
            e2_proto::search_from_wire(wire).map_err(|e| Status::invalid_argument(e.to_string()))?
        }
        None => BestSearch::default(),
    };
    if !policy.takes_search() && search != BestSearch::default() {
        return Err(Status::invalid_argument(
            "search: fill order, breaks and whole-tree runs apply to best jobs only",
        ));
    }
    Ok(search)
}

/// How a new job is cut into its first tasks: by its kind, except that a
/// puzzle without a free cell is one task, the empty prefix.
pub fn first_tasks(
    puzzle: &Puzzle,
    mode: Mode,
    engine: Engine,
    search: &BestSearch,
    ask: &PlanAsk,
) -> Result<Planned, Error> {
    if puzzle.cells() == puzzle.hints.len() {
        return Ok(Planned::plain(vec![Vec::new()]));
    }
    policy(mode, search.whole_tree).first_tasks(puzzle, engine, search, ask)
}

/// Finishes task `tid` for good with its final figures, adds them to the
/// job once, and ends the job when no task is left: what a count task and
/// the one run of a whole-tree best job share.
pub(super) fn finish_task(
    job: &mut Job,
    tid: TaskId,
    done: Completion,
    clock: Clock,
    writes: &mut Writes,
) {
    record_task(job, tid, done, writes);
    end_if_no_task_left(job, clock);
}

/// The first half of [`finish_task`]: the task's figures, in the job once.
pub(super) fn record_task(job: &mut Job, tid: TaskId, done: Completion, writes: &mut Writes) {
    let task = job.tasks.get_mut(&tid).expect("completed task exists");
    task.finish(&done);
    writes.tasks.push(task.clone());
    job.rec.tasks_done += 1;
    // Saturating: a total at the edge of u64 stays there rather than wrap.
    job.rec.solutions = job.rec.solutions.saturating_add(done.solutions);
    job.rec.nodes_done = job.rec.nodes_done.saturating_add(done.nodes);
}

impl TaskRecord {
    /// Done for good, with the figures of the completion that ended it.
    pub(super) fn finish(&mut self, done: &Completion) {
        self.state = TaskState::Done;
        self.solutions = done.solutions;
        self.nodes = done.nodes;
        self.completions += 1;
        self.checkpoint = None;
        self.done_by = Some(done.by.clone());
    }
}

/// The second half: the job is done once no task is left.
pub(super) fn end_if_no_task_left(job: &mut Job, clock: Clock) {
    if job.no_task_left() && !job.rec.state.is_over() {
        finish(job, JobState::Done, None, clock);
    }
}
