//! Backtracker benchmarks (plain `main`, no harness).
//!
//! `cargo bench -p e2-shared --bench backtrack -- [PART...] [key=value...]`
//! with parts `throughput`, `best [SECONDS]`, `count6` (the backtracker on
//! Brendan's s1 6×6) and `engines6` (that count with both engines, and
//! their ratio: about 75 s); all four when none is named. Keys: `nodes=` (millions per variant for throughput, default
//! 500); for the best-score search (default: `BestConfig::break_tolerant`)
//! `breaks=`, `ramp=`, `restart=` (millions of nodes per run, 0 = never),
//! `order=`, `seed=`, `variants=` (how many of the ten). Skips with a notice when the data directory is absent.
//!
//! `throughput` and `best` run an anchor on each variant right after e2
//! (`../shared/anchors/run.sh`: `jit` for the node rate, `blackwood` for
//! the score, for about as long) and print the ratio or the difference,
//! since these hosts differ by 1.5× from one to the next; `anchor=none`
//! skips them.

#[path = "../tests/common/mod.rs"]
mod common;

use std::collections::HashMap;
use std::time::{Duration, Instant};

use e2_shared::backtrack::{Backtracker, BestConfig, BreakSchedule, Limits};
use e2_shared::order::FillOrder;
use e2_shared::score::score;
use e2_shared::search::Prefix;

fn main() {
    let args: Vec<String> = std::env::args()
        .skip(1)
        .filter(|a| !a.starts_with("--"))
        .collect();
    let keys: HashMap<&str, &str> = args.iter().filter_map(|a| a.split_once('=')).collect();
    let parts: Vec<&str> = args
        .iter()
        .filter(|a| !a.contains('='))
        .map(String::as_str)
        .collect();
    let wanted = |p: &str| parts.is_empty() || parts.contains(&p);
    // A bench is not a test: without the data it says so and measures nothing.
    let data = std::path::PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/../../shared/data"));
    if !data.is_dir() {
        eprintln!("skipping: data directory {} is absent", data.display());
        return;
    }
    // The anchors, run on the same inputs in the same run: a rate or a
    // score alone says nothing across hosts. `anchor=none` skips them.
    let anchor = common::anchors().filter(|_| keys.get("anchor") != Some(&"none"));
    let variants: Vec<_> = (0..10)
        .map(|n| common::load_puzzle(std::path::Path::new(&variant_path(&data, n))))
        .collect();

    if wanted("throughput") {
        let millions: u64 = keys
            .get("nodes")
            .map_or(500, |v| v.parse().expect("nodes="));
        println!("strict row scan, one thread, {millions}M nodes per variant");
        println!(
            "{:<40} {:>12} {:>9} {:>10} {:>12} {:>9} {:>7}",
            "variant", "nodes", "seconds", "Mnodes/s", "Mnodes/cpu-s", "jit M/s", "ratio"
        );
        let (mut all_nodes, mut all_secs, mut all_cpu) = (0u64, 0f64, 0f64);
        let mut ratios = Vec::new();
        for (n, v) in variants.iter().enumerate() {
            let mut bt = Backtracker::new(v, FillOrder::RowMajor, &Prefix::new()).unwrap();
            let limits = Limits {
                max_nodes: Some(millions * 1_000_000),
                ..Limits::default()
            };
            let start = Instant::now();
            let cpu_start = thread_cpu_seconds();
            let report = bt.count(&limits);
            let secs = start.elapsed().as_secs_f64();
            let cpu = thread_cpu_seconds()
                .zip(cpu_start)
                .map_or(secs, |(b, a)| b - a);
            all_nodes += report.nodes;
            all_secs += secs;
            all_cpu += cpu;
            let rate = report.nodes as f64 / secs / 1e6;
            // The anchor on the same variant, right after, for about as long.
            let theirs = anchor.as_ref().and_then(|run_sh| {
                let seconds = secs.ceil().max(1.0).to_string();
                let line = common::run_anchor(run_sh, &["jit", &variant_path(&data, n), &seconds])?;
                Some(line.get("nodes_per_s")?.as_f64()? / 1e6)
            });
            if let Some(jit) = theirs {
                ratios.push(rate / jit);
            }
            println!(
                "{:<40} {:>12} {:>9.2} {:>10.1} {:>12.1} {:>9} {:>7}",
                v.name,
                report.nodes,
                secs,
                rate,
                report.nodes as f64 / cpu / 1e6,
                theirs.map_or("-".into(), |j| format!("{j:.1}")),
                theirs.map_or("-".into(), |j| format!("{:.3}", rate / j)),
            );
        }
        println!(
            "{:<40} {:>12} {:>9.2} {:>10.1} {:>12.1}",
            "all",
            all_nodes,
            all_secs,
            all_nodes as f64 / all_secs / 1e6,
            all_nodes as f64 / all_cpu / 1e6
        );
        match ratios.len() {
            0 => println!(
                "no anchor ran ({}): these rates alone compare nothing\n",
                common::ANCHOR_HELP
            ),
            n => println!(
                "e2 against the jit anchor (run.sh jit, the same variant right after): \
                 mean ratio {:.3} over {n} variants, {:.3} to {:.3}\n",
                ratios.iter().sum::<f64>() / n as f64,
                ratios.iter().cloned().fold(f64::INFINITY, f64::min),
                ratios.iter().cloned().fold(0.0, f64::max),
            ),
        }
    }

    if wanted("best") {
        let secs: f64 = parts
            .iter()
            .skip_while(|p| **p != "best")
            .nth(1)
            .and_then(|s| s.parse().ok())
            .unwrap_or(60.0);
        let get = |k: &str, default: u64| keys.get(k).map_or(default, |v| v.parse().expect(k));
        let order: FillOrder = keys
            .get("order")
            .map_or(FillOrder::RowMajor, |o| o.parse().unwrap());
        let preset = BestConfig::break_tolerant(Duration::from_secs_f64(secs), get("seed", 1));
        let config = BestConfig {
            max_breaks: get("breaks", u64::from(preset.max_breaks)) as u32,
            schedule: match keys.get("ramp") {
                Some(r) => BreakSchedule::Ramp {
                    from: r.parse().expect("ramp="),
                },
                None => preset.schedule.clone(),
            },
            restart_nodes: match get("restart", 30) {
                0 => None,
                millions => Some(millions * 1_000_000),
            },
            ..preset
        };
        let count = get("variants", 10) as usize;
        println!("best-score search, {secs} s per variant, {order}, {config:?}");
        println!(
            "{:<40} {:>6} {:>7} {:>12} {:>6} {:>9} {:>5}",
            "variant", "score", "filled", "nodes", "runs", "blackwood", "diff"
        );
        let (mut total, mut theirs_total, mut theirs_count) = (0u32, 0f64, 0usize);
        for (n, v) in variants.iter().enumerate().take(count) {
            let mut bt = Backtracker::new(v, order, &Prefix::new()).unwrap();
            let report = bt.best(&config, |_| {}).unwrap();
            let board = report.board.expect("a best board");
            assert_eq!(score(&board), report.score);
            total += report.score;
            // The Blackwood-style anchor on the same variant for as long.
            let theirs = anchor.as_ref().and_then(|run_sh| {
                let seconds = secs.ceil().max(1.0).to_string();
                let line = common::run_anchor(
                    run_sh,
                    &["blackwood", &variant_path(&data, n), &seconds, "1"],
                )?;
                line.get("score")?.as_f64()
            });
            if let Some(t) = theirs {
                theirs_total += t;
                theirs_count += 1;
            }
            println!(
                "{:<40} {:>6} {:>7} {:>12} {:>6} {:>9} {:>5}",
                v.name,
                report.score,
                board.filled(),
                report.nodes,
                report.runs,
                theirs.map_or("-".into(), |t| t.to_string()),
                theirs.map_or("-".into(), |t| format!("{:+}", f64::from(report.score) - t)),
            );
        }
        let mean = f64::from(total) / count as f64;
        println!("{:<40} {:>6.1}", "mean", mean);
        if theirs_count == count {
            let anchor_mean = theirs_total / count as f64;
            println!(
                "the Blackwood-style anchor (run.sh blackwood, the same variant and time, right \
                 after): mean {anchor_mean:.1}; e2 {:+.1}\n",
                mean - anchor_mean
            );
        } else {
            println!(
                "the anchor did not run on every variant ({})\n",
                common::ANCHOR_HELP
            );
        }
    }

    if wanted("count6") || wanted("engines6") {
        let puzzle = common::load_puzzle(&data.join("brendan/s1_06x06.json"));
        let mut bt = Backtracker::new(&puzzle, FillOrder::RowMajor, &Prefix::new()).unwrap();
        let start = Instant::now();
        let report = bt.count(&Limits::default());
        let secs = start.elapsed().as_secs_f64();
        println!(
            "count {} (backtrack): {} solutions, {} nodes, {:.3} s ({:.1} Mnodes/s)",
            puzzle.name,
            report.solutions,
            report.nodes,
            secs,
            report.nodes as f64 / secs / 1e6
        );
        if wanted("engines6") {
            // The same count through the E2 encoding and Algorithm C.
            let start = Instant::now();
            let dlx = e2_shared::dlx::count_puzzle(
                &puzzle,
                &Prefix::new(),
                &e2_shared::dlx::Limits::none(),
                e2_shared::dlx::Hooks::default(),
            )
            .unwrap();
            let dlx_secs = start.elapsed().as_secs_f64();
            println!(
                "count {} (dlx): {} solutions, {} nodes, {:.3} s ({:.2} Mnodes/s, {:.1} M updates/s)",
                puzzle.name,
                dlx.solutions,
                dlx.nodes,
                dlx_secs,
                dlx.nodes as f64 / dlx_secs / 1e6,
                dlx.updates as f64 / dlx_secs / 1e6
            );
            println!(
                "per node the backtracker is {:.0}x faster; in wall time {:.0}x \
                 (about 10x per node was expected, with DLX winning part back by MRV)\n",
                (report.nodes as f64 / secs) / (dlx.nodes as f64 / dlx_secs),
                dlx_secs / secs
            );
        }
    }
}

/// Variant `n`'s file, as the anchors read it.
fn variant_path(data: &std::path::Path, n: usize) -> String {
    data.join(format!("variants/variant_{n:02}.json"))
        .display()
        .to_string()
}

/// Time this thread has spent on a CPU (Linux `schedstat`), so that a busy
/// machine does not masquerade as a slow engine. `None` elsewhere.
fn thread_cpu_seconds() -> Option<f64> {
    let text = std::fs::read_to_string("/proc/thread-self/schedstat").ok()?;
    let nanos: f64 = text.split_whitespace().next()?.parse().ok()?;
    Some(nanos / 1e9)
}
