//! A best job on a real cluster: `e2 best` returns BoardDocs that re-score
//! to their stated score and honour the hints; the best score never
//! decreases from one query to the next, nor across a coordinator restart.

mod cluster_support;

use std::time::{Duration, Instant};

use cluster_support::{read_puzzle, Cluster, Gen};
use e2_shared::Board;
use serde_json::Value;

/// Checks every BoardDoc against the puzzle; the best score among them.
fn checked_best(cluster: &Cluster, job: u64, puzzle: &e2_shared::Puzzle) -> Option<u64> {
    let out = cluster.client(&["best", &job.to_string(), "--top", "3"]);
    if !out.status.success() {
        return None;
    }
    let docs: Vec<Value> = serde_json::Deserializer::from_slice(&out.stdout)
        .into_iter::<Value>()
        .map(|d| d.unwrap())
        .collect();
    assert!(!docs.is_empty() && docs.len() <= 3);
    let mut previous = u64::MAX;
    for doc in &docs {
        let codes: Vec<i32> = doc["board"]
            .as_array()
            .unwrap()
            .iter()
            .map(|c| c.as_i64().unwrap() as i32)
            .collect();
        let board = Board::from_codes(puzzle, &codes).unwrap();
        let score = e2_shared::score::score(&board) as u64;
        assert_eq!(
            doc["score"].as_u64(),
            Some(score),
            "a BoardDoc re-scores to its stated score"
        );
        let (_, broken) = board.check_hints(puzzle);
        assert!(broken.is_empty(), "hints {broken:?} not honoured");
        assert!(score <= previous, "boards come best first");
        previous = score;
    }
    docs[0]["score"].as_u64()
}

#[test]
fn best_boards_rescore_honour_hints_and_never_get_worse() {
    let mut cluster = Cluster::new();
    // A generated 5×5 with the five official hint cells scaled to it,
    // which every board must honour.
    let path = Gen::new(5, 8, 3, 4)
        .hints("official5")
        .write(cluster.dir.path());
    let puzzle = read_puzzle(&path);
    assert_eq!(puzzle.hints.len(), 5);

    cluster.start_coordinator(&["--best-budget", "3000"]);
    cluster.start_worker(1, &[]);
    let job = cluster.submit(&path, &["--mode", "best", "--time", "60", "--top", "3"]);
    let mut best_so_far = 0;
    let start = Instant::now();
    let mut queries = 0;
    while start.elapsed() < Duration::from_secs(3) || queries < 3 {
        if let Some(b) = checked_best(&cluster, job, &puzzle) {
            assert!(
                b >= best_so_far,
                "best score went from {best_so_far} to {b}"
            );
            best_so_far = b;
            queries += 1;
        }
        assert!(
            start.elapsed() < Duration::from_secs(30),
            "no board within 30 s"
        );
        std::thread::sleep(Duration::from_millis(200));
    }
    let status = cluster.status(job);
    assert_eq!(status["best_score"].as_u64(), Some(best_so_far), "{status}");

    cluster.coordinator.as_mut().unwrap().sigkill();
    cluster.start_coordinator(&["--best-budget", "3000"]);
    let after = checked_best(&cluster, job, &puzzle).expect("boards survive the restart");
    assert!(
        after >= best_so_far,
        "best score went from {best_so_far} to {after} across the restart"
    );
    let cancelled = cluster.client(&["cancel", &job.to_string()]);
    let s: Value = serde_json::from_slice(&cancelled.stdout).unwrap();
    assert!(s["state"] == "cancelled" || s["state"] == "done", "{s}");
    assert!(checked_best(&cluster, job, &puzzle).unwrap() >= after);
}
