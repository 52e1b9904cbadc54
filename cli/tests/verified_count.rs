//! Verified counts against a worker that lies: real coordinator and honest
//! workers on 127.0.0.1, and a raw gRPC client holding the right token that
//! reports a made-up figure for every task it leases. With `--verify 0.1`
//! the job must still end at the true count, and name the liar.

mod cluster_support;

use std::path::Path;
use std::time::Duration;

use cluster_support::{data, engine_count, Cluster, Gen};
use e2_proto::pb::{self, worker_service_client::WorkerServiceClient};
use e2_shared::engine::Engine;
use serde_json::Value;
use tokio_util::sync::CancellationToken;

/// A worker that never runs an engine: it leases tasks and reports
/// `solutions = 7` for each at once, until `stop`.
async fn liar(url: String, stop: CancellationToken) -> u64 {
    let mut c = WorkerServiceClient::connect(url).await.unwrap();
    let worker_id = c
        .register(pb::RegisterRequest {
            protocol_version: e2_proto::PROTOCOL_VERSION,
            name: "liar".into(),
            threads: 1,
        })
        .await
        .unwrap()
        .into_inner()
        .worker_id;
    let mut lies = 0;
    while !stop.is_cancelled() {
        let reply = c
            .lease(pb::LeaseRequest {
                worker_id: worker_id.clone(),
                max_tasks: 4,
            })
            .await
            .unwrap()
            .into_inner();
        if reply.assignments.is_empty() {
            tokio::time::sleep(Duration::from_millis(50)).await;
            continue;
        }
        for a in reply.assignments {
            let answer = c
                .complete(pb::CompleteRequest {
                    worker_id: worker_id.clone(),
                    lease: a.lease,
                    solutions: 7,
                    nodes: 1000,
                    ..Default::default()
                })
                .await
                .unwrap()
                .into_inner();
            lies += u64::from(answer.accepted);
        }
    }
    lies
}

/// Counts `puzzle` on two honest one-thread workers and the liar with
/// `--verify 0.1`; checks the total is `truth` and the liar is named, and,
/// if `distinct` (no piece repeats or equals its own rotation, so both
/// engines count any prefix alike), that sampled checks ran on DLX.
async fn verified_count_with_a_liar(puzzle: &Path, truth: u64, distinct: bool) {
    let mut cluster = Cluster::new();
    cluster.start_coordinator(&[]);
    cluster.start_worker(1, &[]);
    cluster.start_worker(1, &[]);
    let stop = CancellationToken::new();
    let liar = tokio::spawn(liar(cluster.url(), stop.clone()));
    // Let the liar register, so that it takes its share from the start.
    tokio::time::sleep(Duration::from_millis(300)).await;
    let job = tokio::task::block_in_place(|| {
        cluster.submit(puzzle, &["--mode", "count", "--verify", "0.1"])
    });
    let status = tokio::task::block_in_place(|| cluster.wait_done(job, Duration::from_secs(180)));
    stop.cancel();
    let accepted_lies = liar.await.unwrap();
    assert!(accepted_lies > 0, "the liar never got a task in");
    assert_eq!(status["state"], "done", "{status}");
    assert_eq!(status["solutions"], truth, "{status}");
    let verify = &status["verify"];
    let wrong = verify["wrong_workers"].as_array().unwrap();
    assert_eq!(wrong.len(), 1, "{verify}");
    assert_eq!(wrong[0]["name"], "liar", "{verify}");
    assert_eq!(wrong[0]["said"], 7, "{verify}");
    assert_eq!(verify["pending"], 0, "{verify}");
    // Every task the liar's figure was taken for has been checked, and
    // none was counted twice.
    let ledger = tokio::task::block_in_place(|| cluster.ledger(job));
    let firsts: Vec<&Value> = ledger
        .iter()
        .filter(|t| t["recount_of"].is_null())
        .collect();
    assert_eq!(firsts.len() as u64, status["tasks_total"].as_u64().unwrap());
    for t in &firsts {
        assert_eq!(t["completions"], 1, "{t}");
        if t["done_by"].as_str().unwrap().contains("(liar)") {
            assert!(t["check"] == "corrected" || t["check"] == "agreed", "{t}");
        }
    }
    // The sampled checks of the liar's figures ran on the other engine.
    let on_dlx = ledger
        .iter()
        .any(|t| !t["recount_of"].is_null() && t["engine"] == "dlx");
    assert_eq!(on_dlx, distinct, "recounts on DLX");
    let log = cluster.coordinator.as_ref().unwrap().log_text();
    assert!(
        log.contains("worker's count was wrong") && log.contains("liar"),
        "the log does not name the liar:\n{log}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[cfg_attr(e2_no_data, ignore = "needs ../shared/data (absent on this clone)")]
async fn brendan_6x6_set_1_verified_ends_at_260_and_names_the_liar() {
    verified_count_with_a_liar(&data("brendan/s1_06x06.json"), 260, true).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_generated_count_verified_ends_exact_and_names_the_liar() {
    let dir = tempfile::tempdir().unwrap();
    let puzzle = Gen::new(5, 6, 2, 1).write(dir.path());
    let truth = engine_count(&puzzle, Engine::Backtrack);
    // Its twins make the backtracker recount its own tasks.
    verified_count_with_a_liar(&puzzle, truth, false).await;
}

#[test]
fn verify_is_refused_where_it_means_nothing() {
    let mut cluster = Cluster::new();
    cluster.start_coordinator(&[]);
    let dir = tempfile::tempdir().unwrap();
    let puzzle = Gen::new(4, 5, 2, 1).write(dir.path());
    let p = puzzle.to_string_lossy().into_owned();
    for (args, expect) in [
        (
            vec!["--mode", "best", "--verify", "0.1"],
            "--mode count only",
        ),
        (
            vec!["--mode", "count", "--verify", "0"],
            "above 0 and at most 1",
        ),
        (
            vec!["--mode", "count", "--verify", "1.5"],
            "above 0 and at most 1",
        ),
        (
            vec!["--mode", "count", "--verify", "NaN"],
            "above 0 and at most 1",
        ),
    ] {
        let mut all = vec!["submit", "--puzzle", &p];
        all.extend(args);
        let out = cluster.client(&all);
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(
            !out.status.success() && err.contains(expect),
            "{all:?}: {err}"
        );
        assert_eq!(err.trim().lines().count(), 1, "{err}");
    }
}
