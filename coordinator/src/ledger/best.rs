//! Best jobs: the highest-scoring boards found, until time or target.
//!
//! A best job cycles over the depth-1 prefixes of its own fill order, each
//! lease one round of a node budget with a new seed, for variety: a round
//! over puts its prefix back in line. Half the rounds of the tuned search
//! start instead from the first cells of the job's best board so far
//! (`BestSearch::round_start` says which and how deep), so that what one
//! worker found, every worker builds on. Each lease carries the job's best
//! score when it was given, and searches only for better boards: one round
//! does not spend its budget rediscovering what another has found, and its
//! break schedule starts as tight as the job's best allows (README,
//! "Benchmarks", has the measured gain). A whole-tree best job is one task,
//! the empty prefix, run once: it ends like a count (its task finished for
//! good, without solutions), never at its target score, so that its node
//! count and so its result never depend on when a board reached the
//! coordinator.

use e2_proto::pb;
use e2_shared::engine::{Ask, BestSearch, Engine, TASK_DEPTH};
use e2_shared::search::Prefix;
use e2_shared::{Error, Puzzle};

use super::policy::{finish_task, Completion, JobPolicy, PlanAsk, Planned};
use super::{Clock, Job, LedgerConfig};
use crate::records::{JobId, JobRecord, TaskId, TaskRecord};
use crate::store::Writes;

/// Rounds with new seeds over the depth-1 prefixes.
pub(super) struct Rounds;

/// One deterministic run over the whole tree.
pub(super) struct WholeTree;

/// The seed of one round of a best task: distinct per (job, task, round).
pub(super) fn round_seed(job: JobId, task: TaskId, round: u64) -> u64 {
    let mut rng = e2_shared::rng::Rng::fork(job.wrapping_mul(0x9E37_79B9_7F4A_7C15) ^ task, round);
    rng.next_u64()
}

/// A best lease: its budget and seed, and `beat`, the score it must beat.
fn best_task(
    job: &JobRecord,
    task: &TaskRecord,
    config: &LedgerConfig,
    beat: u32,
) -> pb::assignment::Kind {
    pb::assignment::Kind::Best(pb::BestTask {
        node_budget: config.best_node_budget,
        seed: round_seed(job.id, task.id, task.round),
        search: Some(job.search.to_wire()),
        beat,
    })
}

impl JobPolicy for Rounds {
    fn ask(&self) -> Ask {
        Ask::Best
    }

    fn takes_search(&self) -> bool {
        true
    }

    fn first_tasks(
        &self,
        puzzle: &Puzzle,
        engine: Engine,
        search: &BestSearch,
        _ask: &PlanAsk,
    ) -> Result<Planned, Error> {
        let prefixes = search.prefixes(engine, puzzle, TASK_DEPTH)?;
        Ok(Planned::plain(if prefixes.is_empty() {
            vec![Vec::new()]
        } else {
            prefixes
        }))
    }

    /// The round's seed decides whether it starts from the job's best
    /// board (a board the coordinator checked when it was reported).
    fn lease_prefix(&self, job: &Job, task: &TaskRecord) -> Prefix {
        let seed = round_seed(job.rec.id, task.id, task.round);
        // Read only for the rounds that restart from it.
        let best = || {
            let doc = job.best.values().next()?;
            e2_shared::formats::boarddoc::read(doc)
                .ok()
                .map(|input| input.board)
        };
        // Stored as checked at submission, so it decodes.
        e2_proto::search_from_wire(&job.rec.search.to_wire())
            .ok()
            .and_then(|search| search.round_start(&job.puzzle, seed, best))
            .unwrap_or_else(|| task.prefix.clone())
    }

    /// Every round searches for boards above the job's best so far, so
    /// the rounds (and the workers running them) share one bound.
    fn assignment(
        &self,
        job: &JobRecord,
        task: &TaskRecord,
        config: &LedgerConfig,
    ) -> pb::assignment::Kind {
        best_task(job, task, config, job.best_score.unwrap_or(0))
    }

    fn keeps_boards(&self) -> bool {
        true
    }

    fn ends_at_target(&self) -> bool {
        true
    }

    fn goes_round(&self) -> bool {
        true
    }

    /// A round is over; the prefix goes round again with a new seed.
    fn complete(
        &self,
        job: &mut Job,
        tid: TaskId,
        done: Completion,
        _clock: Clock,
        writes: &mut Writes,
    ) {
        let task = job.tasks.get_mut(&tid).expect("completed task exists");
        task.round += 1;
        task.completions += 1;
        task.nodes = task.nodes.saturating_add(done.nodes);
        writes.tasks.push(task.clone());
        job.rec.tasks_done += 1;
        job.rec.nodes_done = job.rec.nodes_done.saturating_add(done.nodes);
        if !job.rec.state.is_over() {
            job.ready.push_back(tid);
        }
    }
}

impl JobPolicy for WholeTree {
    fn ask(&self) -> Ask {
        Ask::Best
    }

    fn takes_search(&self) -> bool {
        true
    }

    fn first_tasks(
        &self,
        _puzzle: &Puzzle,
        _engine: Engine,
        _search: &BestSearch,
        _ask: &PlanAsk,
    ) -> Result<Planned, Error> {
        Ok(Planned::plain(vec![Vec::new()]))
    }

    fn assignment(
        &self,
        job: &JobRecord,
        task: &TaskRecord,
        config: &LedgerConfig,
    ) -> pb::assignment::Kind {
        // Its result must not depend on when boards reached the coordinator.
        best_task(job, task, config, 0)
    }

    fn keeps_boards(&self) -> bool {
        true
    }

    /// The one run is over, and with it the job.
    fn complete(
        &self,
        job: &mut Job,
        tid: TaskId,
        done: Completion,
        clock: Clock,
        writes: &mut Writes,
    ) {
        job.tasks
            .get_mut(&tid)
            .expect("completed task exists")
            .round += 1;
        let done = Completion {
            solutions: 0,
            ..done
        };
        finish_task(job, tid, done, clock, writes);
    }
}
