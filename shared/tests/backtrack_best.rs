//! Best-score search: every reported board is canonical, honours the hints,
//! improves strictly, and keeps the promises of its mode.

mod common;

use e2_shared::backtrack::{Backtracker, BestConfig, BreakSchedule};
use e2_shared::model::{Board, Puzzle};
use e2_shared::order::FillOrder;
use e2_shared::score::{max_score, score};
use e2_shared::search::{Prefix, RunEnd};

/// Seams between two filled cells that do not match, and how many of them
/// join two frame cells.
fn breaks(board: &Board) -> (u32, u32) {
    let (w, h) = (board.width, board.height);
    let frame = |p: usize| {
        let (row, col) = (p / w, p % w);
        row == 0 || col == 0 || row == h - 1 || col == w - 1
    };
    let (mut all, mut on_frame) = (0, 0);
    for p in 0..w * h {
        for (q, mine, theirs) in [(p + 1, 1, 3), (p + w, 2, 0)] {
            if (mine == 1 && p % w == w - 1) || q >= w * h {
                continue;
            }
            if let (Some(a), Some(b)) = (board.cells[p], board.cells[q]) {
                if a[mine] != b[theirs] || a[mine] == 0 {
                    all += 1;
                    on_frame += u32::from(frame(p) && frame(q));
                }
            }
        }
    }
    (all, on_frame)
}

fn run(puzzle: &Puzzle, order: FillOrder, config: &BestConfig) -> (Vec<Board>, u32) {
    let mut bt = Backtracker::new(puzzle, order, &Prefix::new()).unwrap();
    let mut reported = Vec::new();
    let report = bt.best(config, |b| reported.push(b.clone())).unwrap();
    assert_eq!(
        report.board.as_ref(),
        reported.last(),
        "the report's board is the last improvement"
    );
    assert_eq!(report.score, score(reported.last().unwrap()));
    for b in &reported {
        let (_, broken) = b.check_hints(puzzle);
        assert!(broken.is_empty(), "hints {broken:?} not honoured");
        assert!(b.placements.is_some(), "boards carry piece identities");
    }
    let scores: Vec<u32> = reported.iter().map(score).collect();
    assert!(
        scores.windows(2).all(|w| w[0] < w[1]),
        "not strictly increasing: {scores:?}"
    );
    (reported, report.score)
}

#[test]
#[cfg_attr(
    e2_no_data,
    ignore = "needs ../shared/data (community files), absent on this clone"
)]
fn strict_search_solves_a_small_puzzle_without_a_break() {
    let puzzle = common::puzzle("brendan/s2_05x05.json");
    let config = BestConfig::default();
    let (boards, best) = run(&puzzle, FillOrder::RowMajor, &config);
    for b in &boards {
        assert_eq!(breaks(b).0, 0, "a strict board has a break");
    }
    assert_eq!(best, max_score(5, 5));
    assert!(boards.last().unwrap().is_full());
}

#[test]
#[cfg_attr(
    e2_no_data,
    ignore = "needs ../shared/data (community files), absent on this clone"
)]
fn strict_search_on_a_variant_reports_ever_deeper_perfect_boards() {
    let puzzle = common::puzzle("variants/variant_03.json");
    let config = BestConfig {
        node_budget: Some(3_000_000),
        restart_nodes: Some(500_000),
        ..BestConfig::default()
    };
    let (boards, best) = run(&puzzle, FillOrder::RowMajor, &config);
    for b in &boards {
        assert_eq!(breaks(b).0, 0, "a strict board has a break");
    }
    assert!(boards.windows(2).all(|w| w[0].filled() < w[1].filled()));
    assert!(
        best > score(&boards[0]),
        "no progress past the pinned cells"
    );
}

#[test]
#[cfg_attr(
    e2_no_data,
    ignore = "needs ../shared/data (community files), absent on this clone"
)]
fn break_tolerant_search_keeps_the_cap_and_the_frame() {
    let puzzle = common::puzzle("variants/variant_00.json");
    for (order, schedule) in [
        (FillOrder::RowMajor, BreakSchedule::Ramp { from: 120 }),
        (FillOrder::VerhaardComb, BreakSchedule::blackwood()),
        (FillOrder::RowMajor, BreakSchedule::Flat),
    ] {
        let config = BestConfig {
            max_breaks: 12,
            schedule: schedule.clone(),
            seed: 5,
            restart_nodes: Some(400_000),
            node_budget: Some(2_000_000),
            ..BestConfig::default()
        };
        let (boards, _) = run(&puzzle, order, &config);
        for b in &boards {
            let (all, on_frame) = breaks(b);
            assert_eq!(on_frame, 0, "a break on a frame seam under {schedule:?}");
            assert!(all <= 12, "{all} breaks above the cap under {schedule:?}");
        }
    }
}

#[test]
#[cfg_attr(
    e2_no_data,
    ignore = "needs ../shared/data (community files), absent on this clone"
)]
fn the_same_seed_and_budget_find_the_same_board() {
    let puzzle = common::puzzle("variants/variant_07.json");
    let config = BestConfig {
        max_breaks: 20,
        schedule: BreakSchedule::Ramp { from: 100 },
        seed: 42,
        restart_nodes: Some(300_000),
        node_budget: Some(1_500_000),
        ..BestConfig::default()
    };
    let mut bt = Backtracker::new(&puzzle, FillOrder::RowMajor, &Prefix::new()).unwrap();
    let a = bt.best(&config, |_| {}).unwrap();
    let b = bt.best(&config, |_| {}).unwrap();
    assert_eq!(a.end, RunEnd::BudgetSpent);
    assert_eq!(a.runs, 5);
    assert_eq!(
        (a.score, a.board.unwrap().codes()),
        (b.score, b.board.unwrap().codes())
    );
}

/// A score known from elsewhere (`beat`) is a floor: the search reports
/// only boards above it, from its first node, and a floor at the maximum
/// leaves nothing to search. Without a floor the pinned board comes first.
#[test]
fn a_score_to_beat_is_a_floor_for_every_report() {
    use e2_shared::generator::{generate, GenSpec};
    use std::time::Duration;
    let puzzle = generate(&GenSpec::sized(8, 8, 9, 3, 11)).unwrap().puzzle;
    let config = |beat| BestConfig {
        node_budget: Some(300_000),
        restart_nodes: Some(100_000),
        beat,
        ..BestConfig::break_tolerant(Duration::MAX, 3)
    };
    let (free, best) = run(&puzzle, FillOrder::RowMajor, &config(0));
    assert_eq!(score(&free[0]), 0, "the pinned board, nothing placed");
    assert!(best > 10, "too little found to test a floor: {best}");
    for beat in [best / 2, best - 1] {
        let mut bt = Backtracker::new(&puzzle, FillOrder::RowMajor, &Prefix::new()).unwrap();
        let mut reported = Vec::new();
        let report = bt.best(&config(beat), |b| reported.push(score(b))).unwrap();
        assert!(!reported.is_empty(), "nothing above {beat} (best {best})");
        assert!(
            reported.iter().all(|&s| s > beat),
            "a report at or below the floor {beat}: {reported:?}"
        );
        assert_eq!(report.score, *reported.last().unwrap());
        assert_eq!(report.score, score(report.board.as_ref().unwrap()));
    }
    let max = max_score(8, 8);
    let mut bt = Backtracker::new(&puzzle, FillOrder::RowMajor, &Prefix::new()).unwrap();
    let mut reported = 0;
    let report = bt.best(&config(max), |_| reported += 1).unwrap();
    assert_eq!(reported, 0, "nothing can beat the maximum");
    assert_eq!(report.score, 0, "the report's board is the pinned board");
    assert_eq!(report.board.map(|b| b.filled()), Some(0));
}
