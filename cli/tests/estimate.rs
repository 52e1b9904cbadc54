//! `e2 estimate` as a user runs it: the real binary, against the nodes the
//! real `e2 count` then visits.

use std::path::Path;
use std::process::{Command, Output};

use e2_shared::order::FillOrder;
use serde_json::Value;

fn e2(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_e2"))
        .args(args)
        .output()
        .expect("run e2")
}

fn json_of(args: &[&str]) -> Value {
    let o = e2(args);
    assert!(
        o.status.success(),
        "e2 {args:?}: {}",
        String::from_utf8_lossy(&o.stderr)
    );
    serde_json::from_slice(&o.stdout).expect("one JSON document")
}

/// The error line of a command that must fail.
fn failure(args: &[&str]) -> String {
    let o = e2(args);
    assert!(!o.status.success(), "e2 {args:?} succeeded");
    let err = String::from_utf8_lossy(&o.stderr).into_owned();
    assert!(!err.contains("panicked"), "{err}");
    err
}

/// The estimate's `nodes` and the count's, checked within `factor`.
fn estimate_against_count(puzzle: &str, probes: &str, factor: f64) -> (f64, u64) {
    estimate_against_count_by(puzzle, probes, factor, "backtrack")
}

fn estimate_against_count_by(puzzle: &str, probes: &str, factor: f64, engine: &str) -> (f64, u64) {
    let estimate = json_of(&[
        "estimate", "--puzzle", puzzle, "--probes", probes, "--seed", "7", "--engine", engine,
    ]);
    assert_eq!(estimate["engine"], engine, "{estimate}");
    let count = json_of(&[
        "count",
        "--puzzle",
        puzzle,
        "--threads",
        "2",
        "--engine",
        engine,
    ]);
    assert_eq!(count["order"], estimate["order"], "{estimate}");
    assert_eq!(count["complete"], true, "{count}");
    let real = count["nodes"].as_u64().unwrap();
    let guess = estimate["nodes"].as_f64().unwrap();
    let ratio = guess / real as f64;
    assert!(
        (1.0 / factor..=factor).contains(&ratio),
        "estimate {guess} against {real} real nodes (ratio {ratio:.2}): {estimate}"
    );
    (guess, real)
}

#[test]
#[cfg_attr(
    e2_no_data,
    ignore = "needs ../shared/data (community files), absent on this clone"
)]
fn brendan_six_by_six_set_1_estimate_is_within_a_factor_2_of_the_count() {
    let puzzle = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../shared/data/brendan/s1_06x06.json")
        .to_string_lossy()
        .into_owned();
    let (guess, real) = estimate_against_count(&puzzle, "20000", 2.0);
    eprintln!("s1_06x06: estimate {guess:.0}, count visited {real} nodes");
}

/// A generated 6×6 with few colours (some pieces repeat, so the probe's
/// stock of twins is exercised too): no data needed.
fn generated(dir: &Path) -> String {
    let puzzle = dir.join("p.json").to_string_lossy().into_owned();
    let o = e2(&[
        "generate", "--size", "6", "--colors", "9", "--seed", "2", "-o", &puzzle,
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    puzzle
}

#[test]
fn a_generated_puzzles_estimate_is_within_a_factor_3_of_the_count() {
    let dir = tempfile::tempdir().unwrap();
    let puzzle = generated(dir.path());
    let (guess, real) = estimate_against_count(&puzzle, "50000", 3.0);
    eprintln!("generated 6x6: estimate {guess:.0}, count visited {real} nodes");
    assert!(
        real > 50_000,
        "too small a tree to test an estimate: {real}"
    );
}

/// DLX's estimate probes DLX's own tree (the scan rule's: the order's next
/// empty cell, forced moves first), in the nodes its count reports.
#[test]
fn a_dlx_estimate_is_within_a_factor_2_of_the_dlx_count() {
    let dir = tempfile::tempdir().unwrap();
    let puzzle = generated(dir.path());
    let (guess, real) = estimate_against_count_by(&puzzle, "50000", 2.0, "dlx");
    eprintln!("generated 6x6, dlx: estimate {guess:.0}, count visited {real} nodes");
}

#[test]
#[cfg_attr(
    e2_no_data,
    ignore = "needs ../shared/data (community files), absent on this clone"
)]
fn brendan_six_by_six_set_1_dlx_estimate_is_within_a_factor_1_5_of_the_dlx_count() {
    let puzzle = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../shared/data/brendan/s1_06x06.json")
        .to_string_lossy()
        .into_owned();
    let (guess, real) = estimate_against_count_by(&puzzle, "20000", 1.5, "dlx");
    eprintln!("s1_06x06, dlx: estimate {guess:.0}, count visited {real} nodes");
}

#[test]
fn the_estimate_lists_every_order_names_the_counts_and_repeats_with_its_seed() {
    let dir = tempfile::tempdir().unwrap();
    let puzzle = generated(dir.path());
    let args = [
        "estimate", "--puzzle", &puzzle, "--probes", "2000", "--seed", "5",
    ];
    let (a, b) = (json_of(&args), json_of(&args));
    for key in [
        "nodes",
        "spread",
        "orders",
        "order",
        "count_order",
        "probes",
    ] {
        assert_eq!(a[key], b[key], "{key} differs between two runs: {a} / {b}");
    }
    assert_eq!(a["probes"], 2000);
    // The headline is the tree `e2 count` walks: its order and reduction.
    let count = json_of(&["count", "--puzzle", &puzzle]);
    assert_eq!(a["count_order"], count["order"], "{a} / {count}");
    assert_eq!(a["order"], a["count_order"]);
    assert_eq!(a["symmetry"], count["symmetry"]);
    let orders = a["orders"].as_array().unwrap();
    assert_eq!(orders.len(), FillOrder::ALL.len(), "{a}");
    let used: Vec<&Value> = orders.iter().filter(|o| o["count_uses"] == true).collect();
    assert_eq!(used.len(), 1);
    assert_eq!(used[0]["order"], a["count_order"]);
    assert_eq!(used[0]["nodes"], a["nodes"]);
    assert!(a["seconds_estimate"].as_f64().unwrap() > 0.0, "{a}");
    assert!(a["rate"]["nodes_per_second_per_thread"].as_f64().unwrap() > 0.0);

    // Another seed, another sample; another order, its own headline.
    let other = json_of(&[
        "estimate", "--puzzle", &puzzle, "--probes", "2000", "--seed", "6",
    ]);
    assert_ne!(other["nodes"], a["nodes"]);
    let spiral = json_of(&[
        "estimate",
        "--puzzle",
        &puzzle,
        "--probes",
        "2000",
        "--seed",
        "5",
        "--order",
        "spiral-in",
    ]);
    assert_eq!(spiral["order"], "spiral-in");
    let listed = orders.iter().find(|o| o["order"] == "spiral-in").unwrap();
    assert_eq!(spiral["nodes"], listed["nodes"]);
}

#[test]
fn bad_arguments_are_one_clear_line() {
    let dir = tempfile::tempdir().unwrap();
    let puzzle = generated(dir.path());
    let err = failure(&["estimate", "--puzzle", &puzzle, "--probes", "0"]);
    assert!(
        err.contains("--probes") && err.contains("out of range"),
        "{err}"
    );
    let err = failure(&["estimate", "--puzzle", &puzzle, "--probes", "many"]);
    assert!(err.contains("\"many\" is not a number of probes"), "{err}");
    let err = failure(&["estimate", "--puzzle", &puzzle, "--order", "zigzag"]);
    assert!(
        err.contains("\"zigzag\"") && err.contains("row-major"),
        "{err}"
    );
    let err = failure(&["estimate", "--puzzle", &puzzle, "--engine", "knuth"]);
    let errors: Vec<&str> = err.lines().filter(|l| l.starts_with("error:")).collect();
    assert_eq!(errors.len(), 1, "{err}");
    assert!(errors[0].contains("knuth"), "{err}");
    let err = failure(&["estimate", "--puzzle", "no/such/puzzle.json"]);
    assert!(err.contains("no/such/puzzle.json"), "{err}");
    let err = failure(&["estimate", "--puzzle", &puzzle, "--seed=-1"]);
    assert!(err.contains("--seed"), "{err}");
}
