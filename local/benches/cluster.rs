//! `cargo bench -p e2-local --bench cluster [-- PUZZLE.json]`: the
//! coordinator's task throughput and the wall time of one count with 1 and
//! 2 workers (see `e2_local::bench`). Default puzzle: Brendan's set-1
//! 5x5 from shared/data.

use e2_local::bench::{cluster, BenchOptions};

fn main() -> anyhow::Result<()> {
    let path = std::env::args()
        .skip(1)
        .find(|a| a.ends_with(".json"))
        .unwrap_or_else(|| {
            concat!(
                env!("CARGO_MANIFEST_DIR"),
                "/../../shared/data/brendan/s1_05x05.json"
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
    let report = runtime.block_on(cluster(&puzzle, &BenchOptions::default()))?;
    print!("{report}");
    Ok(())
}
