//! Algorithm C on Brendan Owen's 6×6 puzzles, against Knuth's dlx2.
//!
//! `cargo bench -p e2-shared --bench dlx [-- FILE...]` counts the `.dlx`
//! files (by default `shared/data/dlx/s1_06x06.dlx` and `s2_06x06.dlx`) and
//! prints wall time, nodes, updates and their rates; then runs Knuth's
//! SSXCC and DLX2 on each file (`../shared/anchors/run.sh`; skipped with
//! `E2_BENCH_ANCHOR=none` or a capped count) and prints their time over
//! e2's and whether their solutions and nodes are e2's (same algorithm,
//! same MRV rule, same option order).
//!
//! On a shared machine wall time says little, so the CPU time of the
//! process (Linux `/proc/self/schedstat`) is printed too when available.
//!
//! `DLX_BENCH_MAX_NODES=N` stops each count after N nodes, for quick
//! before/after comparisons of the inner loops.

#[path = "../tests/common/mod.rs"]
mod common;

use std::path::PathBuf;
use std::time::Instant;

use e2_shared::dlx::{count_text, Limits};

fn main() {
    let args: Vec<String> = std::env::args()
        .skip(1)
        .filter(|a| !a.starts_with("--"))
        .collect();
    let files: Vec<PathBuf> = if args.is_empty() {
        let data = PathBuf::from(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../../shared/data/dlx"
        ));
        ["s1_06x06.dlx", "s2_06x06.dlx"]
            .iter()
            .map(|f| data.join(f))
            .collect()
    } else {
        args.iter().map(PathBuf::from).collect()
    };
    let capped = match std::env::var("DLX_BENCH_MAX_NODES").map(|n| n.parse::<u64>()) {
        Ok(Ok(n)) => Some(n),
        _ => None,
    };
    let limits = capped.map_or_else(Limits::none, Limits::nodes);
    let anchor = common::anchors();
    for file in files {
        let Ok(text) = std::fs::read_to_string(&file) else {
            println!("skipped: {} is absent", file.display());
            continue;
        };
        let start = Instant::now();
        let cpu_start = cpu_seconds();
        let counted = match count_text(&text, false, &limits, None) {
            Ok(c) => c,
            Err(e) => {
                println!("{}: {e}", file.display());
                continue;
            }
        };
        let seconds = start.elapsed().as_secs_f64();
        // The links engine always counts updates.
        let updates = counted.updates.unwrap_or_default();
        let cpu = match (cpu_start, cpu_seconds()) {
            (Some(a), Some(b)) => format!(" (cpu {:.2} s)", b - a),
            _ => String::new(),
        };
        let name = file.file_name().unwrap_or_default().to_string_lossy();
        println!(
            "{}: {} solutions ({:?}) in {:.2} s{}, {} nodes, {} updates, {:.2}M nodes/s, {:.1}M updates/s",
            name,
            counted.solutions,
            counted.end,
            seconds,
            cpu,
            counted.nodes,
            updates,
            counted.nodes as f64 / seconds / 1e6,
            updates as f64 / seconds / 1e6,
        );
        // Knuth's programs on the same file, right after: their time over
        // e2's, and whether they saw the same tree. A capped count has
        // nothing to compare.
        let Some(run_sh) = anchor.as_ref().filter(|_| capped.is_none()) else {
            continue;
        };
        for knuth in ["ssxcc", "dlx2"] {
            let path = file.display().to_string();
            let Some(line) = common::run_anchor(run_sh, &[knuth, &path]) else {
                continue;
            };
            let field = |k: &str| {
                line.get(k)
                    .and_then(serde_json::Value::as_f64)
                    .unwrap_or(0.0)
            };
            let solutions = if field("solutions") as u64 == counted.solutions {
                "the same solutions"
            } else {
                "DIFFERENT solutions"
            };
            let nodes = if field("nodes") as u64 == counted.nodes {
                "the same nodes"
            } else {
                "its own node count"
            };
            println!(
                "  {knuth}: {} solutions, {} nodes in {:.2} s: its time / e2's {:.2}; {solutions}, {nodes}",
                field("solutions"),
                field("nodes"),
                field("seconds"),
                field("seconds") / seconds.max(1e-9),
            );
        }
    }
    if anchor.is_none() {
        println!(
            "no anchor ran ({}): these times alone compare nothing",
            common::ANCHOR_HELP
        );
    }
}

/// CPU time this process has run, from Linux's scheduler statistics.
fn cpu_seconds() -> Option<f64> {
    let stat = std::fs::read_to_string("/proc/self/schedstat").ok()?;
    let nanos: u64 = stat.split_whitespace().next()?.parse().ok()?;
    Some(nanos as f64 / 1e9)
}
