//! What a worker's report changes: heartbeats and completions.
//!
//! A heartbeat renews its lease and may carry a checkpoint (stored), a
//! split (applied once, only with the checkpoint that excludes what it
//! gives away), boards (kept whoever found them) and a release. A
//! completion of the current lease finishes the task as its job's kind
//! says; any other completion is ignored, and counted as ignored.
//!
//! Only the worker a lease was issued to may report on it, and a split is
//! checked whole before any part of its report is applied: a refused
//! report leaves the task as it was, still leased to its holder.

use std::cmp::Reverse;
use std::time::{Duration, Instant};

use e2_proto::pb::{self, HeartbeatReply, HeartbeatRequest};
use tonic::Status;

use super::policy::Completion;
use super::{finish, Clock, Job, Ledger};
use crate::boards::check_board;
use crate::records::{BestEntry, JobState, TaskState};
use crate::store::Writes;

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
        self.seen(&req.worker_id, clock);
        let mut writes = Writes::default();
        let Some(job) = self.jobs.get_mut(&lease.job_id) else {
            return Ok((stop("unknown job"), writes));
        };
        if job.rec.state.is_over() {
            return Ok((stop(format!("job is {}", job.rec.state.name())), writes));
        }
        // A bad split is refused before anything of the report is applied.
        if let Some(split) = &req.split {
            if job.holds(&lease) && job.held_by(lease.task_id, &req.worker_id) {
                job.check_split(lease.task_id, split, checkpoint.is_some())?;
            }
        }
        // Boards are results whoever found them: keep them even from a
        // lease that has since lapsed (but only the lease's own lineage
        // builds on them).
        let lineage = (job.holds(&lease) && job.held_by(lease.task_id, &req.worker_id))
            .then(|| job.leased[&lease.task_id].lineage);
        job.accept_boards(&req.boards, lineage, clock, &mut writes);
        if job.rec.state.is_over() {
            return Ok((stop(format!("job is {}", job.rec.state.name())), writes));
        }
        if !job.holds(&lease) {
            return Ok((
                stop("stale lease: the task was re-queued or re-issued"),
                writes,
            ));
        }
        let tid = lease.task_id;
        if !job.held_by(tid, &req.worker_id) {
            return Ok((stop("the lease was issued to another worker"), writes));
        }
        if let Some(split) = &req.split {
            job.split(tid, split, clock, &mut writes);
        }
        job.see_nodes(tid, req.nodes, clock.now);
        if let Some(cp) = checkpoint {
            let task = job.tasks.get_mut(&tid).expect("leased task exists");
            task.nodes = req.nodes;
            task.solutions = req.solutions;
            task.checkpoint = Some(cp);
            writes.tasks.push(task.clone());
            writes.durable = true;
        }
        if req.release {
            job.release(tid);
            return Ok((stop("released"), writes));
        }
        Ok((job.renew(tid, ttl, clock), writes))
    }

    pub fn complete(
        &mut self,
        req: &pb::CompleteRequest,
        clock: Clock,
    ) -> Result<(pb::CompleteReply, Writes), Status> {
        let lease = req
            .lease
            .ok_or_else(|| Status::invalid_argument("completion without a lease"))?;
        self.seen(&req.worker_id, clock);
        let mut writes = Writes::default();
        let Some(job) = self.jobs.get_mut(&lease.job_id) else {
            return Ok((ignored("unknown job"), writes));
        };
        let tid = lease.task_id;
        if !job.tasks.contains_key(&tid) {
            return Ok((ignored("unknown task"), writes));
        }
        let why_ignored = if job.rec.state.is_over() {
            Some(format!("job is {}", job.rec.state.name()))
        } else if job.tasks[&tid].state == TaskState::Done {
            Some("task already finished: counted once before".to_string())
        } else if !job.holds(&lease) {
            Some(format!(
                "stale lease (epoch {}): the task was re-queued or re-issued",
                lease.epoch
            ))
        } else if !job.held_by(tid, &req.worker_id) {
            Some(format!(
                "the lease was issued to another worker, not to \"{}\"",
                req.worker_id
            ))
        } else {
            None
        };
        if let Some(reason) = why_ignored {
            let task = job.tasks.get_mut(&tid).expect("task exists");
            task.ignored = task.ignored.saturating_add(1);
            writes.tasks.push(task.clone());
            tracing::info!(
                job = lease.job_id,
                task = tid,
                "completion ignored: {reason}"
            );
            return Ok((ignored(reason), writes));
        }
        if let (Some(split), true) = (&req.split, req.error.is_empty()) {
            // The completion's own count excludes what the split gave away.
            job.check_split(tid, split, true)?;
        }
        writes.durable = true;
        let held = job.leased.remove(&tid).expect("the current lease");
        job.add_work(req.nodes.saturating_sub(held.nodes_seen), clock.now);
        if !req.error.is_empty() {
            let error = format!("task {tid}: {}", req.error);
            finish(job, JobState::Failed, Some(error), clock);
            writes.jobs.push(job.rec.clone());
            return Ok((ignored("the job failed"), writes));
        }
        if let Some(split) = &req.split {
            job.split(tid, split, clock, &mut writes);
        }
        job.accept_boards(&req.boards, Some(held.lineage), clock, &mut writes);
        let done = Completion {
            solutions: req.solutions,
            nodes: req.nodes,
            by: held.worker,
        };
        job.policy().complete(job, tid, done, clock, &mut writes);
        writes.jobs.push(job.rec.clone());
        Ok((
            pb::CompleteReply {
                accepted: true,
                reason: String::new(),
            },
            writes,
        ))
    }
}

impl Ledger {
    /// A report from a registered worker shows it is still there, even
    /// while all its threads are busy and it asks for no lease.
    fn seen(&mut self, worker_id: &str, clock: Clock) {
        if let Some(w) = self.workers.get_mut(worker_id) {
            w.last_seen = clock.now;
        }
    }
}

impl Job {
    pub(super) fn add_work(&mut self, nodes: u64, now: Instant) {
        self.work = self.work.saturating_add(nodes);
        self.samples.push_back((now, self.work));
        while self.samples.len() > 2
            && (self.samples.len() > 256
                || now.duration_since(self.samples[0].0) > Duration::from_secs(20))
        {
            self.samples.pop_front();
        }
    }

    /// Keeps the verified boards among `boards` that enter the job's top K,
    /// and ends the job once its target score is reached, if its kind ends
    /// so. A board that beats the lineage's is the lineage's new board when
    /// it comes from a lease of that lineage (`lineage`: the reporting
    /// lease's, `None` for a lease that has lapsed).
    fn accept_boards(
        &mut self,
        boards: &[pb::FoundBoard],
        lineage: Option<u64>,
        clock: Clock,
        writes: &mut Writes,
    ) {
        let policy = self.policy();
        if !policy.keeps_boards() || boards.is_empty() {
            return;
        }
        let mut changed = false;
        for b in boards {
            let checked = match check_board(&self.puzzle, &b.codes) {
                Ok(c) => c,
                Err(e) => {
                    tracing::warn!(job = self.rec.id, "reported board refused: {e}");
                    continue;
                }
            };
            if lineage == Some(self.lineage.generation()) {
                self.lineage.offer(&checked.board, checked.score);
            }
            let key = (Reverse(checked.score), checked.hash);
            let full = self.best.len() >= self.rec.top_k.max(1) as usize;
            let last = self.best.keys().next_back().copied();
            if self.best.contains_key(&key) || (full && last.is_some_and(|last| key > last)) {
                // Known already, or below every kept board.
                continue;
            }
            self.best.insert(key, checked.doc.clone());
            writes.best_put.push(BestEntry {
                job: self.rec.id,
                score: checked.score,
                hash: checked.hash,
                doc: checked.doc,
            });
            while self.best.len() > self.rec.top_k.max(1) as usize {
                let (&(Reverse(score), hash), _) = self.best.iter().next_back().expect("non-empty");
                self.best.remove(&(Reverse(score), hash));
                writes.best_remove.push((self.rec.id, score, hash));
            }
            if self.rec.best_score.is_none_or(|s| checked.score > s) {
                self.rec.best_score = Some(checked.score);
            }
            changed = true;
        }
        if !changed {
            return;
        }
        writes.durable = true;
        let target = self.rec.target_score.unwrap_or_else(|| self.max_score());
        if policy.ends_at_target() && self.rec.best_score.is_some_and(|s| s >= target) {
            finish(self, JobState::Done, None, clock);
        }
        writes.jobs.push(self.rec.clone());
    }
}
