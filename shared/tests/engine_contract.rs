//! The engine contract, checked once for every engine in [`Engine::ALL`].
//!
//! Everything here goes through `e2_shared::engine` only: an engine added
//! to `Engine::ALL` runs this whole suite with no change to this file.
//! The puzzles come from the in-repo generator, so the suite runs on any
//! clone. DLX visits a node far more slowly than the backtracker, so they
//! are kept to 5×5 and 6×6 boards that count in a fraction of a second.
//!
//! Counts are compared with the same engine's uninterrupted run of the same
//! subtree, solutions and nodes alike: every way of cutting the work
//! (budgets, periodic checkpoints, stops, prefixes, splits) must add up to it.

use std::collections::HashSet;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use e2_shared::engine::{
    Ask, BestLease, BestSearch, CountReport, Engine, Limits, Subtree, COUNT_ORDER,
};
use e2_shared::estimate::Probes;
use e2_shared::generator::{generate, GenSpec};
use e2_shared::layouts::Layout;
use e2_shared::model::Puzzle;
use e2_shared::order::FillOrder;
use e2_shared::rng::Rng;
use e2_shared::score::{max_score, score};
use e2_shared::search::{Checkpoint, Control, Forced, Prefix, RunEnd};

/// One puzzle of the suite.
struct Case {
    name: &'static str,
    puzzle: Puzzle,
    /// The engines that run it (a case sized for one engine's poll
    /// interval can take another far longer).
    engines: &'static [Engine],
    /// The engines for which it is long enough (in nodes) that a run polls
    /// its [`Control`] many times ([`Engine::poll_interval`]): the stop and
    /// split tests use only these.
    long: &'static [Engine],
}

const EVERY: &[Engine] = &Engine::ALL;

fn generated(
    name: &'static str,
    spec: GenSpec,
    engines: &'static [Engine],
    long: &'static [Engine],
) -> Case {
    let g = generate(&spec).unwrap_or_else(|e| panic!("{name}: {e}"));
    Case {
        name,
        puzzle: g.puzzle,
        engines,
        long,
    }
}

fn cases() -> Vec<Case> {
    let spec = |size, colours, border, layout, seed| GenSpec {
        colours: Some(colours),
        border_colours: Some(border),
        layout,
        ..GenSpec::square(size, seed)
    };
    let repeated = generated(
        "5x5 with repeated pieces",
        spec(5, 4, 1, Layout::None, 1),
        EVERY,
        EVERY,
    );
    let g = generate(&spec(5, 4, 1, Layout::None, 1)).unwrap();
    assert!(
        g.duplicate_pieces > 0,
        "the repeated-pieces case repeats none"
    );
    let six = spec(5, 6, 2, Layout::None, 2);
    assert_eq!(
        generate(&six).unwrap().duplicate_pieces,
        0,
        "the six-colour case must have distinct pieces, to run the open-node walk"
    );
    vec![
        generated(
            "5x5, no hints",
            spec(5, 7, 2, Layout::None, 1),
            EVERY,
            &[Engine::Dlx],
        ),
        generated(
            "6x6, official hints",
            spec(6, 7, 2, Layout::Official5, 1),
            EVERY,
            &[],
        ),
        repeated,
        // The backtracker's counting walk on distinct pieces (the open-node
        // walk) polls every `OPEN_POLL_INTERVAL` nodes: this tree is long
        // enough for it (about 1.2 M nodes), and ten times DLX's tree of
        // the seven-colour case, so DLX leaves it out.
        generated(
            "5x5, six colours",
            six,
            &[Engine::Backtrack],
            &[Engine::Backtrack],
        ),
    ]
}

fn root() -> Prefix {
    Prefix::new()
}

fn through_json(cp: &Checkpoint) -> Checkpoint {
    serde_json::from_str(&serde_json::to_string(cp).unwrap()).unwrap()
}

/// The uninterrupted count of `prefix`: the reference every test compares with.
fn whole(engine: Engine, puzzle: &Puzzle, prefix: &Prefix) -> CountReport {
    let r = engine
        .count(&Subtree::new(puzzle, prefix), None, &Limits::none(), |_| {})
        .unwrap();
    assert_eq!(r.end, RunEnd::Finished, "{engine}");
    assert!(
        r.checkpoint.is_none(),
        "{engine}: a finished run has no checkpoint"
    );
    r
}

/// Runs a subtree to its end, resuming through every budget stop.
fn to_end(engine: Engine, puzzle: &Puzzle, prefix: &Prefix, limits: &Limits<'_>) -> CountReport {
    let subtree = Subtree::new(puzzle, prefix);
    let mut report = engine.count(&subtree, None, limits, |_| {}).unwrap();
    while let Some(cp) = report.checkpoint.take() {
        report = engine
            .count(&subtree, Some(&through_json(&cp)), limits, |_| {})
            .unwrap();
    }
    assert_eq!(report.end, RunEnd::Finished);
    report
}

/// Runs `check` on every engine and case, naming them on failure.
fn every(check: impl Fn(Engine, &Case)) {
    for case in cases() {
        for &engine in case.engines {
            if engine.can(Ask::Count) {
                check(engine, &case);
            }
        }
    }
}

#[test]
fn resuming_a_json_checkpoint_from_a_random_point_gives_the_uninterrupted_count() {
    every(|engine, case| {
        let (puzzle, name) = (&case.puzzle, case.name);
        let total = whole(engine, puzzle, &root());
        assert!(
            total.solutions >= 1,
            "{engine} {name}: a generated puzzle has its solution"
        );
        assert!(total.nodes > 1, "{engine} {name}");
        let mut rng = Rng::new(0x5eed);
        for _ in 0..5 {
            let budget = 1 + rng.below(total.nodes - 1);
            let root = root();
            let subtree = Subtree::new(puzzle, &root);
            let part = engine
                .count(&subtree, None, &Limits::nodes(budget), |_| {})
                .unwrap();
            assert_eq!(part.end, RunEnd::BudgetSpent, "{engine} {name} at {budget}");
            assert_eq!(part.nodes, budget, "{engine} {name}");
            let cp = through_json(part.checkpoint.as_ref().expect("a checkpoint on budget"));
            assert_eq!(cp.engine, engine);
            assert_eq!((cp.solutions, cp.nodes), (part.solutions, part.nodes));
            let rest = engine
                .count(&subtree, Some(&cp), &Limits::none(), |_| {})
                .unwrap();
            assert_eq!(rest.end, RunEnd::Finished, "{engine} {name}");
            assert!(rest.checkpoint.is_none());
            assert_eq!(
                (rest.solutions, rest.nodes),
                (total.solutions, total.nodes),
                "{engine} {name} resumed at node {budget}"
            );
        }
        // Chained through many short legs, each resumed from JSON.
        let legs = Limits::nodes(total.nodes / 7 + 1);
        let chained = to_end(engine, puzzle, &root(), &legs);
        assert_eq!(
            (chained.solutions, chained.nodes),
            (total.solutions, total.nodes),
            "{engine} {name} in legs"
        );
    });
}

#[test]
fn every_periodic_checkpoint_resumes_to_the_same_total() {
    every(|engine, case| {
        let (puzzle, name) = (&case.puzzle, case.name);
        let total = whole(engine, puzzle, &root());
        let root = root();
        let subtree = Subtree::new(puzzle, &root);
        let limits = Limits {
            checkpoint_every: Some(total.nodes / 5 + 1),
            ..Limits::none()
        };
        let mut taken = Vec::new();
        let run = engine
            .count(&subtree, None, &limits, |cp| taken.push(through_json(cp)))
            .unwrap();
        assert_eq!(
            (run.end, run.solutions, run.nodes),
            (RunEnd::Finished, total.solutions, total.nodes),
            "{engine} {name}: periodic checkpoints change nothing"
        );
        assert!(
            taken.len() >= 4,
            "{engine} {name}: {} checkpoints",
            taken.len()
        );
        assert!(
            taken.windows(2).all(|w| w[0].nodes < w[1].nodes),
            "{engine} {name}: checkpoints move forward"
        );
        for cp in &taken {
            assert_eq!(cp.engine, engine);
            let rest = engine
                .count(&subtree, Some(cp), &Limits::none(), |_| {})
                .unwrap();
            assert_eq!(
                (rest.solutions, rest.nodes),
                (total.solutions, total.nodes),
                "{engine} {name} from the checkpoint at node {}",
                cp.nodes
            );
        }
    });
}

#[test]
fn prefix_counts_at_several_depths_sum_to_the_whole() {
    every(|engine, case| {
        let (puzzle, name) = (&case.puzzle, case.name);
        // Engines that walk fill orders are cut under every one; the
        // others pick their own order and ignore the subtree's.
        let orders: &[FillOrder] = if engine.capabilities().fill_orders {
            &FillOrder::ALL
        } else {
            &[COUNT_ORDER]
        };
        for &order in orders {
            let total = engine
                .count(
                    &Subtree::new(puzzle, &root()).with_order(order),
                    None,
                    &Limits::none(),
                    |_| {},
                )
                .unwrap();
            let free = puzzle.width * puzzle.height - puzzle.hints.len();
            for depth in [1, 2, 3, free + 5] {
                let subtasks = engine.prefixes(puzzle, order, depth).unwrap();
                let at = format!("{engine} {name} {order} depth {depth}");
                assert!(!subtasks.is_empty(), "{at}");
                if depth < free {
                    assert!(subtasks.iter().all(|p| p.len() == depth), "{at}");
                } else {
                    // Clamped: each prefix is one whole board.
                    assert_eq!(subtasks.len() as u64, total.solutions, "{at}");
                }
                let distinct: HashSet<&Prefix> = subtasks.iter().collect();
                assert_eq!(distinct.len(), subtasks.len(), "{at}: a prefix twice");
                let sum: u64 = subtasks
                    .iter()
                    .map(|p| {
                        engine
                            .count(
                                &Subtree::new(puzzle, p).with_order(order),
                                None,
                                &Limits::none(),
                                |_| {},
                            )
                            .unwrap()
                            .solutions
                    })
                    .sum();
                assert_eq!(sum, total.solutions, "{at}");
            }
        }
    });
}

/// Every long case, for the tests that need a run to poll its control.
fn every_long(check: impl Fn(Engine, &Case, &CountReport)) {
    every(|engine, case| {
        if !case.long.contains(&engine) {
            return;
        }
        let total = whole(engine, &case.puzzle, &root());
        // The interval is the longest the engine goes without polling (a
        // walk may poll more often): past twice that, every run from the
        // root polls at least twice.
        assert!(
            total.nodes > 2 * engine.poll_interval(),
            "{engine} {}: {} nodes is too few to poll the control",
            case.name,
            total.nodes
        );
        check(engine, case, &total);
    });
}

#[test]
fn splits_requested_at_every_checkpoint_lose_and_duplicate_nothing() {
    every_long(|engine, case, total| {
        let (puzzle, name) = (&case.puzzle, case.name);
        let mut queue: Vec<Prefix> = vec![root()];
        let mut seen: HashSet<Prefix> = HashSet::new();
        let (mut solutions, mut nodes, mut tasks) = (0, 0, 0);
        let mut rng = Rng::new(7);
        while let Some(prefix) = queue.pop() {
            assert!(
                seen.insert(prefix.clone()),
                "{engine} {name}: a prefix handed out twice"
            );
            tasks += 1;
            let control = Control::new();
            let poll = engine.poll_interval();
            // Ask at the first poll and after each checkpoint, so that
            // subtasks are cut at several depths.
            control.request_split();
            let limits = Limits {
                max_nodes: Some(3 * poll),
                checkpoint_every: Some(poll + rng.below(poll)),
                control: Some(&control),
            };
            let subtree = Subtree::new(puzzle, &prefix);
            let mut report = engine
                .count(&subtree, None, &limits, |_| control.request_split())
                .unwrap();
            // Resumed through the budget stops: what was given away stays given away.
            while let Some(cp) = report.checkpoint.take() {
                report = engine
                    .count(&subtree, Some(&through_json(&cp)), &limits, |_| {
                        control.request_split()
                    })
                    .unwrap();
            }
            assert_eq!(report.end, RunEnd::Finished);
            solutions += report.solutions;
            nodes += report.nodes;
            queue.extend(control.take_donated());
        }
        assert!(
            tasks > 3,
            "{engine} {name}: only {tasks} subtasks, the test split too little"
        );
        assert_eq!(
            solutions, total.solutions,
            "{engine} {name} over {tasks} subtasks"
        );
        // A donated subtree is searched by exactly one task, and the
        // placement that starts it is counted by the task that gave it
        // away: exactly the nodes of the whole run.
        assert_eq!(
            nodes, total.nodes,
            "{engine} {name}: {nodes} of {} nodes",
            total.nodes
        );
    });
}

#[test]
fn a_split_requested_from_another_thread_gives_away_work_never_searched() {
    every_long(|engine, case, total| {
        let (puzzle, name) = (&case.puzzle, case.name);
        let control = Control::new();
        let done = Arc::new(AtomicBool::new(false));
        // The first request is there before the run starts, so at least the
        // first poll splits; the rest arrive while it runs.
        control.request_split();
        let requester = {
            let (control, done) = (Arc::clone(&control), Arc::clone(&done));
            std::thread::spawn(move || {
                while !done.load(Ordering::Relaxed) {
                    control.request_split();
                    std::thread::sleep(std::time::Duration::from_millis(2));
                }
            })
        };
        let root = root();
        let kept = engine
            .count(
                &Subtree::new(puzzle, &root),
                None,
                &Limits::none().with_control(&control),
                |_| {},
            )
            .unwrap();
        done.store(true, Ordering::Relaxed);
        requester.join().unwrap();
        assert_eq!(kept.end, RunEnd::Finished);
        let donated = control.take_donated();
        assert!(
            !donated.is_empty(),
            "{engine} {name}: nothing was given away"
        );
        let distinct: HashSet<&Prefix> = donated.iter().collect();
        assert_eq!(
            distinct.len(),
            donated.len(),
            "{engine} {name}: a prefix given twice"
        );
        let (solutions, nodes) = donated.iter().fold((0, 0), |(s, n), p| {
            let r = whole(engine, puzzle, p);
            (s + r.solutions, n + r.nodes)
        });
        assert_eq!(
            kept.solutions + solutions,
            total.solutions,
            "{engine} {name}: kept plus {} donated",
            donated.len()
        );
        assert!(kept.nodes + nodes <= total.nodes, "{engine} {name}");
        assert!(
            kept.nodes < total.nodes,
            "{engine} {name}: the split gave nothing away"
        );
    });
}

#[test]
fn a_stop_ends_with_a_checkpoint_that_resumes_to_the_total() {
    every_long(|engine, case, total| {
        let (puzzle, name) = (&case.puzzle, case.name);
        let root = root();
        let subtree = Subtree::new(puzzle, &root);
        // Stopped before it starts, then again and again on resume: each
        // leg moves forward by at least one poll, and the sum is exact.
        let mut resume: Option<Checkpoint> = None;
        let mut stops = 0;
        loop {
            let control = Control::new();
            control.stop();
            let limits = Limits::none().with_control(&control);
            let r = engine
                .count(&subtree, resume.as_ref(), &limits, |_| {})
                .unwrap();
            match r.end {
                RunEnd::Stopped => {
                    let cp = through_json(r.checkpoint.as_ref().expect("a checkpoint on stop"));
                    assert!(cp.nodes < total.nodes, "{engine} {name}");
                    assert!(
                        resume.as_ref().is_none_or(|before| before.nodes < cp.nodes),
                        "{engine} {name}: a stopped leg made no progress"
                    );
                    resume = Some(cp);
                    stops += 1;
                }
                RunEnd::Finished => {
                    assert_eq!(
                        (r.solutions, r.nodes),
                        (total.solutions, total.nodes),
                        "{engine} {name} after {stops} stops"
                    );
                    break;
                }
                other => panic!("{engine} {name}: a count ended {other:?}"),
            }
        }
        assert!(stops >= 2, "{engine} {name}: only {stops} stops");
    });
}

#[test]
fn a_checkpoint_of_another_engine_or_another_subtree_is_refused() {
    let case = &cases()[0];
    let puzzle = &case.puzzle;
    let root = root();
    for taker in Engine::ALL {
        let cp = engine_checkpoint(taker, puzzle, &root);
        for other in Engine::ALL.into_iter().filter(|&e| e != taker) {
            let e = other
                .count(
                    &Subtree::new(puzzle, &root),
                    Some(&cp),
                    &Limits::none(),
                    |_| {},
                )
                .expect_err("a checkpoint of another engine must be refused")
                .to_string();
            assert!(e.contains(taker.name()), "{other} refusing {taker}: {e}");
        }
        // A checkpoint of the whole tree does not resume a subtask, nor a
        // subtask's checkpoint another subtask. (A checkpoint deeper than
        // its subtree is what a split leaves, and resumes: see the split
        // tests.)
        let subtasks = taker.prefixes(puzzle, COUNT_ORDER, 1).unwrap();
        assert!(subtasks.len() >= 2);
        let sub = engine_checkpoint(taker, puzzle, &subtasks[0]);
        for (prefix, cp) in [(&subtasks[0], &cp), (&subtasks[1], &sub)] {
            let e = taker
                .count(
                    &Subtree::new(puzzle, prefix),
                    Some(cp),
                    &Limits::none(),
                    |_| {},
                )
                .expect_err("a checkpoint from outside the subtree must be refused")
                .to_string();
            assert!(e.contains("prefix"), "{taker}: {e}");
        }
        // A prefix that is no placement of this puzzle.
        let outside: Prefix = vec![Forced {
            pos: puzzle.width * puzzle.height + 7,
            piece: 0,
            rot: 0,
        }];
        let foreign = Checkpoint {
            prefix: outside.clone(),
            ..cp.clone()
        };
        assert!(
            taker
                .count(
                    &Subtree::new(puzzle, &outside),
                    Some(&foreign),
                    &Limits::none(),
                    |_| {}
                )
                .is_err(),
            "{taker}: a prefix off the board"
        );
        assert!(
            taker
                .count(
                    &Subtree::new(puzzle, &outside),
                    None,
                    &Limits::none(),
                    |_| {}
                )
                .is_err(),
            "{taker}: a prefix off the board"
        );
    }
}

/// A checkpoint part way through `prefix`'s subtree.
fn engine_checkpoint(engine: Engine, puzzle: &Puzzle, prefix: &Prefix) -> Checkpoint {
    let total = whole(engine, puzzle, prefix);
    let r = engine
        .count(
            &Subtree::new(puzzle, prefix),
            None,
            &Limits::nodes(total.nodes / 2),
            |_| {},
        )
        .unwrap();
    assert_eq!(r.end, RunEnd::BudgetSpent, "{engine}");
    r.checkpoint.expect("a checkpoint on budget")
}

#[test]
fn the_first_solution_is_a_perfect_board_honouring_the_hints() {
    for case in cases() {
        let puzzle = &case.puzzle;
        for &engine in case.engines.iter().filter(|e| e.can(Ask::First)) {
            let root = root();
            let report = engine
                .first(&Subtree::new(puzzle, &root), &Limits::none())
                .unwrap();
            let at = format!("{engine} {}", case.name);
            assert_eq!(report.end, RunEnd::FoundFirst, "{at}");
            let board = report.board.expect("a generated puzzle has a board");
            assert!(board.is_full(), "{at}");
            assert_eq!(
                score(&board),
                max_score(puzzle.width, puzzle.height),
                "{at}"
            );
            let (_, broken) = board.check_hints(puzzle);
            assert!(broken.is_empty(), "{at}: hints {broken:?} broken");
            assert!(report.nodes >= 1, "{at}");
        }
    }
}

/// Each engine's estimate is of its own tree, in its own nodes: within
/// 1.5× of the nodes its uninterrupted count reports, on the whole tree and,
/// for sets of distinct pieces, below a prefix. (DLX lists every copy of a
/// repeated piece as its own option, most of them killed a few levels on
/// by the copies' order, so its probes spread widely there: 0.54–1.51× of
/// a prefix's count over five seeds of 100 000 probes on this suite's
/// repeated-pieces case. The root's estimate holds either way.)
#[test]
fn every_engine_estimates_the_tree_its_count_walks() {
    let config = Probes {
        probes: 20_000,
        seed: 5,
    };
    every(|engine, case| {
        let (puzzle, name) = (&case.puzzle, case.name);
        let root = root();
        let below = engine.prefixes(puzzle, COUNT_ORDER, 2).unwrap();
        let mut subtrees = vec![&root];
        if puzzle.validate().is_ok() {
            subtrees.push(&below[below.len() / 2]);
        }
        for prefix in subtrees {
            let real = whole(engine, puzzle, prefix).nodes as f64;
            let guess = engine
                .estimate(&Subtree::new(puzzle, prefix), &config)
                .unwrap_or_else(|e| panic!("{engine} {name}: {e}"))
                .nodes;
            let ratio = guess / real;
            assert!(
                (1.0 / 1.5..=1.5).contains(&ratio),
                "{engine} {name}, prefix {prefix:?}: estimated {guess:.0}, counted {real}"
            );
        }
    });
}

#[test]
fn best_is_an_error_exactly_on_engines_that_cannot_score() {
    let case = &cases()[1];
    let root = root();
    let subtree = Subtree::new(&case.puzzle, &root);
    let lease = BestLease {
        seed: 1,
        budget: 10_000,
        beat: 0,
    };
    for engine in Engine::ALL {
        let mut improved = 0;
        let run = engine.best(&subtree, &BestSearch::default(), lease, None, |_| {
            improved += 1
        });
        if engine.can(Ask::Best) {
            let report = run.unwrap_or_else(|e| panic!("{engine}: {e}"));
            assert!(improved >= 1, "{engine}: no board was reported");
            let board = report.board.expect("a best board");
            assert_eq!(score(&board), report.score, "{engine}");
            assert!(board.check_hints(&case.puzzle).1.is_empty(), "{engine}");
        } else {
            let e = run
                .expect_err("an engine that cannot score must refuse")
                .to_string();
            assert!(engine.require(Ask::Best).is_err());
            assert!(
                e.contains(engine.name()) && !e.contains('\n'),
                "{engine}: {e}"
            );
            assert_eq!(improved, 0, "{engine}");
        }
    }
}
