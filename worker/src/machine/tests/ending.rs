//! How tasks end: shutdown and release, completion, failure, and best
//! tasks from start to end.

use super::*;

// ------------------------------------------------------------- shutdown

/// A count task shut down at 250 ms, whose engine stopped at 260 ms at
/// `checkpoint(300, 5)`; returns the machine waiting for the release.
fn released_at_260() -> TaskMachine {
    let mut m = count_task();
    run(&mut m, 0, 249, KEEP_GOING);
    assert!(m.on(ms(250), Event::Shutdown).is_empty());
    assert_eq!(
        m.on(ms(250), Event::Tick),
        [Action::StopEngine(StopReason::Shutdown)]
    );
    assert!(run(&mut m, 251, 259, KEEP_GOING).is_empty());
    let cp = checkpoint(300, 5);
    assert_eq!(
        m.on(ms(260), Event::EngineEnded(stopped(cp.clone(), Vec::new()))),
        [Action::Report(Report {
            nodes: 300,
            solutions: 5,
            checkpoint: Some(cp),
            split: None,
            boards: Vec::new(),
            release: true,
        })]
    );
    m
}

#[test]
fn shutdown_stops_the_engine_and_releases_the_task_with_its_checkpoint() {
    let mut m = released_at_260();
    assert!(run(&mut m, 261, 9_000, KEEP_GOING).is_empty());
    assert_eq!(
        m.on(ms(9_000), Event::Answer(KEEP_GOING)),
        [Action::Done(Outcome::Released)]
    );
    assert_eq!(m.outcome(), Some(Outcome::Released));
}

#[test]
fn a_release_answered_without_keep_going_is_still_released() {
    let mut m = released_at_260();
    assert_eq!(
        m.on(ms(300), Event::Answer(LEASE_LOST)),
        [Action::Done(Outcome::Released)]
    );
}

#[test]
fn a_release_not_delivered_within_the_grace_is_abandoned() {
    let mut m = released_at_260();
    assert!(run(&mut m, 261, 10_259, KEEP_GOING).is_empty());
    assert_eq!(
        m.on(ms(10_260), Event::Tick),
        [Action::AbandonCall, Action::Done(Outcome::Abandoned)]
    );
    assert!(m.on(ms(10_261), Event::Answer(KEEP_GOING)).is_empty());
    assert_eq!(m.outcome(), Some(Outcome::Abandoned));
}

#[test]
fn shutdown_cancels_a_keep_alive_in_flight() {
    let mut m = count_task();
    run(&mut m, 0, 99, KEEP_GOING);
    assert!(matches!(
        &m.on(ms(100), Event::Tick)[..],
        [Action::KeepAlive { .. }]
    ));
    assert_eq!(m.on(ms(120), Event::Shutdown), [Action::AbandonCall]);
    assert_eq!(
        m.on(ms(120), Event::Tick),
        [Action::StopEngine(StopReason::Shutdown)]
    );
}

#[test]
fn shutdown_during_a_slice_stop_turns_the_checkpoint_into_a_release() {
    let mut m = count_task();
    run(&mut m, 0, 1_000, KEEP_GOING);
    assert!(m.on(ms(1_001), Event::Shutdown).is_empty());
    assert!(m.on(ms(1_001), Event::Tick).is_empty(), "already stopping");
    match &m.on(
        ms(1_002),
        Event::EngineEnded(stopped(checkpoint(8, 0), Vec::new())),
    )[..]
    {
        [Action::Report(r)] => assert!(r.release),
        other => panic!("{other:?}"),
    }
}

#[test]
fn shutdown_gives_up_a_checkpoint_report_in_flight() {
    let mut m = count_task();
    run(&mut m, 0, 1_000, KEEP_GOING);
    m.on(
        ms(1_001),
        Event::EngineEnded(stopped(checkpoint(8, 0), vec![prefix(4)])),
    );
    assert_eq!(
        m.on(ms(1_050), Event::Shutdown),
        [Action::AbandonCall, Action::Done(Outcome::Abandoned)]
    );
}

// ----------------------------------------------------------- completion

#[test]
fn a_finished_count_completes_with_its_counts_and_last_split() {
    let mut m = TaskMachine::count(timings(), Some(checkpoint(100, 1)), 2);
    m.start(ms(0));
    run(&mut m, 0, 150, KEEP_GOING);
    assert_eq!(
        m.on(
            ms(160),
            Event::EngineEnded(finished(1_234, 9, vec![prefix(5)]))
        ),
        [Action::Complete(Completion {
            solutions: 9,
            nodes: 1_234,
            split: Some(Split {
                seq: 3,
                prefixes: vec![prefix(5)],
            }),
            boards: Vec::new(),
        })]
    );
    // Waiting for the answer: nothing else, however long it takes.
    assert!(run(&mut m, 161, 60_000, KEEP_GOING).is_empty());
    assert_eq!(
        m.on(
            ms(60_001),
            Event::Answer(Answer::Completion { accepted: true })
        ),
        [Action::Done(Outcome::Completed)]
    );
    assert_eq!(m.outcome(), Some(Outcome::Completed));
}

#[test]
fn an_ignored_completion_is_abandoned() {
    let mut m = count_task();
    m.on(ms(5), Event::EngineEnded(finished(10, 0, Vec::new())));
    assert_eq!(
        m.on(ms(6), Event::Answer(Answer::Completion { accepted: false })),
        [Action::Done(Outcome::Abandoned)]
    );
}

#[test]
fn a_completion_sent_while_running_is_given_up_on_shutdown() {
    let mut m = count_task();
    m.on(ms(5), Event::EngineEnded(finished(10, 0, Vec::new())));
    assert_eq!(
        m.on(ms(6), Event::Shutdown),
        [Action::AbandonCall, Action::Done(Outcome::Abandoned)]
    );
}

#[test]
fn a_count_that_finished_as_the_worker_stopped_completes_within_the_grace() {
    let mut m = count_task();
    run(&mut m, 0, 50, KEEP_GOING);
    // The driver feeds the shutdown, then the end it saw on the same wake.
    assert!(m.on(ms(51), Event::Shutdown).is_empty());
    assert!(matches!(
        &m.on(ms(51), Event::EngineEnded(finished(10, 2, Vec::new())))[..],
        [Action::Complete(Completion { solutions: 2, .. })]
    ));
    assert!(run(&mut m, 51, 10_050, KEEP_GOING).is_empty());
    assert_eq!(
        m.on(ms(10_051), Event::Tick),
        [Action::AbandonCall, Action::Done(Outcome::Abandoned)]
    );
}

// -------------------------------------------------------------- failure

#[test]
fn an_engine_failure_is_reported_as_a_failed_task() {
    let mut m = count_task();
    run(&mut m, 0, 120, KEEP_GOING);
    assert_eq!(
        m.on(ms(130), Event::EngineEnded(Err("engine: boom".into()))),
        [Action::Fail {
            error: "engine: boom".into()
        }]
    );
    assert_eq!(
        m.on(
            ms(140),
            Event::Answer(Answer::Completion { accepted: true })
        ),
        [Action::Done(Outcome::Completed)]
    );
}

#[test]
fn an_engine_failure_is_reported_even_after_the_lease_was_lost() {
    let mut m = count_task();
    run(&mut m, 0, 100, LEASE_LOST);
    assert!(matches!(
        &m.on(ms(110), Event::EngineEnded(Err("boom".into())))[..],
        [Action::Fail { .. }]
    ));
}

#[test]
fn an_undecodable_task_only_reports_its_failure() {
    let mut m = TaskMachine::failing(timings(), "prefix: bad JSON".into());
    assert_eq!(
        m.start(ms(0)),
        [Action::Fail {
            error: "prefix: bad JSON".into()
        }]
    );
    assert!(run(&mut m, 0, 1_000, KEEP_GOING).is_empty());
    assert_eq!(
        m.on(
            ms(1_001),
            Event::Answer(Answer::Completion { accepted: true })
        ),
        [Action::Done(Outcome::Completed)]
    );
}

// ----------------------------------------------------------------- best

fn best_task() -> TaskMachine {
    let mut m = TaskMachine::best(timings());
    assert_eq!(m.start(ms(0)), [Action::StartEngine { resume: None }]);
    m
}

#[test]
fn a_best_task_is_never_sliced_forwards_boards_and_completes_at_the_end() {
    let mut m = best_task();
    assert!(m.on(ms(50), Event::Found(vec![board(10)])).is_empty());
    assert_eq!(
        m.on(ms(100), Event::Tick),
        [Action::KeepAlive {
            nodes: 0,
            solutions: 0,
            boards: vec![board(10)]
        }]
    );
    // Split requests mean nothing to a best task.
    assert!(m.on(ms(100), Event::Answer(SPLIT_WANTED)).is_empty());
    m.on(ms(150), Event::Found(vec![board(11), board(12)]));
    let log = run(&mut m, 101, 5_000, SPLIT_WANTED);
    assert_eq!(keep_alive_times(&log), every(100, 200, 5_000));
    assert_eq!(
        log[0].1,
        Action::KeepAlive {
            nodes: 0,
            solutions: 0,
            boards: vec![board(11), board(12)]
        }
    );
    assert!(log[1..]
        .iter()
        .all(|(_, a)| matches!(a, Action::KeepAlive { boards, .. } if boards.is_empty())));

    m.on(ms(5_010), Event::Found(vec![board(13)]));
    assert_eq!(
        m.on(ms(5_010), Event::EngineEnded(best_run(777))),
        [Action::Complete(Completion {
            solutions: 0,
            nodes: 777,
            split: None,
            boards: vec![board(13)],
        })]
    );
    assert_eq!(
        m.on(
            ms(5_020),
            Event::Answer(Answer::Completion { accepted: true })
        ),
        [Action::Done(Outcome::Completed)]
    );
}

#[test]
fn a_best_task_shut_down_releases_with_its_boards() {
    let mut m = best_task();
    run(&mut m, 0, 150, KEEP_GOING);
    m.on(ms(160), Event::Shutdown);
    assert_eq!(
        m.on(ms(160), Event::Tick),
        [Action::StopEngine(StopReason::Shutdown)]
    );
    m.on(ms(170), Event::Found(vec![board(20)]));
    assert_eq!(
        m.on(ms(170), Event::EngineEnded(best_run(4_000))),
        [Action::Report(Report {
            nodes: 4_000,
            solutions: 0,
            checkpoint: None,
            split: None,
            boards: vec![board(20)],
            release: true,
        })]
    );
    assert_eq!(
        m.on(ms(180), Event::Answer(KEEP_GOING)),
        [Action::Done(Outcome::Released)]
    );
}

#[test]
fn a_best_task_that_ended_as_the_worker_stopped_completes() {
    let mut m = best_task();
    m.on(ms(30), Event::Shutdown);
    assert!(matches!(
        &m.on(ms(30), Event::EngineEnded(best_run(9)))[..],
        [Action::Complete(Completion { nodes: 9, .. })]
    ));
}

#[test]
fn a_best_task_whose_lease_is_lost_drops_its_boards() {
    let mut m = best_task();
    m.on(ms(20), Event::Found(vec![board(1)]));
    m.on(ms(100), Event::Tick);
    assert_eq!(
        m.on(ms(100), Event::Answer(heartbeat(false, true))),
        [Action::StopEngine(StopReason::LeaseLost)]
    );
    m.on(ms(110), Event::Found(vec![board(2)]));
    assert_eq!(
        m.on(ms(120), Event::EngineEnded(best_run(50))),
        [Action::Done(Outcome::Abandoned)]
    );
}
