//! The lease rules: who may work on which task, and until when.
//!
//! A worker registers, then leases ready tasks round-robin over the running
//! jobs. Every lease gets a fresh epoch, so a report names exactly one
//! lease, and only the current lease of a task may change it. A lease not
//! renewed within its TTL lapses and its task goes back to the front of the
//! queue; a released one goes back at once. Idle workers make the longest
//! leases of splittable jobs give work away, which arrives as a split:
//! checked against the task and the puzzle, applied once per sequence
//! number, its prefixes first in line.

use std::collections::HashSet;
use std::time::Instant;

use e2_proto::pb::{self, Assignment};
use tonic::Status;

use super::{finish, Clock, Job, LeaseInfo, Ledger, WorkerInfo};
use crate::records::{JobId, JobState, TaskId, TaskRecord, WorkerRef};
use crate::store::Writes;

/// Threads one worker may claim: what first cuts are sized for, so a
/// mistaken or hostile registration cannot make a job of millions of tasks.
pub(super) const MAX_WORKER_THREADS: u32 = 1024;

/// Why a split is refused. A genuine split gives away untried siblings of
/// one level, distinct placements of one cell or of one piece, so it never
/// has more than four (rotations) per cell or piece of the puzzle.
fn bad_split(tid: TaskId, why: impl std::fmt::Display) -> Status {
    Status::invalid_argument(format!("split of task {tid} refused: {why}"))
}

impl Ledger {
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
                name: req.name.chars().take(256).collect(),
                threads: req.threads.clamp(1, MAX_WORKER_THREADS),
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
        let me = WorkerRef {
            id: worker_id.to_string(),
            name: worker.name.clone(),
        };
        let mut writes = Writes::default();
        let mut assignments = Vec::new();
        for _ in 0..max_tasks.clamp(1, 64) {
            let Some(job_id) = self.next_job_with_work(&me) else {
                break;
            };
            self.cursor = job_id;
            let epoch = (self.incarnation << 32) | self.lease_counter;
            self.lease_counter += 1;
            let ttl = self.config.lease_ttl;
            let job = self.jobs.get_mut(&job_id).expect("job with work");
            let policy = job.policy();
            let at = job.first_leasable(&me).expect("job with work");
            let tid = job.ready.remove(at).expect("job with work");
            let engine = job.engine_of(&job.tasks[&tid]);
            let wire = job.wire_of(&job.tasks[&tid]).clone();
            let prefix = policy.lease_prefix(job, &job.tasks[&tid]);
            let kind = policy.assignment(job, &job.tasks[&tid], &self.config);
            let lineage = job.lineage.generation();
            let task = job.tasks.get_mut(&tid).expect("ready task exists");
            task.leases += 1;
            writes.tasks.push(task.clone());
            let deadline_unix_ms = clock.unix_ms.saturating_add(super::millis(ttl));
            let lease = pb::Lease {
                job_id,
                task_id: tid,
                epoch,
                deadline_unix_ms,
            };
            assignments.push(Assignment {
                lease: Some(lease),
                engine: e2_proto::engine_to_wire(engine) as i32,
                puzzle: Some(wire),
                prefix: e2_proto::encode_prefix(&prefix),
                kind: Some(kind),
            });
            job.leased.insert(
                tid,
                LeaseInfo {
                    epoch,
                    worker: me.clone(),
                    deadline: clock.now + ttl,
                    deadline_unix_ms,
                    since: clock.now,
                    split_wanted: false,
                    nodes_seen: task.checkpoint.as_ref().map_or(0, |c| c.nodes),
                    lineage,
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

    fn next_job_with_work(&self, me: &WorkerRef) -> Option<JobId> {
        let has_work = |j: &&Job| !j.rec.state.is_over() && j.first_leasable(me).is_some();
        self.jobs
            .range(self.cursor + 1..)
            .map(|(_, j)| j)
            .find(has_work)
            .or_else(|| self.jobs.values().find(has_work))
            .map(|j| j.rec.id)
    }

    /// Idle workers are asking: flag the longest-running leases of jobs
    /// that split (a few at a time) to give work away at their next
    /// heartbeat.
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
            .filter(|j| j.splits() && !j.rec.state.is_over())
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

    /// Re-queues lapsed leases, ends jobs past their time, forgets workers
    /// long gone.
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
            if job.policy().past_deadline(&job.rec, clock) {
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
}

impl Job {
    /// Whether `lease` is the one current lease of its task.
    pub(super) fn holds(&self, lease: &pb::Lease) -> bool {
        self.leased
            .get(&lease.task_id)
            .is_some_and(|l| l.epoch == lease.epoch)
    }

    /// Whether the current lease of `tid` was issued to `worker_id`.
    pub(super) fn held_by(&self, tid: TaskId, worker_id: &str) -> bool {
        self.leased
            .get(&tid)
            .is_some_and(|l| l.worker.id == worker_id)
    }

    /// Where in the queue the first task `me` may lease is, if any.
    fn first_leasable(&self, me: &WorkerRef) -> Option<usize> {
        self.ready.iter().position(|&t| self.may_lease(t, me))
    }

    /// Whether this job's leases are asked to give work away: a verified
    /// count's are not, since a recount must cover what the count covered.
    pub(super) fn splits(&self) -> bool {
        self.policy().splits() && self.rec.verify.is_none()
    }

    /// Renews the current lease of `tid` for another TTL and hands over
    /// any split request; returns the reply that says so.
    pub(super) fn renew(
        &mut self,
        tid: TaskId,
        ttl: std::time::Duration,
        clock: Clock,
    ) -> pb::HeartbeatReply {
        let l = self.leased.get_mut(&tid).expect("current lease");
        l.deadline = clock.now + ttl;
        l.deadline_unix_ms = clock.unix_ms.saturating_add(super::millis(ttl));
        pb::HeartbeatReply {
            keep_going: true,
            deadline_unix_ms: l.deadline_unix_ms,
            split_wanted: std::mem::take(&mut l.split_wanted),
            reason: String::new(),
        }
    }

    /// The holder hands the task back: first in line again.
    pub(super) fn release(&mut self, tid: TaskId) {
        self.leased.remove(&tid);
        self.ready.push_front(tid);
    }

    /// Counts `nodes` (cumulative for the lease of `tid`) as work done,
    /// once: only what is new since the holder's last report.
    pub(super) fn see_nodes(&mut self, tid: TaskId, nodes: u64, now: Instant) {
        let l = self.leased.get_mut(&tid).expect("current lease");
        let fresh = nodes.saturating_sub(l.nodes_seen);
        l.nodes_seen = l.nodes_seen.max(nodes);
        self.add_work(fresh, now);
    }

    /// Checks `split` of task `tid` before anything of it is applied: an
    /// older split was applied already and passes (it changes nothing);
    /// the next one must come with the checkpoint that excludes what it
    /// gives away, and each donated prefix must be a placement sequence of
    /// this puzzle that extends the task's own prefix.
    pub(super) fn check_split(
        &self,
        tid: TaskId,
        split: &pb::Split,
        has_checkpoint: bool,
    ) -> Result<(), Status> {
        let task = &self.tasks[&tid];
        if split.seq <= task.split_seq {
            return Ok(());
        }
        if !self.splits() {
            return Err(bad_split(
                tid,
                "this job's tasks are counted whole (a verified count, or a job that never splits)",
            ));
        }
        if split.seq != task.split_seq + 1 {
            return Err(Status::invalid_argument(format!(
                "split {} of task {tid} arrived after split {}: splits must come in order",
                split.seq, task.split_seq
            )));
        }
        if !has_checkpoint {
            return Err(Status::invalid_argument(
                "a split must carry the checkpoint that excludes the donated prefixes",
            ));
        }
        let (cells, pieces) = (self.puzzle.cells(), self.puzzle.pieces.len());
        let most = 4 * cells.max(pieces);
        if split.prefixes.len() > most {
            return Err(bad_split(
                tid,
                format!(
                    "{} prefixes, more than the {most} one level can give",
                    split.prefixes.len()
                ),
            ));
        }
        for (k, bytes) in split.prefixes.iter().enumerate() {
            let prefix = e2_proto::decode_prefix(bytes)
                .map_err(|e| bad_split(tid, format!("prefix {k}: {e}")))?;
            if prefix.len() <= task.prefix.len() || !prefix.starts_with(&task.prefix) {
                return Err(bad_split(
                    tid,
                    format!("prefix {k} does not extend the task's prefix"),
                ));
            }
            let (mut at, mut used) = (HashSet::new(), HashSet::new());
            for f in &prefix {
                let why = if f.pos >= cells {
                    Some(format!("cell {} is off the board", f.pos))
                } else if f.piece >= pieces {
                    Some(format!("piece {} is not in the set", f.piece))
                } else if f.rot >= 4 {
                    Some(format!("rotation {} is not one of 0..4", f.rot))
                } else if !at.insert(f.pos) {
                    Some(format!("cell {} is placed twice", f.pos))
                } else if !used.insert(f.piece) {
                    Some(format!("piece {} is placed twice", f.piece))
                } else {
                    None
                };
                if let Some(why) = why {
                    return Err(bad_split(tid, format!("prefix {k}: {why}")));
                }
            }
        }
        Ok(())
    }

    /// Applies `split` of task `tid`, checked by [`Job::check_split`], if
    /// it is the next one: its donated prefixes become new tasks (first in
    /// line: idle workers asked for them), and the lease's split clock
    /// restarts. An older split was applied already and changes nothing.
    pub(super) fn split(
        &mut self,
        tid: TaskId,
        split: &pb::Split,
        clock: Clock,
        writes: &mut Writes,
    ) {
        if split.seq <= self.tasks[&tid].split_seq {
            return;
        }
        let prefixes = split
            .prefixes
            .iter()
            .map(|p| e2_proto::decode_prefix(p).expect("checked split"));
        for prefix in prefixes.rev() {
            let id = self.rec.next_task_id;
            self.rec.next_task_id += 1;
            self.rec.tasks_total += 1;
            let mut task = TaskRecord::new(self.rec.id, id, Some(tid), prefix);
            task.part = self.tasks[&tid].part;
            writes.tasks.push(task.clone());
            self.tasks.insert(id, task);
            self.ready.push_front(id);
        }
        let task = self.tasks.get_mut(&tid).expect("parent exists");
        task.split_seq = split.seq;
        writes.tasks.push(task.clone());
        writes.jobs.push(self.rec.clone());
        writes.durable = true;
        if let Some(l) = self.leased.get_mut(&tid) {
            l.since = clock.now;
        }
    }
}
