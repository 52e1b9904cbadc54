//! Algorithm C on Brendan Owen's 6×6 puzzles, against Knuth's dlx2.
//!
//! `cargo bench -p e2-shared --bench dlx [-- FILE...]` counts the `.dlx`
//! files (by default `shared/data/dlx/s1_06x06.dlx` and `s2_06x06.dlx`) and
//! prints wall time, nodes, updates and their rates. Reference (README of
//! the data directory): dlx2 compiled with gcc -O2 counts s1 as 260 in
//! 70.2 s (92.5M nodes, 14.5G updates) and s2 as 160 in 24.3 s (33.6M
//! nodes). The node counts should match dlx2's: same algorithm, same MRV
//! rule, same option order.
//!
//! On a shared machine wall time says little, so the CPU time of the
//! process (Linux `/proc/self/schedstat`) is printed too when available.
//!
//! `DLX_BENCH_MAX_NODES=N` stops each count after N nodes, for quick
//! before/after comparisons of the inner loops.

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
    let limits = match std::env::var("DLX_BENCH_MAX_NODES").map(|n| n.parse::<u64>()) {
        Ok(Ok(n)) => Limits::nodes(n),
        _ => Limits::none(),
    };
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
        let reference = match name.as_ref() {
            "s1_06x06.dlx" => {
                "\n  dlx2 (gcc -O2, this machine kind): 260 in 70.2 s, 92.5M nodes, 14.5G updates"
            }
            "s2_06x06.dlx" => "\n  dlx2 (gcc -O2, this machine kind): 160 in 24.3 s, 33.6M nodes",
            _ => "",
        };
        println!(
            "{}: {} solutions ({:?}) in {:.2} s{}, {} nodes, {} updates, {:.2}M nodes/s, {:.1}M updates/s{}",
            name,
            counted.solutions,
            counted.end,
            seconds,
            cpu,
            counted.nodes,
            updates,
            counted.nodes as f64 / seconds / 1e6,
            updates as f64 / seconds / 1e6,
            reference,
        );
    }
}

/// CPU time this process has run, from Linux's scheduler statistics.
fn cpu_seconds() -> Option<f64> {
    let stat = std::fs::read_to_string("/proc/self/schedstat").ok()?;
    let nanos: u64 = stat.split_whitespace().next()?.parse().ok()?;
    Some(nanos as f64 / 1e9)
}
