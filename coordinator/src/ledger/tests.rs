//! The ledger's rules, tested on its logical clock through its public API.

use super::*;
use e2_proto::pb::HeartbeatRequest;
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

/// `p` and one more placement.
fn below(mut p: Prefix, pos: usize, piece: usize) -> Prefix {
    p.push(Forced { pos, piece, rot: 0 });
    p
}

fn ledger_with_job(
    mode: Mode,
    search: BestSearch,
    prefixes: Vec<Prefix>,
) -> (Ledger, String, Clock) {
    ledger_with_job_on(&puzzle(), Engine::Dlx, mode, search, prefixes)
}

/// A fresh ledger and one registered worker.
fn ledger_and_worker() -> (Ledger, String, Clock) {
    let mut l = fresh_ledger();
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
    (l, w, clock)
}

/// A fresh ledger, one registered worker, and one job of `puzzle`.
fn ledger_with_job_on(
    puzzle: &Puzzle,
    engine: Engine,
    mode: Mode,
    search: BestSearch,
    prefixes: Vec<Prefix>,
) -> (Ledger, String, Clock) {
    let (mut l, w, clock) = ledger_and_worker();
    let plan = JobPlan {
        mode,
        prefixes,
        search,
        ..JobPlan::count(puzzle, engine)
    };
    l.submit(plan, clock);
    (l, w, clock)
}

fn ledger_with_count_job(tasks: usize) -> (Ledger, String, Clock) {
    let prefixes = (0..tasks).map(|i| prefix(i % 2)).collect();
    ledger_with_job(Mode::Count, BestSearch::default(), prefixes)
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

fn completion(worker: &str, lease: pb::Lease, solutions: u64) -> pb::CompleteRequest {
    pb::CompleteRequest {
        worker_id: worker.into(),
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
    let (r1, w1) = l.complete(&completion(&w, a, 3), clock).unwrap();
    let (r2, _) = l.complete(&completion(&w, a, 3), clock).unwrap();
    assert!(r1.accepted && w1.durable);
    assert!(!r2.accepted, "{}", r2.reason);
    let b = take(&mut l, &w, clock);
    l.complete(&completion(&w, b, 4), clock).unwrap();
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
    let (r, _) = l.complete(&completion(&w, old, 5), later).unwrap();
    assert!(!r.accepted);
    let (hb, _) = l
        .heartbeat(
            &HeartbeatRequest {
                worker_id: w.clone(),
                lease: Some(old),
                ..Default::default()
            },
            later,
        )
        .unwrap();
    assert!(!hb.keep_going);
    let (r, _) = l.complete(&completion(&w, new, 5), later).unwrap();
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
        prefixes: vec![e2_proto::encode_prefix(&below(prefix(0), 1, 1))],
    };
    let hb = HeartbeatRequest {
        worker_id: w.clone(),
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
        worker_id: w.clone(),
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
        worker_id: w.clone(),
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
            split_seq: 0,
            order: e2_shared::order::FillOrder::RowMajor,
            // A DLX job without a plan predates DLX's fill orders.
            most_constrained: true,
        }
    );
}

/// A DLX count planned before DLX took fill orders (its record has no
/// `dlx_by_order`) tells its workers to branch by the most-constrained
/// rule, so its checkpoints resume in the tree that took them; one planned
/// now branches on its order.
#[test]
fn dlx_counts_keep_the_rule_they_were_planned_under() {
    let old: StoredCount = serde_json::from_str(
        r#"{"order":"row-major","order_chosen":false,"pins":[],"factor":1,
            "symmetry":"none","estimate":null,"asked_symmetry":false,"cut_nodes":0}"#,
    )
    .unwrap();
    assert!(!old.dlx_by_order);
    let new = StoredCount {
        dlx_by_order: true,
        ..old.clone()
    };
    for (engine, count, expected) in [
        (Engine::Dlx, old.clone(), true),
        (Engine::Dlx, new.clone(), false),
        (Engine::Backtrack, old, false),
        (Engine::Backtrack, new, false),
    ] {
        let (mut l, w, clock) = ledger_and_worker();
        let plan = JobPlan {
            prefixes: vec![prefix(0)],
            count: Some(count),
            ..JobPlan::count(&puzzle(), engine)
        };
        l.submit(plan, clock);
        let (reply, _) = l.lease(&w, 1, clock).unwrap();
        let work = e2_proto::decode_assignment(&reply.assignments[0]).unwrap();
        let e2_proto::TaskKind::Count {
            most_constrained, ..
        } = work.kind
        else {
            panic!("a count task");
        };
        assert_eq!(most_constrained, expected, "{engine}");
    }
}

#[test]
fn status_counts_what_checkpoints_keep_of_unfinished_tasks() {
    let (mut l, w, clock) = ledger_with_count_job(2);
    let a = take(&mut l, &w, clock);
    l.complete(&completion(&w, a, 3), clock).unwrap();
    let b = take(&mut l, &w, clock);
    let cp = checkpoint(prefix(1), 4, 50);
    let hb = |nodes: u64, release: bool| HeartbeatRequest {
        worker_id: w.clone(),
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

/// The lease and the best task of the one assignment a lease hands out.
fn take_best(l: &mut Ledger, w: &str, clock: Clock) -> (pb::Lease, pb::BestTask) {
    let (reply, _) = l.lease(w, 1, clock).unwrap();
    let a = &reply.assignments[0];
    match &a.kind {
        Some(pb::assignment::Kind::Best(b)) => (a.lease.unwrap(), b.clone()),
        other => panic!("not a best task: {other:?}"),
    }
}

#[test]
fn a_count_completion_adds_its_solutions_once_and_ends_the_job_with_its_last_task() {
    let (mut l, w, clock) = ledger_with_count_job(2);
    let a = take(&mut l, &w, clock);
    let b = take(&mut l, &w, clock);
    let (r, writes) = l.complete(&completion(&w, a, 3), clock).unwrap();
    assert!(r.accepted && writes.durable);
    let s = l.status(1, clock).unwrap();
    assert_eq!((s.solutions, s.tasks_done), (3, 1));
    assert_eq!(s.state, pb::JobState::Running as i32, "a task is left");
    // The same lease again, later: the task is finished, nothing is added.
    let later = clock.later(Duration::from_secs(1));
    assert!(!l.complete(&completion(&w, a, 3), later).unwrap().0.accepted);
    assert_eq!(l.status(1, later).unwrap().solutions, 3);
    assert!(l.complete(&completion(&w, b, 4), later).unwrap().0.accepted);
    let s = l.status(1, later).unwrap();
    assert_eq!((s.solutions, s.tasks_done, s.nodes), (7, 2, 20));
    assert_eq!(s.state, pb::JobState::Done as i32);
    let tasks = l.ledger(1).unwrap();
    assert!(tasks.iter().all(|t| t.state == "done" && !t.has_checkpoint));
    assert_eq!(
        tasks.iter().map(|t| t.solutions).collect::<Vec<_>>(),
        vec![3, 4]
    );
}

#[test]
fn a_best_round_goes_round_again_with_a_new_seed() {
    let (mut l, w, clock) = ledger_with_job(Mode::Best, BestSearch::default(), vec![prefix(0)]);
    let (a, first) = take_best(&mut l, &w, clock);
    let (r, _) = l.complete(&completion(&w, a, 0), clock).unwrap();
    assert!(r.accepted, "{}", r.reason);
    let s = l.status(1, clock).unwrap();
    assert_eq!(
        s.state,
        pb::JobState::Running as i32,
        "rounds never finish a best job"
    );
    // A round is done, never a task: the status says so, not "1 of 1 tasks".
    assert_eq!(
        (s.tasks_done, s.rounds_done, s.nodes, s.eta_secs),
        (0, 1, 10, None)
    );
    let later = clock.later(Duration::from_secs(1));
    let (b, second) = take_best(&mut l, &w, later);
    assert_eq!(b.task_id, a.task_id);
    assert_ne!(b.epoch, a.epoch);
    assert_ne!(second.seed, first.seed);
    assert!(l.complete(&completion(&w, b, 0), later).unwrap().0.accepted);
    let tasks = l.ledger(1).unwrap();
    assert_eq!((tasks.len(), tasks[0].state.as_str()), (1, "ready"));
    assert_eq!((tasks[0].completions, tasks[0].nodes), (2, 20));
    let s = l.status(1, later).unwrap();
    assert_eq!((s.rounds_done, s.nodes, s.solutions), (2, 20, 0));
}

#[test]
fn each_best_round_is_told_the_best_score_so_far_and_a_whole_tree_run_is_not() {
    // A 3x1 strip: two seams, so a board of one seam leaves the job running.
    let strip = Puzzle {
        name: "strip".into(),
        width: 3,
        height: 1,
        num_colors: 2,
        pieces: vec![[0, 1, 0, 0], [0, 2, 0, 1], [0, 0, 0, 2]],
        hints: vec![],
    };
    for whole_tree in [false, true] {
        let search = BestSearch {
            whole_tree,
            ..BestSearch::default()
        };
        let (mut l, w, clock) =
            ledger_with_job_on(&strip, Engine::Backtrack, Mode::Best, search, vec![vec![]]);
        let job = 1;
        let (a, first) = take_best(&mut l, &w, clock);
        assert_eq!((a.job_id, first.beat), (job, 0), "nothing found yet");
        let one_seam = pb::FoundBoard {
            codes: vec![0, 4, -1],
            claimed_score: 1,
        };
        let done = pb::CompleteRequest {
            boards: vec![one_seam],
            ..completion(&w, a, 0)
        };
        assert!(l.complete(&done, clock).unwrap().0.accepted);
        assert_eq!(l.status(job, clock).unwrap().best_score, Some(1));
        if whole_tree {
            assert!(l.lease(&w, 1, clock).unwrap().0.assignments.is_empty());
            continue;
        }
        let (_, next) = take_best(&mut l, &w, clock.later(Duration::from_secs(1)));
        assert_eq!(next.beat, 1, "the next round must beat the job's best");
    }
}

#[test]
fn half_the_rounds_start_from_the_jobs_best_board_once_there_is_one() {
    let g = e2_shared::generator::generate(&e2_shared::generator::GenSpec::square(8, 3)).unwrap();
    let first_cell = vec![Forced {
        pos: 0,
        piece: g.solution.placements.as_ref().unwrap()[0].unwrap().piece,
        rot: g.solution.placements.as_ref().unwrap()[0].unwrap().rot,
    }];
    let (mut l, w, mut clock) = ledger_with_job_on(
        &g.puzzle,
        Engine::Backtrack,
        Mode::Best,
        BestSearch::default(),
        vec![first_cell.clone()],
    );
    let round = |l: &mut Ledger, clock: Clock, boards: Vec<pb::FoundBoard>| {
        let (reply, _) = l.lease(&w, 1, clock).unwrap();
        let a = reply.assignments[0].clone();
        let done = pb::CompleteRequest {
            boards,
            ..completion(&w, a.lease.unwrap(), 0)
        };
        assert!(l.complete(&done, clock).unwrap().0.accepted);
        e2_proto::decode_prefix(&a.prefix).unwrap()
    };
    // Nothing found yet: every round starts from its task.
    for _ in 0..10 {
        clock = clock.later(Duration::from_millis(10));
        assert_eq!(round(&mut l, clock, vec![]), first_cell);
    }
    // The solution with two interior pieces swapped: not the maximum, so
    // the job goes on.
    let mut codes = g.solution.codes().unwrap();
    codes.swap(9, 18);
    let found = pb::FoundBoard {
        codes: codes.clone(),
        claimed_score: 0,
    };
    clock = clock.later(Duration::from_millis(10));
    round(&mut l, clock, vec![found]);
    let (mut from_best, mut from_task) = (0, 0);
    for _ in 0..60 {
        clock = clock.later(Duration::from_millis(10));
        let prefix = round(&mut l, clock, vec![]);
        if prefix == first_cell {
            from_task += 1;
            continue;
        }
        from_best += 1;
        // 150..190 cells of 256, scaled to 64, in row-major order.
        assert!((38..=48).contains(&prefix.len()), "{}", prefix.len());
        for (k, f) in prefix.iter().enumerate() {
            assert_eq!(
                (f.pos, f.piece * 4 + f.rot as usize),
                (k, codes[k] as usize)
            );
        }
    }
    assert!(
        from_best >= 15 && from_task >= 15,
        "{from_best} from the best board, {from_task} from the task"
    );
}

#[test]
fn a_lineage_without_a_better_board_is_let_go_and_the_next_starts_afresh() {
    let g = e2_shared::generator::generate(&e2_shared::generator::GenSpec::square(8, 3)).unwrap();
    let placed = g.solution.placements.as_ref().unwrap()[0].unwrap();
    let first_cell = vec![Forced {
        pos: 0,
        piece: placed.piece,
        rot: placed.rot,
    }];
    // Two tasks, so that one lease can stay out while the other goes round.
    let (mut l, w, mut clock) = ledger_with_job_on(
        &g.puzzle,
        Engine::Backtrack,
        Mode::Best,
        BestSearch::default(),
        vec![first_cell.clone(), first_cell.clone()],
    );
    // The solution with interior pieces swapped: boards below the maximum.
    let board = |swaps: &[(usize, usize)]| {
        let mut codes = g.solution.codes().unwrap();
        for &(a, b) in swaps {
            codes.swap(a, b);
        }
        let score =
            e2_shared::score::score(&e2_shared::Board::from_codes(&g.puzzle, &codes).unwrap());
        (
            pb::FoundBoard {
                codes,
                claimed_score: score,
            },
            score,
        )
    };
    let (good, good_score) = board(&[(9, 18)]);
    let (worse, worse_score) = board(&[(9, 18), (10, 21), (12, 27)]);
    let (late, _) = board(&[(9, 18), (10, 21)]);
    assert!(worse_score < good_score);
    let round = |l: &mut Ledger, clock: &mut Clock, boards: Vec<pb::FoundBoard>| {
        *clock = clock.later(Duration::from_millis(10));
        let (lease, task) = take_best(l, &w, *clock);
        let done = pb::CompleteRequest {
            boards,
            ..completion(&w, lease, 0)
        };
        assert!(l.complete(&done, *clock).unwrap().0.accepted);
        task.beat
    };
    round(&mut l, &mut clock, vec![good]);
    // A lease of this first lineage, still out when the lineage is let go.
    let (stale, _) = take_best(&mut l, &w, clock.later(Duration::from_millis(5)));
    // Its patience: that many rounds without a better board, all told to
    // beat the lineage's board.
    for _ in 0..best::patience(0) {
        assert_eq!(round(&mut l, &mut clock, vec![]), good_score);
    }
    // Let go: the next rounds start afresh, told nothing to beat.
    let beat = round(&mut l, &mut clock, vec![]);
    assert_eq!(beat, 0, "a new lineage starts from nothing");
    // The lease of the old lineage ends late with a board: the job keeps
    // it, but the new lineage does not build on it.
    let late_done = pb::CompleteRequest {
        boards: vec![late],
        ..completion(&w, stale, 0)
    };
    assert!(l.complete(&late_done, clock).unwrap().0.accepted);
    assert_eq!(
        round(&mut l, &mut clock, vec![]),
        0,
        "the old lineage's board is not the new one's"
    );
    // A board of the new lineage, below the job's best, is its new board.
    round(&mut l, &mut clock, vec![worse]);
    let beat = round(&mut l, &mut clock, vec![]);
    assert_eq!(
        beat, worse_score,
        "rounds beat the lineage's board, not the job's"
    );
    let s = l.status(1, clock).unwrap();
    assert_eq!(
        s.best_score,
        Some(good_score),
        "the job keeps its best board"
    );
}

#[test]
fn lineage_patience_follows_lubys_sequence() {
    let terms: Vec<u64> = (0..15)
        .map(|g| best::patience(g) / best::LINEAGE_ROUNDS)
        .collect();
    assert_eq!(terms, [1, 1, 2, 1, 1, 2, 4, 1, 1, 2, 1, 1, 2, 4, 8]);
    assert!(
        best::patience(u64::MAX - 1) > 0,
        "no overflow on absurd generations"
    );
}

#[test]
fn a_whole_tree_best_job_ends_with_its_one_run_and_counts_no_solutions() {
    let search = BestSearch {
        whole_tree: true,
        ..BestSearch::default()
    };
    let (mut l, w, clock) = ledger_with_job(Mode::Best, search, vec![Vec::new()]);
    let (a, _) = take_best(&mut l, &w, clock);
    let (r, writes) = l.complete(&completion(&w, a, 5), clock).unwrap();
    assert!(r.accepted && writes.durable, "{}", r.reason);
    let s = l.status(1, clock).unwrap();
    assert_eq!(s.state, pb::JobState::Done as i32);
    assert_eq!((s.tasks_done, s.nodes, s.solutions), (1, 10, 0));
    let tasks = l.ledger(1).unwrap();
    assert_eq!((tasks[0].state.as_str(), tasks[0].completions), ("done", 1));
    let later = clock.later(Duration::from_secs(1));
    assert!(l.lease(&w, 1, later).unwrap().0.assignments.is_empty());
    assert!(!l.complete(&completion(&w, a, 5), later).unwrap().0.accepted);
}

#[test]
fn each_kind_plans_its_own_first_tasks() {
    let p = puzzle();
    let ask = |threads| PlanAsk {
        threads,
        symmetry: true,
        count_order: None,
        fine: false,
    };
    // A count that must be cut fine (a verified one) is cut as a large
    // one whatever its estimate, with its plan; DLX's branches on the order.
    let count = first_tasks(
        &p,
        Mode::Count,
        Engine::Dlx,
        &BestSearch::default(),
        &PlanAsk {
            fine: true,
            ..ask(1)
        },
    )
    .unwrap();
    assert!(!count.prefixes.is_empty() && count.prefixes.iter().all(|t| !t.is_empty()));
    let plan = count.count.unwrap();
    assert_eq!(plan.factor, 1, "a 2x1 board has no corners to pin");
    assert!(plan.dlx_by_order);
    // The backtracker's estimate finds the tiny tree: one task.
    let tiny = first_tasks(
        &p,
        Mode::Count,
        Engine::Backtrack,
        &BestSearch::default(),
        &ask(8),
    )
    .unwrap();
    assert_eq!(tiny.prefixes, vec![Vec::new()]);
    let whole = BestSearch {
        whole_tree: true,
        ..BestSearch::default()
    };
    let one = first_tasks(&p, Mode::Best, Engine::Backtrack, &whole, &ask(4)).unwrap();
    assert_eq!(one.prefixes, vec![Vec::new()]);
    assert!(one.count.is_none());
}

/// A ledger of a first start, nothing in it.
pub(super) fn fresh_ledger() -> Ledger {
    Ledger::new(
        LedgerConfig::default(),
        Loaded {
            incarnation: 1,
            ..Loaded::default()
        },
    )
}

fn register(l: &mut Ledger, threads: u32, clock: Clock) -> String {
    let req = pb::RegisterRequest {
        protocol_version: e2_proto::PROTOCOL_VERSION,
        name: "other".into(),
        threads,
    };
    l.register(&req, clock).unwrap().worker_id
}

#[test]
fn only_the_holder_of_a_lease_may_report_on_it() {
    let (mut l, a, clock) = ledger_with_count_job(1);
    let b = register(&mut l, 1, clock);
    let lease = take(&mut l, &a, clock);
    let forged = l.complete(&completion(&b, lease, 1_000), clock).unwrap().0;
    assert!(!forged.accepted);
    assert!(
        forged.reason.contains("another worker"),
        "{}",
        forged.reason
    );
    let hb = HeartbeatRequest {
        worker_id: b.clone(),
        lease: Some(lease),
        release: true,
        ..Default::default()
    };
    assert!(!l.heartbeat(&hb, clock).unwrap().0.keep_going);
    let s = l.status(1, clock).unwrap();
    assert_eq!(
        (s.solutions, s.tasks_running),
        (0, 1),
        "the lease still holds"
    );
    assert!(
        l.complete(&completion(&a, lease, 2), clock)
            .unwrap()
            .0
            .accepted
    );
    assert_eq!(l.status(1, clock).unwrap().solutions, 2);
    assert_eq!(l.ledger(1).unwrap()[0].ignored_completions, 1);
}

#[test]
fn a_bad_split_is_refused_and_changes_nothing() {
    let (mut l, w, clock) = ledger_with_count_job(1);
    let a = take(&mut l, &w, clock);
    let own = prefix(0);
    let place = |pos, piece, rot| Forced { pos, piece, rot };
    let bad: Vec<(Vec<Prefix>, &str)> = vec![
        (vec![prefix(1)], "does not extend"),
        (vec![own.clone()], "does not extend"),
        (
            vec![vec![place(1, 1, 0), place(0, 0, 0)]],
            "does not extend",
        ),
        (vec![below(own.clone(), 2, 1)], "off the board"),
        (vec![below(own.clone(), 1, 2)], "not in the set"),
        (
            vec![[own.clone(), vec![place(1, 1, 4)]].concat()],
            "rotation",
        ),
        (vec![below(own.clone(), 0, 1)], "cell 0 is placed twice"),
        (vec![below(own.clone(), 1, 0)], "piece 0 is placed twice"),
        (vec![below(own.clone(), 1, 1); 9], "more than the 8"),
    ];
    let cp = checkpoint(own.clone(), 1, 5);
    for (prefixes, why) in bad {
        let split = pb::Split {
            seq: 1,
            prefixes: prefixes.iter().map(e2_proto::encode_prefix).collect(),
        };
        let hb = HeartbeatRequest {
            worker_id: w.clone(),
            lease: Some(a),
            checkpoint: e2_proto::encode_checkpoint(Some(&cp)),
            nodes: 5,
            split: Some(split.clone()),
            ..Default::default()
        };
        let e = l.heartbeat(&hb, clock).unwrap_err();
        assert_eq!(e.code(), tonic::Code::InvalidArgument);
        assert!(e.message().contains(why), "{why}: {}", e.message());
        let done = pb::CompleteRequest {
            split: Some(split),
            ..completion(&w, a, 1)
        };
        assert!(l
            .complete(&done, clock)
            .unwrap_err()
            .message()
            .contains(why));
        let tasks = l.ledger(1).unwrap();
        assert_eq!(tasks.len(), 1);
        let t = &tasks[0];
        assert_eq!(
            (t.split_seq, t.has_checkpoint, t.state.as_str()),
            (0, false, "leased")
        );
    }
    // The lease survived every refusal: a good split and completion count.
    let good = pb::Split {
        seq: 1,
        prefixes: vec![e2_proto::encode_prefix(&below(own, 1, 1))],
    };
    let done = pb::CompleteRequest {
        split: Some(good),
        ..completion(&w, a, 1)
    };
    assert!(l.complete(&done, clock).unwrap().0.accepted);
    assert_eq!(l.status(1, clock).unwrap().tasks_total, 2);
}

#[test]
fn a_worker_claims_at_most_so_many_threads() {
    let (mut l, _, clock) = ledger_with_count_job(1);
    register(&mut l, u32::MAX, clock);
    assert_eq!(l.worker_threads(), 1 + 1024);
}

#[test]
fn an_absurd_time_limit_saturates_instead_of_ending_the_job_at_once() {
    let mut l = fresh_ledger();
    let clock = Clock::now();
    let plan = JobPlan {
        mode: Mode::Best,
        prefixes: vec![prefix(0)],
        // `--time 18446744073709551`: milliseconds beyond u64.
        time_limit: Some(Duration::from_secs(18_446_744_073_709_551)),
        target_score: Some(u32::MAX),
        ..JobPlan::count(&puzzle(), Engine::Backtrack)
    };
    let (id, _) = l.submit(plan, clock);
    l.expire(clock.later(Duration::from_secs(1)));
    let s = l.status(id, clock.later(Duration::from_secs(1))).unwrap();
    assert_eq!(s.state, pb::JobState::Queued as i32, "{s:?}");
}

#[test]
fn totals_saturate_instead_of_wrapping() {
    let (mut l, w, clock) = ledger_with_count_job(2);
    for _ in 0..2 {
        let a = take(&mut l, &w, clock);
        let done = pb::CompleteRequest {
            nodes: u64::MAX,
            ..completion(&w, a, u64::MAX)
        };
        assert!(l.complete(&done, clock).unwrap().0.accepted);
    }
    let s = l.status(1, clock).unwrap();
    assert_eq!((s.solutions, s.nodes), (u64::MAX, u64::MAX));
}

/// A count's ETA is the finished tasks' mean size times the tasks left, at
/// the recent node rate: not the wall time since the job was created,
/// which would count the hours a resumed count spent stopped.
#[test]
fn a_count_eta_comes_from_the_nodes_left_and_the_recent_rate() {
    let (mut l, w, clock) = ledger_with_count_job(4);
    let a = take(&mut l, &w, clock);
    let b = take(&mut l, &w, clock);
    assert!(l.complete(&completion(&w, a, 1), clock).unwrap().0.accepted);
    assert_eq!(l.status(1, clock).unwrap().eta_secs, None, "no rate yet");
    let later = clock.later(Duration::from_secs(1));
    assert!(l.complete(&completion(&w, b, 1), later).unwrap().0.accepted);
    let s = l.status(1, later).unwrap();
    assert_eq!((s.tasks_done, s.nodes), (2, 20));
    assert!((s.nodes_per_sec - 10.0).abs() < 1e-9, "{}", s.nodes_per_sec);
    // 10 nodes a task, 2 tasks left, 10 nodes/s.
    let eta = s.eta_secs.expect("an ETA");
    assert!((eta - 2.0).abs() < 1e-9, "{eta}");
}

/// When the plan estimated each task, the time left comes from those
/// estimates, corrected by what the finished ones really took, not from
/// the finished tasks' mean size; a task split off another shares its
/// group's estimate, and the group's nodes so far count against it.
#[test]
fn a_count_eta_follows_its_tasks_estimates_when_it_has_them() {
    let (mut l, w, clock) = ledger_and_worker();
    let plan = JobPlan {
        prefixes: (0..4).map(|i| prefix(i % 2)).collect(),
        estimates: vec![1000, 100, 100, 300],
        ..JobPlan::count(&puzzle(), Engine::Dlx)
    };
    l.submit(plan, clock);
    let done = |lease, nodes| pb::CompleteRequest {
        nodes,
        ..completion(&w, lease, 0)
    };
    let (a, b) = (take(&mut l, &w, clock), take(&mut l, &w, clock));
    assert!(l.complete(&done(a, 2000), clock).unwrap().0.accepted);
    let later = clock.later(Duration::from_secs(1));
    assert!(l.complete(&done(b, 200), later).unwrap().0.accepted);
    // Finished: 2 200 nodes for 1 100 estimated, a correction of 2; left:
    // 2 × 100 + 2 × 300 = 800 nodes at 200 nodes/s. (The mean of the
    // finished tasks, 1 100 a task, would say 2 200 nodes and 11 s.)
    let s = l.status(1, later).unwrap();
    assert!(
        (s.nodes_per_sec - 200.0).abs() < 1e-9,
        "{}",
        s.nodes_per_sec
    );
    let eta = s.eta_secs.expect("an ETA");
    assert!((eta - 4.0).abs() < 1e-9, "{eta}");

    // Task 2 checkpoints at 50 nodes and gives a sibling away: its group
    // (task 2 and the new task 4) has 2 × 100 − 50 left.
    let c = take(&mut l, &w, later);
    let hb = HeartbeatRequest {
        worker_id: w.clone(),
        lease: Some(c),
        checkpoint: e2_proto::encode_checkpoint(Some(&checkpoint(prefix(0), 0, 50))),
        split: Some(pb::Split {
            seq: 1,
            prefixes: vec![e2_proto::encode_prefix(&below(prefix(0), 1, 1))],
        }),
        ..Default::default()
    };
    l.heartbeat(&hb, later).unwrap();
    let job = &l.jobs[&1];
    assert_eq!(job.rec.tasks_total, 5);
    assert_eq!(job.tasks[&4].parent, Some(2));
    let left = count::estimated_nodes_left(job).expect("estimated");
    assert!((left - 750.0).abs() < 1e-9, "{left}");
    // A group past its corrected estimate has nothing left, not less.
    let hb = HeartbeatRequest {
        checkpoint: e2_proto::encode_checkpoint(Some(&checkpoint(prefix(0), 0, 900))),
        split: None,
        ..hb
    };
    l.heartbeat(&hb, later).unwrap();
    let left = count::estimated_nodes_left(&l.jobs[&1]).expect("estimated");
    assert!((left - 600.0).abs() < 1e-9, "{left}");
}

/// A large count planned without task estimates (by an older e2) is listed
/// for estimating, real probes of its tasks' subtrees are recorded (as
/// task writes), and its ETA follows them from then on; a small count, a
/// finished one and one estimated already are not listed.
#[test]
fn a_large_count_planned_without_task_estimates_gets_them_once() {
    let planned = |estimate: u64| StoredCount {
        estimate: Some(estimate),
        dlx_by_order: true,
        ..serde_json::from_str(
            r#"{"order":"row-major","order_chosen":true,"pins":[],"factor":1,
                "symmetry":"none","estimate":null,"asked_symmetry":false,"cut_nodes":0}"#,
        )
        .unwrap()
    };
    let (mut l, w, clock) = ledger_and_worker();
    for estimate in [20_000_000_000, 1_000] {
        let plan = JobPlan {
            prefixes: (0..4).map(|i| prefix(i % 2)).collect(),
            count: Some(planned(estimate)),
            ..JobPlan::count(&puzzle(), Engine::Dlx)
        };
        l.submit(plan, clock);
    }
    let listed = l.unestimated_counts();
    assert_eq!(listed.len(), 1, "{listed:?}");
    let old = &listed[0];
    assert_eq!((old.job, old.tasks.len(), old.parts.len()), (1, 4, 1));
    let a = take(&mut l, &w, clock);
    assert!(l.complete(&completion(&w, a, 0), clock).unwrap().0.accepted);
    assert_eq!(count::estimated_nodes_left(&l.jobs[&1]), None);

    let nodes =
        e2_shared::count_plan::estimate_tasks(old.engine, &old.parts, old.order, &old.tasks, 1);
    assert_eq!(nodes.len(), 4);
    let ids = old.ids.iter().copied();
    let writes = l.set_estimates(1, &ids.zip(nodes.iter().copied()).collect::<Vec<_>>());
    assert_eq!(writes.tasks.len(), 4);
    assert!(writes.tasks.iter().all(|t| t.estimate.is_some()));
    assert!(l.unestimated_counts().is_empty());
    // One finished task of 10 nodes corrects the other three's estimates.
    let correction = 10.0 / nodes[0] as f64;
    let left: f64 = nodes[1..].iter().map(|&n| correction * n as f64).sum();
    let got = count::estimated_nodes_left(&l.jobs[&1]).expect("estimated");
    assert!(
        (got - left).abs() < 1e-6 * left.max(1.0),
        "{got} against {left}"
    );
}

/// A reduced count's parts are trees of their own: each part's finished
/// groups correct its own estimates, weighed against the correction of all
/// parts as if that one had been seen on a tenth of the part's estimate,
/// and a part with none finished takes the correction of all parts.
#[test]
fn a_count_eta_corrects_each_part_by_its_own_finished_tasks() {
    let (mut l, _, clock) = ledger_and_worker();
    let plan = JobPlan {
        prefixes: (0..6).map(|i| prefix(i % 2)).collect(),
        parts: vec![0, 0, 1, 1, 1, 2],
        estimates: vec![100; 6],
        ..JobPlan::count(&puzzle(), Engine::Dlx)
    };
    l.submit(plan, clock);
    let job = l.jobs.get_mut(&1).unwrap();
    for (id, nodes) in [(0, 300), (2, 100)] {
        let t = job.tasks.get_mut(&id).unwrap();
        t.state = TaskState::Done;
        t.nodes = nodes;
    }
    // All parts: 400 nodes for 200 estimated, 2. Part 0 (its own 3 on 100
    // of its 200): (300 + 20 × 2) / (100 + 20) × 100 left for task 1;
    // part 1 (its own 1 on 100 of 300): (100 + 30 × 2) / (100 + 30) × 100
    // for tasks 3 and 4; part 2, nothing finished: 2 × 100 for task 5.
    let want = 340.0 / 120.0 * 100.0 + 160.0 / 130.0 * 200.0 + 200.0;
    let left = count::estimated_nodes_left(&l.jobs[&1]).expect("estimated");
    assert!((left - want).abs() < 1e-9, "{left} against {want}");
}

/// A part's own correction outweighs the one over all parts only once its
/// finished groups hold a good share of its estimate: one small task
/// running long in a part of many barely moves the time left, half the
/// part running long does.
#[test]
fn a_count_eta_trusts_a_part_as_far_as_it_has_run() {
    let (mut l, _, clock) = ledger_and_worker();
    let plan = JobPlan {
        prefixes: (0..110).map(|i| prefix(i % 2)).collect(),
        parts: (0..110).map(|i| u32::from(i >= 10)).collect(),
        estimates: vec![100; 110],
        ..JobPlan::count(&puzzle(), Engine::Dlx)
    };
    l.submit(plan, clock);
    let finish = |l: &mut Ledger, ids: std::ops::Range<u64>, nodes: u64| {
        let job = l.jobs.get_mut(&1).unwrap();
        for id in ids {
            let t = job.tasks.get_mut(&id).unwrap();
            t.state = TaskState::Done;
            t.nodes = nodes;
        }
    };
    // Part 0 ran 0.8 of its estimates, whole; part 1 one task at 1.4.
    finish(&mut l, 0..10, 80);
    finish(&mut l, 10..11, 140);
    // All parts: 940 / 1 100; part 1's tenth is 1 000 nodes of estimate.
    let overall = 940.0 / 1100.0;
    let want = (140.0 + 1000.0 * overall) / 1100.0 * 100.0;
    let per_task = count::estimated_nodes_left(&l.jobs[&1]).expect("estimated") / 99.0;
    assert!((per_task - want).abs() < 1e-9, "{per_task} against {want}");
    assert!(per_task < 95.0, "one task of 99 set the pace: {per_task}");
    // Half of part 1 at 1.4: its own ratio now leads.
    finish(&mut l, 11..60, 140);
    let want = (7000.0 + 1000.0 * 1.3) / 6000.0 * 100.0;
    let per_task = count::estimated_nodes_left(&l.jobs[&1]).expect("estimated") / 50.0;
    assert!((per_task - want).abs() < 1e-9, "{per_task} against {want}");
    assert!(per_task > 135.0, "{per_task}");
}

/// Without estimates on every planned task (a small count, or a job
/// planned before tasks had them), the mean of the finished tasks stands.
#[test]
fn a_count_eta_without_task_estimates_keeps_the_mean() {
    let (mut l, w, clock) = ledger_with_count_job(3);
    assert!(count::estimated_nodes_left(&l.jobs[&1]).is_none());
    let a = take(&mut l, &w, clock);
    assert!(l.complete(&completion(&w, a, 1), clock).unwrap().0.accepted);
    assert!(count::estimated_nodes_left(&l.jobs[&1]).is_none());
}
