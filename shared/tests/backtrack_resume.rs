//! Interrupting, resuming, splitting and prefix subtasks lose and duplicate
//! nothing: every way of cutting the work adds up to the whole count.

mod common;

use std::collections::HashSet;
use std::sync::Arc;

use e2_shared::backtrack::{prefixes, Backtracker, Limits};
use e2_shared::order::FillOrder;
use e2_shared::rng::Rng;
use e2_shared::search::{Checkpoint, Control, Prefix, RunEnd};

/// Counts a subtask to the end, however many interruptions it takes.
fn count_to_end(bt: &mut Backtracker, budget: Option<u64>) -> u64 {
    let limits = Limits {
        max_nodes: budget,
        ..Limits::default()
    };
    let mut report = bt.count(&limits);
    while let Some(cp) = report.checkpoint.take() {
        report = bt.resume(&cp, &limits, |_| {}).unwrap();
    }
    assert_eq!(report.end, RunEnd::Finished);
    report.solutions
}

#[test]
fn resuming_after_a_json_round_trip_gives_the_uninterrupted_count() {
    let Some(puzzle) = common::puzzle("brendan/s1_05x05.json") else {
        return;
    };
    let mut bt = Backtracker::new(&puzzle, FillOrder::RowMajor, &Prefix::new()).unwrap();
    let whole = bt.count(&Limits::default());
    assert_eq!(whole.solutions, 16);
    let mut rng = Rng::new(0x5eed);
    for _ in 0..5 {
        let budget = 1 + rng.below(whole.nodes - 1);
        let first = bt.count(&Limits {
            max_nodes: Some(budget),
            ..Limits::default()
        });
        assert_eq!(first.end, RunEnd::BudgetSpent);
        assert_eq!(first.nodes, budget);
        let cp = first.checkpoint.expect("a checkpoint on budget");
        let json = serde_json::to_string(&cp).unwrap();
        let cp: Checkpoint = serde_json::from_str(&json).unwrap();
        assert_eq!(cp.engine, e2_shared::engine::Engine::Backtrack);
        let mut fresh = Backtracker::new(&puzzle, FillOrder::RowMajor, &Prefix::new()).unwrap();
        let rest = fresh.resume(&cp, &Limits::default(), |_| {}).unwrap();
        assert_eq!(rest.end, RunEnd::Finished);
        assert_eq!((rest.solutions, rest.nodes), (whole.solutions, whole.nodes));
    }
}

#[test]
fn periodic_checkpoints_each_resume_to_the_same_total() {
    let Some(puzzle) = common::puzzle("brendan/s2_05x05.json") else {
        return;
    };
    let mut bt = Backtracker::new(&puzzle, FillOrder::SpiralIn, &Prefix::new()).unwrap();
    let mut taken = Vec::new();
    let limits = Limits {
        checkpoint_every: Some(50_000),
        ..Limits::default()
    };
    let whole = bt.count_with(&limits, |cp| taken.push(cp.clone()));
    assert!(taken.len() >= 3, "{} checkpoints", taken.len());
    for cp in taken.iter().step_by(taken.len() / 3) {
        let rest = bt.resume(cp, &Limits::default(), |_| {}).unwrap();
        assert_eq!((rest.solutions, rest.nodes), (whole.solutions, whole.nodes));
    }
}

#[test]
fn prefix_counts_sum_to_the_whole_count() {
    for (file, order) in [
        ("brendan/s1_05x05.json", FillOrder::RowMajor),
        ("brendan/s2_05x05.json", FillOrder::BorderFirst),
        ("brendan/s2_04x04.json", FillOrder::VerhaardComb),
    ] {
        let Some(puzzle) = common::puzzle(file) else {
            return;
        };
        let whole = Backtracker::new(&puzzle, order, &Prefix::new())
            .unwrap()
            .count(&Limits::default())
            .solutions;
        for depth in [1, 2, 3, 5] {
            let subtasks = prefixes(&puzzle, order, depth).unwrap();
            assert!(subtasks.iter().all(|p| p.len() == depth));
            let distinct: HashSet<&Prefix> = subtasks.iter().collect();
            assert_eq!(distinct.len(), subtasks.len());
            let sum: u64 = subtasks
                .iter()
                .map(|p| count_to_end(&mut Backtracker::new(&puzzle, order, p).unwrap(), None))
                .sum();
            assert_eq!(sum, whole, "{file} {order} depth {depth}");
        }
    }
}

#[test]
fn splitting_running_subtasks_loses_and_duplicates_nothing() {
    let Some(puzzle) = common::puzzle("brendan/s1_05x05.json") else {
        return;
    };
    let order = FillOrder::RowMajor;
    let whole = Backtracker::new(&puzzle, order, &Prefix::new())
        .unwrap()
        .count(&Limits::default());
    let mut queue: Vec<Prefix> = vec![Prefix::new()];
    let mut seen: HashSet<Prefix> = HashSet::new();
    let (mut solutions, mut nodes, mut tasks) = (0, 0, 0);
    let mut rng = Rng::new(7);
    while let Some(prefix) = queue.pop() {
        assert!(seen.insert(prefix.clone()), "prefix handed out twice");
        tasks += 1;
        let control = Control::new();
        // Ask for a split at the first poll, and again after each
        // checkpoint, so subtasks are cut at several depths.
        control.request_split();
        let requester = Arc::clone(&control);
        let limits = Limits {
            checkpoint_every: Some(2_000 + rng.below(4_000)),
            control: Some(&control),
            max_nodes: Some(15_000),
            ..Limits::default()
        };
        let mut bt = Backtracker::new(&puzzle, order, &prefix).unwrap();
        let mut report = bt.count_with(&limits, |_| requester.request_split());
        // Resume through the budget stops: given-away siblings must stay given away.
        while let Some(cp) = report.checkpoint.take() {
            let cp: Checkpoint =
                serde_json::from_str(&serde_json::to_string(&cp).unwrap()).unwrap();
            report = bt
                .resume(&cp, &limits, |_| requester.request_split())
                .unwrap();
        }
        solutions += report.solutions;
        nodes += report.nodes;
        queue.extend(control.take_donated());
    }
    eprintln!("{tasks} tasks, {nodes} of {} nodes", whole.nodes);
    assert!(
        tasks > 10,
        "only {tasks} subtasks: the test split too little"
    );
    assert_eq!(solutions, whole.solutions);
    // A donated sibling's subtree is visited by exactly one task; the forced
    // placements of a prefix are not nodes of its task, so the split run
    // visits fewer nodes, never more.
    assert!(nodes <= whole.nodes);
}

#[test]
fn a_stop_request_ends_with_a_checkpoint() {
    let Some(puzzle) = common::puzzle("brendan/s1_05x05.json") else {
        return;
    };
    let control = Control::new();
    control.stop();
    let mut bt = Backtracker::new(&puzzle, FillOrder::RowMajor, &Prefix::new()).unwrap();
    let limits = Limits {
        control: Some(&control),
        ..Limits::default()
    };
    let stopped = bt.count(&limits);
    assert_eq!(stopped.end, RunEnd::Stopped);
    let cp = stopped.checkpoint.expect("a checkpoint on stop");
    let rest = bt.resume(&cp, &Limits::default(), |_| {}).unwrap();
    assert_eq!(rest.solutions, 16);
}

#[test]
fn foreign_or_mismatched_checkpoints_are_refused() {
    let Some(puzzle) = common::puzzle("brendan/s1_04x04.json") else {
        return;
    };
    let mut bt = Backtracker::new(&puzzle, FillOrder::RowMajor, &Prefix::new()).unwrap();
    let cp = bt
        .count(&Limits {
            max_nodes: Some(10),
            ..Limits::default()
        })
        .checkpoint
        .unwrap();
    let dlx = Checkpoint {
        engine: e2_shared::engine::Engine::Dlx,
        ..cp.clone()
    };
    let e = bt
        .resume(&dlx, &Limits::default(), |_| {})
        .unwrap_err()
        .to_string();
    assert!(e.contains("\"dlx\""), "{e}");
    let mut other = prefixes(&puzzle, FillOrder::RowMajor, 1).unwrap().remove(0);
    let e = Backtracker::new(&puzzle, FillOrder::RowMajor, &other)
        .unwrap()
        .resume(&cp, &Limits::default(), |_| {})
        .unwrap_err()
        .to_string();
    assert!(e.contains("prefix"), "{e}");
    let bad_path = Checkpoint {
        path: vec![999],
        ..cp
    };
    let e = bt
        .resume(&bad_path, &Limits::default(), |_| {})
        .unwrap_err()
        .to_string();
    assert!(e.contains("level 0") && e.contains("999"), "{e}");
    other[0].pos = 99;
    let e = Backtracker::new(&puzzle, FillOrder::RowMajor, &other)
        .unwrap_err()
        .to_string();
    assert!(e.contains("prefix entry 0") && e.contains("outside"), "{e}");
}

#[test]
fn the_first_solution_is_a_perfect_board() {
    let Some(puzzle) = common::puzzle("brendan/s2_05x05.json") else {
        return;
    };
    let mut bt = Backtracker::new(&puzzle, FillOrder::SpiralIn, &Prefix::new()).unwrap();
    let report = bt.first_solution(&Limits::default());
    assert_eq!(report.end, RunEnd::FoundFirst);
    let board = report.board.expect("a board");
    assert!(board.is_full());
    assert_eq!(
        e2_shared::score::score(&board),
        e2_shared::score::max_score(5, 5)
    );
}
