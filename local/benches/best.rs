//! `cargo bench -p e2-local --bench best [-- PUZZLE]`: the best score a
//! cluster reaches after 1, 10 and 60 minutes, beside the Blackwood-style
//! anchor given the same cores for the same times.
//!
//! e2 side: a coordinator and `E2_BENCH_WORKERS` (default 2) one-thread
//! workers on 127.0.0.1, one best job with the default search, its best
//! board read and re-scored at each mark (`e2_local::best_bench`). Anchor
//! side, after it: `blackwood_bt --threads N` (N = the workers), as built by
//! `../shared/anchors/run.sh build`, with the settings `run.sh blackwood`
//! uses (restarts every 20 M nodes), its `best_so_far.json` read and
//! re-scored by e2's scorer at the same marks. The two run one after the
//! other, each with the machine to itself.
//!
//! Default puzzle: the official one with its five clues
//! (`../shared/data/official/official_eternity2.csv`); any Puzzle JSON or
//! CSV may be given (the anchor needs a square one).
//!
//! Settings (environment): `E2_BENCH_MARKS` seconds, comma-separated
//! (default `60,600,3600`); `E2_BENCH_WORKERS` (default 2);
//! `E2_BENCH_ANCHOR=none` skips the anchor; `E2_BENCH_SEED` the anchor's
//! seed (default 1). A full run takes twice the last mark: two hours.

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use anyhow::{anyhow, bail, Context, Result};
use e2_local::best_bench::{best_at_marks, MarkReading};
use e2_shared::formats::{detect, puzzle_csv, Duplicates};
use e2_shared::{score, Board, Puzzle};

const ANCHOR_BIN: &str =
    "src/research/experiments/single-core-benchmark/engine/target/release/blackwood_bt";

fn main() -> Result<()> {
    let path = std::env::args()
        .skip(1)
        .find(|a| !a.starts_with('-'))
        .map(PathBuf::from)
        .unwrap_or_else(|| repo_sibling("shared/data/official/official_eternity2.csv"));
    let text = match std::fs::read_to_string(&path) {
        Ok(t) => t,
        Err(e) => {
            eprintln!(
                "skipping the best bench: cannot read {}: {e}",
                path.display()
            );
            return Ok(());
        }
    };
    let name = path
        .file_stem()
        .and_then(|s| s.to_str())
        .unwrap_or("puzzle");
    let puzzle = detect::read_puzzle(&text, Some(name), Duplicates::Allow)
        .with_context(|| format!("{}", path.display()))?;
    let marks = marks()?;
    let workers: usize = env_or("E2_BENCH_WORKERS", "2")
        .parse()
        .map_err(|_| anyhow!("E2_BENCH_WORKERS: expected a number of workers"))?;
    if workers == 0 {
        bail!("E2_BENCH_WORKERS: at least 1 worker");
    }
    let seed: u64 = env_or("E2_BENCH_SEED", "1")
        .parse()
        .map_err(|_| anyhow!("E2_BENCH_SEED: expected a number"))?;
    let skip_anchor = env_or("E2_BENCH_ANCHOR", "blackwood") == "none";
    eprintln!(
        "best bench: {} ({} clues), marks {:?} s, e2 on {workers} one-thread workers{}",
        puzzle.name,
        puzzle.hints.len(),
        marks.iter().map(Duration::as_secs).collect::<Vec<_>>(),
        if skip_anchor {
            String::new()
        } else {
            format!(", then the anchor with --threads {workers}")
        }
    );

    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()?;
    let ours = runtime.block_on(best_at_marks(&puzzle, workers, &marks, |r| {
        println!(
            "{}",
            serde_json::json!({
                "engine": "e2",
                "puzzle": puzzle.name,
                "workers": workers,
                "seconds": r.at.as_secs(),
                "score": r.score,
                "nodes": r.nodes,
            })
        );
    }))?;
    drop(runtime);

    let theirs = if skip_anchor {
        None
    } else {
        match anchor_binary() {
            Ok(bin) => Some(run_anchor(&bin, &puzzle, workers, seed, &marks)?),
            Err(e) => {
                eprintln!("skipping the anchor: {e:#}");
                None
            }
        }
    };

    println!(
        "\n{}, {workers} workers (e2) / --threads {workers} (blackwood_bt)",
        puzzle.name
    );
    println!(
        "{:>8}  {:>5}  {:>9}  {:>10}",
        "seconds", "e2", "blackwood", "difference"
    );
    for (k, r) in ours.iter().enumerate() {
        let anchor = theirs.as_ref().and_then(|t: &Vec<Option<u32>>| t[k]);
        let show = |s: Option<u32>| s.map_or("-".to_string(), |s| s.to_string());
        let diff = match (r.score, anchor) {
            (Some(a), Some(b)) => format!("{:+}", i64::from(a) - i64::from(b)),
            _ => "-".to_string(),
        };
        println!(
            "{:>8}  {:>5}  {:>9}  {:>10}",
            r.at.as_secs(),
            show(r.score),
            show(anchor),
            diff
        );
    }
    best_board(&ours);
    Ok(())
}

/// Prints e2's last board (BoardDoc JSON) to stderr, for `e2 score`.
fn best_board(readings: &[MarkReading]) {
    if let Some(doc) = readings.last().and_then(|r| r.board.as_ref()) {
        eprintln!("e2's best board at the last mark:\n{doc}");
    }
}

fn env_or(key: &str, default: &str) -> String {
    std::env::var(key).unwrap_or_else(|_| default.to_string())
}

fn marks() -> Result<Vec<Duration>> {
    let text = env_or("E2_BENCH_MARKS", "60,600,3600");
    let marks = text
        .split(',')
        .map(|s| {
            s.trim()
                .parse::<u64>()
                .ok()
                .filter(|&s| s > 0)
                .map(Duration::from_secs)
                .ok_or_else(|| anyhow!("E2_BENCH_MARKS: \"{s}\" is not a number of seconds"))
        })
        .collect::<Result<Vec<_>>>()?;
    Ok(marks)
}

/// `../PATH` beside the repository.
fn repo_sibling(path: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../..")
        .join(path)
}

/// The anchor's binary, built by `run.sh build` if it is not there yet.
fn anchor_binary() -> Result<PathBuf> {
    let dir = std::env::var_os("E2_ANCHORS_DIR")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| Path::new(&h).join(".cache/e2-anchors")))
        .ok_or_else(|| anyhow!("neither E2_ANCHORS_DIR nor HOME is set"))?;
    let bin = dir.join(ANCHOR_BIN);
    if !bin.is_file() {
        let run_sh = repo_sibling("shared/anchors/run.sh");
        eprintln!("building the anchors: bash {} build", run_sh.display());
        let status = Command::new("bash")
            .arg(&run_sh)
            .arg("build")
            .stdin(Stdio::null())
            .status()
            .with_context(|| format!("cannot run {}", run_sh.display()))?;
        if !status.success() || !bin.is_file() {
            bail!("{} build did not make {}", run_sh.display(), bin.display());
        }
    }
    Ok(bin)
}

/// Kills the anchor however the run ends.
struct Running(Child);

impl Drop for Running {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// Runs the anchor on `threads` threads and reads its best board at each
/// mark; `None` where it had written none yet.
fn run_anchor(
    bin: &Path,
    puzzle: &Puzzle,
    threads: usize,
    seed: u64,
    marks: &[Duration],
) -> Result<Vec<Option<u32>>> {
    let work = tempfile::tempdir()?;
    let csv = work.path().join("puzzle.csv");
    std::fs::write(&csv, puzzle_csv::write(puzzle)?)?;
    let log = |name: &str| std::fs::File::create(work.path().join(name));
    let started = Instant::now();
    let _child = Running(
        Command::new(bin)
            .arg(&csv)
            .args(["--nodecap", "20000000", "--restarts", "1000000000"])
            .args(["--seed", &seed.to_string()])
            .args(["--threads", &threads.to_string()])
            .arg("--emit-dir")
            .arg(work.path())
            .args(["--emit-prefix", "a"])
            .stdin(Stdio::null())
            .stdout(log("out.log")?)
            .stderr(log("err.log")?)
            .spawn()
            .with_context(|| format!("cannot start {}", bin.display()))?,
    );
    let mut scores = Vec::new();
    for &at in marks {
        if let Some(wait) = at.checked_sub(started.elapsed()) {
            std::thread::sleep(wait);
        }
        let score = anchor_score(puzzle, &work.path().join("best_so_far.json"))?;
        println!(
            "{}",
            serde_json::json!({
                "engine": "blackwood",
                "puzzle": puzzle.name,
                "threads": threads,
                "seed": seed,
                "seconds": at.as_secs(),
                "score": score,
            })
        );
        scores.push(score);
    }
    Ok(scores)
}

/// The canonical score of the anchor's best board (`piece*4+rot` per
/// cell), or `None` before it has written one. A board that does not
/// decode, or whose own score disagrees, stops the bench.
fn anchor_score(puzzle: &Puzzle, file: &Path) -> Result<Option<u32>> {
    let Ok(text) = std::fs::read_to_string(file) else {
        return Ok(None);
    };
    let doc: serde_json::Value =
        serde_json::from_str(&text).with_context(|| format!("{}: not JSON", file.display()))?;
    let codes: Vec<i32> = doc
        .get("board")
        .and_then(|b| b.as_array())
        .ok_or_else(|| anyhow!("{}: no \"board\" array", file.display()))?
        .iter()
        .map(|c| c.as_i64().and_then(|c| i32::try_from(c).ok()))
        .collect::<Option<_>>()
        .ok_or_else(|| anyhow!("{}: \"board\" holds a non-integer", file.display()))?;
    let board = Board::from_codes(puzzle, &codes)
        .with_context(|| format!("{}: the anchor's board", file.display()))?;
    let canonical = score::score(&board);
    if let Some(claimed) = doc.get("score").and_then(|s| s.as_u64()) {
        if claimed != u64::from(canonical) {
            bail!(
                "{}: the anchor claims {claimed}, its board scores {canonical}",
                file.display()
            );
        }
    }
    Ok(Some(canonical))
}
