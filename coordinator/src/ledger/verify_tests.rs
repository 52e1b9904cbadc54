//! Verified counts on the ledger's logical clock: who may recount what,
//! how votes settle, and what happens to a worker found wrong.

use super::super::*;
use super::{sampled, MAX_FIGURES};
use e2_proto::pb;
use e2_shared::search::Forced;

/// A verified count of `tasks` one-placement prefixes, and workers
/// `a`, `b`, `c` registered; every task is in the sample.
fn verified(tasks: usize) -> (Ledger, [String; 3], Clock) {
    let mut l = super::super::tests::fresh_ledger();
    let clock = Clock::now();
    let mut ids = Vec::new();
    for name in ["a", "b", "c"] {
        let reply = l
            .register(
                &pb::RegisterRequest {
                    protocol_version: e2_proto::PROTOCOL_VERSION,
                    name: name.into(),
                    threads: 1,
                },
                clock,
            )
            .unwrap();
        ids.push(reply.worker_id);
    }
    let puzzle = Puzzle {
        name: "row".into(),
        width: 8,
        height: 1,
        num_colors: 1,
        pieces: vec![[0, 0, 0, 0]; 8],
        hints: vec![],
    };
    let prefixes = (0..tasks)
        .map(|i| {
            vec![Forced {
                pos: 0,
                piece: i,
                rot: 0,
            }]
        })
        .collect();
    let mut plan = JobPlan::count(&puzzle, Engine::Backtrack);
    plan.prefixes = prefixes;
    plan.verify = Some(1.0);
    l.submit(plan, clock);
    (l, ids.try_into().unwrap(), clock)
}

/// The first task `w` is leased, with whether it is a recount (and of what).
fn take(l: &mut Ledger, w: &str, clock: Clock) -> Option<(pb::Lease, Option<TaskId>)> {
    let (reply, _) = l.lease(w, 1, clock).unwrap();
    let lease = reply.assignments.first()?.lease.unwrap();
    let of = l.jobs[&1].tasks[&lease.task_id]
        .recount
        .as_ref()
        .map(|r| r.of);
    Some((lease, of))
}

fn complete(l: &mut Ledger, w: &str, lease: pb::Lease, solutions: u64, clock: Clock) {
    let (reply, _) = l
        .complete(
            &pb::CompleteRequest {
                worker_id: w.into(),
                lease: Some(lease),
                solutions,
                nodes: 5,
                ..Default::default()
            },
            clock,
        )
        .unwrap();
    assert!(reply.accepted, "{}", reply.reason);
}

fn verify_status(l: &Ledger, clock: Clock) -> (pb::JobStatus, pb::VerifyStatus) {
    let s = l.status(1, clock).unwrap();
    let v = s.verify.clone().expect("a verified job");
    (s, v)
}

#[test]
fn the_sample_takes_about_the_fraction_asked() {
    let v = VerifyRecord::new(100_000, 42);
    let n = (0..100_000).filter(|&t| sampled(&v, t)).count();
    assert!((9_000..11_000).contains(&n), "{n} of 100000 sampled");
    let other = VerifyRecord {
        seed: 43,
        ..v.clone()
    };
    let differ = (0..1000)
        .filter(|&t| sampled(&v, t) != sampled(&other, t))
        .count();
    assert!(differ > 100, "the seed changes the sample: {differ}");
}

#[test]
fn a_recount_goes_to_another_worker_and_agreement_is_recorded() {
    let (mut l, [a, b, _], clock) = verified(2);
    let (t0, of) = take(&mut l, &a, clock).unwrap();
    assert_eq!(of, None);
    complete(&mut l, &a, t0, 3, clock);
    // The recount of task 0 waits behind task 1 and is not for `a`.
    let (t1, of) = take(&mut l, &a, clock).unwrap();
    assert_eq!(of, None);
    complete(&mut l, &a, t1, 4, clock);
    assert!(take(&mut l, &a, clock).is_none(), "a recounts its own task");
    let (s, v) = verify_status(&l, clock);
    assert_eq!((s.state, s.solutions), (pb::JobState::Running as i32, 7));
    assert_eq!((v.sampled, v.pending, v.recounts), (2, 2, 2));
    for _ in 0..2 {
        let (r, of) = take(&mut l, &b, clock).unwrap();
        let truth = if of == Some(t0.task_id) { 3 } else { 4 };
        complete(&mut l, &b, r, truth, clock);
    }
    let (s, v) = verify_status(&l, clock);
    assert_eq!((s.state, s.solutions), (pb::JobState::Done as i32, 7));
    assert_eq!((v.agreed, v.corrected, v.pending), (2, 0, 0));
    assert!(v.wrong.is_empty());
    // Recounts are not tasks of the count: its totals are the first counts'.
    assert_eq!((s.tasks_done, s.tasks_total), (2, 2));
    assert_eq!(v.recount_nodes, 10);
}

#[test]
fn a_wrong_worker_is_outvoted_named_and_every_task_of_it_recounted() {
    let (mut l, [a, b, c], clock) = verified(4);
    let truth = |t: TaskId| t + 1;
    let (t0, _) = take(&mut l, &a, clock).unwrap();
    complete(&mut l, &a, t0, 99, clock);
    // Only task 0 is in the sample: the lies after it are not.
    l.jobs.get_mut(&1).unwrap().rec.verify.as_mut().unwrap().ppm = 0;
    for _ in 1..4 {
        let (t, _) = take(&mut l, &a, clock).unwrap();
        complete(&mut l, &a, t, 1000, clock);
    }
    assert_eq!(l.status(1, clock).unwrap().solutions, 99 + 3000);
    // b disagrees with a: no majority, so c is asked too, and b is not.
    let (r, of) = take(&mut l, &b, clock).unwrap();
    assert_eq!(of, Some(t0.task_id));
    complete(&mut l, &b, r, truth(0), clock);
    assert!(take(&mut l, &b, clock).is_none(), "b recounts task 0 twice");
    assert!(take(&mut l, &a, clock).is_none());
    let (r, of) = take(&mut l, &c, clock).unwrap();
    assert_eq!(of, Some(t0.task_id));
    complete(&mut l, &c, r, truth(0), clock);
    // a is wrong: named, and its unsampled tasks are recounted, each
    // settled by one trusted figure.
    let (s, v) = verify_status(&l, clock);
    assert_eq!(v.wrong.len(), 1, "{v:?}");
    assert_eq!(
        (v.wrong[0].worker_id.as_str(), v.wrong[0].name.as_str()),
        (a.as_str(), "a")
    );
    assert_eq!((v.wrong[0].task_id, v.wrong[0].said), (0, 99));
    assert_eq!(s.solutions, truth(0) + 3000);
    assert_eq!(v.pending, 3);
    assert!(
        take(&mut l, &a, clock).is_none(),
        "a wrong worker is leased"
    );
    while let Some((r, of)) = take(&mut l, &b, clock) {
        complete(&mut l, &b, r, truth(of.unwrap()), clock);
    }
    let (s, v) = verify_status(&l, clock);
    assert_eq!(s.state, pb::JobState::Done as i32);
    assert_eq!(s.solutions, (0..4).map(truth).sum::<u64>());
    assert_eq!((v.sampled, v.corrected, v.agreed), (4, 4, 0));
    let ledger = l.ledger(1).unwrap();
    assert!(ledger
        .iter()
        .filter(|t| t.recount_of.is_none())
        .all(|t| t.check == "corrected" && t.solutions == truth(t.task_id)));
}

#[test]
fn a_wrong_recount_names_the_recounter_and_the_count_stands() {
    let (mut l, [a, b, c], clock) = verified(1);
    let (t0, _) = take(&mut l, &a, clock).unwrap();
    complete(&mut l, &a, t0, 7, clock);
    let (r, _) = take(&mut l, &b, clock).unwrap();
    complete(&mut l, &b, r, 8, clock);
    let (r, _) = take(&mut l, &c, clock).unwrap();
    complete(&mut l, &c, r, 7, clock);
    let (s, v) = verify_status(&l, clock);
    assert_eq!((s.state, s.solutions), (pb::JobState::Done as i32, 7));
    assert_eq!((v.agreed, v.corrected), (1, 0));
    assert_eq!(v.wrong.len(), 1);
    assert_eq!(
        (v.wrong[0].worker_id.as_str(), v.wrong[0].said),
        (b.as_str(), 8)
    );
}

#[test]
fn a_disagreement_with_no_third_worker_says_what_it_waits_for() {
    let (mut l, [a, b, _], clock) = verified(1);
    let (t0, _) = take(&mut l, &a, clock).unwrap();
    complete(&mut l, &a, t0, 7, clock);
    let (r, _) = take(&mut l, &b, clock).unwrap();
    complete(&mut l, &b, r, 8, clock);
    // Worker c is forgotten: nobody may run the tie-break.
    l.workers.retain(|id, _| *id == a || *id == b);
    let (s, v) = verify_status(&l, clock);
    assert_eq!(s.state, pb::JobState::Running as i32);
    assert!(
        v.waiting.contains("needs a worker other than a, b"),
        "{}",
        v.waiting
    );
}

#[test]
fn no_two_alike_in_five_counts_fails_the_job() {
    let (mut l, _, clock) = verified(1);
    let mut figure = 0;
    for k in 0..MAX_FIGURES {
        let name = format!("w{k}");
        let id = l
            .register(
                &pb::RegisterRequest {
                    protocol_version: e2_proto::PROTOCOL_VERSION,
                    name,
                    threads: 1,
                },
                clock,
            )
            .unwrap()
            .worker_id;
        let (t, _) = take(&mut l, &id, clock).unwrap();
        figure += 1;
        complete(&mut l, &id, t, figure, clock);
    }
    let s = l.status(1, clock).unwrap();
    assert_eq!(s.state, pb::JobState::Failed as i32);
    assert!(
        s.error.contains("no two of 5 counts of task 0 agree"),
        "{}",
        s.error
    );
}

#[test]
fn a_verified_job_refuses_splits_and_is_never_asked_for_one() {
    let (mut l, [a, b, _], clock) = verified(1);
    let (t0, _) = take(&mut l, &a, clock).unwrap();
    let later = clock.later(l.config().split_after * 2);
    // b is idle: an unverified count would ask a's lease to split.
    assert!(take(&mut l, &b, later).is_none());
    let beat = pb::HeartbeatRequest {
        worker_id: a.clone(),
        lease: Some(t0),
        ..Default::default()
    };
    let (reply, _) = l.heartbeat(&beat, later).unwrap();
    assert!(reply.keep_going && !reply.split_wanted);
    let split = pb::HeartbeatRequest {
        checkpoint: e2_proto::encode_checkpoint(Some(&e2_shared::search::Checkpoint {
            engine: Engine::Backtrack,
            prefix: vec![],
            path: vec![0],
            solutions: 0,
            nodes: 1,
        })),
        split: Some(pb::Split {
            seq: 1,
            prefixes: vec![e2_proto::encode_prefix(&vec![
                Forced {
                    pos: 0,
                    piece: 0,
                    rot: 0,
                },
                Forced {
                    pos: 1,
                    piece: 1,
                    rot: 0,
                },
            ])],
        }),
        ..beat
    };
    let e = l.heartbeat(&split, later).unwrap_err();
    assert!(e.message().contains("counted whole"), "{}", e.message());
    assert_eq!(l.status(1, later).unwrap().tasks_total, 1);
}

#[test]
fn other_engine_recounts_only_where_both_engines_agree() {
    let (l, _, _) = verified(1);
    // Eight identical pieces: the backtracker recounts its own tasks.
    assert!(!super::engines_agree_on(&l.jobs[&1].puzzle));
    let distinct = Puzzle {
        name: "d".into(),
        width: 2,
        height: 1,
        num_colors: 3,
        pieces: vec![[0, 1, 0, 0], [0, 0, 0, 2]],
        hints: vec![],
    };
    assert!(super::engines_agree_on(&distinct));
}
