//! Count jobs: every perfect board of the puzzle, each subtree once.
//!
//! A count is planned by `e2_shared::count_plan`: the rotation reduction
//! where it is exact (the job's tasks then belong to parts, each the puzzle
//! with one corner pinned, and the total is multiplied back), the fill
//! order with the smallest estimated tree unless one was asked for (kept in
//! the job: checkpoints resume only under it), and as many tasks as the
//! estimated size is worth: one for a tiny tree, many more than threads for
//! a large one; subtrees that turn out long are split further while the job
//! runs. A task resumes from its
//! checkpoint, is finished once, and its count is added to the job once;
//! the job is done when no task is left.

use e2_proto::pb;
use e2_shared::count_plan::{plan_count, CountAsk, SIZE_TASKS_ABOVE};
use e2_shared::engine::{Ask, BestSearch, Engine};
use e2_shared::order::FillOrder;
use e2_shared::search::Prefix;
use e2_shared::{Error, Puzzle};

use super::policy::{end_if_no_task_left, record_task, Completion, JobPolicy, PlanAsk, Planned};
use super::{Clock, Job, Ledger, LedgerConfig};
use crate::records::{JobId, StoredCount, TaskId, TaskRecord, TaskState};
use crate::store::Writes;

pub(super) struct Count;

impl JobPolicy for Count {
    fn ask(&self) -> Ask {
        Ask::Count
    }

    fn takes_search(&self) -> bool {
        false
    }

    fn first_tasks(
        &self,
        puzzle: &Puzzle,
        engine: Engine,
        _search: &BestSearch,
        ask: &PlanAsk,
    ) -> Result<Planned, Error> {
        let plan = plan_count(
            puzzle,
            CountAsk {
                engine,
                symmetry: ask.symmetry,
                order: ask.count_order,
                threads: ask.threads,
                sized: !ask.fine,
            },
        )?;
        let (parts, prefixes) = plan.tasks.into_iter().unzip();
        Ok(Planned {
            prefixes,
            parts,
            estimates: plan.task_estimates,
            count: Some(StoredCount {
                order: plan.order.name().to_string(),
                order_chosen: plan.order_chosen,
                pins: plan
                    .reduction
                    .pins
                    .iter()
                    .map(|h| (h.pos, h.piece, h.rot))
                    .collect(),
                factor: plan.reduction.factor,
                symmetry: plan.reduction.note,
                estimate: plan.estimate.map(|n| n.round() as u64),
                asked_symmetry: ask.symmetry,
                cut_nodes: plan.cut_nodes,
                dlx_by_order: true,
            }),
        })
    }

    fn assignment(
        &self,
        job: &Job,
        task: &TaskRecord,
        _config: &LedgerConfig,
    ) -> pb::assignment::Kind {
        let job = &job.rec;
        pb::assignment::Kind::Count(pb::CountTask {
            checkpoint: e2_proto::encode_checkpoint(task.checkpoint.as_ref()),
            split_seq: task.split_seq,
            order: job
                .count
                .as_ref()
                .map(|c| c.order.clone())
                .unwrap_or_default(),
            most_constrained: job.engine == Engine::Dlx
                && !job.count.as_ref().is_some_and(|c| c.dlx_by_order),
        })
    }

    fn splits(&self) -> bool {
        true
    }

    fn complete(
        &self,
        job: &mut Job,
        tid: TaskId,
        done: Completion,
        clock: Clock,
        writes: &mut Writes,
    ) {
        if job.tasks[&tid].recount.is_some() {
            job.recount_done(tid, &done, clock, writes);
        } else {
            let by = done.by.clone();
            record_task(job, tid, done, writes);
            job.after_first_count(tid, &by, writes);
        }
        end_if_no_task_left(job, clock);
    }

    /// The nodes left, at the rate of the last few seconds. (Wall time
    /// since the job was created would also count the hours a resumed count
    /// spent stopped.) The nodes left come from the tasks' own estimates
    /// when the plan made them ([`estimated_nodes_left`]), else from the
    /// finished tasks' mean size.
    fn eta_secs(&self, job: &Job, partial_nodes: u64, nodes_per_sec: f64) -> Option<f64> {
        let rec = &job.rec;
        if rec.state.is_over() || nodes_per_sec <= 0.0 {
            return None;
        }
        let left = estimated_nodes_left(job).or_else(|| {
            (rec.tasks_done > 0).then(|| {
                // `nodes_done` starts at the nodes above the cut, no task's.
                let cut = rec.count.as_ref().map_or(0, |c| c.cut_nodes);
                let mean = rec.nodes_done.saturating_sub(cut) as f64 / rec.tasks_done as f64;
                mean * (rec.tasks_total - rec.tasks_done) as f64 - partial_nodes as f64
            })
        })?;
        Some(left.max(0.0) / nodes_per_sec)
    }
}

/// How much of a part's estimate the correction over all parts counts for
/// when a part's own finished groups correct its estimates
/// ([`estimated_nodes_left`]). Two finished tasks of a part holding 169
/// (Brendan's 8×7 set 1 by DLX: 1.35 of their estimates, against 0.81
/// over the whole count) had put the count's ETA at 11 hours, where the
/// ratio over the whole count said about 5: a tenth of the part must be
/// seen before its own ratio outweighs the rest.
pub(super) const PRIOR_SHARE: f64 = 0.1;

/// The nodes a count has left, from its planned tasks' estimates: `None`
/// unless every planned task has one and some planned task is finished.
///
/// Tasks differ in size a hundredfold (a count's first tasks are often its
/// largest), so the mean size of the finished ones says little about the
/// rest; each planned task's own estimate does, once corrected. A planned
/// task *and the tasks split off it* (which cover its subtree between
/// them) are one group. The groups finished so far give the correction,
/// their nodes over their estimates (Knuth's estimates are unbiased but
/// spread widely, and one tree's subtrees often all run larger, or all
/// smaller, than estimated), taken per part of a reduced count (each part
/// is a tree of its own: on Brendan's 8×7 set 2 by DLX, 0.60 for one and
/// 0.97 for the other). A part's own ratio is trusted as far as its
/// finished groups go: it is weighed against the ratio over all parts as
/// if that one had been seen on [`PRIOR_SHARE`] of the part's estimate
/// (so a part with no finished group takes the ratio over all parts, and
/// one whose finished groups hold most of its estimate, nearly its own).
/// Each unfinished group has left its corrected estimate less its nodes
/// so far, or nothing once past it.
pub(super) fn estimated_nodes_left(job: &Job) -> Option<f64> {
    use std::collections::BTreeMap;
    // Per group (its planned task's id): part, estimate, nodes so far, finished.
    let mut groups: BTreeMap<TaskId, (u32, u64, u64, bool)> = BTreeMap::new();
    for (&id, t) in &job.tasks {
        if t.recount.is_some() {
            continue;
        }
        let mut root = t;
        // A split chain is at most as long as the ids below it.
        for _ in 0..job.tasks.len() {
            match root.parent.and_then(|p| job.tasks.get(&p)) {
                Some(up) => root = up,
                None => break,
            }
        }
        if root.parent.is_some() {
            return None;
        }
        let group = groups
            .entry(root.id)
            .or_insert((root.part, root.estimate?, 0, true));
        group.2 += job.task_nodes(id, t);
        group.3 &= t.state == TaskState::Done;
    }
    // Each part's planned estimate, and the finished groups' estimates and
    // nodes, per part and in all.
    let mut planned: BTreeMap<u32, f64> = BTreeMap::new();
    let mut finished: BTreeMap<u32, (f64, f64)> = BTreeMap::new();
    let (mut estimated, mut counted) = (0.0, 0.0);
    for &(part, estimate, nodes, done) in groups.values() {
        *planned.entry(part).or_default() += estimate as f64;
        if done {
            let entry = finished.entry(part).or_default();
            entry.0 += estimate as f64;
            entry.1 += nodes as f64;
            estimated += estimate as f64;
            counted += nodes as f64;
        }
    }
    if estimated <= 0.0 {
        return None;
    }
    let overall = counted / estimated;
    let correction = |part: u32| {
        let (e, n) = finished.get(&part).copied().unwrap_or_default();
        let prior = PRIOR_SHARE * planned.get(&part).copied().unwrap_or_default();
        if e + prior > 0.0 {
            (n + prior * overall) / (e + prior)
        } else {
            overall
        }
    };
    Some(
        groups
            .values()
            .filter(|g| !g.3)
            .map(|&(part, estimate, nodes, _)| {
                (correction(part) * estimate as f64 - nodes as f64).max(0.0)
            })
            .sum(),
    )
}

/// A count whose planned tasks have no estimates (planned by an e2 from
/// before tasks had them) though its tree is large enough to want them:
/// what estimating them takes. See [`Ledger::unestimated_counts`].
#[derive(Debug, Clone)]
pub struct Unestimated {
    pub job: JobId,
    pub engine: Engine,
    pub order: FillOrder,
    /// The puzzle of each part of the count.
    pub parts: Vec<Puzzle>,
    /// The planned tasks (those not split off another): their ids, and
    /// each one's part and prefix, as `count_plan::estimate_tasks` takes them.
    pub ids: Vec<TaskId>,
    pub tasks: Vec<(u32, Prefix)>,
}

impl Ledger {
    /// Unfinished counts of at least [`SIZE_TASKS_ABOVE`] estimated nodes
    /// whose planned tasks lack their own estimates, so that a coordinator
    /// resuming one can estimate them once ([`Ledger::set_estimates`]) and
    /// its time left follows them from then on.
    pub fn unestimated_counts(&self) -> Vec<Unestimated> {
        self.jobs
            .values()
            .filter_map(|job| {
                let count = job.rec.count.as_ref()?;
                let large = count.estimate.is_some_and(|n| n as f64 >= SIZE_TASKS_ABOVE);
                let planned: Vec<&TaskRecord> = job
                    .tasks
                    .values()
                    .filter(|t| t.parent.is_none() && t.recount.is_none())
                    .collect();
                let missing = planned.iter().any(|t| t.estimate.is_none());
                // A DLX count planned under the most-constrained rule walks
                // a tree the fill order's probes do not estimate.
                let by_order = job.rec.engine != Engine::Dlx || count.dlx_by_order;
                if job.rec.state.is_over() || !large || !missing || !by_order || planned.len() < 2 {
                    return None;
                }
                Some(Unestimated {
                    job: job.rec.id,
                    engine: job.rec.engine,
                    order: count.order.parse().ok()?,
                    parts: count.parts(&job.puzzle),
                    ids: planned.iter().map(|t| t.id).collect(),
                    tasks: planned.iter().map(|t| (t.part, t.prefix.clone())).collect(),
                })
            })
            .collect()
    }

    /// Records the estimates of `job`'s planned tasks (ids it no longer
    /// has, or that were split off another, are passed over).
    pub fn set_estimates(&mut self, job: JobId, estimates: &[(TaskId, u64)]) -> Writes {
        let mut writes = Writes::default();
        if let Some(job) = self.jobs.get_mut(&job) {
            for &(id, nodes) in estimates {
                if let Some(t) = job.tasks.get_mut(&id).filter(|t| t.parent.is_none()) {
                    t.estimate = Some(nodes);
                    writes.tasks.push(t.clone());
                }
            }
        }
        writes
    }
}
