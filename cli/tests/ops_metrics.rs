//! The coordinator's Prometheus endpoint on a real cluster: the figures
//! move while a count job runs (nodes searched, tasks done, solutions),
//! and they agree with what `e2 status` reports.

mod cluster_support;

use std::time::Duration;

use cluster_support::{free_port, generated_puzzle, http_get, Cluster};

/// The value of one series (`name{labels}` exactly as exposed), if present.
fn sample(metrics: &str, series: &str) -> Option<u64> {
    metrics
        .lines()
        .find_map(|l| l.strip_prefix(series)?.strip_prefix(' ')?.parse().ok())
}

fn scrape(port: u16) -> String {
    let (status, body) = http_get(port, "/metrics");
    assert_eq!(status, 200, "{body}");
    body
}

#[test]
fn metrics_move_while_a_count_job_runs() {
    let mut cluster = Cluster::new();
    let puzzle = generated_puzzle(cluster.dir.path());
    let port = free_port();
    let metrics_addr = format!("127.0.0.1:{port}");
    cluster.start_coordinator(&["--metrics", &metrics_addr]);

    // Submitted with no worker yet: every task waits, nothing is searched.
    let job = cluster.submit(&puzzle, &["--mode", "count"]);
    let before = scrape(port);
    let tasks = |state: &str| format!("e2_tasks{{job=\"{job}\",state=\"{state}\"}}");
    let per_job = |name: &str| format!("{name}{{job=\"{job}\"}}");
    let total = cluster.status(job)["tasks_total"].as_u64().unwrap();
    assert!(total > 0, "the job was cut into tasks");
    assert_eq!(
        sample(&before, "e2_nodes_searched_total"),
        Some(0),
        "{before}"
    );
    assert_eq!(sample(&before, &tasks("queued")), Some(total), "{before}");
    assert_eq!(sample(&before, &tasks("done")), Some(0), "{before}");
    assert_eq!(sample(&before, &per_job("e2_job_solutions_total")), Some(0));
    assert_eq!(sample(&before, "e2_workers_connected"), Some(0));
    assert_eq!(sample(&before, "e2_jobs{state=\"queued\"}"), Some(1));

    cluster.start_worker(1, &[]);
    let status = cluster.wait_done(job, Duration::from_secs(120));
    assert_eq!(status["state"], "done", "{status}");
    let after = scrape(port);
    let solutions = status["solutions"].as_u64().unwrap();
    assert!(solutions > 0, "a generated puzzle has its own solution");

    let nodes = sample(&after, "e2_nodes_searched_total").unwrap();
    assert!(nodes > 0, "nodes searched grew from 0:\n{after}");
    assert_eq!(
        sample(&after, &per_job("e2_job_nodes_searched_total")),
        Some(nodes)
    );
    assert_eq!(
        sample(&after, &tasks("done")),
        Some(status["tasks_total"].as_u64().unwrap()),
        "every task done:\n{after}"
    );
    assert_eq!(sample(&after, &tasks("queued")), Some(0));
    assert_eq!(sample(&after, &tasks("leased")), Some(0));
    assert_eq!(
        sample(&after, &per_job("e2_job_solutions_total")),
        Some(solutions),
        "solutions as `e2 status` counts them:\n{after}"
    );
    assert_eq!(
        sample(&after, &per_job("e2_job_completions_total")),
        status["tasks_done"].as_u64()
    );
    assert_eq!(sample(&after, "e2_workers_connected"), Some(1));
    assert_eq!(sample(&after, "e2_jobs{state=\"done\"}"), Some(1));

    let (status, _) = http_get(port, "/nowhere");
    assert_eq!(status, 404);
}
