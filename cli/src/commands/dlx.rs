//! `e2 dlx FILE`: count an exact-cover-with-colours problem written in the
//! text format of Knuth's dlx1/dlx2 programs.
//!
//! This is how the DLX engine is checked on standard problems (n-queens,
//! Knuth's own examples) and compared with dlx2 and SSXCC on the same input:
//! `--algorithm sparse` (the default) has its own node counts,
//! `--algorithm links` reproduces dlx2's node and update counts, and
//! `--algorithm bits` dlx2's node counts on bit sets, the fastest of the
//! three on problems of up to 16 384 options.

use std::path::PathBuf;
use std::time::Instant;

use anyhow::{bail, Context, Result};
use clap::{Args, ValueEnum};
use e2_shared::dlx::{count_text_with, Algorithm, Limits};
use e2_shared::search::{Control, RunEnd};

/// `.dlx` files are larger than boards (Knuth's big problems run to a few
/// MB); beyond this the node arrays alone would not be worth building.
const MAX_DLX_BYTES: u64 = 64 * 1024 * 1024;

#[derive(Debug, Args)]
pub struct DlxArgs {
    /// The problem: items line (`|` before secondary items), then one
    /// option per line (`item` or `item:colour`); `|` lines are comments.
    pub file: PathBuf,
    /// Also print the first solution's options.
    #[arg(long)]
    pub first: bool,
    /// Stop after this many nodes (the count is then partial).
    #[arg(long, value_name = "N")]
    pub max_nodes: Option<u64>,
    /// Stop after this many solutions (1: find one; 2: uniqueness check).
    /// Ctrl-C stops the count early and prints what was counted.
    #[arg(long, value_name = "N")]
    pub max_solutions: Option<u64>,
    /// `sparse`: Algorithm C on sparse sets (fast; its own node and update
    /// counts). `links`: dancing links, with node and update counts equal
    /// to Knuth's dlx2 for cross-checks. `bits`: Algorithm C on bit sets
    /// of options, dlx2's node counts without update counts, the fastest on
    /// problems of up to 16 384 options (larger ones are refused).
    #[arg(long, value_enum, default_value_t = DlxAlgorithm::Sparse)]
    pub algorithm: DlxAlgorithm,
}

/// The `--algorithm` values.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum DlxAlgorithm {
    Links,
    Sparse,
    Bits,
}

impl DlxAlgorithm {
    fn engine(self) -> Algorithm {
        match self {
            DlxAlgorithm::Links => Algorithm::Links,
            DlxAlgorithm::Sparse => Algorithm::Sparse,
            DlxAlgorithm::Bits => Algorithm::Bits,
        }
    }

    fn name(self) -> &'static str {
        match self {
            DlxAlgorithm::Links => "links",
            DlxAlgorithm::Sparse => "sparse",
            DlxAlgorithm::Bits => "bits",
        }
    }
}

pub fn run(args: DlxArgs) -> Result<()> {
    if args.max_solutions == Some(0) {
        bail!("--max-solutions 0: must be at least 1 (leave it out to count every solution)");
    }
    let text = crate::input::read_file(&args.file, MAX_DLX_BYTES)?;
    // Ctrl-C or SIGTERM stops the engine at its next poll; the partial
    // count is still printed.
    let control = Control::new();
    {
        let control = std::sync::Arc::clone(&control);
        std::thread::spawn(move || {
            let Ok(runtime) = tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()
            else {
                return;
            };
            runtime.block_on(crate::signals::terminated());
            control.stop();
        });
    }
    let limits = Limits {
        max_nodes: args.max_nodes,
        max_solutions: args.max_solutions,
        ..Limits::none()
    };
    let started = Instant::now();
    let count = count_text_with(
        args.algorithm.engine(),
        &text,
        args.first,
        &limits,
        Some(&control),
    )
    .with_context(|| args.file.display().to_string())?;
    let seconds = started.elapsed().as_secs_f64();
    for warning in &count.warnings {
        eprintln!("warning: {}: {warning}", args.file.display());
    }
    let mut out = serde_json::json!({
        "algorithm": args.algorithm.name(),
        "solutions": count.solutions,
        "complete": matches!(count.end, RunEnd::Finished),
        "nodes": count.nodes,
        "updates": count.updates,
        "seconds": (seconds * 1000.0).round() / 1000.0,
    });
    if let Some(first) = count.first {
        out["first"] = serde_json::json!(first);
    }
    crate::outln!("{out}");
    if count.end == RunEnd::Stopped {
        eprintln!("interrupted: the count above is partial");
        std::process::exit(130);
    }
    Ok(())
}
