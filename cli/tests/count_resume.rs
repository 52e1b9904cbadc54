//! `e2 count --data DIR` as a user runs it: Ctrl-C (SIGINT) part way keeps
//! what was counted, and the same command resumes to the whole count.
//!
//! The puzzle is generated, with a block of hints and few colours, so that
//! DLX takes seconds on it: long enough to interrupt in the middle (the
//! test checks the first run did not finish). A data test does the same on
//! Brendan Owen's set 1 6×6 against its published count.

mod cluster_support;

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::Duration;

use cluster_support::{data, engine_count, Gen, E2};

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

/// 7×7, 8 colours (2 on the border), a block of hints in the middle:
/// 2 525 boards, 12.7 M DLX nodes, about 5.5 s of DLX on two threads (the
/// backtracker, which gives the reference count, a quarter of a second).
const COUNT_RESUME_PUZZLE: Gen = Gen::new(7, 8, 2, 3).hints("block");

/// Interrupts a DLX count of `puzzle` after `after`, then resumes it to the
/// end with the same command: the total is `expected`.
fn interrupt_then_resume(puzzle: &Path, after: Duration, expected: u64) {
    let puzzle = puzzle.to_string_lossy().into_owned();
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("count");

    let (first, code) = count(&puzzle, &data, Some(after));
    assert_eq!(
        first["complete"], false,
        "the count finished before the interrupt; the test proves nothing: {first}"
    );
    assert_eq!(code, 130, "{first}");
    assert_eq!(first["resumed"], false, "{first}");
    // The hand-back on Ctrl-C stores each running task's checkpoint, and the
    // summary counts it: a second of DLX is a million nodes and more.
    let kept = first["nodes"].as_u64().unwrap();
    assert!(kept > 1_000_000, "{first}");

    let (last, code) = count(&puzzle, &data, None);
    assert_eq!(code, 0, "{last}");
    assert_eq!(last["complete"], true, "{last}");
    assert_eq!(last["resumed"], true, "{last}");
    assert_eq!(last["solutions"].as_u64(), Some(expected), "{last}");
    assert!(last["nodes"].as_u64().unwrap() >= kept, "{last}");
}

#[test]
fn an_interrupted_count_keeps_its_progress_and_resumes_to_the_same_total() {
    let dir = tempfile::tempdir().unwrap();
    let puzzle = COUNT_RESUME_PUZZLE.write(dir.path());
    let expected = engine_count(&puzzle, e2_shared::engine::Engine::Backtrack);
    interrupt_then_resume(&puzzle, Duration::from_secs(2), expected);
}

/// Brendan Owen's set 1 6×6 has 260 boards (every board, whole-board
/// rotations separately); DLX takes about 10 s of CPU on it.
#[test]
#[cfg_attr(
    e2_no_data,
    ignore = "needs ../shared/data (community files), absent on this clone"
)]
fn an_interrupted_count_resumes_to_the_published_total() {
    interrupt_then_resume(&data("brendan/s1_06x06.json"), Duration::from_secs(2), 260);
}

fn e2(args: &[&std::ffi::OsStr]) -> std::process::Output {
    Command::new(E2).args(args).output().expect("run e2")
}

/// A count stopped on one machine resumes on another: `e2 backup` writes
/// the stopped count's directory as one file, `e2 restore` fills a new
/// directory with it, and the same `e2 count` there resumes to the whole
/// total. A damaged copy of the file is refused without creating a store.
#[test]
fn an_interrupted_count_moves_by_backup_and_resumes_elsewhere() {
    let dir = tempfile::tempdir().unwrap();
    let puzzle = COUNT_RESUME_PUZZLE.write(dir.path());
    let expected = engine_count(&puzzle, e2_shared::engine::Engine::Backtrack);
    let puzzle = puzzle.to_string_lossy().into_owned();
    let (here, there) = (dir.path().join("here"), dir.path().join("there"));
    let file = dir.path().join("count.e2backup");

    let (first, code) = count(&puzzle, &here, Some(Duration::from_secs(2)));
    assert_eq!(
        first["complete"], false,
        "finished before the interrupt: {first}"
    );
    assert_eq!(code, 130, "{first}");

    let out = e2(&[
        "backup".as_ref(),
        "--data".as_ref(),
        here.as_os_str(),
        "--out".as_ref(),
        file.as_os_str(),
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let summary: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(summary["jobs"], 1, "{summary}");

    // One changed digit anywhere in a task line: refused, nothing created.
    let text = std::fs::read_to_string(&file).unwrap();
    let damaged = dir.path().join("damaged.e2backup");
    let at = text.find("\"nodes\":").unwrap() + "\"nodes\":".len();
    let mut bytes = text.into_bytes();
    bytes[at] = if bytes[at] == b'1' { b'2' } else { b'1' };
    std::fs::write(&damaged, bytes).unwrap();
    let elsewhere = dir.path().join("elsewhere");
    let out = e2(&[
        "restore".as_ref(),
        "--data".as_ref(),
        elsewhere.as_os_str(),
        damaged.as_os_str(),
    ]);
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("checksum"), "{err}");
    assert_eq!(err.trim().lines().count(), 1, "{err}");
    assert!(
        !elsewhere.exists(),
        "a refused restore created {}",
        elsewhere.display()
    );

    let out = e2(&[
        "restore".as_ref(),
        "--data".as_ref(),
        there.as_os_str(),
        file.as_os_str(),
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let (last, code) = count(&puzzle, &there, None);
    assert_eq!(code, 0, "{last}");
    assert_eq!(last["resumed"], true, "{last}");
    assert_eq!(last["complete"], true, "{last}");
    assert_eq!(last["solutions"].as_u64(), Some(expected), "{last}");
    assert!(last["nodes"].as_u64() >= first["nodes"].as_u64(), "{last}");
}
