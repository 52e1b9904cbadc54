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
use e2_shared::count_plan::{plan_count, CountAsk};
use e2_shared::engine::{Ask, BestSearch, Engine};
use e2_shared::{Error, Puzzle};

use super::policy::{end_if_no_task_left, record_task, Completion, JobPolicy, PlanAsk, Planned};
use super::{Clock, Job, LedgerConfig};
use crate::records::{JobRecord, StoredCount, TaskId, TaskRecord};
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
        job: &JobRecord,
        task: &TaskRecord,
        _config: &LedgerConfig,
    ) -> pb::assignment::Kind {
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

    /// The finished tasks' mean size predicts the nodes left, at the rate
    /// of the last few seconds. (Wall time since the job was created would
    /// also count the hours a resumed count spent stopped.)
    fn eta_secs(&self, job: &JobRecord, partial_nodes: u64, nodes_per_sec: f64) -> Option<f64> {
        (!job.state.is_over() && job.tasks_done > 0 && nodes_per_sec > 0.0).then(|| {
            // `nodes_done` starts at the nodes above the cut, no task's.
            let cut = job.count.as_ref().map_or(0, |c| c.cut_nodes);
            let mean = job.nodes_done.saturating_sub(cut) as f64 / job.tasks_done as f64;
            let left = mean * (job.tasks_total - job.tasks_done) as f64 - partial_nodes as f64;
            left.max(0.0) / nodes_per_sec
        })
    }
}
