//! The coordinator's state and every rule that changes it.
//!
//! The ledger is plain data behind one lock: jobs, their tasks, the queue of
//! ready tasks, and the leases in flight. Each operation mutates it and
//! returns the [`Writes`] that make the change durable; the caller commits
//! them (under the same lock, so disk order is memory order) and, for
//! durable ones, flushes before answering. Nothing here does I/O, so the
//! rules are tested directly.
//!
//! The rules that make counts exact:
//! - every lease gets a fresh epoch (`incarnation << 32 | counter`, the
//!   incarnation bumped on every start), so a report names exactly one lease;
//! - only the current lease of an unfinished task may complete it, so a
//!   replayed, stale or post-expiry completion is ignored;
//! - a split is applied once per sequence number, together with the
//!   checkpoint that excludes the donated subtrees;
//! - a task's count and the job total it adds to are written in one batch.

use std::cmp::Reverse;
use std::collections::{BTreeMap, HashMap, VecDeque};
use std::sync::Arc;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use e2_proto::pb::{self, Assignment, HeartbeatReply, HeartbeatRequest};
use e2_shared::search::Prefix;
use e2_shared::Puzzle;
use tonic::Status;

use crate::boards::check_board;
use crate::records::{
    BestEntry, JobId, JobRecord, JobState, Mode, StoredPuzzle, StoredSearch, TaskId, TaskRecord,
    TaskState,
};
use crate::store::{Loaded, Writes};
use e2_shared::engine::{BestSearch, Engine};

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
            unix_ms: self.unix_ms + by.as_millis() as u64,
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
}

/// One job as the operator endpoints show it.
#[derive(Debug, Clone)]
pub struct JobFigures {
    /// What `e2 status` prints for the job.
    pub status: pb::JobStatus,
    /// Tasks waiting for a lease.
    pub tasks_queued: u64,
    /// Tasks under a lease now.
    pub tasks_leased: u64,
    /// Tasks finished for good (count jobs; a best job's tasks go round
    /// again, so it has none).
    pub tasks_done: u64,
    /// Nodes workers reported for this job since this coordinator started:
    /// it only grows, which is what a Prometheus counter needs.
    pub nodes_reported: u64,
    /// The best kept board (BoardDoc JSON), for best jobs that have one.
    pub best_doc: Option<String>,
}

#[derive(Debug)]
struct LeaseInfo {
    epoch: u64,
    deadline: Instant,
    deadline_unix_ms: u64,
    /// When granted, or when its last split was applied.
    since: Instant,
    split_wanted: bool,
    /// Cumulative nodes the holder last reported.
    nodes_seen: u64,
}

#[derive(Debug)]
struct WorkerInfo {
    threads: u32,
    last_seen: Instant,
}

struct Job {
    rec: JobRecord,
    puzzle: Arc<Puzzle>,
    wire: pb::Puzzle,
    tasks: BTreeMap<TaskId, TaskRecord>,
    ready: VecDeque<TaskId>,
    leased: HashMap<TaskId, LeaseInfo>,
    /// Kept boards, best first.
    best: BTreeMap<(Reverse<u32>, u64), String>,
    /// Nodes reported since this coordinator started, sampled for a rate.
    work: u64,
    samples: VecDeque<(Instant, u64)>,
}

impl Job {
    fn new(rec: JobRecord) -> Self {
        let puzzle = rec.puzzle.to_puzzle();
        Job {
            wire: e2_proto::puzzle_to_wire(&puzzle),
            puzzle: Arc::new(puzzle),
            rec,
            tasks: BTreeMap::new(),
            ready: VecDeque::new(),
            leased: HashMap::new(),
            best: BTreeMap::new(),
            work: 0,
            samples: VecDeque::new(),
        }
    }

    /// Nodes and solutions of the tasks not finished yet: each one's last
    /// stored checkpoint (its counts are cumulative), or what its holder has
    /// reported since, if more. So an interrupted count shows everything it
    /// has kept, not only its finished tasks.
    fn unfinished_progress(&self) -> (u64, u64) {
        self.tasks
            .iter()
            .filter(|(_, t)| t.state != TaskState::Done)
            .fold((0, 0), |(nodes, solutions), (id, t)| {
                let (kept_nodes, kept_solutions) = t
                    .checkpoint
                    .as_ref()
                    .map_or((0, 0), |c| (c.nodes, c.solutions));
                let seen = self.leased.get(id).map_or(0, |l| l.nodes_seen);
                (nodes + kept_nodes.max(seen), solutions + kept_solutions)
            })
    }

    fn add_work(&mut self, nodes: u64, now: Instant) {
        self.work += nodes;
        self.samples.push_back((now, self.work));
        while self.samples.len() > 2
            && (self.samples.len() > 256
                || now.duration_since(self.samples[0].0) > Duration::from_secs(20))
        {
            self.samples.pop_front();
        }
    }

    fn nodes_per_sec(&self, now: Instant) -> f64 {
        match (self.samples.front(), self.samples.back()) {
            (Some(&(t0, w0)), Some(&(_, w1)))
                if now.duration_since(t0) > Duration::from_millis(200) =>
            {
                (w1 - w0) as f64 / now.duration_since(t0).as_secs_f64()
            }
            _ => 0.0,
        }
    }

    fn max_score(&self) -> u32 {
        e2_shared::score::max_score(self.puzzle.width, self.puzzle.height)
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

/// Why a report was ignored, as told to the worker and kept in the log.
fn ignored(reason: impl Into<String>) -> pb::CompleteReply {
    pb::CompleteReply {
        accepted: false,
        reason: reason.into(),
    }
}

fn stop(reason: impl Into<String>) -> HeartbeatReply {
    HeartbeatReply {
        keep_going: false,
        reason: reason.into(),
        ..Default::default()
    }
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

    /// Threads of the workers seen recently: what a new count is split for.
    pub fn worker_threads(&self) -> usize {
        self.workers.values().map(|w| w.threads as usize).sum()
    }

    /// Workers registered and seen within the last ten lease TTLs (those
    /// longer gone are forgotten by [`Ledger::expire`]).
    pub fn workers_seen(&self) -> usize {
        self.workers.len()
    }

    pub fn register(
        &mut self,
        req: &pb::RegisterRequest,
        clock: Clock,
    ) -> Result<pb::RegisterReply, Status> {
        if req.protocol_version != e2_proto::PROTOCOL_VERSION {
            return Err(Status::failed_precondition(format!(
                "protocol version mismatch: the worker speaks protocol version {} but this coordinator speaks version {}; run the same e2 release on both",
                req.protocol_version,
                e2_proto::PROTOCOL_VERSION
            )));
        }
        self.next_worker += 1;
        let id = format!("{}-{}", self.incarnation, self.next_worker);
        self.workers.insert(
            id.clone(),
            WorkerInfo {
                threads: req.threads.max(1),
                last_seen: clock.now,
            },
        );
        tracing::info!(worker = %id, name = %req.name, threads = req.threads, "worker registered");
        Ok(pb::RegisterReply {
            worker_id: id,
            heartbeat_interval_ms: self.config.heartbeat.as_millis() as u64,
            lease_ttl_ms: self.config.lease_ttl.as_millis() as u64,
            checkpoint_interval_ms: self.config.checkpoint.as_millis() as u64,
            protocol_version: e2_proto::PROTOCOL_VERSION,
        })
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
            nodes_done: 0,
            next_task_id: plan.prefixes.len() as u64,
            deadline_unix_ms: plan
                .time_limit
                .map(|t| clock.unix_ms + t.as_millis() as u64),
            target_score: plan.target_score,
            top_k: plan
                .top_k
                .filter(|&k| k > 0)
                .unwrap_or(self.config.default_top_k),
            best_score: None,
            error: None,
            search: StoredSearch::from(&plan.search),
        };
        let mut job = Job::new(rec);
        let mut writes = Writes {
            durable: true,
            ..Writes::default()
        };
        for (tid, prefix) in plan.prefixes.into_iter().enumerate() {
            let task = TaskRecord::new(id, tid as TaskId, None, prefix);
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

    pub fn lease(
        &mut self,
        worker_id: &str,
        max_tasks: u32,
        clock: Clock,
    ) -> Result<(pb::LeaseReply, Writes), Status> {
        let Some(worker) = self.workers.get_mut(worker_id) else {
            return Err(Status::not_found(format!(
                "{} \"{worker_id}\": register first",
                e2_proto::UNKNOWN_WORKER
            )));
        };
        worker.last_seen = clock.now;
        let mut writes = Writes::default();
        let mut assignments = Vec::new();
        for _ in 0..max_tasks.clamp(1, 64) {
            let Some(job_id) = self.next_job_with_work() else {
                break;
            };
            self.cursor = job_id;
            let epoch = (self.incarnation << 32) | self.lease_counter;
            self.lease_counter += 1;
            let (ttl, budget) = (self.config.lease_ttl, self.config.best_node_budget);
            let job = self.jobs.get_mut(&job_id).expect("job with work");
            let tid = job.ready.pop_front().expect("job with work");
            let task = job.tasks.get_mut(&tid).expect("ready task exists");
            task.leases += 1;
            writes.tasks.push(task.clone());
            let deadline_unix_ms = clock.unix_ms + ttl.as_millis() as u64;
            let lease = pb::Lease {
                job_id,
                task_id: tid,
                epoch,
                deadline_unix_ms,
            };
            let kind = match job.rec.mode {
                Mode::Best => pb::assignment::Kind::Best(pb::BestTask {
                    node_budget: budget,
                    seed: round_seed(job_id, tid, task.round),
                    search: Some(job.rec.search.to_wire()),
                }),
                Mode::Count => pb::assignment::Kind::Count(pb::CountTask {
                    checkpoint: e2_proto::encode_checkpoint(task.checkpoint.as_ref()),
                    split_seq: task.split_seq,
                }),
            };
            assignments.push(Assignment {
                lease: Some(lease),
                engine: e2_proto::engine_to_wire(job.rec.engine) as i32,
                puzzle: Some(job.wire.clone()),
                prefix: e2_proto::encode_prefix(&task.prefix),
                kind: Some(kind),
            });
            job.leased.insert(
                tid,
                LeaseInfo {
                    epoch,
                    deadline: clock.now + ttl,
                    deadline_unix_ms,
                    since: clock.now,
                    split_wanted: false,
                    nodes_seen: task.checkpoint.as_ref().map_or(0, |c| c.nodes),
                },
            );
            if job.rec.state == JobState::Queued {
                job.rec.state = JobState::Running;
                writes.jobs.push(job.rec.clone());
            }
        }
        if assignments.is_empty() {
            self.ask_for_splits(clock);
        }
        let retry_after_ms = (self.config.heartbeat.as_millis() as u64 / 4).clamp(20, 500);
        Ok((
            pb::LeaseReply {
                assignments,
                retry_after_ms,
            },
            writes,
        ))
    }

    fn next_job_with_work(&self) -> Option<JobId> {
        let has_work = |j: &&Job| !j.rec.state.is_over() && !j.ready.is_empty();
        self.jobs
            .range(self.cursor + 1..)
            .map(|(_, j)| j)
            .find(has_work)
            .or_else(|| self.jobs.values().find(has_work))
            .map(|j| j.rec.id)
    }

    /// Idle workers are asking: flag the longest-running count leases
    /// (a few at a time) to give work away at their next heartbeat.
    fn ask_for_splits(&mut self, clock: Clock) {
        const AT_ONCE: usize = 4;
        let pending: usize = self
            .jobs
            .values()
            .map(|j| j.leased.values().filter(|l| l.split_wanted).count())
            .sum();
        let mut candidates: Vec<(Instant, JobId, TaskId)> = self
            .jobs
            .values()
            .filter(|j| j.rec.mode == Mode::Count && !j.rec.state.is_over())
            .flat_map(|j| {
                j.leased
                    .iter()
                    .filter(|(_, l)| {
                        !l.split_wanted
                            && clock.now.duration_since(l.since) >= self.config.split_after
                    })
                    .map(move |(&t, l)| (l.since, j.rec.id, t))
            })
            .collect();
        candidates.sort();
        for (_, job, task) in candidates.into_iter().take(AT_ONCE.saturating_sub(pending)) {
            if let Some(l) = self
                .jobs
                .get_mut(&job)
                .and_then(|j| j.leased.get_mut(&task))
            {
                l.split_wanted = true;
            }
        }
    }

    pub fn heartbeat(
        &mut self,
        req: &HeartbeatRequest,
        clock: Clock,
    ) -> Result<(HeartbeatReply, Writes), Status> {
        let lease = req
            .lease
            .ok_or_else(|| Status::invalid_argument("heartbeat without a lease"))?;
        let checkpoint = e2_proto::decode_checkpoint(&req.checkpoint)
            .map_err(|e| Status::invalid_argument(e.to_string()))?;
        let ttl = self.config.lease_ttl;
        let mut writes = Writes::default();
        let Some(job) = self.jobs.get_mut(&lease.job_id) else {
            return Ok((stop("unknown job"), writes));
        };
        if job.rec.state.is_over() {
            return Ok((stop(format!("job is {}", job.rec.state.name())), writes));
        }
        // Boards are results whoever found them: keep them even from a
        // lease that has since lapsed.
        accept_boards(job, &req.boards, clock, &mut writes);
        if job.rec.state.is_over() {
            return Ok((stop(format!("job is {}", job.rec.state.name())), writes));
        }
        let current = job
            .leased
            .get(&lease.task_id)
            .is_some_and(|l| l.epoch == lease.epoch);
        if !current {
            return Ok((
                stop("stale lease: the task was re-queued or re-issued"),
                writes,
            ));
        }
        let tid = lease.task_id;
        if let Some(split) = &req.split {
            let task = &job.tasks[&tid];
            if split.seq > task.split_seq {
                if checkpoint.is_none() {
                    return Err(Status::invalid_argument(
                        "a split must carry the checkpoint that excludes the donated prefixes",
                    ));
                }
                apply_split(job, tid, split, &mut writes)?;
                job.leased.get_mut(&tid).expect("current lease").since = clock.now;
            }
        }
        let l = job.leased.get_mut(&tid).expect("current lease");
        let fresh = req.nodes.saturating_sub(l.nodes_seen);
        l.nodes_seen = l.nodes_seen.max(req.nodes);
        job.add_work(fresh, clock.now);
        if let Some(cp) = checkpoint {
            let task = job.tasks.get_mut(&tid).expect("leased task exists");
            task.nodes = req.nodes;
            task.solutions = req.solutions;
            task.checkpoint = Some(cp);
            writes.tasks.push(task.clone());
            writes.durable = true;
        }
        if req.release {
            job.leased.remove(&tid);
            job.ready.push_front(tid);
            return Ok((stop("released"), writes));
        }
        let l = job.leased.get_mut(&tid).expect("current lease");
        l.deadline = clock.now + ttl;
        l.deadline_unix_ms = clock.unix_ms + ttl.as_millis() as u64;
        let reply = HeartbeatReply {
            keep_going: true,
            deadline_unix_ms: l.deadline_unix_ms,
            split_wanted: std::mem::take(&mut l.split_wanted),
            reason: String::new(),
        };
        Ok((reply, writes))
    }

    pub fn complete(
        &mut self,
        req: &pb::CompleteRequest,
        clock: Clock,
    ) -> Result<(pb::CompleteReply, Writes), Status> {
        let lease = req
            .lease
            .ok_or_else(|| Status::invalid_argument("completion without a lease"))?;
        let mut writes = Writes::default();
        let Some(job) = self.jobs.get_mut(&lease.job_id) else {
            return Ok((ignored("unknown job"), writes));
        };
        let tid = lease.task_id;
        let Some(task) = job.tasks.get_mut(&tid) else {
            return Ok((ignored("unknown task"), writes));
        };
        let why_ignored = if job.rec.state.is_over() {
            Some(format!("job is {}", job.rec.state.name()))
        } else if task.state == TaskState::Done {
            Some("task already finished: counted once before".to_string())
        } else if job.leased.get(&tid).is_none_or(|l| l.epoch != lease.epoch) {
            Some(format!(
                "stale lease (epoch {}): the task was re-queued or re-issued",
                lease.epoch
            ))
        } else {
            None
        };
        if let Some(reason) = why_ignored {
            task.ignored += 1;
            writes.tasks.push(task.clone());
            tracing::info!(
                job = lease.job_id,
                task = tid,
                "completion ignored: {reason}"
            );
            return Ok((ignored(reason), writes));
        }
        writes.durable = true;
        let seen = job.leased.remove(&tid).map_or(0, |l| l.nodes_seen);
        job.add_work(req.nodes.saturating_sub(seen), clock.now);
        if !req.error.is_empty() {
            let error = format!("task {tid}: {}", req.error);
            finish(job, JobState::Failed, Some(error), clock);
            writes.jobs.push(job.rec.clone());
            return Ok((ignored("the job failed"), writes));
        }
        if let Some(split) = &req.split {
            if split.seq > job.tasks[&tid].split_seq {
                apply_split(job, tid, split, &mut writes)?;
            }
        }
        accept_boards(job, &req.boards, clock, &mut writes);
        let task = job.tasks.get_mut(&tid).expect("task exists");
        match job.rec.mode {
            Mode::Count => {
                task.state = TaskState::Done;
                task.solutions = req.solutions;
                task.nodes = req.nodes;
                task.completions += 1;
                task.checkpoint = None;
                job.rec.tasks_done += 1;
                job.rec.solutions += req.solutions;
                job.rec.nodes_done += req.nodes;
                writes.tasks.push(task.clone());
                if job.ready.is_empty() && job.leased.is_empty() && !job.rec.state.is_over() {
                    finish(job, JobState::Done, None, clock);
                }
            }
            Mode::Best if job.rec.search.whole_tree => {
                // The one deterministic run is over, and with it the job.
                task.state = TaskState::Done;
                task.round += 1;
                task.completions += 1;
                task.nodes = req.nodes;
                job.rec.tasks_done += 1;
                job.rec.nodes_done += req.nodes;
                writes.tasks.push(task.clone());
                if job.ready.is_empty() && job.leased.is_empty() && !job.rec.state.is_over() {
                    finish(job, JobState::Done, None, clock);
                }
            }
            Mode::Best => {
                // A round is over; the prefix goes round again with a new seed.
                task.round += 1;
                task.completions += 1;
                task.nodes += req.nodes;
                job.rec.tasks_done += 1;
                job.rec.nodes_done += req.nodes;
                writes.tasks.push(task.clone());
                if !job.rec.state.is_over() {
                    job.ready.push_back(tid);
                }
            }
        }
        writes.jobs.push(job.rec.clone());
        Ok((
            pb::CompleteReply {
                accepted: true,
                reason: String::new(),
            },
            writes,
        ))
    }

    /// Re-queues lapsed leases, ends best jobs past their time, forgets
    /// workers long gone.
    pub fn expire(&mut self, clock: Clock) -> Writes {
        let mut writes = Writes::default();
        for job in self.jobs.values_mut().filter(|j| !j.rec.state.is_over()) {
            let lapsed: Vec<TaskId> = job
                .leased
                .iter()
                .filter(|(_, l)| l.deadline <= clock.now)
                .map(|(&t, _)| t)
                .collect();
            for tid in lapsed {
                tracing::info!(
                    job = job.rec.id,
                    task = tid,
                    "lease expired; task re-queued"
                );
                job.leased.remove(&tid);
                job.ready.push_front(tid);
            }
            if job.rec.deadline_unix_ms.is_some_and(|d| d <= clock.unix_ms) {
                finish(job, JobState::Done, None, clock);
                writes.jobs.push(job.rec.clone());
                writes.durable = true;
            }
        }
        let forget_after = self.config.lease_ttl * 10;
        self.workers
            .retain(|_, w| clock.now.duration_since(w.last_seen) < forget_after);
        writes
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

    pub fn status(&self, job_id: JobId, clock: Clock) -> Result<pb::JobStatus, Status> {
        Ok(self.status_of(self.job(job_id)?, clock))
    }

    pub fn list(&self, clock: Clock) -> Vec<pb::JobStatus> {
        self.jobs
            .values()
            .map(|j| self.status_of(j, clock))
            .collect()
    }

    pub fn is_over(&self, job_id: JobId) -> Result<bool, Status> {
        Ok(self.job(job_id)?.rec.state.is_over())
    }

    fn status_of(&self, job: &Job, clock: Clock) -> pb::JobStatus {
        let rec = &job.rec;
        let end = rec.finished_unix_ms.unwrap_or(clock.unix_ms);
        let elapsed = end.saturating_sub(rec.created_unix_ms) as f64 / 1000.0;
        let (partial_nodes, partial_solutions) = job.unfinished_progress();
        let eta = (rec.mode == Mode::Count && !rec.state.is_over() && rec.tasks_done > 0)
            .then(|| elapsed * (rec.tasks_total - rec.tasks_done) as f64 / rec.tasks_done as f64);
        pb::JobStatus {
            job_id: rec.id,
            state: match rec.state {
                JobState::Queued => pb::JobState::Queued,
                JobState::Running => pb::JobState::Running,
                JobState::Done => pb::JobState::Done,
                JobState::Cancelled => pb::JobState::Cancelled,
                JobState::Failed => pb::JobState::Failed,
            } as i32,
            mode: match rec.mode {
                Mode::Count => pb::Mode::Count,
                Mode::Best => pb::Mode::Best,
            } as i32,
            engine: e2_proto::engine_to_wire(rec.engine) as i32,
            puzzle_name: rec.puzzle.name.clone(),
            tasks_done: rec.tasks_done,
            tasks_total: rec.tasks_total,
            tasks_running: job.leased.len() as u64,
            solutions: rec.solutions + partial_solutions,
            best_score: rec.best_score,
            max_score: job.max_score(),
            nodes: rec.nodes_done + partial_nodes,
            nodes_per_sec: if rec.state.is_over() {
                0.0
            } else {
                job.nodes_per_sec(clock.now)
            },
            elapsed_secs: elapsed,
            eta_secs: eta,
            error: rec.error.clone().unwrap_or_default(),
            created_unix_ms: rec.created_unix_ms,
            workers: self.workers.len() as u32,
        }
    }

    /// Every job's figures for the operator endpoints (metrics, status
    /// page), read under one lock so they agree with one another.
    pub fn figures(&self, clock: Clock) -> Vec<JobFigures> {
        self.jobs
            .values()
            .map(|job| {
                let done = job
                    .tasks
                    .values()
                    .filter(|t| t.state == TaskState::Done)
                    .count() as u64;
                JobFigures {
                    status: self.status_of(job, clock),
                    tasks_queued: job.ready.len() as u64,
                    tasks_leased: job.leased.len() as u64,
                    tasks_done: done,
                    nodes_reported: job.work,
                    best_doc: job.best.values().next().cloned(),
                }
            })
            .collect()
    }

    /// The kept boards of a job, best first.
    pub fn best(&self, job_id: JobId, top: usize) -> Result<Vec<String>, Status> {
        Ok(self.job(job_id)?.best.values().take(top).cloned().collect())
    }

    pub fn ledger(&self, job_id: JobId) -> Result<Vec<pb::TaskEntry>, Status> {
        let job = self.job(job_id)?;
        Ok(job
            .tasks
            .values()
            .map(|t| pb::TaskEntry {
                task_id: t.id,
                parent: t.parent,
                state: match (t.state, job.leased.contains_key(&t.id)) {
                    (TaskState::Done, _) => "done",
                    (TaskState::Ready, true) => "leased",
                    (TaskState::Ready, false) => "ready",
                }
                .into(),
                leases: t.leases,
                completions: t.completions,
                ignored_completions: t.ignored,
                solutions: t.solutions,
                nodes: t.nodes,
                split_seq: t.split_seq,
                prefix_json: serde_json::to_string(&t.prefix).expect("prefix serialises"),
                has_checkpoint: t.checkpoint.is_some(),
            })
            .collect())
    }

    /// A job of this puzzle, mode, engine and search settings the embedded
    /// runner can resume: the newest one still queued or running, or, with
    /// `or_done`, the newest done one (whose answer is then known).
    pub fn find_resumable(
        &self,
        puzzle: &Puzzle,
        mode: Mode,
        engine: Engine,
        search: &BestSearch,
        or_done: bool,
    ) -> Option<JobId> {
        let fingerprint = StoredPuzzle::from(puzzle).fingerprint();
        let search = StoredSearch::from(search);
        self.jobs
            .values()
            .rev()
            .find(|j| {
                j.rec.mode == mode
                    && j.rec.engine == engine
                    && (mode == Mode::Count || j.rec.search == search)
                    && (matches!(j.rec.state, JobState::Queued | JobState::Running)
                        || (or_done && j.rec.state == JobState::Done))
                    && j.rec.puzzle.fingerprint() == fingerprint
            })
            .map(|j| j.rec.id)
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

/// The seed of one round of a best task: distinct per (job, task, round).
fn round_seed(job: JobId, task: TaskId, round: u64) -> u64 {
    let mut rng = e2_shared::rng::Rng::fork(job.wrapping_mul(0x9E37_79B9_7F4A_7C15) ^ task, round);
    rng.next_u64()
}

fn finish(job: &mut Job, state: JobState, error: Option<String>, clock: Clock) {
    job.rec.state = state;
    job.rec.error = error;
    job.rec.finished_unix_ms = Some(clock.unix_ms);
    job.ready.clear();
    job.leased.clear();
    tracing::info!(job = job.rec.id, state = state.name(), solutions = job.rec.solutions, best = ?job.rec.best_score, "job over");
}

/// Adds the donated prefixes of `split` as new tasks (first in line: idle
/// workers asked for them) and records its sequence number.
fn apply_split(
    job: &mut Job,
    parent: TaskId,
    split: &pb::Split,
    writes: &mut Writes,
) -> Result<(), Status> {
    let task = &job.tasks[&parent];
    if split.seq != task.split_seq + 1 {
        return Err(Status::invalid_argument(format!(
            "split {} of task {parent} arrived after split {}: splits must come in order",
            split.seq, task.split_seq
        )));
    }
    let prefixes = split
        .prefixes
        .iter()
        .map(|p| e2_proto::decode_prefix(p).map_err(|e| Status::invalid_argument(e.to_string())))
        .collect::<Result<Vec<_>, _>>()?;
    for prefix in prefixes.into_iter().rev() {
        let id = job.rec.next_task_id;
        job.rec.next_task_id += 1;
        job.rec.tasks_total += 1;
        let task = TaskRecord::new(job.rec.id, id, Some(parent), prefix);
        writes.tasks.push(task.clone());
        job.tasks.insert(id, task);
        job.ready.push_front(id);
    }
    let task = job.tasks.get_mut(&parent).expect("parent exists");
    task.split_seq = split.seq;
    writes.tasks.push(task.clone());
    writes.jobs.push(job.rec.clone());
    writes.durable = true;
    Ok(())
}

/// Keeps the verified boards among `boards` that enter the job's top K,
/// and ends the job once its target score is reached.
fn accept_boards(job: &mut Job, boards: &[pb::FoundBoard], clock: Clock, writes: &mut Writes) {
    if job.rec.mode != Mode::Best || boards.is_empty() {
        return;
    }
    let mut changed = false;
    for b in boards {
        let checked = match check_board(&job.puzzle, &b.codes) {
            Ok(c) => c,
            Err(e) => {
                tracing::warn!(job = job.rec.id, "reported board refused: {e}");
                continue;
            }
        };
        let key = (Reverse(checked.score), checked.hash);
        if job.best.contains_key(&key) {
            continue;
        }
        job.best.insert(key, checked.doc.clone());
        writes.best_put.push(BestEntry {
            job: job.rec.id,
            score: checked.score,
            hash: checked.hash,
            doc: checked.doc,
        });
        while job.best.len() > job.rec.top_k.max(1) as usize {
            let (&(Reverse(score), hash), _) = job.best.iter().next_back().expect("non-empty");
            job.best.remove(&(Reverse(score), hash));
            writes.best_remove.push((job.rec.id, score, hash));
        }
        if job.rec.best_score.is_none_or(|s| checked.score > s) {
            job.rec.best_score = Some(checked.score);
        }
        changed = true;
    }
    if !changed {
        return;
    }
    writes.durable = true;
    let target = job.rec.target_score.unwrap_or_else(|| job.max_score());
    // A whole-tree job ends with its one run, so that its node count (and
    // so its result) never depends on when a board reached the coordinator.
    if !job.rec.search.whole_tree && job.rec.best_score.is_some_and(|s| s >= target) {
        finish(job, JobState::Done, None, clock);
    }
    writes.jobs.push(job.rec.clone());
}

#[cfg(test)]
mod tests {
    use super::*;
    use e2_shared::search::{Checkpoint, Forced};

    fn puzzle() -> Puzzle {
        Puzzle {
            name: "pair".into(),
            width: 2,
            height: 1,
            num_colors: 1,
            pieces: vec![[0, 1, 0, 0], [0, 0, 0, 1]],
            hints: vec![],
        }
    }

    fn prefix(piece: usize) -> Prefix {
        vec![Forced {
            pos: 0,
            piece,
            rot: 0,
        }]
    }

    fn ledger_with_count_job(tasks: usize) -> (Ledger, String, Clock) {
        let mut l = Ledger::new(
            LedgerConfig::default(),
            Loaded {
                incarnation: 1,
                ..Loaded::default()
            },
        );
        let clock = Clock::now();
        let w = l
            .register(
                &pb::RegisterRequest {
                    protocol_version: e2_proto::PROTOCOL_VERSION,
                    name: "t".into(),
                    threads: 1,
                },
                clock,
            )
            .unwrap()
            .worker_id;
        let plan = JobPlan {
            puzzle: puzzle(),
            mode: Mode::Count,
            engine: Engine::Dlx,
            prefixes: (0..tasks).map(|i| prefix(i % 2)).collect(),
            time_limit: None,
            target_score: None,
            top_k: None,
            search: BestSearch::default(),
        };
        l.submit(plan, clock);
        (l, w, clock)
    }

    fn take(l: &mut Ledger, w: &str, clock: Clock) -> pb::Lease {
        let (reply, _) = l.lease(w, 1, clock).unwrap();
        reply.assignments[0].lease.unwrap()
    }

    fn checkpoint(prefix: Prefix, solutions: u64, nodes: u64) -> Checkpoint {
        Checkpoint {
            engine: Engine::Dlx,
            prefix,
            path: vec![0],
            solutions,
            nodes,
        }
    }

    fn completion(lease: pb::Lease, solutions: u64) -> pb::CompleteRequest {
        pb::CompleteRequest {
            lease: Some(lease),
            solutions,
            nodes: 10,
            ..Default::default()
        }
    }

    #[test]
    fn a_wrong_protocol_version_is_refused_by_name() {
        let (mut l, _, clock) = ledger_with_count_job(1);
        let e = l
            .register(
                &pb::RegisterRequest {
                    protocol_version: 99,
                    ..Default::default()
                },
                clock,
            )
            .unwrap_err();
        assert_eq!(e.code(), tonic::Code::FailedPrecondition);
        assert!(e.message().contains("protocol version"), "{}", e.message());
    }

    #[test]
    fn a_replayed_completion_counts_once() {
        let (mut l, w, clock) = ledger_with_count_job(2);
        let a = take(&mut l, &w, clock);
        let (r1, w1) = l.complete(&completion(a, 3), clock).unwrap();
        let (r2, _) = l.complete(&completion(a, 3), clock).unwrap();
        assert!(r1.accepted && w1.durable);
        assert!(!r2.accepted, "{}", r2.reason);
        let b = take(&mut l, &w, clock);
        l.complete(&completion(b, 4), clock).unwrap();
        let s = l.status(1, clock).unwrap();
        assert_eq!((s.solutions, s.state), (7, pb::JobState::Done as i32));
        let ledger = l.ledger(1).unwrap();
        assert!(ledger.iter().all(|t| t.completions == 1));
        assert_eq!(ledger.iter().map(|t| t.ignored_completions).sum::<u32>(), 1);
    }

    #[test]
    fn a_completion_after_expiry_and_reissue_is_ignored() {
        let (mut l, w, clock) = ledger_with_count_job(1);
        let old = take(&mut l, &w, clock);
        let later = clock.later(l.config().lease_ttl + Duration::from_secs(1));
        l.expire(later);
        let new = take(&mut l, &w, later);
        assert_eq!(new.task_id, old.task_id);
        assert_ne!(new.epoch, old.epoch);
        let (r, _) = l.complete(&completion(old, 5), later).unwrap();
        assert!(!r.accepted);
        let (hb, _) = l
            .heartbeat(
                &HeartbeatRequest {
                    lease: Some(old),
                    ..Default::default()
                },
                later,
            )
            .unwrap();
        assert!(!hb.keep_going);
        let (r, _) = l.complete(&completion(new, 5), later).unwrap();
        assert!(r.accepted);
        assert_eq!(l.status(1, later).unwrap().solutions, 5);
    }

    #[test]
    fn a_split_is_applied_once_with_its_checkpoint() {
        let (mut l, w, clock) = ledger_with_count_job(1);
        let a = take(&mut l, &w, clock);
        let cp = Checkpoint {
            engine: Engine::Dlx,
            prefix: prefix(0),
            path: vec![],
            solutions: 0,
            nodes: 1,
        };
        let split = pb::Split {
            seq: 1,
            prefixes: vec![e2_proto::encode_prefix(&prefix(1))],
        };
        let hb = HeartbeatRequest {
            lease: Some(a),
            checkpoint: e2_proto::encode_checkpoint(Some(&cp)),
            split: Some(split.clone()),
            ..Default::default()
        };
        let (r, writes) = l.heartbeat(&hb, clock).unwrap();
        assert!(r.keep_going && writes.durable);
        l.heartbeat(&hb, clock).unwrap();
        assert_eq!(l.status(1, clock).unwrap().tasks_total, 2);
        let no_cp = HeartbeatRequest {
            lease: Some(a),
            split: Some(pb::Split { seq: 2, ..split }),
            ..Default::default()
        };
        assert_eq!(
            l.heartbeat(&no_cp, clock).unwrap_err().code(),
            tonic::Code::InvalidArgument
        );
    }

    #[test]
    fn a_release_requeues_from_the_checkpoint() {
        let (mut l, w, clock) = ledger_with_count_job(1);
        let a = take(&mut l, &w, clock);
        let cp = checkpoint(prefix(0), 2, 5);
        let hb = HeartbeatRequest {
            lease: Some(a),
            checkpoint: e2_proto::encode_checkpoint(Some(&cp)),
            release: true,
            ..Default::default()
        };
        l.heartbeat(&hb, clock).unwrap();
        let (reply, _) = l.lease(&w, 1, clock).unwrap();
        let work = e2_proto::decode_assignment(&reply.assignments[0]).unwrap();
        assert_eq!(
            work.kind,
            e2_proto::TaskKind::Count {
                checkpoint: Some(cp),
                split_seq: 0
            }
        );
    }

    #[test]
    fn status_counts_what_checkpoints_keep_of_unfinished_tasks() {
        let (mut l, w, clock) = ledger_with_count_job(2);
        let a = take(&mut l, &w, clock);
        l.complete(&completion(a, 3), clock).unwrap();
        let b = take(&mut l, &w, clock);
        let cp = checkpoint(prefix(1), 4, 50);
        let hb = |nodes: u64, release: bool| HeartbeatRequest {
            lease: Some(b),
            checkpoint: e2_proto::encode_checkpoint(Some(&cp)),
            nodes,
            release,
            ..Default::default()
        };
        // Held: the holder's report counts when it is ahead of the checkpoint.
        l.heartbeat(&hb(80, false), clock).unwrap();
        let s = l.status(1, clock).unwrap();
        assert_eq!((s.solutions, s.nodes), (3 + 4, 10 + 80));
        // Handed back (as an interrupted count does): the checkpoint remains.
        l.heartbeat(&hb(50, true), clock).unwrap();
        let s = l.status(1, clock).unwrap();
        assert_eq!((s.tasks_done, s.tasks_running), (1, 0));
        assert_eq!((s.solutions, s.nodes), (3 + 4, 10 + 50));
    }

    #[test]
    fn an_unknown_worker_must_register() {
        let (mut l, _, clock) = ledger_with_count_job(1);
        let e = l.lease("nobody", 1, clock).unwrap_err();
        assert_eq!(e.code(), tonic::Code::NotFound);
        assert!(e.message().starts_with(e2_proto::UNKNOWN_WORKER));
    }
}
