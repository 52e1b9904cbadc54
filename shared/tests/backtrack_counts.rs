//! Exhaustive counts against published facts, and their invariance under
//! the fill order.

mod common;

use e2_shared::backtrack::{Backtracker, Limits};
use e2_shared::order::FillOrder;
use e2_shared::search::{Prefix, RunEnd};

fn count(relative: &str, order: FillOrder) -> u64 {
    let puzzle = common::puzzle(relative);
    let report = Backtracker::new(&puzzle, order, &Prefix::new())
        .unwrap()
        .count(&Limits::default());
    assert_eq!(report.end, RunEnd::Finished);
    assert!(report.checkpoint.is_none());
    report.solutions
}

/// Published exhaustive counts (data README): every board, whole-board
/// rotations counted separately.
fn check_published(published: &[(&str, u64)]) {
    for &(file, expected) in published {
        assert_eq!(count(file, FillOrder::RowMajor), expected, "{file}");
    }
}

#[test]
#[cfg_attr(
    e2_no_data,
    ignore = "needs ../shared/data (community files), absent on this clone"
)]
fn brendan_small_counts_match_the_published_ones() {
    check_published(&[
        ("brendan/s1_04x04.json", 36),
        ("brendan/s1_05x05.json", 16),
        ("brendan/s2_04x04.json", 48),
        ("brendan/s2_05x05.json", 4),
    ]);
}

#[test]
#[cfg_attr(
    e2_no_data,
    ignore = "needs ../shared/data (community files), absent on this clone"
)]
fn brendan_set_1_six_by_six_count_is_260() {
    check_published(&[("brendan/s1_06x06.json", 260)]);
}

#[test]
#[cfg_attr(
    e2_no_data,
    ignore = "needs ../shared/data (community files), absent on this clone"
)]
fn brendan_set_2_six_by_six_count_is_160() {
    check_published(&[("brendan/s2_06x06.json", 160)]);
}

#[test]
#[cfg_attr(
    e2_no_data,
    ignore = "needs ../shared/data (community files), absent on this clone"
)]
fn every_fill_order_gives_the_same_count() {
    for (file, expected) in [
        ("brendan/s1_04x04.json", 36),
        ("brendan/s2_04x04.json", 48),
        ("brendan/s1_05x05.json", 16),
        ("brendan/s2_05x05.json", 4),
    ] {
        for order in FillOrder::ALL {
            assert_eq!(count(file, order), expected, "{file} under {order}");
        }
    }
}

#[test]
#[cfg_attr(
    e2_no_data,
    ignore = "needs ../shared/data (community files), absent on this clone"
)]
fn clue_puzzles_with_repeated_pieces_have_a_perfect_first_board() {
    use e2_shared::score::{max_score, score};
    // Row-major needs billions of nodes on clue 1; the spiral closes early.
    for (file, order) in [
        ("clue_puzzles/clue1.json", FillOrder::SpiralIn),
        ("clue_puzzles/clue3.json", FillOrder::SpiralIn),
        ("clue_puzzles/clue3.json", FillOrder::RowMajor),
    ] {
        let puzzle = common::puzzle(file);
        let mut bt = Backtracker::new(&puzzle, order, &Prefix::new()).unwrap();
        let report = bt.first_solution(&Limits::default());
        let board = report.board.expect("the clue puzzles are solvable");
        assert_eq!(score(&board), max_score(puzzle.width, puzzle.height));
        // Twins were handed distinct piece identities.
        let mut pieces: Vec<usize> = board
            .placements
            .unwrap()
            .iter()
            .map(|p| p.unwrap().piece)
            .collect();
        pieces.sort_unstable();
        assert_eq!(pieces, (0..puzzle.pieces.len()).collect::<Vec<_>>());
    }
}

/// The backtracker's own checks on a checkpoint: one taken under another
/// prefix, a path its walk cannot take, a prefix off the board, each with
/// a message that says which.
#[test]
fn checkpoints_and_prefixes_the_walk_cannot_take_are_refused_by_name() {
    use e2_shared::backtrack::prefixes;
    use e2_shared::generator::{generate, GenSpec};
    use e2_shared::search::Checkpoint;
    let puzzle = generate(&GenSpec {
        colours: Some(7),
        border_colours: Some(2),
        ..GenSpec::square(5, 1)
    })
    .unwrap()
    .puzzle;
    let mut bt = Backtracker::new(&puzzle, FillOrder::RowMajor, &Prefix::new()).unwrap();
    let cp = bt
        .count(&Limits {
            max_nodes: Some(10),
            ..Limits::default()
        })
        .checkpoint
        .unwrap();
    let mut other = prefixes(&puzzle, FillOrder::RowMajor, 1).unwrap().remove(0);
    let e = Backtracker::new(&puzzle, FillOrder::RowMajor, &other)
        .unwrap()
        .resume(&cp, &Limits::default(), |_| {})
        .unwrap_err()
        .to_string();
    assert!(e.contains("prefix"), "{e}");
    let bad_path = Checkpoint {
        path: vec![999],
        ..cp
    };
    let e = bt
        .resume(&bad_path, &Limits::default(), |_| {})
        .unwrap_err()
        .to_string();
    assert!(e.contains("level 0") && e.contains("999"), "{e}");
    other[0].pos = 99;
    let e = Backtracker::new(&puzzle, FillOrder::RowMajor, &other)
        .unwrap_err()
        .to_string();
    assert!(e.contains("prefix entry 0") && e.contains("outside"), "{e}");
}
