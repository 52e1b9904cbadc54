//! `e2 experiment hint-study` and the search flags of `e2 solve`, through
//! the real binary.
//!
//! The study must be reproducible to the byte (same grid, same node budget:
//! same files) and its cluster path must add nothing: every result it
//! reports equals `study::run_one` of the same run, computed here in-process.

mod cluster_support;

use std::path::Path;
use std::process::{Command, Output};

use cluster_support::{Cluster, E2};
use e2_shared::generator::{generate, GenSpec};
use e2_shared::study::{self, RunResult, StudySpec};

fn e2(args: &[&str]) -> Output {
    Command::new(E2)
        .args(args)
        .env_remove("E2_COORDINATOR")
        .env_remove("E2_TOKEN")
        .output()
        .unwrap()
}

fn ok(out: &Output) {
    assert!(
        out.status.success(),
        "e2 failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// The small grid of the tests: sizes 6 and 8, 3 seeds, every order and
/// every layout, a short node budget.
const BUDGET: u64 = 3_000;
const SMALL: &[&str] = &[
    "experiment",
    "hint-study",
    "--sizes",
    "6,8",
    "--seeds",
    "3",
    "--budget-nodes",
    "3000",
];

fn files(dir: &Path) -> [Vec<u8>; 3] {
    ["runs.jsonl", "report.md", "chart.svg"].map(|f| std::fs::read(dir.join(f)).unwrap())
}

fn results(dir: &Path) -> Vec<RunResult> {
    std::fs::read_to_string(dir.join("runs.jsonl"))
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

#[test]
fn the_hint_study_is_byte_identical_across_runs_and_equals_local_runs() {
    let dir = tempfile::tempdir().unwrap();
    let (a, b) = (dir.path().join("a"), dir.path().join("b"));
    for out in [&a, &b] {
        let out = out.to_string_lossy().into_owned();
        let mut args = SMALL.to_vec();
        args.extend_from_slice(&["--embedded", "--threads", "2", "--out", &out]);
        ok(&e2(&args));
    }
    assert_eq!(files(&a), files(&b), "two runs wrote different bytes");

    let got = results(&a);
    let expected_runs = StudySpec::full(vec![6, 8], 3, BUDGET).runs();
    assert_eq!(
        got.iter().map(|r| r.run).collect::<Vec<_>>(),
        expected_runs,
        "results are in grid order, one per run"
    );
    let mut puzzles = study::PuzzleCache::default();
    for r in &got {
        let (puzzle, floor) = puzzles.puzzle(&r.run).unwrap();
        let local = study::run_on(&r.run, &puzzle, floor).unwrap();
        assert_eq!(r, &local, "the cluster's result differs from run_one");
    }
    // The grid is not degenerate, and every run kept to its budget.
    assert!(got.iter().any(|r| r.depth > 0));
    // One spot check of the cached path against the plain one.
    assert_eq!(study::run_one(&got[7].run).unwrap(), got[7]);
    assert!(got.iter().all(|r| r.nodes <= BUDGET + 1));

    let report = String::from_utf8(files(&a)[1].clone()).unwrap();
    for heading in ["Pinned-seam floor", "Depth reached", "Paired difference"] {
        assert!(report.contains(heading), "report lacks {heading}");
    }
}

#[test]
fn the_hint_study_on_a_real_cluster_writes_the_embedded_bytes() {
    let mut cluster = Cluster::new();
    cluster.start_coordinator(&[]);
    cluster.start_worker(2, &[]);
    let dir = tempfile::tempdir().unwrap();
    let (remote, local) = (dir.path().join("remote"), dir.path().join("local"));
    let grid = [
        "experiment",
        "hint-study",
        "--sizes",
        "6",
        "--seeds",
        "2",
        "--budget-nodes",
        "5000",
        "--orders",
        "row-major,spiral-in",
    ];
    let remote_s = remote.to_string_lossy().into_owned();
    let mut args = grid.to_vec();
    args.extend_from_slice(&["--out", &remote_s]);
    ok(&cluster.client(&args));
    let local_s = local.to_string_lossy().into_owned();
    let mut args = grid.to_vec();
    args.extend_from_slice(&["--embedded", "--out", &local_s]);
    ok(&e2(&args));
    assert_eq!(files(&remote), files(&local));
    assert_eq!(results(&remote).len(), 2 * 2 * 5);

    // The coordinator itself refuses an unknown order, naming the field
    // and the valid names.
    let url = cluster.url();
    let refused = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap()
        .block_on(async {
            let mut c =
                e2_proto::pb::client_service_client::ClientServiceClient::connect(url).await?;
            let puzzle = generate(&GenSpec::square(4, 1)).unwrap().puzzle;
            let request = e2_proto::pb::SubmitRequest {
                puzzle_json: e2_shared::formats::puzzle_json::write(&puzzle),
                mode: e2_proto::pb::Mode::Best as i32,
                search: Some(e2_proto::pb::SearchSettings {
                    order: "zigzag".into(),
                    ..Default::default()
                }),
                ..Default::default()
            };
            Ok::<_, tonic::transport::Error>(c.submit(request).await)
        });
    let status = refused.unwrap().unwrap_err();
    assert_eq!(status.code(), tonic::Code::InvalidArgument);
    for word in ["search.order", "zigzag", "spiral-in", "connect-hints-first"] {
        assert!(status.message().contains(word), "{}", status.message());
    }
}

#[test]
fn a_time_budget_is_refused_with_the_reason() {
    let out = e2(&["experiment", "hint-study", "--budget-ms", "100"]);
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("--budget-ms") && err.contains("--budget-nodes"),
        "{err}"
    );
}

/// A generated 6×6 puzzle with its five clue cells, as a file.
fn puzzle_file(dir: &Path) -> (std::path::PathBuf, e2_shared::Puzzle) {
    let puzzle = generate(&GenSpec {
        layout: e2_shared::layouts::Layout::Official5,
        ..GenSpec::square(6, 3)
    })
    .unwrap()
    .puzzle;
    let path = dir.join("p.json");
    std::fs::write(&path, e2_shared::formats::puzzle_json::write(&puzzle)).unwrap();
    (path, puzzle)
}

/// Placed seams (both sides filled) that do not match.
fn placed_breaks(board: &e2_shared::Board) -> usize {
    let (w, h) = (board.width, board.height);
    let mut breaks = 0;
    for r in 0..h {
        for c in 0..w {
            let Some(here) = board.cells[r * w + c] else {
                continue;
            };
            if c + 1 < w {
                if let Some(right) = board.cells[r * w + c + 1] {
                    breaks += usize::from(here[1] != right[3]);
                }
            }
            if r + 1 < h {
                if let Some(below) = board.cells[(r + 1) * w + c] {
                    breaks += usize::from(here[2] != below[0]);
                }
            }
        }
    }
    breaks
}

#[test]
fn a_strict_solve_in_spiral_order_places_no_break() {
    let dir = tempfile::tempdir().unwrap();
    let (path, puzzle) = puzzle_file(dir.path());
    let p = path.to_string_lossy().into_owned();
    let out = e2(&[
        "solve",
        "--puzzle",
        &p,
        "--order",
        "spiral-in",
        "--max-breaks",
        "0",
        "--time",
        "2",
        "--threads",
        "1",
    ]);
    ok(&out);
    let doc: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let codes: Vec<i32> = doc["board"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c.as_i64().unwrap() as i32)
        .collect();
    let board = e2_shared::Board::from_codes(&puzzle, &codes).unwrap();
    assert!(board.filled() > puzzle.hints.len(), "nothing was placed");
    assert_eq!(placed_breaks(&board), 0);
    assert!(board.check_hints(&puzzle).1.is_empty());
}

#[test]
fn a_bad_order_name_is_a_clear_error() {
    let dir = tempfile::tempdir().unwrap();
    let (path, _) = puzzle_file(dir.path());
    let p = path.to_string_lossy().into_owned();
    let out = e2(&["solve", "--puzzle", &p, "--order", "zigzag", "--time", "1"]);
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    for word in ["--order", "zigzag", "row-major", "spiral-in"] {
        assert!(err.contains(word), "{err}");
    }
    let out = e2(&["experiment", "hint-study", "--orders", "zigzag"]);
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("--orders"));
}
