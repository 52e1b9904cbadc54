//! The task protocol on a logical clock: every test drives the machine by
//! hand, a tick per millisecond where time matters, and checks the exact
//! actions and the instants they come at.

use super::*;
use e2_shared::engine::Engine;
use e2_shared::search::Forced;

mod ending;

fn ms(n: u64) -> Duration {
    Duration::from_millis(n)
}

/// Heartbeat 100 ms, slices of 1 s, splits settle for 30 ms, 10 s grace.
fn timings() -> Timings {
    Timings {
        heartbeat: ms(100),
        checkpoint: ms(1_000),
        split_settle: ms(30),
        release_grace: ms(10_000),
    }
}

fn checkpoint(nodes: u64, solutions: u64) -> Checkpoint {
    Checkpoint {
        engine: Engine::Backtrack,
        prefix: Vec::new(),
        path: vec![nodes as u32, 1],
        solutions,
        nodes,
    }
}

fn prefix(pos: usize) -> Prefix {
    vec![Forced {
        pos,
        piece: pos,
        rot: 1,
    }]
}

fn board(score: u32) -> FoundBoard {
    FoundBoard {
        codes: vec![score as i32, -1],
        claimed_score: score,
    }
}

/// A count run the machine stopped, at `checkpoint`.
fn stopped(checkpoint: Checkpoint, donated: Vec<Prefix>) -> Result<EngineRun, String> {
    Ok(EngineRun {
        nodes: checkpoint.nodes,
        solutions: checkpoint.solutions,
        end: RunEnd::Stopped,
        checkpoint: Some(checkpoint),
        donated,
    })
}

/// A count run that searched its whole subtree.
fn finished(nodes: u64, solutions: u64, donated: Vec<Prefix>) -> Result<EngineRun, String> {
    Ok(EngineRun {
        nodes,
        solutions,
        end: RunEnd::Finished,
        checkpoint: None,
        donated,
    })
}

/// A best run that spent its budget.
fn best_run(nodes: u64) -> Result<EngineRun, String> {
    Ok(EngineRun {
        nodes,
        solutions: 0,
        end: RunEnd::BudgetSpent,
        checkpoint: None,
        donated: Vec::new(),
    })
}

fn heartbeat(keep_going: bool, split_wanted: bool) -> Answer {
    Answer::Heartbeat {
        keep_going,
        split_wanted,
        deadline_unix_ms: 0,
    }
}

const KEEP_GOING: Answer = Answer::Heartbeat {
    keep_going: true,
    split_wanted: false,
    deadline_unix_ms: 0,
};
const SPLIT_WANTED: Answer = Answer::Heartbeat {
    keep_going: true,
    split_wanted: true,
    deadline_unix_ms: 0,
};
const LEASE_LOST: Answer = Answer::Heartbeat {
    keep_going: false,
    split_wanted: false,
    deadline_unix_ms: 0,
};

/// Ticks every millisecond of `from..=to`, answering each keep-alive at
/// once with `answer`; every action, with the millisecond it came at.
fn run(m: &mut TaskMachine, from: u64, to: u64, answer: Answer) -> Vec<(u64, Action)> {
    let mut log = Vec::new();
    for t in from..=to {
        for action in m.on(ms(t), Event::Tick) {
            let keep_alive = matches!(action, Action::KeepAlive { .. });
            log.push((t, action));
            if keep_alive {
                log.extend(
                    m.on(ms(t), Event::Answer(answer))
                        .into_iter()
                        .map(|a| (t, a)),
                );
            }
        }
    }
    log
}

/// The instants of the keep-alives in `log`; panics on any other action.
fn keep_alive_times(log: &[(u64, Action)]) -> Vec<u64> {
    log.iter()
        .map(|(t, a)| match a {
            Action::KeepAlive { .. } => *t,
            other => panic!("at {t} ms: unexpected {other:?}"),
        })
        .collect()
}

fn every(step: u64, from: u64, to: u64) -> Vec<u64> {
    (from..=to).step_by(step as usize).collect()
}

fn count_task() -> TaskMachine {
    let mut m = TaskMachine::count(timings(), None, 0);
    assert_eq!(m.start(ms(0)), [Action::StartEngine { resume: None }]);
    m
}

// ------------------------------------------------------------ heartbeats

#[test]
fn a_keep_alive_goes_out_every_heartbeat_interval_and_never_between() {
    let cp = checkpoint(7_000, 3);
    let mut m = TaskMachine::count(timings(), Some(cp.clone()), 0);
    assert_eq!(
        m.start(ms(0)),
        [Action::StartEngine {
            resume: Some(cp.clone())
        }]
    );
    let log = run(&mut m, 0, 999, KEEP_GOING);
    assert_eq!(keep_alive_times(&log), every(100, 100, 900));
    // Keep-alives report the progress of the checkpoint the slice resumed
    // from (the coordinator counts only what is checkpointed).
    for (_, action) in &log {
        assert_eq!(
            *action,
            Action::KeepAlive {
                nodes: 7_000,
                solutions: 3,
                boards: Vec::new()
            }
        );
    }
}

#[test]
fn an_unanswered_keep_alive_is_tried_again_one_interval_after_it_went_out() {
    let mut m = count_task();
    assert!(run(&mut m, 0, 99, KEEP_GOING).is_empty());
    assert!(matches!(
        &m.on(ms(100), Event::Tick)[..],
        [Action::KeepAlive { .. }]
    ));
    assert!(m.on(ms(150), Event::Answer(Answer::Unanswered)).is_empty());
    let log = run(&mut m, 151, 350, Answer::Unanswered);
    assert_eq!(keep_alive_times(&log), [200, 300]);
}

#[test]
fn a_keep_alive_in_flight_holds_back_the_slice_and_the_engine_end() {
    let mut m = count_task();
    run(&mut m, 0, 99, KEEP_GOING);
    assert!(matches!(
        &m.on(ms(100), Event::Tick)[..],
        [Action::KeepAlive { .. }]
    ));
    // Waiting: no second keep-alive, and no slice stop past the interval.
    assert!(run(&mut m, 101, 1_500, KEEP_GOING).is_empty());
    // The engine's end waits for the answer, then is reported.
    let cp = checkpoint(40, 0);
    assert!(m
        .on(
            ms(1_500),
            Event::EngineEnded(stopped(cp.clone(), Vec::new()))
        )
        .is_empty());
    match &m.on(ms(1_600), Event::Answer(KEEP_GOING))[..] {
        [Action::Report(r)] => assert_eq!(r.checkpoint, Some(cp)),
        other => panic!("{other:?}"),
    }
}

// ------------------------------------------------------------- slicing

#[test]
fn a_slice_stops_at_the_checkpoint_interval_and_resumes_from_its_checkpoint() {
    let mut m = count_task();
    let log = run(&mut m, 0, 1_000, KEEP_GOING);
    let (last, keep_alives) = log.split_last().unwrap();
    assert_eq!(*last, (1_000, Action::StopEngine(StopReason::Slice)));
    assert_eq!(keep_alive_times(keep_alives), every(100, 100, 900));
    // Stopping: nothing more until the engine returns.
    assert!(run(&mut m, 1_001, 1_100, KEEP_GOING).is_empty());

    let cp = checkpoint(500, 4);
    assert_eq!(
        m.on(
            ms(1_105),
            Event::EngineEnded(stopped(cp.clone(), Vec::new()))
        ),
        [Action::Report(Report {
            nodes: 500,
            solutions: 4,
            checkpoint: Some(cp.clone()),
            split: None,
            boards: Vec::new(),
            release: false,
        })]
    );
    // Waiting for the report: no keep-alive, no engine.
    assert!(run(&mut m, 1_106, 1_199, KEEP_GOING).is_empty());
    let answer = Answer::Heartbeat {
        keep_going: true,
        split_wanted: false,
        deadline_unix_ms: 42,
    };
    assert_eq!(
        m.on(ms(1_200), Event::Answer(answer)),
        [
            Action::ExtendLease {
                deadline_unix_ms: 42
            },
            Action::StartEngine {
                resume: Some(cp.clone())
            },
        ]
    );

    // The next slice is timed from its own start and reports its checkpoint.
    let log = run(&mut m, 1_201, 2_200, KEEP_GOING);
    let (last, keep_alives) = log.split_last().unwrap();
    assert_eq!(*last, (2_200, Action::StopEngine(StopReason::Slice)));
    assert_eq!(keep_alive_times(keep_alives), every(100, 1_300, 2_100));
    assert!(keep_alives.iter().all(|(_, a)| matches!(
        a,
        Action::KeepAlive {
            nodes: 500,
            solutions: 4,
            ..
        }
    )));
    let cp2 = checkpoint(1_100, 9);
    match &m.on(
        ms(2_210),
        Event::EngineEnded(stopped(cp2.clone(), Vec::new())),
    )[..]
    {
        [Action::Report(r)] => {
            assert_eq!((r.nodes, r.solutions), (1_100, 9));
            assert_eq!(r.checkpoint, Some(cp2));
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn a_checkpoint_report_refused_abandons_the_task() {
    let mut m = count_task();
    run(&mut m, 0, 1_000, KEEP_GOING);
    m.on(
        ms(1_001),
        Event::EngineEnded(stopped(checkpoint(5, 0), Vec::new())),
    );
    assert_eq!(
        m.on(ms(1_002), Event::Answer(LEASE_LOST)),
        [Action::Done(Outcome::Abandoned)]
    );
    assert_eq!(m.outcome(), Some(Outcome::Abandoned));
}

#[test]
fn new_timings_apply_from_the_next_slice() {
    let mut m = count_task();
    m.retime(Timings {
        heartbeat: ms(50),
        checkpoint: ms(300),
        ..timings()
    });
    let log = run(&mut m, 0, 1_000, KEEP_GOING);
    assert_eq!(log.last().unwrap().0, 1_000, "this slice keeps its timings");
    m.on(
        ms(1_001),
        Event::EngineEnded(stopped(checkpoint(5, 0), Vec::new())),
    );
    m.on(ms(1_001), Event::Answer(KEEP_GOING));
    let log = run(&mut m, 1_002, 1_301, KEEP_GOING);
    let (last, keep_alives) = log.split_last().unwrap();
    assert_eq!(*last, (1_301, Action::StopEngine(StopReason::Slice)));
    assert_eq!(keep_alive_times(keep_alives), every(50, 1_051, 1_251));
}

// ------------------------------------------------------------ lease loss

#[test]
fn a_lost_lease_stops_the_engine_and_sends_nothing_more() {
    let mut m = count_task();
    assert_eq!(
        run(&mut m, 0, 100, LEASE_LOST),
        [
            (
                100,
                Action::KeepAlive {
                    nodes: 0,
                    solutions: 0,
                    boards: Vec::new()
                }
            ),
            (100, Action::StopEngine(StopReason::LeaseLost)),
        ]
    );
    assert!(run(&mut m, 101, 3_000, KEEP_GOING).is_empty());
    assert_eq!(
        m.on(
            ms(3_001),
            Event::EngineEnded(stopped(checkpoint(9, 1), vec![prefix(3)]))
        ),
        [Action::Done(Outcome::Abandoned)]
    );
    assert_eq!(m.outcome(), Some(Outcome::Abandoned));
    assert!(run(&mut m, 3_002, 5_000, KEEP_GOING).is_empty());
    assert!(m.on(ms(5_001), Event::Shutdown).is_empty());
    assert!(m.on(ms(5_002), Event::Answer(KEEP_GOING)).is_empty());
}

#[test]
fn a_count_that_finished_as_its_lease_was_lost_still_offers_its_completion() {
    let mut m = count_task();
    run(&mut m, 0, 100, LEASE_LOST);
    // The coordinator decides whether it still counts.
    assert!(matches!(
        &m.on(ms(110), Event::EngineEnded(finished(10, 1, Vec::new())))[..],
        [Action::Complete(_)]
    ));
}

// --------------------------------------------------------------- splits

#[test]
fn a_split_is_asked_once_and_the_slice_stops_after_the_settle_time() {
    let t = Timings {
        heartbeat: ms(10),
        ..timings()
    };
    let mut m = TaskMachine::count(t, Some(checkpoint(10, 1)), 4);
    m.start(ms(0));
    assert!(run(&mut m, 0, 9, SPLIT_WANTED).is_empty());
    assert!(matches!(
        &m.on(ms(10), Event::Tick)[..],
        [Action::KeepAlive { .. }]
    ));
    assert_eq!(
        m.on(ms(10), Event::Answer(SPLIT_WANTED)),
        [Action::RequestSplit]
    );
    // More split requests while it settles are not passed on again.
    let log = run(&mut m, 11, 40, SPLIT_WANTED);
    let (last, keep_alives) = log.split_last().unwrap();
    assert_eq!(keep_alive_times(keep_alives), [20, 30]);
    assert_eq!(*last, (40, Action::StopEngine(StopReason::Slice)));

    // The donation travels with the checkpoint that excludes it.
    let cp = checkpoint(90, 2);
    assert_eq!(
        m.on(
            ms(45),
            Event::EngineEnded(stopped(cp.clone(), vec![prefix(1), prefix(2)]))
        ),
        [Action::Report(Report {
            nodes: 90,
            solutions: 2,
            checkpoint: Some(cp.clone()),
            split: Some(Split {
                seq: 5,
                prefixes: vec![prefix(1), prefix(2)],
            }),
            boards: Vec::new(),
            release: false,
        })]
    );
    assert_eq!(
        m.on(ms(50), Event::Answer(KEEP_GOING))[1],
        Action::StartEngine { resume: Some(cp) }
    );

    // The next slice may split again, with the next number.
    let log = run(&mut m, 51, 60, SPLIT_WANTED);
    assert_eq!(
        log.iter().map(|(_, a)| a.clone()).collect::<Vec<_>>()[1],
        Action::RequestSplit
    );
    assert_eq!(
        run(&mut m, 61, 90, SPLIT_WANTED).last().unwrap(),
        &(90, Action::StopEngine(StopReason::Slice))
    );
    match &m.on(
        ms(91),
        Event::EngineEnded(stopped(checkpoint(99, 2), vec![prefix(7)])),
    )[..]
    {
        [Action::Report(r)] => assert_eq!(r.split.as_ref().map(|s| s.seq), Some(6)),
        other => panic!("{other:?}"),
    }
}

#[test]
fn the_settle_time_runs_from_the_answer_that_asked_for_the_split() {
    let mut m = count_task();
    let log = run(&mut m, 0, 130, SPLIT_WANTED);
    assert_eq!(
        log,
        [
            (
                100,
                Action::KeepAlive {
                    nodes: 0,
                    solutions: 0,
                    boards: Vec::new()
                }
            ),
            (100, Action::RequestSplit),
            (130, Action::StopEngine(StopReason::Slice)),
        ]
    );
}

#[test]
fn a_split_that_gave_nothing_reports_the_checkpoint_alone() {
    let mut m = TaskMachine::count(timings(), None, 4);
    m.start(ms(0));
    run(&mut m, 0, 130, SPLIT_WANTED);
    match &m.on(
        ms(131),
        Event::EngineEnded(stopped(checkpoint(3, 0), Vec::new())),
    )[..]
    {
        [Action::Report(r)] => assert_eq!(r.split, None),
        other => panic!("{other:?}"),
    }
}
