//! Stopping, resuming, prefixes and splits add up to the uninterrupted
//! count, node for node.

mod common;

use e2_shared::dlx::{count_puzzle, prefixes, resume, CoverReport, E2Cover, Hooks, Limits};
use e2_shared::model::Puzzle;
use e2_shared::rng::Rng;
use e2_shared::search::{Checkpoint, Control, Prefix, RunEnd};

fn whole(puzzle: &Puzzle) -> CoverReport {
    let r = count_puzzle(puzzle, &Vec::new(), &Limits::none(), Hooks::default()).unwrap();
    assert_eq!(r.end, RunEnd::Finished);
    r
}

fn through_json(checkpoint: &Checkpoint) -> Checkpoint {
    let json = serde_json::to_string(checkpoint).unwrap();
    serde_json::from_str(&json).unwrap()
}

#[test]
fn interrupted_counts_resume_to_the_same_total() {
    let Some(puzzle) = common::puzzle("brendan/s1_05x05.json") else {
        return;
    };
    let total = whole(&puzzle);
    assert_eq!(total.solutions, 16);
    let mut rng = Rng::new(0xC0FFEE);
    for _ in 0..5 {
        let budget = 1 + rng.below(total.nodes - 1);
        let part = count_puzzle(
            &puzzle,
            &Vec::new(),
            &Limits::nodes(budget),
            Hooks::default(),
        )
        .unwrap();
        assert_eq!(part.end, RunEnd::BudgetSpent);
        assert_eq!(part.nodes, budget);
        let checkpoint = through_json(part.checkpoint.as_ref().unwrap());
        assert_eq!(checkpoint.engine, e2_shared::engine::Engine::Dlx);
        let rest = resume(&puzzle, &checkpoint, &Limits::none(), Hooks::default()).unwrap();
        assert_eq!(rest.end, RunEnd::Finished);
        assert_eq!((rest.solutions, rest.nodes), (total.solutions, total.nodes));
    }
}

#[test]
fn a_count_chained_through_many_checkpoints_is_exact() {
    let Some(puzzle) = common::puzzle("brendan/s2_05x05.json") else {
        return;
    };
    let total = whole(&puzzle);
    let cover = E2Cover::new(&puzzle).unwrap();
    let step = Limits::nodes(total.nodes / 7 + 1);
    let mut report = cover.count(&Vec::new(), &step, Hooks::default()).unwrap();
    let mut legs = 1;
    while let Some(checkpoint) = report.checkpoint.take() {
        report = cover
            .resume(&through_json(&checkpoint), &step, Hooks::default())
            .unwrap();
        legs += 1;
    }
    assert_eq!(report.end, RunEnd::Finished);
    assert!(legs >= 7);
    assert_eq!(
        (report.solutions, report.nodes),
        (total.solutions, total.nodes)
    );
}

#[test]
fn periodic_checkpoints_each_resume_to_the_total() {
    let Some(puzzle) = common::puzzle("brendan/s1_04x04.json") else {
        return;
    };
    let total = whole(&puzzle);
    let mut taken = Vec::new();
    let mut keep = |c: Checkpoint| taken.push(c);
    let limits = Limits {
        checkpoint_every: Some(total.nodes / 5 + 1),
        ..Limits::none()
    };
    let hooks = Hooks {
        on_checkpoint: Some(&mut keep),
        ..Hooks::default()
    };
    let r = count_puzzle(&puzzle, &Vec::new(), &limits, hooks).unwrap();
    assert_eq!(r.solutions, total.solutions);
    assert!(taken.len() >= 4, "{} checkpoints", taken.len());
    for checkpoint in &taken {
        let rest = resume(&puzzle, checkpoint, &Limits::none(), Hooks::default()).unwrap();
        assert_eq!((rest.solutions, rest.nodes), (total.solutions, total.nodes));
    }
}

#[test]
fn stop_flag_and_solution_limit_leave_resumable_checkpoints() {
    let Some(puzzle) = common::puzzle("brendan/s1_04x04.json") else {
        return;
    };
    let total = whole(&puzzle);
    let control = Control::new();
    control.stop();
    let limits = Limits {
        poll_interval: 64,
        ..Limits::none()
    };
    let hooks = Hooks {
        control: Some(&control),
        ..Hooks::default()
    };
    let stopped = count_puzzle(&puzzle, &Vec::new(), &limits, hooks).unwrap();
    assert_eq!(stopped.end, RunEnd::Stopped);
    assert_eq!(stopped.nodes, 64);
    let rest = resume(
        &puzzle,
        stopped.checkpoint.as_ref().unwrap(),
        &Limits::none(),
        Hooks::default(),
    )
    .unwrap();
    assert_eq!((rest.solutions, rest.nodes), (total.solutions, total.nodes));

    let two = count_puzzle(
        &puzzle,
        &Vec::new(),
        &Limits::solutions(2),
        Hooks::default(),
    )
    .unwrap();
    assert_eq!((two.solutions, two.end), (2, RunEnd::FoundFirst));
    let rest = resume(
        &puzzle,
        two.checkpoint.as_ref().unwrap(),
        &Limits::none(),
        Hooks::default(),
    )
    .unwrap();
    assert_eq!((rest.solutions, rest.nodes), (total.solutions, total.nodes));
}

fn count_prefix(puzzle: &Puzzle, prefix: &Prefix) -> CoverReport {
    let r = count_puzzle(puzzle, prefix, &Limits::none(), Hooks::default()).unwrap();
    assert_eq!(r.end, RunEnd::Finished);
    r
}

#[test]
fn prefix_counts_add_up_to_the_whole_count() {
    for file in ["brendan/s1_04x04.json", "brendan/s1_05x05.json"] {
        let Some(puzzle) = common::puzzle(file) else {
            return;
        };
        let total = whole(&puzzle);
        for depth in 1..=3 {
            let subtasks = prefixes(&puzzle, depth).unwrap();
            assert!(subtasks.len() > 1, "{file} depth {depth}");
            assert!(subtasks.iter().all(|p| p.len() == depth));
            let sum: u64 = subtasks
                .iter()
                .map(|p| count_prefix(&puzzle, p).solutions)
                .sum();
            assert_eq!(sum, total.solutions, "{file} depth {depth}");
        }
    }
}

#[test]
fn infeasible_and_malformed_prefixes() {
    let Some(puzzle) = common::puzzle("brendan/s1_04x04.json") else {
        return;
    };
    use e2_shared::search::Forced;
    // Piece 12 is an interior piece: it cannot sit in a corner.
    let corner = vec![Forced {
        pos: 0,
        piece: 12,
        rot: 0,
    }];
    assert_eq!(count_prefix(&puzzle, &corner).solutions, 0);
    // The same cell twice.
    let first = prefixes(&puzzle, 1).unwrap()[0][0];
    let twice = vec![first, Forced { piece: 15, ..first }];
    assert_eq!(count_prefix(&puzzle, &twice).solutions, 0);
    let outside = vec![Forced {
        pos: 99,
        piece: 0,
        rot: 0,
    }];
    let e = count_puzzle(&puzzle, &outside, &Limits::none(), Hooks::default()).unwrap_err();
    assert!(e.to_string().contains("prefix placement 0"), "{e}");
}

/// Counts a list of subtasks, splitting none of them.
fn count_all(puzzle: &Puzzle, tasks: &[Prefix]) -> (u64, u64) {
    tasks.iter().fold((0, 0), |(s, n), p| {
        let r = count_prefix(puzzle, p);
        (s + r.solutions, n + r.nodes)
    })
}

#[test]
fn a_split_gives_away_work_it_never_searches() {
    let Some(puzzle) = common::puzzle("brendan/s1_05x05.json") else {
        return;
    };
    let total = whole(&puzzle);
    let control = Control::new();
    control.request_split();
    let limits = Limits {
        poll_interval: 64,
        ..Limits::none()
    };
    let hooks = Hooks {
        control: Some(&control),
        ..Hooks::default()
    };
    let kept = count_puzzle(&puzzle, &Vec::new(), &limits, hooks).unwrap();
    assert_eq!(kept.end, RunEnd::Finished);
    let donated = control.take_donated();
    assert!(!donated.is_empty());
    let (solutions, nodes) = count_all(&puzzle, &donated);
    assert_eq!(kept.solutions + solutions, total.solutions);
    // Each donated subtree's nodes were not visited by the kept run.
    assert_eq!(kept.nodes + nodes, total.nodes);
}

#[test]
fn repeated_splits_across_checkpoints_add_up() {
    let Some(puzzle) = common::puzzle("brendan/s1_05x05.json") else {
        return;
    };
    let total = whole(&puzzle);
    let cover = E2Cover::new(&puzzle).unwrap();
    let control = Control::new();
    let leg = Limits {
        // Short legs: each split gives most of what is left away.
        max_nodes: Some(100),
        poll_interval: 16,
        ..Limits::none()
    };
    let hooks = |c| Hooks {
        control: Some(c),
        ..Hooks::default()
    };
    control.request_split();
    let mut report = cover.count(&Vec::new(), &leg, hooks(&control)).unwrap();
    let mut donated = control.take_donated();
    let mut splits = 0;
    while let Some(checkpoint) = report.checkpoint.take() {
        control.request_split();
        report = cover
            .resume(&through_json(&checkpoint), &leg, hooks(&control))
            .unwrap();
        let more = control.take_donated();
        splits += !more.is_empty() as u32;
        donated.extend(more);
    }
    assert!(splits >= 3, "only {splits} splits happened");
    let (solutions, nodes) = count_all(&puzzle, &donated);
    assert_eq!(report.solutions + solutions, total.solutions);
    assert_eq!(report.nodes + nodes, total.nodes);
}
