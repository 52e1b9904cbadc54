//! Best jobs: the highest-scoring boards found, until time or target.
//!
//! A best job cycles over the depth-1 prefixes of its own fill order, each
//! lease one round of a node budget with a new seed, for variety: a round
//! over puts its prefix back in line. Half the rounds of the tuned search
//! start instead from the first cells of the board the job is building on
//! (`BestSearch::round_start` says which and how deep), so that what one
//! worker found, every worker builds on. Each lease carries that board's
//! score when it was given, and searches only for better boards: one round
//! does not spend its budget rediscovering what another has found, and its
//! break schedule starts as tight as that score allows (README,
//! "Benchmarks", has the measured gain).
//!
//! The board built on is a *lineage*'s ([`Lineage`]), not always the job's
//! best. Rounds from one board climb quickly and then stop: the board's
//! first rows are a basin, and its neighbours are soon all tried (traced:
//! two 60-second runs of four made their last gain at 2.5 and 5.6 s, and
//! an hour-long job found nothing after its first minute). So once a
//! lineage has gone [`patience`] rounds without a better board, the job
//! lets it go and starts a new one from fresh rounds told no score to beat;
//! the job keeps its best boards whichever lineage found them. Patience
//! follows Luby's sequence (1, 1, 2, 1, 1, 2, 4, ... times
//! [`LINEAGE_ROUNDS`]), the restart schedule that Luby, Sinclair and
//! Zuckerman showed within a logarithmic factor of the best fixed one,
//! whatever the climbs' lengths turn out to be: short lineages while the
//! job is young, longer ones as it ages.
//!
//! A whole-tree best job is one task, the empty prefix, run once: it ends
//! like a count (its task finished for good, without solutions), never at
//! its target score, so that its node count and so its result never
//! depend on when a board reached the coordinator.

use e2_proto::pb;
use e2_shared::engine::{Ask, BestSearch, Engine, TASK_DEPTH};
use e2_shared::search::Prefix;
use e2_shared::{Board, Error, Puzzle};

use super::policy::{finish_task, Completion, JobPolicy, PlanAsk, Planned};
use super::{Clock, Job, LedgerConfig};
use crate::records::{JobId, JobRecord, TaskId, TaskRecord};
use crate::store::Writes;

/// Rounds with new seeds over the depth-1 prefixes.
pub(super) struct Rounds;

/// Rounds without a better board after which the first lineages are let
/// go; later ones get multiples of it ([`patience`]).
pub const LINEAGE_ROUNDS: u64 = 80;

/// The board a best job's rounds build on, and how long it has not improved.
#[derive(Debug, Default)]
pub(super) struct Lineage {
    /// Its best board (checked when reported), kept decoded rather than
    /// parsed from its BoardDoc at every lease that restarts from it;
    /// `None` until it has one.
    board: Option<Board>,
    score: u32,
    /// Which lineage this is (0 the first): a lease remembers the one it
    /// was given in, so that a round of an earlier lineage that ends late
    /// does not seed this one with its board.
    generation: u64,
    /// Rounds completed since it last improved.
    idle: u64,
}

impl Lineage {
    /// A lineage that goes on from `doc` (BoardDoc JSON), a board scoring
    /// `score`.
    pub(super) fn from_board(doc: &str, score: u32) -> Self {
        let mut lineage = Lineage::default();
        // Written by the coordinator's own check, so it decodes.
        if let Ok(input) = e2_shared::formats::boarddoc::read(doc) {
            lineage.offer(&input.board, score);
        }
        lineage
    }

    pub(super) fn generation(&self) -> u64 {
        self.generation
    }

    /// A checked board from one of this lineage's rounds, scoring `score`.
    pub(super) fn offer(&mut self, board: &Board, score: u32) {
        if self.board.is_none() || score > self.score {
            self.board = Some(board.clone());
            self.score = score;
            self.idle = 0;
        }
    }

    /// A round of the job is over: the lineage is let go, and a new one
    /// started, once it has gone its patience without a better board.
    fn round_done(&mut self) {
        self.idle += 1;
        if self.idle > patience(self.generation) {
            *self = Lineage {
                generation: self.generation.saturating_add(1),
                ..Lineage::default()
            };
        }
    }
}

/// Rounds without a gain that lineage `generation` (0 the first) is
/// given: [`LINEAGE_ROUNDS`] times the Luby sequence's term.
pub(super) fn patience(generation: u64) -> u64 {
    LINEAGE_ROUNDS.saturating_mul(luby(generation.saturating_add(1)))
}

/// Term `i` (from 1) of Luby's sequence 1, 1, 2, 1, 1, 2, 4, 1, 1, 2, ...:
/// `2^(k-1)` when `i = 2^k - 1`, else the term `i - 2^(k-1) + 1` for the
/// `k` with `2^(k-1) <= i < 2^k - 1`.
fn luby(mut i: u64) -> u64 {
    loop {
        let k = 64 - i.leading_zeros(); // 2^(k-1) <= i < 2^k
        if i == u64::MAX >> (64 - k) {
            return 1 << (k - 1);
        }
        i = i - (1 << (k - 1)) + 1;
    }
}

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

    /// The round's seed decides whether it starts from the lineage's
    /// board (a board the coordinator checked when it was reported).
    fn lease_prefix(&self, job: &Job, task: &TaskRecord) -> Prefix {
        let seed = round_seed(job.rec.id, task.id, task.round);
        // Read only for the rounds that restart from it.
        let best = || job.lineage.board.clone();
        // Stored as checked at submission, so it decodes.
        e2_proto::search_from_wire(&job.rec.search.to_wire())
            .ok()
            .and_then(|search| search.round_start(&job.puzzle, seed, best))
            .unwrap_or_else(|| task.prefix.clone())
    }

    /// Every round searches for boards above its lineage's best so far,
    /// so the rounds (and the workers running them) share one bound.
    fn assignment(
        &self,
        job: &Job,
        task: &TaskRecord,
        config: &LedgerConfig,
    ) -> pb::assignment::Kind {
        best_task(&job.rec, task, config, job.lineage.score)
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
        job.lineage.round_done();
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
        job: &Job,
        task: &TaskRecord,
        config: &LedgerConfig,
    ) -> pb::assignment::Kind {
        // Its result must not depend on when boards reached the coordinator.
        best_task(&job.rec, task, config, 0)
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
