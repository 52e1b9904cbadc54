//! Pieces that repeat up to rotation, and rotation-symmetric pieces: the
//! backtracker counts each distinct board once, as a brute-force
//! enumeration of every assignment (deduplicated by edges) does.

use std::collections::HashSet;

use e2_shared::backtrack::{Backtracker, Limits};
use e2_shared::model::{rotate, Edges, Hint, Puzzle};
use e2_shared::order::FillOrder;
use e2_shared::rng::Rng;
use e2_shared::search::Prefix;

/// Every valid board, by brute force over (piece, rotation) at every cell in
/// row-major order, deduplicated as edge grids.
fn brute_force(p: &Puzzle) -> usize {
    fn go(
        p: &Puzzle,
        cell: usize,
        used: &mut Vec<bool>,
        grid: &mut Vec<Edges>,
        out: &mut HashSet<Vec<Edges>>,
    ) {
        let (w, h) = (p.width, p.height);
        if cell == w * h {
            out.insert(grid.clone());
            return;
        }
        let (row, col) = (cell / w, cell % w);
        let hint = p.hints.iter().find(|h| h.pos == cell);
        for piece in 0..p.pieces.len() {
            if used[piece] || hint.is_some_and(|h| h.piece != piece) {
                continue;
            }
            for rot in 0..4 {
                if hint.is_some_and(|h| h.rot != rot) {
                    continue;
                }
                let e = rotate(p.pieces[piece], rot);
                let frame = [row == 0, col + 1 == w, row + 1 == h, col == 0];
                if (0..4).any(|s| (e[s] == 0) != frame[s]) {
                    continue;
                }
                if row > 0 && grid[cell - w][2] != e[0] {
                    continue;
                }
                if col > 0 && grid[cell - 1][1] != e[3] {
                    continue;
                }
                used[piece] = true;
                grid.push(e);
                go(p, cell + 1, used, grid, out);
                grid.pop();
                used[piece] = false;
            }
        }
    }
    let mut out = HashSet::new();
    go(
        p,
        0,
        &mut vec![false; p.pieces.len()],
        &mut Vec::new(),
        &mut out,
    );
    out.len()
}

/// A solved board with few colours (so pieces repeat), catalogued with
/// shuffled ids and random rotations.
fn tiny_puzzle(width: usize, height: usize, border: u8, interior: u8, seed: u64) -> Puzzle {
    let mut rng = Rng::new(seed);
    let on_frame = |pos: usize| {
        let (r, c) = (pos / width, pos % width);
        r == 0 || c == 0 || r + 1 == height || c + 1 == width
    };
    let mut cells = vec![[0u8; 4]; width * height];
    for pos in 0..width * height {
        let (r, c) = (pos / width, pos % width);
        if c + 1 < width {
            let frame_seam = on_frame(pos) && on_frame(pos + 1);
            let colour = if frame_seam {
                1 + rng.below(border as u64) as u8
            } else {
                1 + border + rng.below(interior as u64) as u8
            };
            cells[pos][1] = colour;
            cells[pos + 1][3] = colour;
        }
        if r + 1 < height {
            let frame_seam = on_frame(pos) && on_frame(pos + width);
            let colour = if frame_seam {
                1 + rng.below(border as u64) as u8
            } else {
                1 + border + rng.below(interior as u64) as u8
            };
            cells[pos][2] = colour;
            cells[pos + width][0] = colour;
        }
    }
    let mut pieces: Vec<Edges> = cells
        .iter()
        .map(|&e| rotate(e, rng.below(4) as u8))
        .collect();
    rng.shuffle(&mut pieces);
    Puzzle {
        name: format!("tiny_{width}x{height}_{seed}"),
        width,
        height,
        num_colors: border + interior,
        pieces,
        hints: vec![],
    }
}

fn engine_count(p: &Puzzle, order: FillOrder) -> u64 {
    Backtracker::new(p, order, &Prefix::new())
        .unwrap()
        .count(&Limits::default())
        .solutions
}

#[test]
fn a_fully_symmetric_board_is_counted_once() {
    // Every interior seam 2, every frame seam 1: four equal corners, four
    // equal edges and a centre [2,2,2,2]; exactly one distinct board.
    let p = Puzzle {
        name: "symmetric".into(),
        width: 3,
        height: 3,
        num_colors: 2,
        pieces: vec![
            [0, 1, 1, 0],
            [0, 0, 1, 1],
            [1, 0, 0, 1],
            [1, 1, 0, 0],
            [0, 1, 2, 1],
            [1, 0, 1, 2],
            [2, 1, 0, 1],
            [1, 2, 1, 0],
            [2, 2, 2, 2],
        ],
        hints: vec![],
    };
    assert_eq!(brute_force(&p), 1);
    for order in FillOrder::ALL {
        assert_eq!(engine_count(&p, order), 1, "{order}");
    }
}

#[test]
fn repeated_pieces_count_like_brute_force() {
    let mut checked_duplicates = 0;
    for seed in 0..12u64 {
        let (w, h) = [(2, 2), (3, 2), (3, 3), (4, 3)][seed as usize % 4];
        let p = tiny_puzzle(w, h, 1, 2, seed);
        let distinct: HashSet<Edges> = p
            .pieces
            .iter()
            .map(|&e| e2_shared::model::canonical_form(e))
            .collect();
        if distinct.len() < p.pieces.len() {
            checked_duplicates += 1;
        }
        let expected = brute_force(&p) as u64;
        assert!(expected >= 1, "the generated board itself is a solution");
        eprintln!("{}: {expected} distinct boards", p.name);
        for order in FillOrder::ALL {
            assert_eq!(
                engine_count(&p, order),
                expected,
                "{} under {order}",
                p.name
            );
        }
    }
    assert!(
        checked_duplicates >= 6,
        "too few puzzles with repeated pieces: {checked_duplicates}"
    );
}

#[test]
fn a_hint_on_a_repeated_piece_is_honoured() {
    let mut p = tiny_puzzle(3, 3, 1, 2, 99);
    // Pin the centre to the first piece showing an interior quadruple, at
    // the rotation brute force agrees exists in some solution.
    let centre = p
        .pieces
        .iter()
        .position(|e| e.iter().all(|&c| c > 0))
        .unwrap();
    for rot in 0..4u8 {
        p.hints = vec![Hint {
            pos: 4,
            piece: centre,
            rot,
        }];
        let expected = brute_force(&p) as u64;
        for order in [
            FillOrder::RowMajor,
            FillOrder::SpiralOut,
            FillOrder::ConnectHintsFirst,
        ] {
            assert_eq!(engine_count(&p, order), expected, "rot {rot} under {order}");
        }
    }
}
