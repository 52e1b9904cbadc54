//! Count jobs: every perfect board of the puzzle, each subtree once.
//!
//! A count is cut at the smallest depth that gives many more prefixes than
//! there are worker threads (16 per thread, at least 64), so that uneven
//! subtrees even out and a late worker still finds work; subtrees that turn
//! out long are split further while the job runs. A task resumes from its
//! checkpoint, is finished once, and its count is added to the job once;
//! the job is done when no task is left.

use e2_proto::pb;
use e2_shared::engine::{Ask, BestSearch, Engine, COUNT_ORDER};
use e2_shared::search::Prefix;
use e2_shared::{Error, Puzzle};

use super::policy::{end_if_no_task_left, record_task, Completion, JobPolicy};
use super::{Clock, Job, LedgerConfig};
use crate::records::{JobRecord, TaskId, TaskRecord};
use crate::store::Writes;

/// Prefixes per worker thread a count job starts with.
const PREFIXES_PER_THREAD: usize = 16;
const MIN_PREFIXES: usize = 64;

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
        worker_threads: usize,
    ) -> Result<Vec<Prefix>, Error> {
        let free = puzzle.cells() - puzzle.hints.len();
        let target = (PREFIXES_PER_THREAD * worker_threads).max(MIN_PREFIXES);
        let mut depth = 1;
        loop {
            let prefixes = engine.prefixes(puzzle, COUNT_ORDER, depth)?;
            if prefixes.is_empty() || prefixes.len() >= target || depth >= free {
                return Ok(prefixes);
            }
            depth += 1;
        }
    }

    fn assignment(
        &self,
        _job: &JobRecord,
        task: &TaskRecord,
        _config: &LedgerConfig,
    ) -> pb::assignment::Kind {
        pb::assignment::Kind::Count(pb::CountTask {
            checkpoint: e2_proto::encode_checkpoint(task.checkpoint.as_ref()),
            split_seq: task.split_seq,
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

    /// Finished tasks so far predict the rest.
    fn eta_secs(&self, job: &JobRecord, elapsed_secs: f64) -> Option<f64> {
        (!job.state.is_over() && job.tasks_done > 0).then(|| {
            elapsed_secs * (job.tasks_total - job.tasks_done) as f64 / job.tasks_done as f64
        })
    }
}
