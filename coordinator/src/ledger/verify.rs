//! Verified counts: finished tasks recounted by other workers, by vote.
//!
//! A token lets a worker report any figure it likes for a task it holds,
//! and nothing in one report tells a wrong figure from a right one. So a
//! count submitted with a verify fraction checks by recounting: each
//! finished task is chosen with that probability (a seeded hash of the task
//! id; the seed never leaves the coordinator, so no worker can tell whether
//! its task will be checked), and a *recount task* for the same subtree is
//! queued that the first worker may not lease, run with the other engine
//! when it can finish the subtree quickly (so a shared engine bug shows
//! too). The first count stays in the job total until the vote is over:
//! - two figures for a subtree that agree settle it (the first count is
//!   *agreed*, or *corrected* when the agreeing pair outvotes it, and the
//!   job total moves by the difference);
//! - a figure that loses the vote marks its worker *wrong*: its leases in
//!   the job are voided, it is leased nothing more there, its reports are
//!   ignored, and every task it counted is recounted (one trusted recount
//!   settles those, since its own figure no longer counts);
//! - two figures that differ with no third yet queue a third recount on a
//!   worker that ran neither; [`MAX_FIGURES`] figures without two alike
//!   fail the job rather than guess.
//!
//! Tasks of a verified job are not split: a recount covers the same subtree
//! as the count it checks only if that count covered its whole prefix. So
//! such a job is cut finer from the start.
//!
//! What it guarantees: a worker that is wrong on a share `p` of its tasks is
//! caught with probability `1 - (1 - fraction)^(p·tasks)`, and once caught
//! none of its figures stays in the total. What it does not: workers that
//! collude (two wrong figures that agree win the vote), and a worker that
//! registers again under a new id *and* a new name is a new worker.

use e2_shared::engine::Engine;
use e2_shared::model::canonical_form;
use e2_shared::Puzzle;

use super::policy::Completion;
use super::{finish, Clock, Job};
use crate::records::{
    Check, CheckState, JobState, Recount, TaskId, TaskRecord, TaskState, VerifyRecord, WorkerRef,
    WrongWorker,
};
use crate::store::Writes;

/// Figures of one subtree after which, without two alike, the job fails.
pub(super) const MAX_FIGURES: usize = 5;

/// A recount runs on the other engine only for tasks at most this big (as
/// their first count reported): past it, the same engine finishes sooner.
const OTHER_ENGINE_NODES: u64 = 2_000_000;

/// Whether task `tid` is in the sample of a job verified with `v`.
pub(super) fn sampled(v: &VerifyRecord, tid: TaskId) -> bool {
    // SplitMix64 of seed and id: uniform, and not guessable without the seed.
    let mut z = v.seed ^ tid.wrapping_mul(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^= z >> 31;
    z % 1_000_000 < u64::from(v.ppm)
}

/// Whether both engines count every prefix of `puzzle` alike: true when
/// no piece repeats and none equals its own rotation, so a placement
/// names one board cell state in either engine.
fn engines_agree_on(puzzle: &Puzzle) -> bool {
    let mut seen = std::collections::HashSet::new();
    puzzle.pieces.iter().all(|&p| {
        let turned = [p[3], p[0], p[1], p[2]];
        let half = [p[2], p[3], p[0], p[1]];
        p != turned && p != half && seen.insert(canonical_form(p))
    })
}

impl Job {
    /// The verify record of a verified job.
    fn verify(&mut self) -> &mut VerifyRecord {
        self.rec.verify.as_mut().expect("a verified job")
    }

    /// Whether `w` may lease task `tid` of this job.
    pub(super) fn may_lease(&self, tid: TaskId, w: &WorkerRef) -> bool {
        let Some(v) = &self.rec.verify else {
            return true;
        };
        !v.is_wrong(w)
            && self.tasks[&tid]
                .recount
                .as_ref()
                .is_none_or(|r| !r.avoid.iter().any(|a| a.same(w)))
    }

    /// The engine a lease of `task` runs.
    pub(super) fn engine_of(&self, task: &TaskRecord) -> Engine {
        task.recount.as_ref().map_or(self.rec.engine, |r| r.engine)
    }

    /// After task `tid`'s first count was recorded: chooses it for a check
    /// if it is in the sample, or if its worker was found wrong already.
    pub(super) fn after_first_count(&mut self, tid: TaskId, by: &WorkerRef, writes: &mut Writes) {
        let Some(v) = &self.rec.verify else {
            return;
        };
        if sampled(v, tid) || v.is_wrong(by) {
            self.start_check(tid, writes);
        }
    }

    /// Queues the first recount of finished task `tid`: on the other
    /// engine for a sampled check, on the job's for the tasks of a worker
    /// found wrong (whose reported sizes are not to be trusted).
    fn start_check(&mut self, tid: TaskId, writes: &mut Writes) {
        let task = self.tasks.get_mut(&tid).expect("checked task exists");
        if task.check.is_some() {
            return;
        }
        let by = task.done_by.clone().unwrap_or_default();
        task.check = Some(Check {
            state: CheckState::Pending,
            results: vec![(by.clone(), task.solutions)],
        });
        writes.tasks.push(task.clone());
        let other_engine = !self.verify().is_wrong(&by);
        self.verify().sampled += 1;
        self.queue_recount(tid, other_engine, writes);
    }

    /// Queues a recount of `of` that no worker with a figure for it runs.
    fn queue_recount(&mut self, of: TaskId, other_engine: bool, writes: &mut Writes) {
        let original = &self.tasks[&of];
        let check = original.check.as_ref().expect("a check under way");
        let avoid: Vec<WorkerRef> = check.results.iter().map(|(w, _)| w.clone()).collect();
        let engine = match self.rec.engine {
            _ if !other_engine => self.rec.engine,
            Engine::Backtrack
                if original.nodes <= OTHER_ENGINE_NODES && engines_agree_on(&self.puzzle) =>
            {
                Engine::Dlx
            }
            Engine::Dlx => Engine::Backtrack,
            same => same,
        };
        let id = self.rec.next_task_id;
        self.rec.next_task_id += 1;
        let mut task = TaskRecord::new(self.rec.id, id, None, original.prefix.clone());
        task.part = original.part;
        task.recount = Some(Recount { of, engine, avoid });
        writes.tasks.push(task.clone());
        self.tasks.insert(id, task);
        self.ready.push_back(id);
        self.verify().recounts += 1;
        writes.jobs.push(self.rec.clone());
    }

    /// Recount task `rid` finished with `done`: records its figure for the
    /// task it checks and holds the vote.
    pub(super) fn recount_done(
        &mut self,
        rid: TaskId,
        done: &Completion,
        clock: Clock,
        writes: &mut Writes,
    ) {
        let recount = self.tasks.get_mut(&rid).expect("recount exists");
        recount.finish(done);
        writes.tasks.push(recount.clone());
        let of = recount.recount.as_ref().expect("a recount").of;
        let v = self.verify();
        v.recount_nodes = v.recount_nodes.saturating_add(done.nodes);
        let task = self.tasks.get_mut(&of).expect("checked task exists");
        let check = task.check.as_mut().expect("a check under way");
        check.results.push((done.by.clone(), done.solutions));
        self.vote(of, clock, writes);
    }

    /// Settles task `of` if its figures allow, else asks for another.
    fn vote(&mut self, of: TaskId, clock: Clock, writes: &mut Writes) {
        let v = self.rec.verify.as_ref().expect("a verified job");
        let task = &self.tasks[&of];
        let check = task.check.as_ref().expect("a check under way");
        if check.state != CheckState::Pending {
            return;
        }
        let trusted: Vec<u64> = check
            .results
            .iter()
            .filter(|(w, _)| !v.is_wrong(w))
            .map(|&(_, n)| n)
            .collect();
        let twice = trusted
            .iter()
            .copied()
            .find(|n| trusted.iter().filter(|m| *m == n).count() >= 2);
        // A figure of a worker found wrong no longer counts: one trusted
        // recount then settles the subtree alone.
        let settled = twice.or_else(|| {
            (trusted.len() == 1 && trusted.len() < check.results.len()).then(|| trusted[0])
        });
        let Some(found) = settled else {
            if check.results.len() >= MAX_FIGURES {
                let figures: Vec<String> =
                    check.results.iter().map(|(_, n)| n.to_string()).collect();
                let error = format!(
                    "verification: no two of {} counts of task {of} agree ({})",
                    figures.len(),
                    figures.join(", ")
                );
                finish(self, JobState::Failed, Some(error), clock);
                writes.jobs.push(self.rec.clone());
            } else {
                self.queue_recount(of, false, writes);
            }
            return;
        };
        let losers: Vec<(WorkerRef, u64)> = check
            .results
            .iter()
            .filter(|(w, n)| *n != found && !v.is_wrong(w))
            .cloned()
            .collect();
        let first = check.results[0].1;
        let task = self.tasks.get_mut(&of).expect("checked task exists");
        let check = task.check.as_mut().expect("a check under way");
        if first == found {
            check.state = CheckState::Agreed;
            self.verify().agreed += 1;
        } else {
            check.state = CheckState::Corrected;
            task.solutions = found;
            // The first figure leaves the total and the settled one enters,
            // without wrapping whatever the figures were.
            self.rec.solutions = self
                .rec
                .solutions
                .saturating_sub(first)
                .saturating_add(found);
            self.verify().corrected += 1;
            tracing::warn!(
                job = self.rec.id,
                task = of,
                said = first,
                found,
                "count corrected by recount"
            );
        }
        writes.tasks.push(self.tasks[&of].clone());
        writes.jobs.push(self.rec.clone());
        for (worker, said) in losers {
            self.found_wrong(worker, of, said, found, clock, writes);
        }
    }

    /// `worker` said `said` for task `of`, where the vote found `found`:
    /// it is named, its leases here are voided, and every task it counted
    /// is recounted.
    fn found_wrong(
        &mut self,
        worker: WorkerRef,
        of: TaskId,
        said: u64,
        found: u64,
        clock: Clock,
        writes: &mut Writes,
    ) {
        if self.verify().is_wrong(&worker) {
            return;
        }
        tracing::warn!(
            job = self.rec.id,
            task = of,
            worker = %worker.id,
            name = %worker.name,
            said,
            found,
            "worker's count was wrong: it is leased nothing more in this job and every task it counted is recounted"
        );
        self.verify().wrong.push(WrongWorker {
            worker: worker.clone(),
            task: of,
            said,
            found,
        });
        writes.jobs.push(self.rec.clone());
        let held: Vec<TaskId> = self
            .leased
            .iter()
            .filter(|(_, l)| worker.same(&l.worker))
            .map(|(&t, _)| t)
            .collect();
        for tid in held {
            self.release(tid);
        }
        let counted: Vec<TaskId> = self
            .tasks
            .values()
            .filter(|t| {
                t.state == TaskState::Done
                    && t.recount.is_none()
                    && t.done_by.as_ref().is_some_and(|w| w.same(&worker))
            })
            .map(|t| t.id)
            .collect();
        for tid in counted {
            match self.tasks[&tid].check.as_ref().map(|c| c.state) {
                None => self.start_check(tid, writes),
                // Settled with its figure outvoted, or agreed by others:
                // nothing of it is left in the total.
                Some(CheckState::Agreed | CheckState::Corrected) => {}
                // Its recount may be the one settling vote now.
                Some(CheckState::Pending) => {
                    if !self.has_recount_queued(tid) {
                        self.queue_recount(tid, false, writes);
                    }
                }
            }
        }
        // Checks waiting on a vote that its figure blocked may settle now.
        let pending: Vec<TaskId> = self
            .tasks
            .values()
            .filter(|t| {
                t.check
                    .as_ref()
                    .is_some_and(|c| c.state == CheckState::Pending)
                    && !self.has_recount_queued(t.id)
            })
            .map(|t| t.id)
            .collect();
        for tid in pending {
            if self.rec.state.is_over() {
                break;
            }
            self.vote(tid, clock, writes);
        }
    }

    /// Whether a recount of `of` is still to run.
    fn has_recount_queued(&self, of: TaskId) -> bool {
        self.tasks
            .values()
            .any(|t| t.state != TaskState::Done && t.recount.as_ref().is_some_and(|r| r.of == of))
    }

    /// Recount tasks not finished yet.
    pub(super) fn recounts_pending(&self) -> u64 {
        self.tasks
            .values()
            .filter(|t| t.recount.is_some() && t.state != TaskState::Done)
            .count() as u64
    }

    /// Why a queued recount cannot run with the workers seen, if so.
    pub(super) fn verify_waiting<'a>(
        &self,
        workers: impl Iterator<Item = &'a WorkerRef> + Clone,
    ) -> String {
        let stuck = self.ready.iter().find(|t| {
            self.tasks[t].recount.is_some() && !workers.clone().any(|w| self.may_lease(**t, w))
        });
        match stuck {
            Some(&tid) => {
                let r = self.tasks[&tid].recount.as_ref().expect("a recount");
                let names: Vec<&str> = r.avoid.iter().map(|w| w.name.as_str()).collect();
                format!(
                    "task {} needs a worker other than {} to recount it: start another worker",
                    r.of,
                    names.join(", ")
                )
            }
            None => String::new(),
        }
    }
}

#[cfg(test)]
#[path = "verify_tests.rs"]
mod tests;
