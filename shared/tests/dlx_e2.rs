//! The E2 encoding: published counts of Brendan Owen's puzzles, identity
//! with the project's `.dlx` files, boards re-scored by the canonical
//! scorer, hints, and pieces that repeat up to rotation against brute force.

mod common;

use std::collections::HashSet;

use e2_shared::dlx::{count_puzzle, count_text, first_solution, is_unique, E2Cover, Hooks, Limits};
use e2_shared::model::{rotate, Board, Edges, Hint, Puzzle};
use e2_shared::rng::Rng;
use e2_shared::score::{max_score, score};
use e2_shared::search::RunEnd;

/// Every board of `puzzle` the engine reports, with the count it reports.
fn boards(puzzle: &Puzzle) -> (u64, Vec<Board>) {
    let mut found = Vec::new();
    let mut on_board = |b: Board| found.push(b);
    let hooks = Hooks {
        on_board: Some(&mut on_board),
        ..Hooks::default()
    };
    let report = count_puzzle(puzzle, &Vec::new(), &Limits::none(), hooks).unwrap();
    assert_eq!(report.end, RunEnd::Finished);
    (report.solutions, found)
}

/// Each board is perfect by the canonical scorer, honours every hint (by
/// edges and by piece), uses every piece once, and no board repeats.
fn assert_all_perfect_and_distinct(puzzle: &Puzzle, boards: &[Board]) {
    let max = max_score(puzzle.width, puzzle.height);
    let mut seen = HashSet::new();
    for board in boards {
        assert!(board.is_full());
        assert_eq!(score(board), max, "a reported board is not perfect");
        let (_, broken) = board.check_hints(puzzle);
        assert!(broken.is_empty(), "hints {broken:?} broken");
        let placements = board.placements.as_ref().unwrap();
        for hint in &puzzle.hints {
            assert_eq!(placements[hint.pos].unwrap().piece, hint.piece);
        }
        let mut used: Vec<usize> = placements.iter().map(|p| p.unwrap().piece).collect();
        used.sort_unstable();
        assert_eq!(used, (0..puzzle.pieces.len()).collect::<Vec<_>>());
        assert!(seen.insert(board.cells.clone()), "a board is counted twice");
    }
}

/// Published exhaustive counts (shared/data/README.md).
#[test]
#[cfg_attr(
    e2_no_data,
    ignore = "needs ../shared/data (community files), absent on this clone"
)]
fn brendan_small_puzzles_have_their_published_counts() {
    for (file, published) in [
        ("brendan/s1_04x04.json", 36),
        ("brendan/s1_05x05.json", 16),
        ("brendan/s2_04x04.json", 48),
        ("brendan/s2_05x05.json", 4),
    ] {
        let puzzle = common::puzzle(file);
        let (count, found) = boards(&puzzle);
        assert_eq!(count, published, "{file}");
        assert_eq!(found.len() as u64, published, "{file}");
        assert_all_perfect_and_distinct(&puzzle, &found);
    }
}

/// The encoding is, option for option, the project's `.dlx` files.
#[test]
#[cfg_attr(
    e2_no_data,
    ignore = "needs ../shared/data (community files), absent on this clone"
)]
fn encoding_matches_the_dlx_data_files() {
    for name in ["s1_06x06", "s2_06x06"] {
        let puzzle = common::puzzle(&format!("brendan/{name}.json"));
        let text = common::data_file(&format!("dlx/{name}.dlx"));
        let cover = E2Cover::new(&puzzle).unwrap();
        let expected: String = text
            .lines()
            .filter(|l| !l.starts_with('|'))
            .map(|l| format!("{l}\n"))
            .collect();
        assert_eq!(cover.xcc().to_text(None), expected, "{name}");
    }
}

/// Slow: the two counts take about 110 s together even in release (s1 is
/// 92.5M nodes, s2 33.6M). Run with
/// `cargo test --release -p e2-shared --test dlx_e2 -- --ignored`.
#[test]
#[ignore = "slow (about 110 s in release); needs ../shared/data"]
fn brendan_6x6_puzzles_have_their_published_counts() {
    for (file, published) in [
        ("brendan/s1_06x06.json", 260),
        ("brendan/s2_06x06.json", 160),
    ] {
        let puzzle = common::puzzle(file);
        let (count, found) = boards(&puzzle);
        assert_eq!(count, published, "{file}");
        assert_all_perfect_and_distinct(&puzzle, &found);
    }
}

/// Slow as above: `cargo test --release -p e2-shared --test dlx_e2 -- --ignored`.
#[test]
#[ignore = "slow (about 110 s in release); needs ../shared/data"]
fn brendan_6x6_dlx_files_have_their_published_counts() {
    for (file, published) in [("dlx/s1_06x06.dlx", 260), ("dlx/s2_06x06.dlx", 160)] {
        let text = common::data_file(file);
        let counted = count_text(&text, false, &Limits::none(), None).unwrap();
        assert_eq!(counted.solutions, published, "{file}");
    }
}

/// Hints filter the boards: the hinted count is the number of unhinted
/// boards that agree with the hints, and each reported board honours them.
#[test]
#[cfg_attr(
    e2_no_data,
    ignore = "needs ../shared/data (community files), absent on this clone"
)]
fn hints_keep_exactly_the_agreeing_boards() {
    let puzzle = common::puzzle("brendan/s1_05x05.json");
    let (_, all) = boards(&puzzle);
    let mut rng = Rng::new(55);
    for _ in 0..4 {
        let source = &all[rng.below(all.len() as u64) as usize];
        let placements = source.placements.clone().unwrap();
        let mut hinted = puzzle.clone();
        for _ in 0..1 + rng.below(2) {
            let pos = rng.below(puzzle.cells() as u64) as usize;
            if hinted.hints.iter().any(|h| h.pos == pos) {
                continue;
            }
            let p = placements[pos].unwrap();
            hinted.hints.push(Hint {
                pos,
                piece: p.piece,
                rot: p.rot,
            });
        }
        let agreeing = all
            .iter()
            .filter(|b| b.check_hints(&hinted).1.is_empty())
            .count() as u64;
        let (count, found) = boards(&hinted);
        assert_eq!(count, agreeing);
        assert!(count >= 1, "the source board agrees with its own hints");
        assert_all_perfect_and_distinct(&hinted, &found);
    }
}

#[test]
#[cfg_attr(
    e2_no_data,
    ignore = "needs ../shared/data (community files), absent on this clone"
)]
fn first_solution_and_uniqueness() {
    let puzzle = common::puzzle("brendan/s2_05x05.json");
    let first = first_solution(&puzzle).unwrap().unwrap();
    assert_eq!(score(&first), max_score(5, 5));
    assert!(!is_unique(&puzzle).unwrap(), "s2 5x5 has 4 boards");
    // Pinning a whole board but one cell leaves exactly that board.
    let mut pinned = puzzle.clone();
    let placements = first.placements.clone().unwrap();
    for (pos, p) in placements.iter().enumerate().skip(1) {
        let p = p.unwrap();
        pinned.hints.push(Hint {
            pos,
            piece: p.piece,
            rot: p.rot,
        });
    }
    assert!(is_unique(&pinned).unwrap());
    assert_eq!(first_solution(&pinned).unwrap().unwrap().cells, first.cells);
}

/// A solved `w`×`h` board with few colours (so pieces repeat), cut into a
/// shuffled, randomly turned piece set.
fn small_puzzle(rng: &mut Rng, w: usize, h: usize, colours: u8) -> Puzzle {
    let mut colour = || 1 + rng.below(colours as u64) as u8;
    let horizontal: Vec<u8> = (0..h * (w - 1)).map(|_| colour()).collect();
    let vertical: Vec<u8> = (0..(h - 1) * w).map(|_| colour()).collect();
    let mut pieces: Vec<Edges> = Vec::new();
    for y in 0..h {
        for x in 0..w {
            pieces.push([
                if y > 0 { vertical[(y - 1) * w + x] } else { 0 },
                if x + 1 < w {
                    horizontal[y * (w - 1) + x]
                } else {
                    0
                },
                if y + 1 < h { vertical[y * w + x] } else { 0 },
                if x > 0 {
                    horizontal[y * (w - 1) + x - 1]
                } else {
                    0
                },
            ]);
        }
    }
    rng.shuffle(&mut pieces);
    for p in pieces.iter_mut() {
        *p = rotate(*p, rng.below(4) as u8);
    }
    Puzzle {
        name: format!("small_{w}x{h}"),
        width: w,
        height: h,
        num_colors: colours,
        pieces,
        hints: vec![],
    }
}

/// Every distinct perfect board, by trying every piece at every rotation
/// on every cell in reading order, and keeping the set of edge grids.
fn brute_force_boards(puzzle: &Puzzle) -> HashSet<Vec<Edges>> {
    fn fill(
        puzzle: &Puzzle,
        pos: usize,
        used: &mut [bool],
        grid: &mut Vec<Edges>,
        out: &mut HashSet<Vec<Edges>>,
    ) {
        let (w, h) = (puzzle.width, puzzle.height);
        if pos == w * h {
            out.insert(grid.clone());
            return;
        }
        let (y, x) = (pos / w, pos % w);
        for piece in 0..puzzle.pieces.len() {
            if used[piece] {
                continue;
            }
            for rot in 0..4 {
                let e = rotate(puzzle.pieces[piece], rot);
                let frame_ok = (e[0] == 0) == (y == 0)
                    && (e[1] == 0) == (x + 1 == w)
                    && (e[2] == 0) == (y + 1 == h)
                    && (e[3] == 0) == (x == 0);
                let up_ok = y == 0 || grid[pos - w][2] == e[0];
                let left_ok = x == 0 || grid[pos - 1][1] == e[3];
                let hint_ok = puzzle
                    .hints
                    .iter()
                    .all(|hint| hint.pos != pos || puzzle.hint_edges(hint) == e);
                if frame_ok && up_ok && left_ok && hint_ok {
                    used[piece] = true;
                    grid.push(e);
                    fill(puzzle, pos + 1, used, grid, out);
                    grid.pop();
                    used[piece] = false;
                }
            }
        }
    }
    let mut out = HashSet::new();
    let mut used = vec![false; puzzle.pieces.len()];
    fill(puzzle, 0, &mut used, &mut Vec::new(), &mut out);
    out
}

/// Pieces repeating up to rotation: the count is of distinct boards, with
/// and without a hint pinning one copy.
#[test]
fn repeated_pieces_count_distinct_boards() {
    let mut rng = Rng::new(2024);
    let mut repeated_cases = 0;
    for case in 0..40 {
        let (w, h) = [(2, 2), (2, 3), (3, 3), (3, 2), (4, 2)][case % 5];
        let colours = 1 + (case % 3) as u8;
        let mut puzzle = small_puzzle(&mut rng, w, h, colours);
        if puzzle.validate().is_err() {
            repeated_cases += 1;
        }
        if case % 2 == 1 {
            // Pin the cell where the generating board had some piece, by
            // taking it from a brute-force solution.
            let any = brute_force_boards(&puzzle).into_iter().next().unwrap();
            let pos = rng.below(puzzle.cells() as u64) as usize;
            let (piece, rot) = (0..puzzle.pieces.len())
                .flat_map(|p| (0..4u8).map(move |r| (p, r)))
                .find(|&(p, r)| rotate(puzzle.pieces[p], r) == any[pos])
                .unwrap();
            puzzle.hints.push(Hint { pos, piece, rot });
        }
        let expected = brute_force_boards(&puzzle);
        let (count, found) = boards(&puzzle);
        assert_eq!(count, expected.len() as u64, "case {case}: {puzzle:?}");
        assert_all_perfect_and_distinct(&puzzle, &found);
        let found_grids: HashSet<Vec<Edges>> = found
            .iter()
            .map(|b| b.cells.iter().map(|c| c.unwrap()).collect())
            .collect();
        assert_eq!(found_grids, expected, "case {case}");
    }
    assert!(
        repeated_cases >= 30,
        "only {repeated_cases} sets had repeats"
    );
}

/// The official clue puzzles repeat pieces; their first board is perfect.
#[test]
#[cfg_attr(
    e2_no_data,
    ignore = "needs ../shared/data (community files), absent on this clone"
)]
fn clue_puzzles_first_boards_are_perfect() {
    for file in ["clue_puzzles/clue1.json", "clue_puzzles/clue3.json"] {
        let puzzle = common::puzzle(file);
        assert!(puzzle.validate().is_err(), "{file} repeats pieces");
        let first = first_solution(&puzzle).unwrap().expect(file);
        assert_eq!(score(&first), max_score(puzzle.width, puzzle.height));
    }
}

/// A generated 5×5 (7 colours, 2 on the border) with a few boards and
/// enough nodes to poll.
fn generated_5x5() -> Puzzle {
    use e2_shared::generator::{generate, GenSpec};
    generate(&GenSpec {
        colours: Some(7),
        border_colours: Some(2),
        ..GenSpec::square(5, 1)
    })
    .unwrap()
    .puzzle
}

/// DLX's own limits: a solution limit and a short poll interval leave
/// checkpoints that resume to the uninterrupted count, node for node.
#[test]
fn a_solution_limit_or_an_early_stop_leaves_a_resumable_checkpoint() {
    use e2_shared::dlx::resume;
    use e2_shared::search::Control;
    let puzzle = generated_5x5();
    let total = count_puzzle(&puzzle, &Vec::new(), &Limits::none(), Hooks::default()).unwrap();
    assert!(total.solutions >= 2, "{}", total.solutions);
    let control = Control::new();
    control.stop();
    let limits = Limits {
        poll_interval: 64,
        ..Limits::none()
    };
    let hooks = Hooks {
        control: Some(&control),
        ..Hooks::default()
    };
    let stopped = count_puzzle(&puzzle, &Vec::new(), &limits, hooks).unwrap();
    assert_eq!((stopped.end, stopped.nodes), (RunEnd::Stopped, 64));
    let two = count_puzzle(
        &puzzle,
        &Vec::new(),
        &Limits::solutions(2),
        Hooks::default(),
    )
    .unwrap();
    assert_eq!((two.solutions, two.end), (2, RunEnd::FoundFirst));
    for cp in [stopped.checkpoint, two.checkpoint] {
        let rest = resume(&puzzle, &cp.unwrap(), &Limits::none(), Hooks::default()).unwrap();
        assert_eq!((rest.solutions, rest.nodes), (total.solutions, total.nodes));
    }
}

/// A DLX split accounts for every node: the kept run and the donated
/// subtrees visit exactly the nodes of the whole run (the contract asks
/// only for no more).
#[test]
fn a_split_accounts_for_every_node() {
    use e2_shared::search::Control;
    let puzzle = generated_5x5();
    let total = count_puzzle(&puzzle, &Vec::new(), &Limits::none(), Hooks::default()).unwrap();
    let control = Control::new();
    control.request_split();
    let limits = Limits {
        poll_interval: 64,
        ..Limits::none()
    };
    let hooks = Hooks {
        control: Some(&control),
        ..Hooks::default()
    };
    let kept = count_puzzle(&puzzle, &Vec::new(), &limits, hooks).unwrap();
    assert_eq!(kept.end, RunEnd::Finished);
    let donated = control.take_donated();
    assert!(!donated.is_empty());
    let (solutions, nodes) = donated.iter().fold((0, 0), |(s, n), p| {
        let r = count_puzzle(&puzzle, p, &Limits::none(), Hooks::default()).unwrap();
        (s + r.solutions, n + r.nodes)
    });
    assert_eq!(kept.solutions + solutions, total.solutions);
    assert_eq!(kept.nodes + nodes, total.nodes);
}

/// A prefix no perfect board can have (an inner piece in a corner, a cell
/// forced twice) is an empty subtree, not an error; one off the board is.
#[test]
fn infeasible_prefixes_count_nothing_and_malformed_ones_are_refused() {
    use e2_shared::search::Forced;
    let puzzle = generated_5x5();
    let count = |prefix: &Vec<Forced>| {
        count_puzzle(&puzzle, prefix, &Limits::none(), Hooks::default())
            .unwrap()
            .solutions
    };
    let inner = puzzle
        .pieces
        .iter()
        .position(|p| p.iter().all(|&c| c != 0))
        .expect("a 5x5 has inner pieces");
    let corner = vec![Forced {
        pos: 0,
        piece: inner,
        rot: 0,
    }];
    assert_eq!(count(&corner), 0);
    let first = e2_shared::dlx::prefixes(&puzzle, 1).unwrap()[0][0];
    let other = (0..puzzle.pieces.len())
        .find(|&p| p != first.piece)
        .unwrap();
    let twice = vec![
        first,
        Forced {
            piece: other,
            ..first
        },
    ];
    assert_eq!(count(&twice), 0);
    let outside = vec![Forced {
        pos: 99,
        piece: 0,
        rot: 0,
    }];
    let e = count_puzzle(&puzzle, &outside, &Limits::none(), Hooks::default()).unwrap_err();
    assert!(e.to_string().contains("prefix placement 0"), "{e}");
}
