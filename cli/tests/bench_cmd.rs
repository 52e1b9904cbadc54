//! `e2 bench` as a user runs it: the real binary on generated puzzles, one
//! JSON line per run, and one-line refusals of bad input.
//!
//! The test that runs an anchor is ignored (its first run builds the
//! anchors, several minutes): run it with
//! `cargo test -p e2 --test bench_cmd -- --ignored`.

use std::path::Path;
use std::process::{Command, Output};

use serde_json::Value;

const E2: &str = env!("CARGO_BIN_EXE_e2");

fn e2(args: &[&str]) -> Output {
    Command::new(E2)
        .args(args)
        .env_remove("E2_ANCHORS")
        .output()
        .expect("run e2")
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

fn json_lines(o: &Output) -> Vec<Value> {
    assert!(o.status.success(), "e2 failed: {}", stderr(o));
    String::from_utf8_lossy(&o.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("not JSON ({e}): {l}")))
        .collect()
}

/// A generated `size`×`size` puzzle without hints.
fn generated(dir: &Path, size: u32, seed: u32) -> String {
    let path = dir
        .join(format!("p{size}_{seed}.json"))
        .to_string_lossy()
        .into_owned();
    let o = e2(&[
        "generate",
        "--size",
        &size.to_string(),
        "--seed",
        &seed.to_string(),
        "-o",
        &path,
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    path
}

fn one_line_error(args: &[&str], env: Option<(&str, &str)>, needle: &str) {
    let mut cmd = Command::new(E2);
    cmd.args(args).env_remove("E2_ANCHORS");
    if let Some((k, v)) = env {
        cmd.env(k, v);
    }
    let o = cmd.output().unwrap();
    assert!(!o.status.success(), "{args:?} succeeded");
    assert!(o.stdout.is_empty(), "{args:?} measured something first");
    let err = stderr(&o);
    assert_eq!(
        err.trim().lines().count(),
        1,
        "{args:?}: not one line: {err:?}"
    );
    assert!(err.contains(needle), "{args:?}: {err:?} lacks {needle:?}");
}

#[test]
fn strict_and_count_print_one_json_line_per_puzzle_with_nodes() {
    let dir = tempfile::tempdir().unwrap();
    // 7×7 has a tree big enough not to be exhausted at once, 4×4 one that
    // is walked many times in a second.
    let (a, b) = (generated(dir.path(), 7, 3), generated(dir.path(), 4, 2));
    for mode in ["strict", "count"] {
        let o = e2(&[
            "bench",
            "--puzzle",
            &a,
            "--puzzle",
            &b,
            "--seconds",
            "1",
            "--mode",
            mode,
        ]);
        let lines = json_lines(&o);
        assert_eq!(lines.len(), 2, "{lines:?}");
        for (line, input) in lines.iter().zip([&a, &b]) {
            assert_eq!(line["mode"], mode);
            assert_eq!(line["engine"], "backtrack");
            assert_eq!(line["threads"], 1);
            assert_eq!(line["input"], input.as_str());
            assert!(line["puzzle"].is_string());
            let nodes = line["nodes"].as_u64().unwrap();
            let secs = line["seconds"].as_f64().unwrap();
            let rate = line["nodes_per_s"].as_f64().unwrap();
            assert!(nodes > 0, "{line}");
            assert!(
                (1.0..3.0).contains(&secs),
                "a 1 s run took {secs} s: {line}"
            );
            let expected = nodes as f64 / secs;
            assert!(
                (rate - expected).abs() <= expected * 0.01 + 1.0,
                "nodes_per_s {rate} is not nodes/seconds {expected}: {line}"
            );
            assert!(line.get("score").is_none(), "{line}");
        }
        // The small tree is exhausted and walked again.
        assert!(
            lines[1]["walks_finished"].as_u64().unwrap() > 1,
            "{}",
            lines[1]
        );
    }
}

#[test]
fn threads_walk_disjoint_prefixes_and_sum_their_nodes() {
    let dir = tempfile::tempdir().unwrap();
    let p = generated(dir.path(), 7, 5);
    let o = e2(&["bench", "--puzzle", &p, "--seconds", "1", "--threads", "2"]);
    let line = &json_lines(&o)[0];
    assert_eq!(line["threads"], 2);
    assert!(line["prefixes"].as_u64().unwrap() >= 2, "{line}");
    assert!(line["nodes"].as_u64().unwrap() > 0, "{line}");
    // The DLX engine through the same contract.
    let o = e2(&[
        "bench",
        "--puzzle",
        &p,
        "--seconds",
        "1",
        "--mode",
        "count",
        "--engine",
        "dlx",
        "--threads",
        "2",
    ]);
    let line = &json_lines(&o)[0];
    assert_eq!(line["engine"], "dlx");
    assert!(line["nodes"].as_u64().unwrap() > 0, "{line}");
}

#[test]
fn best_reports_a_legal_canonical_score() {
    let dir = tempfile::tempdir().unwrap();
    let p = generated(dir.path(), 8, 7);
    for threads in ["1", "2"] {
        let o = e2(&[
            "bench",
            "--puzzle",
            &p,
            "--seconds",
            "1",
            "--mode",
            "best",
            "--threads",
            threads,
        ]);
        let line = &json_lines(&o)[0];
        assert_eq!(line["mode"], "best");
        let score = line["score"].as_u64().unwrap();
        let max = line["max_score"].as_u64().unwrap();
        // 8×8: 2·8·7 = 112 interior seams.
        assert_eq!(max, 112, "{line}");
        assert!(score > 0 && score <= max, "{line}");
        assert!(line["nodes"].as_u64().unwrap() > 0, "{line}");
    }
}

#[test]
fn a_dlx_file_is_counted_by_the_dlx_engine() {
    let dir = tempfile::tempdir().unwrap();
    // Four queens as exact cover: rows and columns primary, diagonals
    // secondary; two solutions.
    let mut text = String::from("r0 r1 r2 r3 c0 c1 c2 c3 |");
    for d in 0..7 {
        text += &format!(" a{d} b{d}");
    }
    text += "\n";
    for r in 0..4 {
        for c in 0..4 {
            text += &format!("r{r} c{c} a{} b{}\n", r + c, r + 3 - c);
        }
    }
    let f = dir.path().join("q4.dlx");
    std::fs::write(&f, text).unwrap();
    let o = e2(&["bench", "--dlx", f.to_str().unwrap(), "--seconds", "1"]);
    let line = &json_lines(&o)[0];
    assert_eq!(line["engine"], "dlx");
    assert_eq!(line["solutions"], 2, "{line}");
    assert_eq!(line["complete"], true, "{line}");
}

#[test]
fn bad_input_is_refused_in_one_line_before_measuring() {
    let dir = tempfile::tempdir().unwrap();
    let p = generated(dir.path(), 4, 1);
    let bogus = dir.path().join("no-anchors-here");
    let bogus = bogus.to_str().unwrap();
    one_line_error(
        &["bench", "--puzzle", &p, "--mode", "fast"],
        None,
        "unknown mode",
    );
    one_line_error(&["bench", "--seconds", "1"], None, "no --puzzle");
    one_line_error(
        &["bench", "--puzzle", &p, "--seconds", "0"],
        None,
        "--seconds 0",
    );
    one_line_error(
        &["bench", "--puzzle", "missing.json", "--seconds", "1"],
        None,
        "missing.json",
    );
    one_line_error(
        &["bench", "--puzzle", &p, "--against", "gpu"],
        None,
        "unknown anchor",
    );
    one_line_error(
        &[
            "bench",
            "--puzzle",
            &p,
            "--against",
            "jit",
            "--seconds",
            "1",
        ],
        Some(("E2_ANCHORS", bogus)),
        "no run.sh",
    );
    one_line_error(
        &[
            "bench",
            "--puzzle",
            &p,
            "--against",
            "jit",
            "--anchors",
            bogus,
        ],
        None,
        "no-anchors-here",
    );
    one_line_error(
        &[
            "bench",
            "--puzzle",
            &p,
            "--against",
            "jit",
            "--threads",
            "2",
        ],
        None,
        "one thread",
    );
    one_line_error(
        &["bench", "--puzzle", &p, "--against", "dlx2"],
        None,
        "--dlx",
    );
    one_line_error(
        &["bench", "--puzzle", &p, "--mode", "best", "--engine", "dlx"],
        None,
        "--engine dlx",
    );
    one_line_error(
        &[
            "bench",
            "--puzzle",
            &p,
            "--against",
            "jit",
            "--mode",
            "best",
        ],
        None,
        "strict or count",
    );
}

/// Builds the anchors on first use (minutes): run with
/// `cargo test -p e2 --test bench_cmd -- --ignored`. Needs
/// `../shared/anchors` beside the repository.
#[test]
#[ignore = "runs ../shared/anchors/run.sh jit (builds the anchors on first use)"]
fn against_jit_prints_both_rates_per_round_and_their_ratio() {
    let dir = tempfile::tempdir().unwrap();
    let (a, b) = (generated(dir.path(), 8, 1), generated(dir.path(), 8, 2));
    let o = e2(&[
        "bench",
        "--against",
        "jit",
        "--puzzle",
        &a,
        "--puzzle",
        &b,
        "--seconds",
        "2",
        "--rounds",
        "2",
    ]);
    let lines = json_lines(&o);
    // Per puzzle: two rounds and a summary; then the mean.
    assert_eq!(lines.len(), 7, "{lines:?}");
    for round in [&lines[0], &lines[1], &lines[3], &lines[4]] {
        let ours = round["e2"]["nodes_per_s"].as_f64().unwrap();
        let theirs = round["anchor"]["nodes_per_s"].as_f64().unwrap();
        assert!(ours > 0.0 && theirs > 0.0, "{round}");
        let ratio = round["ratio"].as_f64().unwrap();
        assert!((ratio - ours / theirs).abs() < 0.01, "{round}");
    }
    for summary in [&lines[2], &lines[5]] {
        assert_eq!(summary["summary"], "puzzle");
        assert!(summary["ratio"].as_f64().unwrap() > 0.0, "{summary}");
    }
    let mean = lines[6]["mean_ratio"].as_f64().unwrap();
    let expected =
        (lines[2]["ratio"].as_f64().unwrap() + lines[5]["ratio"].as_f64().unwrap()) / 2.0;
    assert!((mean - expected).abs() < 0.002, "{}", lines[6]);
}
