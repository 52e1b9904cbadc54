//! `cargo bench -p e2-local --bench cluster [-- [PUZZLE.json] [dlx]]`:
//! the coordinator's task throughput and the wall time of one count with 1
//! and 2 workers (see `e2_local::bench`). Default: the backtracker on clue
//! puzzle 1 from shared/data (3.2 G nodes, about half a minute on one
//! core: enough work for the second worker to show); `dlx` counts with
//! the DLX engine instead.

use e2_local::bench::{cluster, BenchOptions};
use e2_shared::engine::Engine;

fn main() -> anyhow::Result<()> {
    let path = std::env::args()
        .skip(1)
        .find(|a| a.ends_with(".json"))
        .unwrap_or_else(|| {
            concat!(
                env!("CARGO_MANIFEST_DIR"),
                "/../../shared/data/clue_puzzles/clue1.json"
            )
            .to_string()
        });
    let text = match std::fs::read_to_string(&path) {
        Ok(t) => t,
        Err(e) => {
            eprintln!("skipping the cluster bench: cannot read {path}: {e}");
            return Ok(());
        }
    };
    let puzzle = e2_coordinator::puzzle_input::read(&text)?;
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()?;
    let options = BenchOptions {
        engine: if std::env::args().any(|a| a == "dlx") {
            Engine::Dlx
        } else {
            Engine::Backtrack
        },
        ..BenchOptions::default()
    };
    let report = runtime.block_on(cluster(&puzzle, &options))?;
    print!("{report}");
    Ok(())
}
