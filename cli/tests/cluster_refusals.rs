//! What a coordinator refuses: a wrong or missing token, a malformed
//! puzzle (with a clear error, and no job created), a worker of another
//! protocol version (with a message saying so).

mod cluster_support;

use std::time::Duration;

use cluster_support::Cluster;

fn stderr(out: &std::process::Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

#[test]
fn a_wrong_or_missing_token_is_refused() {
    let mut cluster = Cluster::new();
    cluster.token = Some("right-token".into());
    cluster.start_coordinator(&[]);
    let ok = cluster.client(&["status"]);
    assert!(ok.status.success(), "{}", stderr(&ok));
    let missing = cluster.client_with_token(&["status"], None);
    assert!(!missing.status.success());
    assert!(
        stderr(&missing).contains("missing bearer token"),
        "{}",
        stderr(&missing)
    );
    let wrong = cluster.client_with_token(&["status"], Some("wrong-token"));
    assert!(!wrong.status.success());
    assert!(
        stderr(&wrong).contains("wrong bearer token"),
        "{}",
        stderr(&wrong)
    );
    // A worker with the wrong token gives up at once, saying why.
    let url = cluster.url();
    let out = cluster_support::run_bounded(
        {
            let mut c = std::process::Command::new(cluster_support::E2);
            c.args([
                "worker",
                "--coordinator",
                &url,
                "--threads",
                "1",
                "--token",
                "nope",
            ])
            .env_remove("E2_TOKEN");
            c
        },
        Duration::from_secs(20),
    );
    assert!(!out.status.success());
    assert!(
        stderr(&out).contains("wrong bearer token"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn a_malformed_puzzle_is_refused_and_creates_no_job() {
    let mut cluster = Cluster::new();
    cluster.start_coordinator(&[]);
    let bad = cluster.dir.path().join("bad.json");
    // Three pieces for a 2x2 board.
    std::fs::write(&bad, r#"{"name":"bad","width":2,"height":2,"numColors":2,"pieces":[[0,1,2,0],[0,0,1,1],[2,2,0,0]],"hints":[]}"#).unwrap();
    let out = cluster.client(&[
        "submit",
        "--puzzle",
        bad.to_str().unwrap(),
        "--mode",
        "count",
    ]);
    assert!(!out.status.success());
    assert!(out.stdout.is_empty(), "no job id is printed");
    let err = stderr(&out);
    assert!(
        err.contains("\"pieces\"") && err.contains("has 3 pieces, expected"),
        "{err}"
    );
    let garbled = cluster.dir.path().join("garbled.json");
    std::fs::write(&garbled, "{\"name\": ").unwrap();
    let out = cluster.client(&[
        "submit",
        "--puzzle",
        garbled.to_str().unwrap(),
        "--mode",
        "count",
    ]);
    assert!(!out.status.success());
    assert!(
        stderr(&out).contains("Puzzle JSON: line 1"),
        "{}",
        stderr(&out)
    );
    let list = cluster.client(&["status"]);
    let jobs: serde_json::Value = serde_json::from_slice(&list.stdout).unwrap();
    assert_eq!(jobs, serde_json::json!([]), "no job was created");
}

#[test]
fn a_worker_of_another_protocol_version_is_refused_by_name() {
    let mut cluster = Cluster::new();
    cluster.start_coordinator(&[]);
    cluster.start_worker(1, &["--protocol-version", "999"]);
    let worker = cluster.workers.last_mut().unwrap();
    let status = worker
        .wait_exit(Duration::from_secs(20))
        .expect("the refused worker exits");
    assert!(!status.success());
    let log = worker.log_text();
    assert!(
        log.contains("protocol version mismatch") && log.contains("999"),
        "{log}"
    );
}

/// The standard gRPC health service answers without the token, so that
/// probes that cannot send headers (Kubernetes' built-in gRPC probe) work,
/// while the e2 services on the same port still refuse the request.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_health_service_answers_probes_while_e2_services_need_the_token() {
    use e2_proto::pb::client_service_client::ClientServiceClient;
    use tonic_health::pb::{
        health_check_response::ServingStatus, health_client::HealthClient, HealthCheckRequest,
    };
    let mut cluster = Cluster::new();
    cluster.token = Some("health-token".into());
    let url = cluster.url();
    let cluster = tokio::task::spawn_blocking(move || {
        cluster.start_coordinator(&[]);
        cluster
    })
    .await
    .unwrap();
    let channel = tonic::transport::Endpoint::from_shared(url)
        .unwrap()
        .connect()
        .await
        .unwrap();
    for service in ["", "e2.v1.WorkerService", "e2.v1.ClientService"] {
        let reply = HealthClient::new(channel.clone())
            .check(HealthCheckRequest {
                service: service.to_string(),
            })
            .await
            .unwrap()
            .into_inner();
        assert_eq!(reply.status, ServingStatus::Serving as i32, "{service:?}");
    }
    let denied = ClientServiceClient::new(channel)
        .list_jobs(e2_proto::pb::ListJobsRequest::default())
        .await
        .unwrap_err();
    assert_eq!(denied.code(), tonic::Code::Unauthenticated);
    drop(cluster);
}
