//! How `e2 count` plans a count, seen from the command line: the rotation
//! reduction and the whole tree agree, the order is chosen and named, a
//! tiny count is one task, and both counting conventions are printed.

mod cluster_support;

use std::process::Command;
use std::time::Duration;

use cluster_support::{data, run_bounded, Gen, E2};
use serde_json::Value;

fn count(args: &[&str]) -> Value {
    let mut cmd = Command::new(E2);
    cmd.arg("count").args(args);
    let out = run_bounded(cmd, Duration::from_secs(600));
    assert!(
        out.status.success(),
        "e2 count {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

#[test]
fn the_reduced_count_equals_the_whole_tree_and_says_so() {
    let dir = tempfile::tempdir().unwrap();
    for gen in [Gen::new(5, 6, 2, 1), Gen::new(5, 7, 2, 3)] {
        let p = gen.write(dir.path());
        let p = p.to_str().unwrap();
        let reduced = count(&["--puzzle", p]);
        let whole = count(&["--puzzle", p, "--no-symmetry", "--order", "row-major"]);
        assert_eq!(
            reduced["solutions"], whole["solutions"],
            "{reduced} / {whole}"
        );
        assert_eq!(reduced["symmetry_factor"], 4, "{reduced}");
        assert!(
            reduced["symmetry"]
                .as_str()
                .unwrap()
                .starts_with("quarter turns"),
            "{reduced}"
        );
        assert_eq!(whole["symmetry_factor"], 1);
        assert_eq!(whole["order"], "row-major");
        assert_eq!(whole["order_chosen"], false);
        assert_eq!(reduced["order_chosen"], true);
        // A quarter of the boards, so fewer nodes.
        assert!(
            reduced["nodes"].as_u64() < whole["nodes"].as_u64(),
            "{reduced} / {whole}"
        );
    }
}

#[test]
fn an_unknown_order_is_one_clear_line() {
    let dir = tempfile::tempdir().unwrap();
    let p = Gen::new(4, 5, 2, 1).write(dir.path());
    let out = Command::new(E2)
        .args([
            "count",
            "--puzzle",
            p.to_str().unwrap(),
            "--order",
            "zigzag",
        ])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success() && err.contains("zigzag"), "{err}");
    assert!(!err.contains("panicked"), "{err}");
}

#[test]
#[cfg_attr(e2_no_data, ignore = "needs ../shared/data (absent on this clone)")]
fn brendan_5x5_set_1_is_one_task_and_prints_16() {
    let p = data("brendan/s1_05x05.json");
    let c = count(&["--puzzle", p.to_str().unwrap()]);
    assert_eq!(c["solutions"], 16, "{c}");
    assert_eq!(c["tasks"], 1, "a tiny tree is one task: {c}");
    // Brendan's pieces are all distinct and none is symmetric.
    assert_eq!(c["labelled_solutions"], 16, "{c}");
}

/// Cut into tasks and run on two threads, the row scan of Brendan's 6×6
/// set 1 totals exactly the nodes the mailing list published for its whole
/// tree: each task's nodes, plus those above the cut, plus the placements
/// splits gave away, counted by their givers.
#[test]
#[cfg_attr(e2_no_data, ignore = "needs ../shared/data (absent on this clone)")]
fn brendan_6x6_set_1_cut_into_tasks_totals_the_published_row_scan_nodes() {
    let p = data("brendan/s1_06x06.json");
    let c = count(&[
        "--puzzle",
        p.to_str().unwrap(),
        "--no-symmetry",
        "--order",
        "row-major",
        "--threads",
        "2",
    ]);
    assert_eq!(c["solutions"], 260, "{c}");
    assert!(c["tasks"].as_u64().unwrap() > 1, "cut into tasks: {c}");
    assert_eq!(c["nodes"], 69_284_103u64, "{c}");
}

/// Clue puzzle 3, whole: the distinct boards, and the labelled count that
/// tells twins apart, which must be the published 2,195,647,488. Its chosen
/// order (border-first) makes the tree a hundredth of the row scan's: a few
/// seconds.
#[test]
#[cfg_attr(e2_no_data, ignore = "needs ../shared/data (absent on this clone)")]
fn clue_puzzle_3_in_both_conventions() {
    let p = data("clue_puzzles/clue3.json");
    let c = count(&["--puzzle", p.to_str().unwrap()]);
    assert_eq!(c["labelled_solutions"], 2_195_647_488u64, "{c}");
    assert_eq!(c["solutions"], 1_905_944, "{c}");
    assert_eq!(c["symmetry_factor"], 4, "{c}");
}

/// Clue puzzle 1, whole: the published 115,071,633,408 labelled boards.
/// About 90 s of one core in release (a quarter of the spiral-in tree).
#[test]
#[ignore = "about 1.5 min: cargo test --release -p e2 --test count_plan -- --ignored"]
fn clue_puzzle_1_in_both_conventions() {
    let p = data("clue_puzzles/clue1.json");
    let c = count(&["--puzzle", p.to_str().unwrap()]);
    assert_eq!(c["labelled_solutions"], 115_071_633_408u64, "{c}");
    assert_eq!(c["solutions"], 74_916_428, "{c}");
}
