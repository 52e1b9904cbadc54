//! The coordinator's state and every rule that changes it.
//!
//! The ledger is plain data behind one lock: jobs, their tasks, the queue of
//! ready tasks, and the leases in flight. Each operation mutates it and
//! returns the [`Writes`] that make the change durable; the caller commits
//! them (under the same lock, so disk order is memory order) and, for
//! durable ones, flushes before answering. Nothing here does I/O, so the
//! rules are tested directly, on a logical [`Clock`].
//!
//! Why it is cut the way it is: the rules that keep counts exact are the
//! same for every kind of job, and they are the part that must not drift.
//! So they live once, apart from what differs between kinds:
//! - [`leases`]: who may work on what, and until when (registration, lease
//!   issuing, epochs, expiry, release, splits);
//! - [`reports`]: what a heartbeat or a completion changes;
//! - [`views`]: read models (status, figures, the task ledger, boards);
//! - [`policy`]: the one trait a job kind implements, and the one place
//!   that maps a job to its kind; [`count`] and [`best`] are the kinds.
//!
//! A new kind of job is a new policy file, its task message in the proto,
//! and one line in [`policy::policy`]; the lease rules do not change.
//!
//! The rules that make counts exact:
//! - every lease gets a fresh epoch (`incarnation << 32 | counter`, the
//!   incarnation bumped on every start), so a report names exactly one lease;
//! - only the current lease of an unfinished task may complete it, so a
//!   replayed, stale or post-expiry completion is ignored;
//! - a split is applied once per sequence number, together with the
//!   checkpoint that excludes the donated subtrees;
//! - a task's count and the job total it adds to are written in one batch.

mod best;
mod count;
mod leases;
mod policy;
mod reports;
mod verify;
mod views;

#[cfg(test)]
mod tests;

use std::cmp::Reverse;
use std::collections::{BTreeMap, HashMap, VecDeque};
use std::sync::Arc;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use e2_proto::pb;
use e2_shared::engine::{BestSearch, Engine};
use e2_shared::search::Prefix;
use e2_shared::Puzzle;
use tonic::Status;

use crate::records::{
    JobId, JobRecord, JobState, Mode, StoredCount, StoredPuzzle, StoredSearch, TaskId, TaskRecord,
    TaskState, VerifyRecord, WorkerRef,
};
use crate::store::Loaded;
use e2_shared::order::FillOrder;

pub use crate::store::Writes;
pub use count::Unestimated;
pub use policy::{admit, first_tasks, mode_from_wire, PlanAsk, Planned};
pub use views::JobFigures;

/// Timings and budgets of a coordinator.
#[derive(Debug, Clone)]
pub struct LedgerConfig {
    /// A lease not renewed for this long is void and its task re-queued.
    pub lease_ttl: Duration,
    /// How often workers renew their leases.
    pub heartbeat: Duration,
    /// How often workers stop a count for a checkpoint.
    pub checkpoint: Duration,
    /// A count task leased for this long may be asked to split when
    /// workers are idle.
    pub split_after: Duration,
    /// Nodes per lease of a best task.
    pub best_node_budget: u64,
    pub default_top_k: u32,
}

impl Default for LedgerConfig {
    fn default() -> Self {
        LedgerConfig {
            lease_ttl: Duration::from_secs(30),
            heartbeat: Duration::from_secs(5),
            checkpoint: Duration::from_secs(20),
            split_after: Duration::from_secs(2),
            best_node_budget: 20_000_000,
            default_top_k: 10,
        }
    }
}

/// "Now", in both the monotonic clock (leases) and wall time (records).
#[derive(Debug, Clone, Copy)]
pub struct Clock {
    pub now: Instant,
    pub unix_ms: u64,
}

impl Clock {
    pub fn now() -> Self {
        Clock {
            now: Instant::now(),
            unix_ms: SystemTime::now()
                .duration_since(UNIX_EPOCH)
                .map_or(0, |d| d.as_millis() as u64),
        }
    }

    pub fn later(self, by: Duration) -> Self {
        Clock {
            now: self.now + by,
            unix_ms: self.unix_ms.saturating_add(millis(by)),
        }
    }
}

/// A job as submitted, with its first tasks already planned.
#[derive(Debug, Clone)]
pub struct JobPlan {
    pub puzzle: Puzzle,
    pub mode: Mode,
    pub engine: Engine,
    pub prefixes: Vec<Prefix>,
    pub time_limit: Option<Duration>,
    pub target_score: Option<u32>,
    pub top_k: Option<u32>,
    /// Best jobs: how to search (counts keep the defaults).
    pub search: BestSearch,
    /// Count jobs: the share of finished tasks recounted on another worker
    /// (`None`: no checks).
    pub verify: Option<f64>,
    /// Count jobs: use the rotation reduction where it is exact ...
    pub symmetry: bool,
    /// ... and this fill order (`None`: the smallest estimated tree).
    pub count_order: Option<FillOrder>,
    /// Filled in by planning: the part of the count each prefix belongs to
    /// (empty: all to part 0), each prefix's estimated subtree in nodes
    /// (empty: not estimated), and how the count was planned.
    pub parts: Vec<u32>,
    pub estimates: Vec<u64>,
    pub count: Option<StoredCount>,
}

impl JobPlan {
    /// A count of `puzzle` with `engine`, to be cut into tasks on submission.
    pub fn count(puzzle: &Puzzle, engine: Engine) -> Self {
        JobPlan {
            puzzle: puzzle.clone(),
            mode: Mode::Count,
            engine,
            prefixes: Vec::new(),
            time_limit: None,
            target_score: None,
            top_k: None,
            search: BestSearch::default(),
            verify: None,
            symmetry: true,
            count_order: None,
            parts: Vec::new(),
            estimates: Vec::new(),
            count: None,
        }
    }
}

/// One lease in flight: which epoch is current, and until when.
#[derive(Debug)]
struct LeaseInfo {
    epoch: u64,
    /// The worker it was issued to: the only one whose reports count.
    worker: WorkerRef,
    deadline: Instant,
    deadline_unix_ms: u64,
    /// When granted, or when its last split was applied.
    since: Instant,
    split_wanted: bool,
    /// Cumulative nodes the holder last reported.
    nodes_seen: u64,
    /// The best job's lineage the lease was given in (see `best`).
    lineage: u64,
}

#[derive(Debug)]
struct WorkerInfo {
    /// The name it registered with (reported on its tasks).
    name: String,
    threads: u32,
    last_seen: Instant,
}

/// A job in memory: its record, tasks, queue, leases and kept boards.
struct Job {
    rec: JobRecord,
    puzzle: Arc<Puzzle>,
    /// What workers are sent for each part of the count (one part: the
    /// puzzle itself; a reduced count: the puzzle with one corner pinned).
    wires: Vec<pb::Puzzle>,
    tasks: BTreeMap<TaskId, TaskRecord>,
    ready: VecDeque<TaskId>,
    leased: HashMap<TaskId, LeaseInfo>,
    /// Kept boards, best first.
    best: BTreeMap<(Reverse<u32>, u64), String>,
    /// The best board its rounds build on (best jobs; see `best`).
    lineage: best::Lineage,
    /// Nodes reported since this coordinator started, sampled for a rate.
    work: u64,
    samples: VecDeque<(Instant, u64)>,
}

impl Job {
    fn new(rec: JobRecord) -> Self {
        let puzzle = rec.puzzle.to_puzzle();
        let parts = match &rec.count {
            Some(c) => c.parts(&puzzle),
            None => vec![puzzle.clone()],
        };
        Job {
            wires: parts.iter().map(e2_proto::puzzle_to_wire).collect(),
            puzzle: Arc::new(puzzle),
            rec,
            tasks: BTreeMap::new(),
            ready: VecDeque::new(),
            leased: HashMap::new(),
            best: BTreeMap::new(),
            lineage: best::Lineage::default(),
            work: 0,
            samples: VecDeque::new(),
        }
    }

    /// The rules of this job's kind.
    fn policy(&self) -> &'static dyn policy::JobPolicy {
        policy::policy_of(&self.rec)
    }

    fn max_score(&self) -> u32 {
        e2_shared::score::max_score(self.puzzle.width, self.puzzle.height)
    }

    /// The puzzle a lease of `task` is sent: its part's.
    fn wire_of(&self, task: &TaskRecord) -> &pb::Puzzle {
        let last = self.wires.len() - 1;
        &self.wires[(task.part as usize).min(last)]
    }

    /// What the sum of the tasks' counts is multiplied by.
    fn factor(&self) -> u64 {
        self.rec.count.as_ref().map_or(1, |c| c.factor.max(1))
    }

    /// No task waits and none is leased: every task is finished for good.
    fn no_task_left(&self) -> bool {
        self.ready.is_empty() && self.leased.is_empty()
    }
}

pub struct Ledger {
    config: LedgerConfig,
    incarnation: u64,
    lease_counter: u64,
    jobs: BTreeMap<JobId, Job>,
    workers: HashMap<String, WorkerInfo>,
    next_worker: u64,
    next_job: JobId,
    /// The job served last: leases go round-robin over running jobs.
    cursor: JobId,
}

impl Ledger {
    pub fn new(config: LedgerConfig, loaded: Loaded) -> Self {
        let mut jobs: BTreeMap<JobId, Job> = loaded
            .jobs
            .into_iter()
            .map(|r| (r.id, Job::new(r)))
            .collect();
        for t in loaded.tasks {
            if let Some(job) = jobs.get_mut(&t.job) {
                if t.state == TaskState::Ready && !job.rec.state.is_over() {
                    job.ready.push_back(t.id);
                }
                job.tasks.insert(t.id, t);
            }
        }
        for b in loaded.best {
            if let Some(job) = jobs.get_mut(&b.job) {
                job.best.insert((Reverse(b.score), b.hash), b.doc);
            }
        }
        // A restarted coordinator's lineages go on from each job's best.
        for job in jobs.values_mut() {
            if let Some((&(Reverse(score), _), doc)) = job.best.iter().next() {
                job.lineage = best::Lineage::from_board(doc, score);
            }
        }
        let next_job = jobs.keys().next_back().map_or(1, |id| id + 1);
        Ledger {
            config,
            incarnation: loaded.incarnation,
            lease_counter: 0,
            jobs,
            workers: HashMap::new(),
            next_worker: 0,
            next_job,
            cursor: 0,
        }
    }

    pub fn config(&self) -> &LedgerConfig {
        &self.config
    }

    /// Creates a job and its first tasks.
    pub fn submit(&mut self, plan: JobPlan, clock: Clock) -> (JobId, Writes) {
        let id = self.next_job;
        self.next_job += 1;
        let rec = JobRecord {
            id,
            mode: plan.mode,
            engine: plan.engine,
            puzzle: StoredPuzzle::from(&plan.puzzle),
            state: JobState::Queued,
            created_unix_ms: clock.unix_ms,
            finished_unix_ms: None,
            tasks_total: plan.prefixes.len() as u64,
            tasks_done: 0,
            solutions: 0,
            // A count's tree above its first tasks is walked once, here.
            nodes_done: plan.count.as_ref().map_or(0, |c| c.cut_nodes),
            next_task_id: plan.prefixes.len() as u64,
            deadline_unix_ms: plan
                .time_limit
                .map(|t| clock.unix_ms.saturating_add(millis(t))),
            target_score: plan.target_score,
            top_k: plan
                .top_k
                .filter(|&k| k > 0)
                .unwrap_or(self.config.default_top_k),
            best_score: None,
            error: None,
            search: StoredSearch::from(&plan.search),
            count: plan.count.clone(),
            verify: plan.verify.map(|fraction| {
                VerifyRecord::new(
                    (fraction.clamp(0.0, 1.0) * 1e6).round() as u32,
                    fresh_seed(id),
                )
            }),
        };
        let mut job = Job::new(rec);
        let mut writes = Writes {
            durable: true,
            ..Writes::default()
        };
        for (tid, prefix) in plan.prefixes.into_iter().enumerate() {
            let mut task = TaskRecord::new(id, tid as TaskId, None, prefix);
            task.part = plan.parts.get(tid).copied().unwrap_or(0);
            task.estimate = plan.estimates.get(tid).copied();
            writes.tasks.push(task.clone());
            job.ready.push_back(task.id);
            job.tasks.insert(task.id, task);
        }
        if job.tasks.is_empty() {
            // No prefix can lead anywhere: a count of zero, known already.
            finish(&mut job, JobState::Done, None, clock);
        }
        writes.jobs.push(job.rec.clone());
        tracing::info!(job = id, mode = ?job.rec.mode, tasks = job.rec.tasks_total, "job submitted");
        self.jobs.insert(id, job);
        (id, writes)
    }

    pub fn cancel(&mut self, job_id: JobId, clock: Clock) -> Result<Writes, Status> {
        let job = self.job_mut(job_id)?;
        let mut writes = Writes::default();
        if !job.rec.state.is_over() {
            finish(job, JobState::Cancelled, None, clock);
            writes.jobs.push(job.rec.clone());
            writes.durable = true;
        }
        Ok(writes)
    }

    fn job(&self, id: JobId) -> Result<&Job, Status> {
        self.jobs
            .get(&id)
            .ok_or_else(|| Status::not_found(format!("no job {id}")))
    }

    fn job_mut(&mut self, id: JobId) -> Result<&mut Job, Status> {
        self.jobs
            .get_mut(&id)
            .ok_or_else(|| Status::not_found(format!("no job {id}")))
    }
}

/// Ends a job: nothing more is queued or leased.
fn finish(job: &mut Job, state: JobState, error: Option<String>, clock: Clock) {
    job.rec.state = state;
    job.rec.error = error;
    job.rec.finished_unix_ms = Some(clock.unix_ms);
    job.ready.clear();
    job.leased.clear();
    tracing::info!(job = job.rec.id, state = state.name(), solutions = job.rec.solutions, best = ?job.rec.best_score, "job over");
}

/// A seed nobody outside this process can predict: the standard library's
/// per-process random hash keys, mixed with the time and the job id.
fn fresh_seed(job: JobId) -> u64 {
    use std::hash::{BuildHasher, Hasher};
    let mut h = std::collections::hash_map::RandomState::new().build_hasher();
    h.write_u64(job);
    h.write_u128(
        SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos()),
    );
    h.finish()
}

/// A duration in whole milliseconds, saturating: time arithmetic in the
/// ledger never wraps, whatever a peer or a flag asked for.
pub(crate) fn millis(d: std::time::Duration) -> u64 {
    u64::try_from(d.as_millis()).unwrap_or(u64::MAX)
}
