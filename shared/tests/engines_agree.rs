//! The two engines are independent implementations of the same question
//! (how many distinct perfect boards honour the hints?), so they must agree
//! on every puzzle. This cross-checks them on generated puzzles from 3×3 to
//! 6×6, with and without hints, and on one with a rotation-symmetric piece,
//! and checks that each puzzle's known solution is among the boards found.

use e2_shared::backtrack::Backtracker;
use e2_shared::dlx::{self, Hooks, Limits};
use e2_shared::generator::{generate, GenSpec};
use e2_shared::layouts::Layout;
use e2_shared::model::{Board, Puzzle};
use e2_shared::order::FillOrder;
use e2_shared::score::{max_score, score};

fn backtrack_count(puzzle: &Puzzle) -> u64 {
    let mut engine = Backtracker::new(puzzle, FillOrder::RowMajor, &vec![]).expect("backtracker");
    engine.count(&Default::default()).solutions
}

/// Counts with DLX and collects every board it reports.
fn dlx_boards(puzzle: &Puzzle) -> (u64, Vec<Board>) {
    let mut boards = vec![];
    let mut on_board = |b: Board| boards.push(b);
    let hooks = Hooks {
        control: None,
        on_checkpoint: None,
        on_board: Some(&mut on_board),
    };
    let report = dlx::count_puzzle(puzzle, &vec![], &Limits::none(), hooks).expect("dlx");
    (report.solutions, boards)
}

fn check(puzzle: &Puzzle, known: &Board) -> u64 {
    let (dlx_count, boards) = dlx_boards(puzzle);
    assert_eq!(
        backtrack_count(puzzle),
        dlx_count,
        "{}: the engines disagree",
        puzzle.name
    );
    assert_eq!(boards.len() as u64, dlx_count);
    let full = max_score(puzzle.width, puzzle.height);
    for b in &boards {
        assert_eq!(
            score(b),
            full,
            "{}: a reported board is not perfect",
            puzzle.name
        );
        assert!(
            b.check_hints(puzzle).1.is_empty(),
            "{}: a reported board breaks a hint",
            puzzle.name
        );
    }
    assert!(
        boards.iter().any(|b| b.cells == known.cells),
        "{}: the known solution was not found",
        puzzle.name
    );
    dlx_count
}

#[test]
fn engines_agree_on_generated_puzzles() {
    let mut checked = 0;
    let mut with_many_solutions = 0;
    for size in 3..=6usize {
        // Few colours make many solutions; more colours make few.
        for (colours, border) in [(6u8, 2u8), (9, 3)] {
            for layout in [Layout::None, Layout::Official5, Layout::Lattice] {
                let spec = GenSpec {
                    width: size,
                    height: size,
                    colours: Some(colours + size as u8),
                    border_colours: Some(border),
                    seed: 100 + size as u64,
                    layout,
                };
                let g = generate(&spec).expect("generate");
                if g.duplicate_pieces > 0 {
                    continue;
                }
                let n = check(&g.puzzle, &g.solution);
                assert!(n >= 1);
                with_many_solutions += (n > 1) as usize;
                checked += 1;
            }
        }
    }
    assert!(checked >= 20, "only {checked} puzzles were distinct");
    assert!(
        with_many_solutions >= 3,
        "the cross-check needs puzzles with several solutions"
    );
}

/// A 3×3 whose centre piece shows one colour on all four sides: its four
/// rotations are one placement, and a board is counted once.
#[test]
fn engines_agree_with_a_rotation_symmetric_piece() {
    // Make the centre [c,c,c,c]; the first seed whose edge pieces stay
    // distinct after that gives the puzzle.
    let (puzzle, cells) = (0..100u64)
        .find_map(|seed| {
            let g = generate(&GenSpec {
                colours: Some(10),
                border_colours: Some(4),
                ..GenSpec::square(3, seed)
            })
            .unwrap();
            let mut cells: Vec<[u8; 4]> = g.solution.cells.iter().map(|c| c.unwrap()).collect();
            let c = 10; // an interior colour
            cells[4] = [c, c, c, c];
            cells[1][2] = c; // the centre's four neighbours face it with c
            cells[3][1] = c;
            cells[5][3] = c;
            cells[7][0] = c;
            let puzzle = Puzzle {
                name: format!("symmetric_centre_{seed}"),
                width: 3,
                height: 3,
                num_colors: 10,
                pieces: cells.clone(),
                hints: vec![],
            };
            puzzle.validate().is_ok().then_some((puzzle, cells))
        })
        .expect("a seed with a distinct set");
    let known = Board::from_edges(3, 3, cells.into_iter().map(Some).collect());
    let n = check(&puzzle, &known);
    // Whole-board rotations of a solution are other solutions only if the
    // frame allows them; either way each distinct board is counted once.
    let (_, boards) = dlx_boards(&puzzle);
    let mut distinct: Vec<_> = boards.iter().map(|b| b.cells.clone()).collect();
    distinct.sort();
    distinct.dedup();
    assert_eq!(distinct.len() as u64, n);
}
