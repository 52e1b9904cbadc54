//! Exactly-once counting, spoken in raw gRPC to a running coordinator: a
//! completion replayed, or arriving after its lease expired and was
//! re-issued, is ignored; only the current lease's completion counts.

mod cluster_support;

use std::time::Duration;

use cluster_support::Cluster;
use e2_proto::pb::{self, worker_service_client::WorkerServiceClient};

/// A generated 7×7 whose tree is estimated in the billions of nodes, so the
/// count is cut into many tasks. No engine ever runs on it: the test is the
/// worker, and reports one solution per task.
fn big_puzzle() -> String {
    use e2_shared::generator::{generate, GenSpec};
    let puzzle = generate(&GenSpec::sized(7, 7, 8, 1, 3)).unwrap().puzzle;
    e2_shared::formats::puzzle_json::write(&puzzle)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn replayed_and_post_expiry_completions_count_once() {
    let mut cluster = Cluster::new();
    cluster.start_coordinator(&[]);
    let puzzle = cluster.dir.path().join("big.json");
    std::fs::write(&puzzle, big_puzzle()).unwrap();
    // The whole tree (no rotation factor), so that each task's 1 adds up
    // to the total.
    let job = cluster.submit(
        &puzzle,
        &[
            "--mode",
            "count",
            "--engine",
            "dlx",
            "--no-symmetry",
            "--count-order",
            "row-major",
        ],
    );

    let mut c = WorkerServiceClient::connect(cluster.url()).await.unwrap();
    let worker_id = c
        .register(pb::RegisterRequest {
            protocol_version: e2_proto::PROTOCOL_VERSION,
            name: "hand".into(),
            threads: 1,
        })
        .await
        .unwrap()
        .into_inner()
        .worker_id;
    let lease_one = |mut c: WorkerServiceClient<tonic::transport::Channel>, worker_id: String| async move {
        let reply = c
            .lease(pb::LeaseRequest {
                worker_id,
                max_tasks: 1,
            })
            .await
            .unwrap()
            .into_inner();
        reply
            .assignments
            .into_iter()
            .next()
            .map(|a| a.lease.unwrap())
    };
    let complete = |mut c: WorkerServiceClient<tonic::transport::Channel>,
                    lease: pb::Lease,
                    solutions: u64| {
        let worker_id = worker_id.clone();
        async move {
            c.complete(pb::CompleteRequest {
                worker_id,
                lease: Some(lease),
                solutions,
                nodes: 1,
                ..Default::default()
            })
            .await
            .unwrap()
            .into_inner()
        }
    };

    // Each task reports 1 solution; the job total must equal the task count.
    let mut tasks = 0u64;
    let mut first = true;
    while let Some(lease) = lease_one(c.clone(), worker_id.clone()).await {
        tasks += 1;
        if first {
            first = false;
            // Let the lease lapse (TTL 1.5 s in the test coordinator) until
            // the task is re-issued under a new epoch.
            tokio::time::sleep(Duration::from_millis(2500)).await;
            let again = lease_one(c.clone(), worker_id.clone())
                .await
                .expect("the lapsed task is re-issued");
            assert_eq!(again.task_id, lease.task_id);
            assert_ne!(again.epoch, lease.epoch);
            let late = complete(c.clone(), lease, 1).await;
            assert!(
                !late.accepted,
                "a completion after expiry and re-issue is ignored"
            );
            assert!(late.reason.contains("stale"), "{}", late.reason);
            assert!(complete(c.clone(), again, 1).await.accepted);
            let replay = complete(c.clone(), again, 1).await;
            assert!(
                !replay.accepted && replay.reason.contains("already finished"),
                "{}",
                replay.reason
            );
            continue;
        }
        assert!(complete(c.clone(), lease, 1).await.accepted);
        let replay = complete(c.clone(), lease, 1).await;
        assert!(!replay.accepted, "a replayed completion is ignored");
    }
    let status = tokio::task::spawn_blocking(move || {
        let s = cluster.wait_done(job, Duration::from_secs(20));
        let ledger = cluster.ledger(job);
        (s, ledger)
    })
    .await
    .unwrap();
    let (s, ledger) = status;
    assert_eq!(s["state"], "done");
    assert_eq!(s["solutions"].as_u64(), Some(tasks), "{s}");
    assert!(ledger.iter().all(|t| t["completions"] == 1));
    let ignored: u64 = ledger
        .iter()
        .map(|t| t["ignored_completions"].as_u64().unwrap())
        .sum();
    assert_eq!(ignored, tasks + 1, "one replay per task plus the late one");
    assert!(tasks > 2, "only {tasks} tasks");
}
