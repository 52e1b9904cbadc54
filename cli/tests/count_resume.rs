//! `e2 count --data DIR` as a user runs it: Ctrl-C (SIGINT) part way keeps
//! what was counted, and the same command resumes to the published count.
//!
//! Brendan Owen's set 2 6×6 has 160 boards (every board, whole-board
//! rotations separately); DLX takes about 25 s of CPU on it, long enough
//! to interrupt in the middle.

mod cluster_support;

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::Duration;

use cluster_support::{data, E2};

fn count(puzzle: &str, data: &Path, interrupt_after: Option<Duration>) -> (serde_json::Value, i32) {
    let child = Command::new(E2)
        .args([
            "count",
            "--puzzle",
            puzzle,
            "--engine",
            "dlx",
            "--threads",
            "2",
        ])
        .arg("--data")
        .arg(data)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start e2 count");
    if let Some(after) = interrupt_after {
        std::thread::sleep(after);
        // SAFETY: plain kill(2) on our own child's pid.
        assert_eq!(unsafe { libc::kill(child.id() as i32, libc::SIGINT) }, 0);
    }
    let out = child.wait_with_output().expect("wait for e2 count");
    let stdout = String::from_utf8_lossy(&out.stdout);
    let json = serde_json::from_str(stdout.trim()).unwrap_or_else(|e| {
        panic!(
            "not JSON ({e}): {stdout}\nstderr: {}",
            String::from_utf8_lossy(&out.stderr)
        )
    });
    (json, out.status.code().unwrap_or(-1))
}

#[test]
fn an_interrupted_count_keeps_its_progress_and_resumes_to_the_published_total() {
    let Some(puzzle) = data("brendan/s2_06x06.json") else {
        return;
    };
    let puzzle = puzzle.to_string_lossy().into_owned();
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("count");

    let (first, code) = count(&puzzle, &data, Some(Duration::from_secs(6)));
    assert_eq!(code, 130, "{first}");
    assert_eq!(first["complete"], false, "{first}");
    assert_eq!(first["resumed"], false, "{first}");
    // The hand-back on Ctrl-C stores each running task's checkpoint, and the
    // summary counts it: several seconds of DLX are millions of nodes.
    let kept = first["nodes"].as_u64().unwrap();
    assert!(kept > 1_000_000, "{first}");

    let (last, code) = count(&puzzle, &data, None);
    assert_eq!(code, 0, "{last}");
    assert_eq!(last["complete"], true, "{last}");
    assert_eq!(last["resumed"], true, "{last}");
    assert_eq!(last["solutions"], 160, "{last}");
    assert!(last["nodes"].as_u64().unwrap() >= kept, "{last}");
}
