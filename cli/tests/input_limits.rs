//! Arguments that are not what they claim to be end in one clear line,
//! promptly and with bounded memory: a directory where a file is expected,
//! a file far larger than any puzzle, an absurd thread count, a solution
//! limit of zero; and `e2 dlx` interrupted says what it had counted.

mod cluster_support;

use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use cluster_support::{run_bounded, E2};

fn e2(args: &[&str]) -> std::process::Output {
    let mut cmd = Command::new(E2);
    cmd.args(args);
    run_bounded(cmd, Duration::from_secs(30))
}

fn one_line_error(out: &std::process::Output, needle: &str) {
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success(), "succeeded: {err}");
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert_eq!(err.trim().lines().count(), 1, "not one line: {err:?}");
    assert!(err.contains(needle), "{err}");
    assert!(!err.contains("panicked"), "{err}");
}

#[test]
fn a_directory_is_not_read_as_a_literal_board() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path().to_string_lossy().into_owned();
    one_line_error(&e2(&["convert", &d]), "is a directory");
    one_line_error(&e2(&["score", &d]), "is a directory");
}

#[test]
fn an_oversized_input_is_refused_before_it_is_read() {
    let dir = tempfile::tempdir().unwrap();
    let big = dir.path().join("big.json");
    // 20 MB of a JSON array: far above any puzzle.
    let mut text = String::from("{\"pieces\": [");
    text.push_str(&"[1,2,3,4],".repeat(2_000_000));
    text.push_str("[1,2,3,4]]}");
    std::fs::write(&big, text).unwrap();
    let b = big.to_string_lossy().into_owned();
    let started = Instant::now();
    one_line_error(&e2(&["convert", &b]), "too large");
    one_line_error(&e2(&["count", "--puzzle", &b]), "too large");
    assert!(started.elapsed() < Duration::from_secs(5));
}

#[test]
fn an_absurd_thread_count_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let p = cluster_support::generated_puzzle(dir.path());
    let p = p.to_string_lossy().into_owned();
    for args in [
        vec!["count", "--puzzle", &p, "--threads", "100000"],
        vec!["solve", "--puzzle", &p, "--threads", "0"],
        vec![
            "worker",
            "--coordinator",
            "127.0.0.1:1",
            "--threads",
            "5000",
        ],
    ] {
        let out = e2(&args);
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(!out.status.success(), "{args:?}");
        assert!(
            err.contains("--threads") && err.contains("1..=1024"),
            "{err}"
        );
    }
}

/// n queens as exact cover with colours: rows and columns primary,
/// diagonals secondary (at most one queen on each).
fn queens(n: usize) -> String {
    let mut text = String::new();
    for i in 0..n {
        text.push_str(&format!("r{i} c{i} "));
    }
    text.push('|');
    for d in 0..2 * n - 1 {
        text.push_str(&format!(" a{d} b{d}"));
    }
    text.push('\n');
    for i in 0..n {
        for j in 0..n {
            text.push_str(&format!("r{i} c{j} a{} b{}\n", i + j, i + n - 1 - j));
        }
    }
    text
}

#[test]
fn dlx_refuses_a_zero_solution_limit_and_reports_when_interrupted() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("queens18.dlx");
    std::fs::write(&file, queens(18)).unwrap();
    let f = file.to_string_lossy().into_owned();
    one_line_error(&e2(&["dlx", "--max-solutions", "0", &f]), "--max-solutions");

    // 18 queens has 666 million solutions: it is still counting after 1 s.
    let mut child = Command::new(E2)
        .args(["dlx", &f])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    std::thread::sleep(Duration::from_secs(1));
    assert!(
        child.try_wait().unwrap().is_none(),
        "18 queens counted in 1 s"
    );
    unsafe {
        libc::kill(child.id() as i32, libc::SIGINT);
    }
    let out = child.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(130));
    let printed: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(printed["complete"], false);
    assert!(printed["nodes"].as_u64().unwrap() > 0, "{printed}");
    assert!(String::from_utf8_lossy(&out.stderr).contains("interrupted"));
}
