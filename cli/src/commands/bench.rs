//! `e2 bench`: how fast e2's engines run, alone or beside an anchor engine.
//!
//! A node rate measured alone says as much about the machine as about the
//! engine (hosts of one kind differ by 1.5×), so the figure worth quoting is
//! a ratio against an anchor engine (`../shared/anchors/run.sh`) measured in
//! the same run on the same input for the same time. `--against` does that,
//! and alternates the two programs round by round so that a drift of the
//! machine (another build starting, the clock throttling) falls on both
//! sides rather than on one.
//!
//! Without `--against` each run is measured in-process: the engine threads
//! walk disjoint prefixes of the tree until a timer raises the engine's
//! [`Control`] stop flag, so the walk itself is exactly the one a count or
//! best job runs, with no extra instrumentation in its loop. A tree that is
//! walked to its end before the time is up is walked again, so a small
//! puzzle still yields a rate over the whole time.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use anyhow::{anyhow, bail, Context, Result};
use clap::Args;
use e2_shared::backtrack::Backtracker;
use e2_shared::engine::{BestLease, BestSearch, Engine, Subtree, COUNT_ORDER};
use e2_shared::formats::Duplicates;
use e2_shared::score::{max_score, score};
use e2_shared::search::{Control, Limits, Prefix, RunEnd};
use e2_shared::{Board, Puzzle};
use serde_json::{json, Value};

use crate::input::read_puzzle;

/// Seconds per run when `--seconds` is not given.
const DEFAULT_SECONDS: u64 = 10;

/// `.dlx` files may be large (see `e2 dlx`).
const MAX_DLX_BYTES: u64 = 64 * 1024 * 1024;

/// Deepest prefix level the tree is cut at to feed several threads.
const MAX_SPLIT_DEPTH: usize = 6;

/// Prefixes wanted per thread, so that a thread whose subtree ends early
/// finds another one.
const PREFIXES_PER_THREAD: usize = 4;

const ABOUT_LONG: &str = "\
Measure e2's engines: nodes per second, or the best score found in a time.

Modes (what one run measures, for --seconds on --threads threads):
  strict  the strict row-scan walk of the backtracker: row-major depth-first
          search, every placed seam matching, counting nodes and nothing
          else. The same walk and entry point as `cargo bench --bench
          backtrack -- throughput`, and what the `jit` anchor does.
  count   the counting engine through the engine contract (Engine::count on
          a subtree, as a count job's worker runs it), with --engine
          backtrack or dlx. A dlx node is a choice of Algorithm C, a far
          bigger step than a backtracker node: compare rates of one engine.
  best    the best-score search of `e2 solve` (break-tolerant, restarts);
          reports the best board's score, re-scored by the canonical scorer.

With --threads N the tree is cut into prefixes and the N threads walk
disjoint ones; their nodes are summed. A node is one placement.

Figures measured alone depend on the machine. Only ratios against an anchor
measured in the same run are comparable across machines: --against runs an
anchor engine of ../shared/anchors on the same input for the same time,
alternating e2 and the anchor for --rounds rounds, and prints both figures
of every round and the ratio:
  jit        rates: e2 strict (or count) nodes/s ÷ the anchor's nodes/s
  blackwood  scores: e2 best score − the anchor's score (a difference)
  dlx2/ssxcc whole .dlx files (--dlx FILE): the anchor's time ÷ e2's time
             (above 1: e2 is faster); the solution counts must agree
The anchors are single-core, so --against runs e2 on one thread. Their
first use builds them (several minutes). run.sh is found through --anchors
or E2_ANCHORS (its folder or the script), else ../shared/anchors beside
the current directory or one of its parents.

Several --puzzle (or --dlx) inputs are measured one after the other; with
--against a last line gives the mean ratio over them.

Examples:
  e2 bench --puzzle variant_00.json --seconds 10
  e2 bench --puzzle p.json --mode best --threads 4
  e2 bench --against jit --puzzle a.json --puzzle b.json --seconds 10
  e2 bench --against dlx2 --dlx s2_06x06.dlx --rounds 1";

#[derive(Debug, Args)]
#[command(long_about = ABOUT_LONG)]
pub struct BenchArgs {
    /// Puzzle to measure (Puzzle JSON or CSV; Puzzle JSON files for
    /// --against). Repeat it (or list several) to measure each in turn.
    #[arg(long, value_name = "P.json", num_args = 1..)]
    pub puzzle: Vec<String>,
    /// Exact-cover file in Knuth's dlx text format, counted by the DLX
    /// engine (as `e2 dlx` does); the input of --against dlx2 and ssxcc.
    #[arg(long, value_name = "FILE.dlx", num_args = 1..)]
    pub dlx: Vec<PathBuf>,
    /// Seconds per run [default: 10]. Ignored by --against dlx2/ssxcc,
    /// which count whole files.
    #[arg(long, value_name = "S")]
    pub seconds: Option<u64>,
    /// Engine threads, each on its own prefixes of the tree.
    #[arg(long, value_name = "N", default_value_t = 1, value_parser = crate::commands::threads_arg)]
    pub threads: usize,
    /// strict, count or best (`--help` says what each measures) [default: strict; best with
    /// --against blackwood].
    #[arg(long, value_name = "MODE")]
    pub mode: Option<String>,
    /// Engine of --mode count: backtrack or dlx.
    #[arg(long, value_name = "ENGINE", default_value = "backtrack")]
    pub engine: Engine,
    /// Measure beside an anchor engine: jit, blackwood, dlx2 or ssxcc.
    #[arg(long, value_name = "ANCHOR")]
    pub against: Option<String>,
    /// Rounds of --against: each runs e2, then the anchor.
    #[arg(long, value_name = "R", default_value_t = 2)]
    pub rounds: u32,
    /// The anchors' run.sh, or the folder holding it.
    #[arg(long, value_name = "DIR", env = "E2_ANCHORS")]
    pub anchors: Option<PathBuf>,
    /// Seed of the best-score search (round r of --against uses seed+r-1,
    /// and gives the anchor the same).
    #[arg(long, value_name = "N", default_value_t = 1)]
    pub seed: u64,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Mode {
    Strict,
    Count,
    Best,
}

impl Mode {
    fn parse(s: &str) -> Result<Self> {
        match s {
            "strict" => Ok(Mode::Strict),
            "count" => Ok(Mode::Count),
            "best" => Ok(Mode::Best),
            _ => bail!("--mode \"{s}\": unknown mode; expected strict, count or best"),
        }
    }

    fn name(self) -> &'static str {
        match self {
            Mode::Strict => "strict",
            Mode::Count => "count",
            Mode::Best => "best",
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Anchor {
    Jit,
    Blackwood,
    Dlx2,
    Ssxcc,
}

impl Anchor {
    fn parse(s: &str) -> Result<Self> {
        match s {
            "jit" => Ok(Anchor::Jit),
            "blackwood" => Ok(Anchor::Blackwood),
            "dlx2" => Ok(Anchor::Dlx2),
            "ssxcc" => Ok(Anchor::Ssxcc),
            _ => bail!("--against \"{s}\": unknown anchor; expected jit, blackwood, dlx2 or ssxcc"),
        }
    }

    fn name(self) -> &'static str {
        match self {
            Anchor::Jit => "jit",
            Anchor::Blackwood => "blackwood",
            Anchor::Dlx2 => "dlx2",
            Anchor::Ssxcc => "ssxcc",
        }
    }

    fn counts_files(self) -> bool {
        matches!(self, Anchor::Dlx2 | Anchor::Ssxcc)
    }
}

/// Everything checked before the first measurement starts.
struct Plan {
    mode: Mode,
    engine: Engine,
    seconds: u64,
    threads: usize,
    seed: u64,
}

pub fn run(args: BenchArgs) -> Result<()> {
    let anchor = args.against.as_deref().map(Anchor::parse).transpose()?;
    let mode = match (args.mode.as_deref().map(Mode::parse).transpose()?, anchor) {
        (Some(m), _) => m,
        (None, Some(Anchor::Blackwood)) => Mode::Best,
        (None, _) => Mode::Strict,
    };
    if args.seconds == Some(0) {
        bail!("--seconds 0: a run needs at least 1 second");
    }
    if args.rounds == 0 {
        bail!("--rounds 0: --against needs at least 1 round");
    }
    if mode != Mode::Count && args.engine != Engine::Backtrack {
        bail!(
            "--engine {}: only --mode count takes an engine (strict and best are the backtracker's)",
            args.engine
        );
    }
    let plan = Plan {
        mode,
        engine: args.engine,
        seconds: args.seconds.unwrap_or(DEFAULT_SECONDS),
        threads: args.threads,
        seed: args.seed,
    };
    if !args.puzzle.is_empty() && !args.dlx.is_empty() {
        bail!("--puzzle and --dlx: give one kind of input per run");
    }
    let Some(anchor) = anchor else {
        if !args.dlx.is_empty() {
            return bench_dlx_files(&args.dlx, plan.seconds);
        }
        if args.puzzle.is_empty() {
            bail!("no --puzzle: give the puzzle to measure (--puzzle P.json, or --dlx FILE.dlx)");
        }
        let puzzles = read_puzzles(&args.puzzle)?;
        for (input, puzzle) in args.puzzle.iter().zip(&puzzles) {
            let run = measure(puzzle, &plan, plan.seed)?;
            crate::outln!("{}", run.json(puzzle, input, &plan));
        }
        return Ok(());
    };
    // Against an anchor: check every input and find run.sh first, so that a
    // mistake costs no measurement.
    if args.threads != 1 {
        bail!(
            "--threads {}: the anchors run on one core, so --against measures e2 on one thread too",
            args.threads
        );
    }
    if anchor.counts_files() {
        if args.dlx.is_empty() {
            bail!(
                "--against {}: counts whole .dlx files: give --dlx FILE.dlx",
                anchor.name()
            );
        }
        if args.seconds.is_some() {
            eprintln!(
                "note: --seconds is ignored: {} counts whole files",
                anchor.name()
            );
        }
    } else if args.puzzle.is_empty() {
        bail!(
            "no --puzzle: --against {} needs the puzzle (a Puzzle JSON file)",
            anchor.name()
        );
    } else if !args.dlx.is_empty() {
        bail!(
            "--dlx: --against {} runs puzzles, not .dlx files",
            anchor.name()
        );
    }
    match (anchor, mode) {
        (Anchor::Jit, Mode::Best) => {
            bail!("--against jit --mode best: jit measures node rates; use strict or count")
        }
        (Anchor::Blackwood, Mode::Strict | Mode::Count) => bail!(
            "--against blackwood --mode {}: blackwood measures scores; use best",
            mode.name()
        ),
        _ => {}
    }
    let run_sh = locate_anchors(args.anchors.as_deref())?;
    if anchor.counts_files() {
        let texts = args
            .dlx
            .iter()
            .map(|p| crate::input::read_file(p, MAX_DLX_BYTES))
            .collect::<Result<Vec<_>>>()?;
        return against_dlx(&run_sh, anchor, &args.dlx, &texts, args.rounds);
    }
    for input in &args.puzzle {
        check_anchor_input(input)?;
    }
    let puzzles = read_puzzles(&args.puzzle)?;
    let mut ratios = Vec::new();
    for (input, puzzle) in args.puzzle.iter().zip(&puzzles) {
        ratios.push(against_puzzle(
            &run_sh,
            anchor,
            input,
            puzzle,
            &plan,
            args.rounds,
        )?);
    }
    if ratios.len() > 1 {
        let n = ratios.len() as f64;
        let mean = ratios.iter().sum::<f64>() / n;
        let key = if anchor == Anchor::Blackwood {
            "mean_difference"
        } else {
            "mean_ratio"
        };
        let mut out = json!({
            "summary": "mean",
            "against": anchor.name(),
            "puzzles": ratios.len(),
            key: round3(mean),
        });
        if anchor != Anchor::Blackwood {
            let geomean = (ratios.iter().map(|r| r.ln()).sum::<f64>() / n).exp();
            out["geomean_ratio"] = json!(round3(geomean));
        }
        crate::outln!("{out}");
    }
    Ok(())
}

fn read_puzzles(inputs: &[String]) -> Result<Vec<Puzzle>> {
    inputs
        .iter()
        .map(|p| read_puzzle(p, Duplicates::Allow))
        .collect()
}

fn round3(x: f64) -> f64 {
    (x * 1000.0).round() / 1000.0
}

/// One in-process run's figures.
struct Measured {
    nodes: u64,
    seconds: f64,
    /// Work items (prefixes) the tree was cut into.
    prefixes: usize,
    /// Subtrees walked to their end (a small tree is walked again).
    walks_finished: u64,
    /// Best mode: the best board found.
    best: Option<(u32, Board)>,
}

impl Measured {
    fn nodes_per_s(&self) -> f64 {
        self.nodes as f64 / self.seconds.max(1e-9)
    }

    fn json(&self, puzzle: &Puzzle, input: &str, plan: &Plan) -> Value {
        let engine = match plan.mode {
            Mode::Count => plan.engine,
            Mode::Strict | Mode::Best => Engine::Backtrack,
        };
        let mut out = json!({
            "puzzle": puzzle.name,
            "input": input,
            "mode": plan.mode.name(),
            "engine": engine.name(),
            "threads": plan.threads,
            "nodes": self.nodes,
            "seconds": round3(self.seconds),
            "nodes_per_s": self.nodes_per_s().round(),
            "prefixes": self.prefixes,
            "walks_finished": self.walks_finished,
        });
        if plan.mode == Mode::Best {
            out["seed"] = json!(plan.seed);
            out["score"] = json!(self.best.as_ref().map_or(0, |(s, _)| *s));
            out["max_score"] = json!(max_score(puzzle.width, puzzle.height));
        }
        out
    }
}

/// What one walk of one prefix gave.
struct Step {
    nodes: u64,
    finished: bool,
    best: Option<(u32, Board)>,
}

/// Runs `plan.mode` on `puzzle` for `plan.seconds` on `plan.threads`
/// threads; `seed` seeds the best-score search.
fn measure(puzzle: &Puzzle, plan: &Plan, seed: u64) -> Result<Measured> {
    let engine = match plan.mode {
        Mode::Count => plan.engine,
        Mode::Strict | Mode::Best => Engine::Backtrack,
    };
    let order = match plan.mode {
        Mode::Best => BestSearch::default().order,
        Mode::Strict | Mode::Count => COUNT_ORDER,
    };
    let prefixes = split(engine, puzzle, order, plan.threads)
        .with_context(|| format!("cannot cut {} into prefixes", puzzle.name))?;
    let search = BestSearch::default();
    let max = max_score(puzzle.width, puzzle.height);
    let threads = plan.threads;
    match plan.mode {
        // The strict walk keeps its backtracker between walks of the same
        // prefix: a small tree walked again costs no new plan.
        Mode::Strict => timed(&prefixes, threads, plan.seconds, |_| {
            let mut kept: Option<(usize, Backtracker)> = None;
            move |index: usize, prefix: &Prefix, control: &Control| {
                let bt = match &mut kept {
                    Some((i, bt)) if *i == index => bt,
                    _ => {
                        let bt = Backtracker::new(puzzle, order, prefix)?;
                        &mut kept.insert((index, bt)).1
                    }
                };
                let report = bt.count(&Limits::none().with_control(control));
                Ok(Step {
                    nodes: report.nodes,
                    finished: report.end == RunEnd::Finished,
                    best: None,
                })
            }
        }),
        Mode::Count => timed(&prefixes, threads, plan.seconds, |_| {
            move |_: usize, prefix: &Prefix, control: &Control| {
                let subtree = Subtree::new(puzzle, prefix);
                let report = engine.count(
                    &subtree,
                    None,
                    &Limits::none().with_control(control),
                    |_| {},
                )?;
                Ok(Step {
                    nodes: report.nodes,
                    finished: report.end == RunEnd::Finished,
                    best: None,
                })
            }
        }),
        Mode::Best => timed(&prefixes, threads, plan.seconds, |thread| {
            // Every walk of every thread gets its own seed.
            let mut walk = 0u64;
            move |_: usize, prefix: &Prefix, control: &Control| {
                let lease = BestLease {
                    seed: seed
                        .wrapping_add(thread as u64)
                        .wrapping_add(walk * threads as u64),
                    budget: u64::MAX,
                    beat: 0,
                };
                walk += 1;
                let subtree = Subtree::new(puzzle, prefix).with_order(order);
                let report = engine.best(&subtree, &search, lease, Some(control), |_| {})?;
                let best = match report.board {
                    Some(board) => {
                        let canonical = score(&board);
                        if canonical != report.score {
                            bail!(
                                "the best-score search reported {} but the canonical scorer gives {canonical}",
                                report.score
                            );
                        }
                        if canonical >= max {
                            // Nothing can beat a perfect board.
                            control.stop();
                        }
                        Some((canonical, board))
                    }
                    None => None,
                };
                Ok(Step {
                    nodes: report.nodes,
                    finished: report.end == RunEnd::Finished,
                    best,
                })
            }
        }),
    }
}

/// The work items of `threads` threads: the whole tree for one, else the
/// prefixes of the shallowest depth that gives every thread a few.
fn split(
    engine: Engine,
    puzzle: &Puzzle,
    order: e2_shared::order::FillOrder,
    threads: usize,
) -> Result<Vec<Prefix>> {
    let first = engine.prefixes(puzzle, order, 1)?;
    if first.is_empty() {
        bail!(
            "{}: its first cell admits no placement under the hints: there is no tree to walk",
            puzzle.name
        );
    }
    if threads == 1 {
        return Ok(vec![Prefix::new()]);
    }
    let mut prefixes = first;
    let mut depth = 1;
    while prefixes.len() < threads * PREFIXES_PER_THREAD && depth < MAX_SPLIT_DEPTH {
        depth += 1;
        let deeper = engine.prefixes(puzzle, order, depth)?;
        if deeper.is_empty() {
            break;
        }
        prefixes = deeper;
    }
    Ok(prefixes)
}

/// Runs `threads` threads for `seconds`: each takes the next prefix (the
/// first `threads` are distinct; once all are taken the list starts over)
/// and walks it with its worker (`make(thread)`) until it ends or the stop
/// flag rises.
fn timed<W, M>(prefixes: &[Prefix], threads: usize, seconds: u64, make: M) -> Result<Measured>
where
    M: Fn(usize) -> W + Sync,
    W: FnMut(usize, &Prefix, &Control) -> Result<Step>,
{
    let control = Control::new();
    let next = AtomicUsize::new(0);
    let failure: Mutex<Option<anyhow::Error>> = Mutex::new(None);
    let started = Instant::now();
    let deadline = started + Duration::from_secs(seconds);
    let totals = std::thread::scope(|scope| {
        let handles: Vec<_> = (0..threads)
            .map(|thread| {
                let (control, next, failure, make) = (&control, &next, &failure, &make);
                scope.spawn(move || {
                    let mut worker = make(thread);
                    let (mut nodes, mut finished) = (0u64, 0u64);
                    let mut best: Option<(u32, Board)> = None;
                    while !control.is_stopped() {
                        let index = next.fetch_add(1, Ordering::Relaxed) % prefixes.len();
                        match worker(index, &prefixes[index], control) {
                            Ok(step) => {
                                nodes += step.nodes;
                                finished += u64::from(step.finished);
                                if let Some((s, board)) = step.best {
                                    if best.as_ref().is_none_or(|(b, _)| s > *b) {
                                        best = Some((s, board));
                                    }
                                }
                            }
                            Err(e) => {
                                failure.lock().expect("failure lock").get_or_insert(e);
                                control.stop();
                            }
                        }
                    }
                    (nodes, finished, best)
                })
            })
            .collect();
        while !control.is_stopped() {
            let now = Instant::now();
            if now >= deadline {
                break;
            }
            std::thread::sleep((deadline - now).min(Duration::from_millis(20)));
        }
        control.stop();
        handles
            .into_iter()
            .map(|h| h.join().expect("a bench thread panicked"))
            .collect::<Vec<_>>()
    });
    let seconds = started.elapsed().as_secs_f64();
    if let Some(e) = failure.into_inner().expect("failure lock") {
        return Err(e);
    }
    let mut out = Measured {
        nodes: 0,
        seconds,
        prefixes: prefixes.len(),
        walks_finished: 0,
        best: None,
    };
    for (nodes, finished, best) in totals {
        out.nodes += nodes;
        out.walks_finished += finished;
        if let Some((s, board)) = best {
            if out.best.as_ref().is_none_or(|(b, _)| s > *b) {
                out.best = Some((s, board));
            }
        }
    }
    Ok(out)
}

/// A whole-file DLX count (or one stopped after `limit`), timed with the
/// parse, as an anchor reading the same file is.
struct DlxRun {
    solutions: u64,
    nodes: u64,
    seconds: f64,
    complete: bool,
}

fn dlx_count(
    algorithm: e2_shared::dlx::Algorithm,
    text: &str,
    origin: &Path,
    limit: Option<u64>,
) -> Result<DlxRun> {
    let control = Control::new();
    let started = Instant::now();
    let count = std::thread::scope(|scope| {
        let counting = scope.spawn(|| {
            let limits = e2_shared::dlx::Limits::none();
            let out =
                e2_shared::dlx::count_text_with(algorithm, text, false, &limits, Some(&control));
            control.stop();
            out
        });
        if let Some(seconds) = limit {
            let deadline = started + Duration::from_secs(seconds);
            while !control.is_stopped() && Instant::now() < deadline {
                std::thread::sleep(Duration::from_millis(20));
            }
            control.stop();
        }
        counting.join().expect("the DLX thread panicked")
    })
    .with_context(|| origin.display().to_string())?;
    Ok(DlxRun {
        solutions: count.solutions,
        nodes: count.nodes,
        seconds: started.elapsed().as_secs_f64(),
        complete: count.end == RunEnd::Finished,
    })
}

fn bench_dlx_files(files: &[PathBuf], seconds: u64) -> Result<()> {
    let texts = files
        .iter()
        .map(|p| crate::input::read_file(p, MAX_DLX_BYTES))
        .collect::<Result<Vec<_>>>()?;
    for (path, text) in files.iter().zip(&texts) {
        let run = dlx_count(
            e2_shared::dlx::Algorithm::default(),
            text,
            path,
            Some(seconds),
        )?;
        crate::outln!(
            "{}",
            json!({
                "input": path.display().to_string(),
                "mode": "count",
                "engine": "dlx",
                "threads": 1,
                "solutions": run.solutions,
                "complete": run.complete,
                "nodes": run.nodes,
                "seconds": round3(run.seconds),
                "nodes_per_s": (run.nodes as f64 / run.seconds.max(1e-9)).round(),
            })
        );
    }
    Ok(())
}

/// The anchors' `run.sh`: `--anchors`/`E2_ANCHORS` if given (the script or
/// its folder), else `../shared/anchors/run.sh` from the current directory
/// or one of its parents.
fn locate_anchors(given: Option<&Path>) -> Result<PathBuf> {
    if let Some(p) = given {
        let run = if p.is_dir() {
            p.join("run.sh")
        } else {
            p.to_path_buf()
        };
        if !run.is_file() {
            bail!(
                "--anchors/E2_ANCHORS {}: no run.sh there (give the folder holding the anchors' run.sh, e.g. ../shared/anchors)",
                p.display()
            );
        }
        return Ok(run);
    }
    let cwd = std::env::current_dir().context("cannot read the current directory")?;
    cwd.ancestors()
        .map(|dir| dir.join("../shared/anchors/run.sh"))
        .find(|p| p.is_file())
        .ok_or_else(|| {
            anyhow!(
                "no anchors: ../shared/anchors/run.sh is not beside {} or any parent; pass --anchors DIR or set E2_ANCHORS",
                cwd.display()
            )
        })
}

/// The anchors read the file themselves, as Puzzle JSON.
fn check_anchor_input(input: &str) -> Result<()> {
    let path = Path::new(input);
    if !path.is_file() {
        bail!("--puzzle {input}: --against needs a Puzzle JSON file (the anchor reads the file itself)");
    }
    let text = crate::input::read_file(path, crate::input::MAX_INPUT_BYTES)?;
    if serde_json::from_str::<Value>(&text).is_err() {
        bail!("--puzzle {input}: not JSON; the anchors read Puzzle JSON (convert it with `e2 convert`)");
    }
    Ok(())
}

/// Runs `run.sh ANCHOR ARGS...` and returns its JSON line. Its build and
/// progress messages go to our stderr as they come.
fn run_anchor(run_sh: &Path, anchor: Anchor, args: &[String]) -> Result<Value> {
    let output = Command::new("bash")
        .arg(run_sh)
        .arg(anchor.name())
        .args(args)
        .stdin(Stdio::null())
        .stderr(Stdio::inherit())
        .output()
        .with_context(|| format!("cannot run bash {}", run_sh.display()))?;
    if !output.status.success() {
        bail!(
            "anchor {} on {}: {} failed ({}; its messages are above)",
            anchor.name(),
            args.first().map_or("", String::as_str),
            run_sh.display(),
            output.status
        );
    }
    let stdout = String::from_utf8_lossy(&output.stdout);
    let line = stdout
        .lines()
        .rev()
        .find(|l| !l.trim().is_empty())
        .unwrap_or("");
    serde_json::from_str(line).map_err(|_| {
        anyhow!(
            "anchor {}: {} printed no JSON line (last line: {line:?})",
            anchor.name(),
            run_sh.display()
        )
    })
}

fn number(v: &Value, key: &str, anchor: Anchor) -> Result<f64> {
    v.get(key).and_then(Value::as_f64).ok_or_else(|| {
        anyhow!(
            "anchor {}: its JSON has no number \"{key}\": {v}",
            anchor.name()
        )
    })
}

/// `--against jit|blackwood` on one puzzle: the rounds, then its ratio
/// (jit) or score difference (blackwood), which is returned.
fn against_puzzle(
    run_sh: &Path,
    anchor: Anchor,
    input: &str,
    puzzle: &Puzzle,
    plan: &Plan,
    rounds: u32,
) -> Result<f64> {
    let (mut ours, mut theirs) = (Vec::new(), Vec::new());
    for round in 1..=rounds {
        let seed = plan.seed.wrapping_add(u64::from(round - 1));
        let e2 = measure(puzzle, plan, seed)?;
        let mut args = vec![input.to_string(), plan.seconds.to_string()];
        if anchor == Anchor::Blackwood {
            args.push(seed.to_string());
        }
        let mut a = run_anchor(run_sh, anchor, &args)?;
        let (mine, other, key) = match anchor {
            Anchor::Jit => (
                e2.nodes_per_s(),
                number(&a, "nodes_per_s", anchor)?,
                "ratio",
            ),
            _ => {
                let s = e2.best.as_ref().map_or(0, |(s, _)| *s);
                let theirs = number(&a, "score", anchor)?;
                rescore_anchor_board(puzzle, &mut a);
                (f64::from(s), theirs, "difference")
            }
        };
        if let Some(obj) = a.as_object_mut() {
            obj.remove("board");
            obj.remove("input");
        }
        let compared = if anchor == Anchor::Jit {
            round3(mine / other.max(1e-9))
        } else {
            mine - other
        };
        crate::outln!(
            "{}",
            json!({
                "round": round,
                "puzzle": puzzle.name,
                "input": input,
                "against": anchor.name(),
                "e2": e2.json(puzzle, input, plan),
                "anchor": a,
                key: compared,
            })
        );
        ours.push(mine);
        theirs.push(other);
    }
    let mean = |v: &[f64]| v.iter().sum::<f64>() / v.len() as f64;
    let (mine, other) = (mean(&ours), mean(&theirs));
    let out = if anchor == Anchor::Jit {
        let ratio = mine / other.max(1e-9);
        crate::outln!(
            "{}",
            json!({
                "summary": "puzzle",
                "puzzle": puzzle.name,
                "input": input,
                "against": anchor.name(),
                "mode": plan.mode.name(),
                "rounds": rounds,
                "seconds": plan.seconds,
                "e2_nodes_per_s": mine.round(),
                "anchor_nodes_per_s": other.round(),
                "ratio": round3(ratio),
            })
        );
        ratio
    } else {
        crate::outln!(
            "{}",
            json!({
                "summary": "puzzle",
                "puzzle": puzzle.name,
                "input": input,
                "against": anchor.name(),
                "mode": plan.mode.name(),
                "rounds": rounds,
                "seconds": plan.seconds,
                "e2_score": round3(mine),
                "anchor_score": round3(other),
                "difference": round3(mine - other),
            })
        );
        mine - other
    };
    Ok(out)
}

/// Adds the canonical score of the anchor's board (`piece*4+rot` per cell)
/// beside its own, and warns when the two disagree.
fn rescore_anchor_board(puzzle: &Puzzle, anchor_json: &mut Value) {
    let Some(codes) = anchor_json.get("board").and_then(Value::as_array) else {
        return;
    };
    let codes: Option<Vec<i32>> = codes
        .iter()
        .map(|c| c.as_i64().and_then(|c| i32::try_from(c).ok()))
        .collect();
    let Some(board) = codes.and_then(|c| Board::from_codes(puzzle, &c).ok()) else {
        eprintln!(
            "warning: the anchor's board does not decode against {}",
            puzzle.name
        );
        return;
    };
    let canonical = score(&board);
    if anchor_json.get("score").and_then(Value::as_u64) != Some(u64::from(canonical)) {
        eprintln!(
            "warning: the anchor reports score {} but its board scores {canonical} canonically",
            anchor_json["score"]
        );
    }
    anchor_json["score_rescored"] = json!(canonical);
}

/// `--against dlx2|ssxcc`: each file counted whole by both, alternately;
/// the counts must agree, the ratio is the anchor's time over e2's.
fn against_dlx(
    run_sh: &Path,
    anchor: Anchor,
    files: &[PathBuf],
    texts: &[String],
    rounds: u32,
) -> Result<()> {
    // Against dlx2 the links engine, whose node counts are dlx2's; against
    // SSXCC the sparse-set engine, built on the same data structure.
    let (algorithm, engine) = match anchor {
        Anchor::Dlx2 => (e2_shared::dlx::Algorithm::Links, "dlx-links"),
        _ => (e2_shared::dlx::Algorithm::Sparse, "dlx-sparse"),
    };
    let mut ratios = Vec::new();
    for (path, text) in files.iter().zip(texts) {
        let input = path.display().to_string();
        let (mut ours, mut theirs) = (Vec::new(), Vec::new());
        for round in 1..=rounds {
            let e2 = dlx_count(algorithm, text, path, None)?;
            let mut a = run_anchor(run_sh, anchor, std::slice::from_ref(&input))?;
            let solutions = number(&a, "solutions", anchor)? as u64;
            if solutions != e2.solutions {
                bail!(
                    "{input}: e2 counts {} solutions, {} counts {solutions}: the engines disagree",
                    e2.solutions,
                    anchor.name()
                );
            }
            let seconds = number(&a, "seconds", anchor)?;
            if let Some(obj) = a.as_object_mut() {
                obj.remove("input");
            }
            crate::outln!(
                "{}",
                json!({
                    "round": round,
                    "input": input,
                    "against": anchor.name(),
                    "e2": {
                        "engine": engine,
                        "solutions": e2.solutions,
                        "nodes": e2.nodes,
                        "seconds": round3(e2.seconds),
                    },
                    "anchor": a,
                    "ratio": round3(seconds / e2.seconds.max(1e-9)),
                })
            );
            ours.push(e2.seconds);
            theirs.push(seconds);
        }
        let mean = |v: &[f64]| v.iter().sum::<f64>() / v.len() as f64;
        let ratio = mean(&theirs) / mean(&ours).max(1e-9);
        crate::outln!(
            "{}",
            json!({
                "summary": "input",
                "input": input,
                "against": anchor.name(),
                "rounds": rounds,
                "e2_seconds": round3(mean(&ours)),
                "anchor_seconds": round3(mean(&theirs)),
                "ratio": round3(ratio),
            })
        );
        ratios.push(ratio);
    }
    if ratios.len() > 1 {
        let n = ratios.len() as f64;
        crate::outln!(
            "{}",
            json!({
                "summary": "mean",
                "against": anchor.name(),
                "inputs": ratios.len(),
                "mean_ratio": round3(ratios.iter().sum::<f64>() / n),
                "geomean_ratio": round3((ratios.iter().map(|r| r.ln()).sum::<f64>() / n).exp()),
            })
        );
    }
    Ok(())
}
