//! Counts on a real cluster (a coordinator and worker processes on
//! 127.0.0.1) equal the single-process engine count, also when a worker or
//! the coordinator is killed mid-job.
//!
//! The puzzles are generated (`e2 generate`), sized so that each job is
//! still running when the test kills or stops something: the tests check
//! that, and fail rather than prove nothing.

mod cluster_support;

use std::collections::HashMap;
use std::time::Duration;

use cluster_support::{data, engine_count, Cluster, Gen};
use e2_shared::engine::Engine;

const JOB_TIME: Duration = Duration::from_secs(120);

/// 5×5, 6 colours (2 on the border): hundreds of boards, a fraction of a
/// second of DLX.
const MANY_BOARDS: Gen = Gen::new(5, 6, 2, 1);
/// 6×6, 8 colours (3 on the border): a fraction of a second for the
/// backtracker; for DLX 9.6 M nodes, about 5 s on two threads, in 5 tasks.
const SIX: Gen = Gen::new(6, 8, 3, 1);
/// 6×6, 7 colours (2 on the border): about 100 M backtracker nodes with a
/// corner piece fixed, several seconds of two workers. A count of `SIX`
/// (a few tenths of a second once its corner is fixed) can end between
/// the moment a test sees it under way and the moment its kill lands.
const LONGER_SIX: Gen = Gen::new(6, 7, 2, 1);
/// 6×6, 6 colours (3 on the border), a lattice of hints: 198 M DLX nodes,
/// about 40 s on two threads of the test build, in about a hundred tasks:
/// still counting after any short wait on any host.
const LONG_DLX: Gen = Gen::new(6, 6, 3, 7).hints("lattice");
/// 5×5, 7 colours: a handful of boards, a fraction of a second.
const SMALL: Gen = Gen::new(5, 7, 2, 1);

#[test]
fn two_workers_count_what_one_process_counts_with_both_engines() {
    let mut cluster = Cluster::new();
    let puzzle = MANY_BOARDS.write(cluster.dir.path());
    cluster.start_coordinator(&[]);
    cluster.start_worker(1, &[]);
    cluster.start_worker(1, &[]);
    for (engine, name) in [(Engine::Dlx, "dlx"), (Engine::Backtrack, "backtrack")] {
        let expected = engine_count(&puzzle, engine);
        let job = cluster.submit(&puzzle, &["--mode", "count", "--engine", name]);
        let s = cluster.wait_done(job, JOB_TIME);
        assert_eq!(s["state"], "done", "{s}");
        assert_eq!(s["solutions"].as_u64(), Some(expected), "{name}: {s}");
        assert_eq!(s["tasks_done"], s["tasks_total"]);
        let ledger = cluster.ledger(job);
        assert!(
            ledger.iter().all(|t| t["completions"] == 1),
            "every task counted exactly once"
        );
        let sum: u64 = ledger
            .iter()
            .map(|t| t["solutions"].as_u64().unwrap())
            .sum();
        // The tasks count a reduced tree; the status multiplies it back.
        let factor = s["symmetry_factor"].as_u64().unwrap();
        assert_eq!(sum * factor, expected, "{s}");
    }
}

fn frac_done(s: &serde_json::Value) -> f64 {
    s["tasks_done"].as_f64().unwrap() / s["tasks_total"].as_f64().unwrap().max(1.0)
}

#[test]
fn a_killed_worker_loses_nothing_and_a_stopped_one_hands_back() {
    let mut cluster = Cluster::new();
    let puzzle = LONGER_SIX.write(cluster.dir.path());
    let expected = engine_count(&puzzle, Engine::Backtrack);
    cluster.start_coordinator(&[]);
    cluster.start_worker(1, &[]);
    cluster.start_worker(1, &[]);
    let job = cluster.submit(&puzzle, &["--mode", "count", "--engine", "backtrack"]);
    // The first task done: the job has about a second of work on this
    // size of machine, so waiting for a larger share would leave a fast
    // host little of it to interrupt.
    cluster.wait_until(job, JOB_TIME, |s| {
        frac_done(s) > 0.0 || s["state"] == "done"
    });
    // Mid-job: one worker dies without a word, the other is asked to stop.
    cluster.workers[0].sigkill();
    let status = cluster.workers[1].sigterm(Duration::from_secs(15));
    assert!(
        status.is_some_and(|s| s.success()),
        "a SIGTERMed worker exits cleanly: {}",
        cluster.workers[1].log_text()
    );
    let mid = cluster.status(job);
    assert_ne!(
        mid["state"], "done",
        "the job finished before the kill; the test proves nothing: {mid}"
    );
    cluster.start_worker(2, &[]);
    let s = cluster.wait_done(job, JOB_TIME);
    assert_eq!(s["state"], "done", "{s}");
    assert_eq!(s["solutions"].as_u64(), Some(expected), "{s}");
    assert!(cluster.ledger(job).iter().all(|t| t["completions"] == 1));
}

#[test]
fn a_restarted_coordinator_resumes_without_rerunning_finished_tasks() {
    let mut cluster = Cluster::new();
    let puzzle = SIX.write(cluster.dir.path());
    let expected = engine_count(&puzzle, Engine::Backtrack);
    cluster.start_coordinator(&[]);
    cluster.start_worker(1, &[]);
    cluster.start_worker(1, &[]);
    let job = cluster.submit(&puzzle, &["--mode", "count", "--engine", "dlx"]);
    cluster.wait_until(job, JOB_TIME, |s| {
        frac_done(s) > 0.0 || s["state"] == "done"
    });
    // The ledger is answered only once flushed: what it shows done is on disk.
    let before = cluster.ledger(job);
    cluster.coordinator.as_mut().unwrap().sigkill();
    let done_before: HashMap<u64, u64> = before
        .iter()
        .filter(|t| t["state"] == "done")
        .map(|t| (t["task"].as_u64().unwrap(), t["leases"].as_u64().unwrap()))
        .collect();
    assert!(!done_before.is_empty());
    assert!(
        done_before.len() < before.len(),
        "the job finished before the kill; the test proves nothing"
    );
    std::thread::sleep(Duration::from_millis(500));
    cluster.start_coordinator(&[]);
    let s = cluster.wait_done(job, JOB_TIME);
    assert_eq!(s["state"], "done", "{s}");
    assert_eq!(s["solutions"].as_u64(), Some(expected), "{s}");
    let after = cluster.ledger(job);
    for t in &after {
        assert_eq!(t["completions"], 1, "every task counted once: {t}");
        if let Some(&leases) = done_before.get(&t["task"].as_u64().unwrap()) {
            assert_eq!(
                t["leases"].as_u64(),
                Some(leases),
                "a finished task ran again: {t}"
            );
        }
    }
}

/// A coordinator started with `--backup` writes its store to the file
/// while it serves: when its machine is lost (coordinator and workers
/// killed with SIGKILL, its data directory abandoned), the last file
/// restored into a new directory carries the job on to the exact total,
/// every task counted once.
#[test]
fn a_coordinator_writing_backups_outlives_its_machine() {
    let mut cluster = Cluster::new();
    let puzzle = LONGER_SIX.write(cluster.dir.path());
    let expected = engine_count(&puzzle, Engine::Backtrack);
    let file = cluster.dir.path().join("coordinator.e2backup");
    let file_arg = file.to_string_lossy().into_owned();
    cluster.start_coordinator(&["--backup", &file_arg, "--backup-every", "1"]);
    cluster.start_worker(1, &[]);
    cluster.start_worker(1, &[]);
    let job = cluster.submit(&puzzle, &["--mode", "count", "--engine", "backtrack"]);
    // The machine goes down in two steps: its workers die at the first task
    // done (the job has about a second of work, less than the backup's
    // period, so waiting for a backup first could leave nothing undone),
    // then the coordinator, once it has written a backup holding that task.
    cluster.wait_until(job, JOB_TIME, |s| {
        frac_done(s) > 0.0 || s["state"] == "done"
    });
    for w in &mut cluster.workers {
        w.sigkill();
    }
    cluster.workers.clear();
    let since = std::time::Instant::now();
    while !std::fs::read_to_string(&file).is_ok_and(|t| t.contains("\"state\":\"done\"")) {
        assert!(since.elapsed() < JOB_TIME, "no backup with a finished task");
        std::thread::sleep(Duration::from_millis(50));
    }
    cluster.coordinator.as_mut().unwrap().sigkill();
    let backup = std::fs::read_to_string(&file).unwrap();
    assert!(
        backup.contains("\"state\":\"ready\"") || backup.contains("\"state\":\"running\""),
        "the job was done in the backup; the test proves nothing"
    );
    std::fs::rename(cluster.data_dir(), cluster.dir.path().join("lost")).unwrap();
    cluster_support::restore(&cluster.data_dir(), &file);
    cluster.start_coordinator(&[]);
    cluster.start_worker(1, &[]);
    cluster.start_worker(1, &[]);
    let s = cluster.wait_done(job, JOB_TIME);
    assert_eq!(s["state"], "done", "{s}");
    assert_eq!(s["solutions"].as_u64(), Some(expected), "{s}");
    for t in cluster.ledger(job) {
        assert_eq!(t["completions"], 1, "every task counted once: {t}");
    }
}

/// A worker stopped by SIGTERM hands its running tasks back with their
/// checkpoints: they are ready again, resumable, not lost and not done.
#[test]
fn a_stopped_worker_hands_its_tasks_back_with_checkpoints() {
    let mut cluster = Cluster::new();
    // A count of tens of seconds: `SIX` (about 2 s of two threads) could
    // end within the wait below on a fast host, leaving nothing to hand back.
    let puzzle = LONG_DLX.write(cluster.dir.path());
    cluster.start_coordinator(&["--checkpoint-ms", "150"]);
    cluster.start_worker(2, &[]);
    let job = cluster.submit(&puzzle, &["--mode", "count", "--engine", "dlx"]);
    // Long enough for both threads to have taken several checkpoints.
    cluster.wait_until(job, JOB_TIME, |s| s["tasks_running"] == 2);
    std::thread::sleep(Duration::from_millis(1200));
    let status = cluster.workers[0].sigterm(Duration::from_secs(15));
    assert!(
        status.is_some_and(|s| s.success()),
        "{}",
        cluster.workers[0].log_text()
    );
    let ledger = cluster.ledger(job);
    let handed_back: Vec<_> = ledger
        .iter()
        .filter(|t| t["state"] == "ready" && t["has_checkpoint"] == true)
        .collect();
    assert!(
        !handed_back.is_empty(),
        "no task was handed back with a checkpoint"
    );
    assert!(
        ledger.iter().all(|t| t["state"] != "leased"),
        "a lease outlived its worker"
    );
    for t in handed_back {
        assert_eq!(t["completions"], 0, "{t}");
        assert!(
            t["nodes"].as_u64().unwrap() > 0,
            "the checkpoint carries progress: {t}"
        );
    }
    let out = cluster.client(&["cancel", &job.to_string()]);
    assert!(out.status.success());
}

/// Brendan's set-1 6x6 with DLX (13 M nodes, a few seconds on two
/// workers), whose tasks run long enough for idle workers to have them
/// split.
#[test]
#[cfg_attr(
    e2_no_data,
    ignore = "needs ../shared/data (community files), absent on this clone"
)]
fn a_long_count_with_splits_keeps_the_published_count() {
    let puzzle = data("brendan/s1_06x06.json");
    let mut cluster = Cluster::new();
    cluster.start_coordinator(&["--split-after-ms", "100"]);
    cluster.start_worker(1, &[]);
    cluster.start_worker(1, &[]);
    let job = cluster.submit(&puzzle, &["--mode", "count", "--engine", "dlx"]);
    let s = cluster.wait_done(job, Duration::from_secs(600));
    // Published: 260 boards (65 up to rotation).
    assert_eq!(s["solutions"].as_u64(), Some(260), "{s}");
    let ledger = cluster.ledger(job);
    // Whether a split happens depends on timing (a long task still running
    // while a worker idles); report it rather than demand it.
    let split = ledger.iter().filter(|t| !t["parent"].is_null()).count();
    eprintln!("{split} of {} tasks came from splits", ledger.len());
    assert!(ledger.iter().all(|t| t["completions"] == 1));
}

/// `e2 watch` follows a count to its end: one progress line per update
/// (stdout is not a terminal here), the last one showing every task done
/// and the final count.
#[test]
fn watch_follows_a_count_to_its_end() {
    let mut cluster = Cluster::new();
    let puzzle = SMALL.write(cluster.dir.path());
    let expected = engine_count(&puzzle, Engine::Dlx);
    cluster.start_coordinator(&[]);
    let job = cluster.submit(&puzzle, &["--mode", "count", "--engine", "dlx"]);
    cluster.start_worker(1, &[]);
    let mut cmd = std::process::Command::new(env!("CARGO_BIN_EXE_e2"));
    cmd.args(["watch", &job.to_string(), "--coordinator", &cluster.url()]);
    let out = cluster_support::run_bounded(cmd, JOB_TIME);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8_lossy(&out.stdout);
    let last = text.lines().last().expect("at least one progress line");
    let total = cluster.status(job)["tasks_total"].as_u64().unwrap();
    assert!(
        last.contains(&format!("job {job} done: tasks {total}/{total}")),
        "{text}"
    );
    assert!(
        last.contains(&format!("{expected} solutions so far")),
        "{text}"
    );
}
