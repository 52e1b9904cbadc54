mod common;
use e2_shared::backtrack::estimate;
use e2_shared::estimate::Probes;
use e2_shared::order::FillOrder;
use e2_shared::search::Prefix;
#[test]
fn explore() {
    let p = common::puzzle("brendan/s1_06x06.json");
    for probes in [1000u64, 10_000, 100_000] {
        for seed in 1..4 {
            let t = std::time::Instant::now();
            let e = estimate(
                &p,
                FillOrder::RowMajor,
                &Prefix::new(),
                &Probes { probes, seed },
            )
            .unwrap();
            println!(
                "{probes} {seed} nodes {:.3e} se {:.2e} sol {:.1} {:?}",
                e.nodes,
                e.stderr,
                e.solutions,
                t.elapsed()
            );
        }
    }
    let p = common::puzzle("brendan/s1_08x08.json");
    let e = estimate(
        &p,
        FillOrder::RowMajorBottomUp,
        &Prefix::new(),
        &Probes {
            probes: 100_000,
            seed: 1,
        },
    )
    .unwrap();
    println!(
        "8x8 nodes {:.3e} se {:.2e} {:?}",
        e.nodes,
        e.stderr,
        &e.per_depth[..24]
            .iter()
            .map(|x| *x as u64)
            .collect::<Vec<_>>()
    );
}
