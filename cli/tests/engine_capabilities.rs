//! Asking an engine for what it cannot do is refused where the job is
//! accepted, with one line saying why, and no job is created: DLX knows
//! only perfect boards, so a best-score job on it is refused both by
//! `e2 submit` and by the coordinator itself (a raw gRPC client that skips
//! the command's own check), and an engine number the protocol does not
//! know is refused too.

mod cluster_support;

use cluster_support::Cluster;
use e2_proto::pb;
use e2_proto::pb::client_service_client::ClientServiceClient;

fn stderr(out: &std::process::Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

fn jobs(cluster: &Cluster) -> Vec<serde_json::Value> {
    let out = cluster.client(&["status"]);
    assert!(out.status.success(), "{}", stderr(&out));
    match serde_json::from_slice::<serde_json::Value>(&out.stdout).unwrap() {
        serde_json::Value::Array(all) => all,
        other => panic!("e2 status printed {other}, not a list"),
    }
}

#[test]
fn a_best_job_on_dlx_is_refused_in_one_line_and_creates_no_job() {
    let mut cluster = Cluster::new();
    cluster.start_coordinator(&[]);
    let puzzle = cluster_support::generated_puzzle(cluster.dir.path());
    let p = puzzle.to_string_lossy().into_owned();

    let out = cluster.client(&[
        "submit", "--puzzle", &p, "--mode", "best", "--engine", "dlx",
    ]);
    assert!(!out.status.success(), "a best job on dlx was accepted");
    let err = stderr(&out);
    assert_eq!(err.trim().lines().count(), 1, "not one line: {err:?}");
    assert!(err.contains("cannot score partial boards"), "{err}");
    assert!(out.stdout.is_empty(), "printed a job id: {:?}", out.stdout);

    // The coordinator refuses it as well, whoever skips the command's check.
    let url = cluster.url();
    let json = std::fs::read_to_string(&puzzle).unwrap();
    let runtime = tokio::runtime::Runtime::new().unwrap();
    let codes = runtime.block_on(async move {
        let channel = tonic::transport::Endpoint::from_shared(url)
            .unwrap()
            .connect()
            .await
            .unwrap();
        let mut client = ClientServiceClient::new(channel);
        let mut codes = Vec::new();
        for (mode, engine) in [
            (pb::Mode::Best, pb::Engine::Dlx as i32),
            (pb::Mode::Count, 99),
        ] {
            let refused = client
                .submit(pb::SubmitRequest {
                    puzzle_json: json.clone(),
                    mode: mode as i32,
                    engine,
                    ..Default::default()
                })
                .await
                .unwrap_err();
            codes.push((refused.code(), refused.message().to_string()));
        }
        codes
    });
    assert_eq!(codes[0].0, tonic::Code::InvalidArgument, "{codes:?}");
    assert!(
        codes[0].1.contains("cannot score partial boards"),
        "{codes:?}"
    );
    assert_eq!(codes[1].0, tonic::Code::InvalidArgument, "{codes:?}");
    assert!(codes[1].1.contains("engine"), "{codes:?}");

    assert!(jobs(&cluster).is_empty(), "a refused submission left a job");

    // A count on dlx is what DLX is for: accepted.
    let job = cluster.submit(&puzzle, &["--mode", "count", "--engine", "dlx"]);
    assert_eq!(jobs(&cluster).len(), 1, "job {job}");
}
