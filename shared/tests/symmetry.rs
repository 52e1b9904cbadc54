//! The rotation reduction is exact: `factor × Σ parts` equals the whole
//! tree's count, on generated puzzles with and without twins and
//! symmetric pieces, square and rectangular, and on Brendan's puzzles.

use e2_shared::engine::{Engine, Limits, Subtree};
use e2_shared::generator::{generate, GenSpec};
use e2_shared::layouts::Layout;
use e2_shared::order::FillOrder;
use e2_shared::symmetry::{reduce, reductions, Reduction};
use e2_shared::Puzzle;

fn count(engine: Engine, puzzle: &Puzzle) -> u64 {
    let root = Vec::new();
    engine
        .count(&Subtree::new(puzzle, &root), None, &Limits::none(), |_| {})
        .unwrap()
        .solutions
}

fn reduced(engine: Engine, puzzle: &Puzzle, r: &Reduction) -> u64 {
    r.factor
        * r.parts(puzzle)
            .iter()
            .map(|p| count(engine, p))
            .sum::<u64>()
}

fn gen(w: usize, h: usize, colours: u8, border: u8, seed: u64) -> Puzzle {
    generate(&GenSpec::sized(w, h, colours, border, seed))
        .unwrap()
        .puzzle
}

/// Whether some piece has a twin, or equals one of its own turns.
fn has_twins_or_symmetric(p: &Puzzle) -> bool {
    let mut seen = std::collections::HashSet::new();
    p.pieces.iter().any(|&e| {
        let c = e2_shared::model::canonical_form(e);
        !seen.insert(c) || (1..4).any(|r| e2_shared::rotate(e, r) == e)
    })
}

#[test]
fn reduced_counts_equal_whole_counts_on_generated_puzzles() {
    let mut kinds = (0, 0, 0, 0); // (quarter, half, none, with twins)
    let (mut markers, mut moved_off_top_left) = (0, 0);
    for (w, h, colours, border) in [
        (4, 4, 4, 2),
        (4, 4, 6, 2),
        (5, 5, 5, 2),
        (5, 5, 7, 2),
        (4, 3, 4, 2),
        (5, 4, 5, 2),
        (6, 4, 6, 2),
        (3, 3, 3, 1),
    ] {
        for seed in 1..=4 {
            let p = gen(w, h, colours, border, seed);
            let r = reduce(&p);
            let whole = count(Engine::Backtrack, &p);
            assert!(whole > 0, "{w}x{h} seed {seed}: generated from a board");
            assert_eq!(
                reduced(Engine::Backtrack, &p, &r),
                whole,
                "{w}x{h} c{colours} seed {seed}: {}",
                r.note
            );
            if r.factor == 2 {
                // The second part may pin the bottom-left corner instead
                // (where a column scan meets it first): just as exact.
                let turned = r.along(&p, FillOrder::ColumnMajor);
                assert_eq!(turned.pins[1].pos, w * h - w, "{}", turned.note);
                assert!(turned.note.contains("bottom-left"), "{}", turned.note);
                assert_eq!(reduced(Engine::Backtrack, &p, &turned), whole);
                assert_eq!(turned.along(&p, FillOrder::RowMajor), r);
            }
            // Every unique corner piece is a marker, pinned in whichever
            // corner an order meets first: each gives the same count.
            if w * h <= 20 {
                for marker in reductions(&p).unwrap_or_default() {
                    for order in [FillOrder::RowMajorBottomUp, FillOrder::SpiralOut] {
                        let moved = marker.along(&p, order);
                        assert_eq!(
                            reduced(Engine::Backtrack, &p, &moved),
                            whole,
                            "{w}x{h} seed {seed}: {}",
                            moved.note
                        );
                        markers += 1;
                        moved_off_top_left += usize::from(moved.pins[0].pos != 0);
                    }
                }
            }
            match r.factor {
                4 => kinds.0 += 1,
                2 => kinds.1 += 1,
                _ => kinds.2 += 1,
            }
            kinds.3 += usize::from(has_twins_or_symmetric(&p));
            if w * h <= 16 {
                assert_eq!(
                    reduced(Engine::Dlx, &p, &r),
                    whole,
                    "dlx {w}x{h} seed {seed}"
                );
            }
        }
    }
    // The cases above cover every branch of the reduction.
    assert!(kinds.0 > 0 && kinds.1 > 0 && kinds.3 > 0, "{kinds:?}");
    assert!(
        markers >= 40 && moved_off_top_left >= 20,
        "{markers} {moved_off_top_left}"
    );
}

#[test]
fn a_board_equal_to_its_own_turn_is_counted_once() {
    // Four identical corners and four identical edges around one centre
    // piece: boards equal to their own quarter turn exist, and no corner
    // piece is unique, so nothing may be assumed.
    let corner = [0, 1, 1, 0];
    let edge = [0, 1, 1, 1];
    let p = Puzzle {
        name: "pinwheel".into(),
        width: 3,
        height: 3,
        num_colors: 2,
        pieces: vec![
            corner,
            edge,
            corner,
            edge,
            [1, 1, 1, 1],
            edge,
            corner,
            edge,
            corner,
        ],
        hints: vec![],
    };
    let r = reduce(&p);
    assert_eq!(r.factor, 1, "{}", r.note);
    assert_eq!(
        reduced(Engine::Backtrack, &p, &r),
        count(Engine::Backtrack, &p)
    );
}

#[test]
fn clues_that_no_turn_keeps_mean_the_whole_tree() {
    let mut p = gen(5, 5, 6, 2, 3);
    let solution = generate(&GenSpec {
        width: 5,
        height: 5,
        colours: Some(6),
        border_colours: Some(2),
        seed: 3,
        layout: Layout::None,
    })
    .unwrap();
    // Pin the solution's centre-left cell: a quarter turn moves it.
    let pos = 2 * 5 + 1;
    let placements = solution.solution.placements.expect("pieces known");
    let placed = placements[pos].expect("a full board");
    p.hints.push(e2_shared::Hint {
        pos,
        piece: placed.piece,
        rot: placed.rot,
    });
    let r = reduce(&p);
    assert_eq!(r.factor, 1, "{}", r.note);
    assert!(r.note.contains("clues"), "{}", r.note);
}

#[test]
#[cfg_attr(e2_no_data, ignore = "needs ../shared/data (absent on this clone)")]
fn reduced_counts_equal_published_counts_on_brendan_puzzles() {
    for (file, published) in [
        ("s1_04x04", 36),
        ("s2_04x04", 48),
        ("s1_05x05", 16),
        ("s2_05x05", 4),
        ("s1_06x06", 260),
        ("s2_06x06", 160),
    ] {
        let path = format!(
            "{}/../../shared/data/brendan/{file}.json",
            env!("CARGO_MANIFEST_DIR")
        );
        let p =
            e2_shared::formats::puzzle_json::read(&std::fs::read_to_string(path).unwrap()).unwrap();
        let r = reduce(&p);
        assert_eq!(r.factor, 4, "{file}: {}", r.note);
        assert_eq!(reduced(Engine::Backtrack, &p, &r), published, "{file}");
    }
}
