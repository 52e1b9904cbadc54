//! Read models: what the ledger shows, never changing it.
//!
//! A job's status adds what its unfinished tasks have kept (checkpoints,
//! or their holders' later reports) to its finished totals, so an
//! interrupted count shows everything it has; the figures for the operator
//! endpoints, the task ledger and the kept boards are read under the same
//! lock as every change, so they agree with one another.

use std::time::{Duration, Instant};

use e2_proto::pb;

use tonic::Status;

use super::policy::{mode_to_wire, policy};
use super::{Clock, Job, JobPlan, Ledger};
use crate::records::{
    CheckState, JobId, JobState, Mode, StoredPuzzle, StoredSearch, TaskId, TaskRecord, TaskState,
    WorkerRef,
};

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

impl Job {
    /// Nodes and solutions of the tasks not finished yet: each one's last
    /// stored checkpoint (its counts are cumulative), or what its holder has
    /// reported since, if more. So an interrupted count shows everything it
    /// has kept, not only its finished tasks.
    fn unfinished_progress(&self) -> (u64, u64) {
        self.tasks
            .iter()
            // Recounts check figures already in the total; they add none.
            .filter(|(_, t)| t.state != TaskState::Done && t.recount.is_none())
            .fold((0, 0), |(nodes, solutions), (&id, t)| {
                let kept_solutions = t.checkpoint.as_ref().map_or(0, |c| c.solutions);
                (nodes + self.task_nodes(id, t), solutions + kept_solutions)
            })
    }

    /// A task's nodes so far: its total once done, else its last stored
    /// checkpoint's or what its holder has reported since, if more.
    pub(super) fn task_nodes(&self, id: TaskId, t: &TaskRecord) -> u64 {
        if t.state == TaskState::Done {
            return t.nodes;
        }
        let kept = t.checkpoint.as_ref().map_or(0, |c| c.nodes);
        kept.max(self.leased.get(&id).map_or(0, |l| l.nodes_seen))
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
}

impl Ledger {
    /// Threads of the workers seen recently: what a new count is split for.
    pub fn worker_threads(&self) -> usize {
        self.workers.values().map(|w| w.threads as usize).sum()
    }

    /// Workers registered and seen within the last ten lease TTLs (those
    /// longer gone are forgotten by [`Ledger::expire`]).
    pub fn workers_seen(&self) -> usize {
        self.workers.len()
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
        // A reduced count's tasks count one board per orbit: multiplied
        // back here, saturating.
        let solutions = rec
            .solutions
            .saturating_add(partial_solutions)
            .saturating_mul(job.factor());
        let count = rec.count.as_ref();
        let rate = if rec.state.is_over() {
            0.0
        } else {
            job.nodes_per_sec(clock.now)
        };
        pb::JobStatus {
            job_id: rec.id,
            state: match rec.state {
                JobState::Queued => pb::JobState::Queued,
                JobState::Running => pb::JobState::Running,
                JobState::Done => pb::JobState::Done,
                JobState::Cancelled => pb::JobState::Cancelled,
                JobState::Failed => pb::JobState::Failed,
            } as i32,
            mode: mode_to_wire(rec.mode) as i32,
            engine: e2_proto::engine_to_wire(rec.engine) as i32,
            puzzle_name: rec.puzzle.name.clone(),
            // A job whose tasks go round finishes rounds, never tasks.
            tasks_done: if job.policy().goes_round() {
                0
            } else {
                rec.tasks_done
            },
            rounds_done: if job.policy().goes_round() {
                rec.tasks_done
            } else {
                0
            },
            tasks_total: rec.tasks_total,
            tasks_running: job.leased.len() as u64,
            solutions,
            symmetry: count.map(|c| c.symmetry.clone()).unwrap_or_default(),
            symmetry_factor: job.factor(),
            labelled_solutions: match (rec.mode, e2_shared::symmetry::labelled_factor(&job.puzzle))
            {
                (Mode::Count, Some(f)) => (u128::from(solutions) * u128::from(f)).to_string(),
                _ => String::new(),
            },
            count_order: count.map(|c| c.order.clone()).unwrap_or_default(),
            count_order_chosen: count.is_some_and(|c| c.order_chosen),
            estimated_nodes: count.and_then(|c| c.estimate).unwrap_or(0),
            best_score: rec.best_score,
            max_score: job.max_score(),
            nodes: rec.nodes_done + partial_nodes,
            nodes_per_sec: rate,
            elapsed_secs: elapsed,
            eta_secs: job.policy().eta_secs(job, partial_nodes, rate),
            error: rec.error.clone().unwrap_or_default(),
            created_unix_ms: rec.created_unix_ms,
            workers: self.workers.len() as u32,
            verify: rec.verify.as_ref().map(|v| {
                let seen: Vec<WorkerRef> = self
                    .workers
                    .iter()
                    .map(|(id, w)| WorkerRef {
                        id: id.clone(),
                        name: w.name.clone(),
                    })
                    .collect();
                pb::VerifyStatus {
                    fraction: f64::from(v.ppm) / 1e6,
                    sampled: v.sampled,
                    agreed: v.agreed,
                    corrected: v.corrected,
                    pending: job.recounts_pending(),
                    recounts: v.recounts,
                    recount_nodes: v.recount_nodes,
                    wrong: v
                        .wrong
                        .iter()
                        .map(|w| pb::WrongWorker {
                            worker_id: w.worker.id.clone(),
                            name: w.worker.name.clone(),
                            task_id: w.task,
                            said: w.said,
                            found: w.found,
                        })
                        .collect(),
                    waiting: if rec.state.is_over() {
                        String::new()
                    } else {
                        job.verify_waiting(seen.iter())
                    },
                }
            }),
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
                recount_of: t.recount.as_ref().map(|r| r.of),
                engine: job.engine_of(t).name().into(),
                done_by: t
                    .done_by
                    .as_ref()
                    .map(|w| format!("{} ({})", w.id, w.name))
                    .unwrap_or_default(),
                check: match t.check.as_ref().map(|c| c.state) {
                    None => "",
                    Some(CheckState::Pending) => "pending",
                    Some(CheckState::Agreed) => "agreed",
                    Some(CheckState::Corrected) => "corrected",
                }
                .into(),
            })
            .collect())
    }

    /// A job of this puzzle, mode, engine and search settings the embedded
    /// runner can resume: the newest one still queued or running, or, with
    /// `or_done`, the newest done one (whose answer is then known). The
    /// search settings must match only for kinds that take them.
    pub fn find_resumable(&self, plan: &JobPlan, or_done: bool) -> Option<JobId> {
        let (mode, engine) = (plan.mode, plan.engine);
        let fingerprint = StoredPuzzle::from(&plan.puzzle).fingerprint();
        let takes_search = policy(mode, plan.search.whole_tree).takes_search();
        let search = StoredSearch::from(&plan.search);
        // A count resumes the same tree: same reduction asked, and the
        // order asked for (any, if none was).
        let same_count = |j: &Job| {
            mode != Mode::Count
                || match &j.rec.count {
                    Some(c) => {
                        c.asked_symmetry == plan.symmetry
                            && plan.count_order.is_none_or(|o| o.name() == c.order)
                    }
                    // Written before counts were planned: the whole tree, row-major.
                    None => {
                        !plan.symmetry
                            && plan
                                .count_order
                                .is_none_or(|o| o == e2_shared::order::FillOrder::RowMajor)
                    }
                }
        };
        self.jobs
            .values()
            .rev()
            .find(|j| {
                j.rec.mode == mode
                    && j.rec.engine == engine
                    && (!takes_search || j.rec.search == search)
                    && (matches!(j.rec.state, JobState::Queued | JobState::Running)
                        || (or_done && j.rec.state == JobState::Done))
                    && j.rec.puzzle.fingerprint() == fingerprint
                    && same_count(j)
            })
            .map(|j| j.rec.id)
    }
}
