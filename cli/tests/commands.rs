//! The board commands as a user runs them: the real `e2` binary, its stdout,
//! stderr and exit code.

use std::path::Path;
use std::process::{Command, Output};

fn e2(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_e2"))
        .args(args)
        .output()
        .expect("run e2")
}

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// A file of the community data beside the repository; the tests that
/// call this are ignored on clones without it (`cli/build.rs`).
fn data(rel: &str) -> String {
    let p = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../shared/data")
        .join(rel);
    assert!(
        p.exists(),
        "{} is absent: this test needs the community data",
        p.display()
    );
    p.to_string_lossy().into_owned()
}

/// Generates a distinct 5x5 puzzle with official5 hints and its solution.
fn generated(dir: &Path) -> (String, String) {
    let puzzle = dir.join("p.json").to_string_lossy().into_owned();
    let solution = dir.join("s.json").to_string_lossy().into_owned();
    let o = e2(&[
        "generate",
        "--size",
        "5",
        "--colors",
        "8",
        "--border-colors",
        "3",
        "--seed",
        "4",
        "--hints",
        "official5",
        "-o",
        &puzzle,
        "--solution",
        &solution,
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    (puzzle, solution)
}

#[test]
fn generate_then_score_then_convert_round_trip() {
    let dir = tempfile::tempdir().unwrap();
    let (puzzle, solution) = generated(dir.path());
    let o = e2(&["score", &solution, "--puzzle", &puzzle]);
    assert!(o.status.success(), "{}", stderr(&o));
    let out = stdout(&o);
    assert!(out.contains("score: 40 / 40 (breaks 0)"), "{out}");
    assert!(out.contains("clues: 5 of 5 honoured"), "{out}");

    // BoardDoc -> URL -> BoardDoc with the set gives back the same document.
    let url = stdout(&e2(&["convert", &solution, "--to", "url"]));
    assert!(
        url.starts_with("https://eternity2.dev/viewer?puzzle="),
        "{url}"
    );
    let o = e2(&[
        "convert",
        url.trim(),
        "--puzzle",
        &puzzle,
        "--to",
        "boarddoc",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let original: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&solution).unwrap()).unwrap();
    let back: serde_json::Value = serde_json::from_str(&stdout(&o)).unwrap();
    assert_eq!(original["board_hash"], back["board_hash"]);
    assert_eq!(original["board"], back["board"]);
}

#[test]
fn convert_without_the_set_says_what_is_missing() {
    let dir = tempfile::tempdir().unwrap();
    let (_, solution) = generated(dir.path());
    let edges = stdout(&e2(&["convert", &solution, "--to", "board-edges"]));
    let o = e2(&["convert", edges.trim()]);
    assert!(o.status.success());
    let out = stdout(&o);
    assert!(out.contains("input: board_edges"), "{out}");
    assert!(out.contains("needs the piece set: pass --puzzle"), "{out}");
    assert!(out.contains("score: 40 / 40 (breaks 0)"), "{out}");
    let o = e2(&["convert", edges.trim(), "--to", "board-pieces"]);
    assert!(!o.status.success());
    assert!(
        stderr(&o).contains("board-pieces: needs the piece set"),
        "{}",
        stderr(&o)
    );
}

#[test]
fn bad_input_is_one_clear_line_and_a_failure() {
    let dir = tempfile::tempdir().unwrap();
    let (puzzle, _) = generated(dir.path());
    // Uppercase letter in cell 0.
    let o = e2(&["convert", "Aaaa"]);
    assert!(!o.status.success());
    let err = stderr(&o);
    assert!(err.contains("cell 0") && err.contains("uppercase"), "{err}");
    assert_eq!(err.trim().lines().count(), 1, "{err}");
    // A cell whose edges match no piece of the set.
    let bad = "bbbb".repeat(25);
    let o = e2(&["score", &bad, "--puzzle", &puzzle]);
    let o2 = e2(&["convert", &bad, "--puzzle", &puzzle]);
    assert!(
        o.status.success(),
        "scoring needs no identities: {}",
        stderr(&o)
    );
    assert!(!o2.status.success());
    assert!(stderr(&o2).contains("match no piece"), "{}", stderr(&o2));
    // A missing file is named.
    let o = e2(&["score", "missing_board.json"]);
    assert!(
        stderr(&o).contains("missing_board.json: no such file"),
        "{}",
        stderr(&o)
    );
    // A puzzle where a board is expected.
    let o = e2(&["score", &puzzle]);
    assert!(stderr(&o).contains("this is a puzzle"), "{}", stderr(&o));
}

#[test]
fn render_draws_the_board_and_its_hints() {
    let dir = tempfile::tempdir().unwrap();
    let (puzzle, solution) = generated(dir.path());
    let svg = dir.path().join("b.svg");
    let o = e2(&[
        "render",
        &solution,
        "--puzzle",
        &puzzle,
        "-o",
        svg.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let text = std::fs::read_to_string(&svg).unwrap();
    assert!(text.starts_with("<svg"));
    assert_eq!(text.matches("<polygon").count(), 25 * 4);
    assert_eq!(text.matches(r#"class="hint""#).count(), 5);
    assert_eq!(text.matches(r#"class="break""#).count(), 0);
}

#[test]
#[cfg_attr(
    e2_no_data,
    ignore = "needs ../shared/data (community files), absent on this clone"
)]
fn a_record_board_scores_its_claim_through_the_cli() {
    let boards = data("boards/known_boards.json");
    let official = data("official/official_eternity2.csv");
    let json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(boards).unwrap()).unwrap();
    let board = json["boards"]
        .as_array()
        .unwrap()
        .iter()
        .find(|b| b["score"] == 470)
        .expect("the 470 record is in the data");
    let params = board["params"].as_str().unwrap();
    let o = e2(&["score", params, "--puzzle", &official, "--json"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let v: serde_json::Value = serde_json::from_str(&stdout(&o)).unwrap();
    assert_eq!(v["score"], 470);
    assert_eq!(v["max"], 480);
}

#[test]
fn dlx_counts_a_knuth_format_file() {
    let dir = tempfile::tempdir().unwrap();
    // Knuth's seven-item example from "Dancing Links".
    let example = dir.path().join("knuth.dlx");
    std::fs::write(
        &example,
        "| Knuth's example\nA B C D E F G\nC E F\nA D G\nB C F\nA D\nB G\nD E G\n",
    )
    .unwrap();
    let o = e2(&["dlx", example.to_str().unwrap(), "--first"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let v: serde_json::Value = serde_json::from_str(&stdout(&o)).unwrap();
    assert_eq!(v["solutions"], 1);
    let mut first: Vec<String> = v["first"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s.as_str().unwrap().to_string())
        .collect();
    first.sort();
    assert_eq!(first, vec!["A D", "B G", "C E F"]);

    let bad = dir.path().join("bad.dlx");
    std::fs::write(&bad, "A B | x\nA Z\n").unwrap();
    let o = e2(&["dlx", bad.to_str().unwrap()]);
    assert!(!o.status.success());
    let err = stderr(&o);
    assert!(err.contains("line 2") && err.contains("Z"), "{err}");
}

#[test]
#[cfg_attr(
    e2_no_data,
    ignore = "needs ../shared/data (community files), absent on this clone"
)]
fn dlx_counts_the_ten_queens_data_file() {
    let queens = data("dlx/queens10.dlx");
    let v: serde_json::Value = serde_json::from_str(&stdout(&e2(&["dlx", &queens]))).unwrap();
    assert_eq!(v["solutions"], 724);
    assert_eq!(v["algorithm"], "sparse");
    let o = e2(&["dlx", &queens, "--algorithm", "links"]);
    let links: serde_json::Value = serde_json::from_str(&stdout(&o)).unwrap();
    assert_eq!(links["solutions"], 724);
    assert_eq!(links["algorithm"], "links");
    assert!(links["nodes"].as_u64().unwrap() > 724, "{links}");
    // The bit sets walk the links' tree: dlx2's nodes, no updates.
    let o = e2(&["dlx", &queens, "--algorithm", "bits"]);
    let bits: serde_json::Value = serde_json::from_str(&stdout(&o)).unwrap();
    assert_eq!(bits["solutions"], 724);
    assert_eq!(bits["algorithm"], "bits");
    assert_eq!(bits["nodes"], links["nodes"]);
    assert!(bits["updates"].is_null(), "{bits}");
}

#[test]
fn dlx_bits_refuses_a_problem_too_large_for_its_sets() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("wide.dlx");
    let options: String = (0..20_000).map(|k| format!("a{}\n", k % 2)).collect();
    std::fs::write(&file, format!("a0 a1\n{options}")).unwrap();
    let o = e2(&["dlx", file.to_str().unwrap(), "--algorithm", "bits"]);
    assert!(!o.status.success());
    let err = stderr(&o);
    assert!(
        err.contains("20000 options") && err.contains("sparse") && err.lines().count() == 1,
        "{err}"
    );
}
