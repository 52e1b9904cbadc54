//! Every notation round-trips the board model, and every bad input gets a
//! one-line message naming the place and the reason.
//!
//! Boards are built here from random piece sets (random colours, pieces
//! distinct up to rotation and without rotational symmetry, so edges name
//! exactly one piece and rotation), on sizes 2..=16 including non-square
//! ones, full and partial.

use e2_shared::formats::{
    board_edges, board_hash, board_pieces, boarddoc, convert, e2pieces, hints, puzzle_csv,
    puzzle_json, read_any, url, BoardDoc, BoardInput, Decoded, OutputFormat, Pin, Strictness,
};
use e2_shared::model::{canonical_form, rotate, Placement, MAX_COLOUR};
use e2_shared::rng::Rng;
use e2_shared::{Board, Edges, Hint, Puzzle};
use proptest::prelude::*;
use std::collections::HashSet;

/// A random set of `width*height` pieces over colours `0..=colours`.
fn random_set(rng: &mut Rng, width: usize, height: usize, colours: u8) -> Puzzle {
    let mut seen = HashSet::new();
    let mut pieces = Vec::new();
    while pieces.len() < width * height {
        let piece: Edges = [0; 4].map(|_| rng.below(colours as u64 + 1) as u8);
        let symmetric = (1..4).any(|r| rotate(piece, r) == piece);
        if !symmetric && seen.insert(canonical_form(piece)) {
            pieces.push(piece);
        }
    }
    Puzzle {
        name: format!("random {width}x{height}"),
        width,
        height,
        num_colors: colours,
        pieces,
        hints: vec![],
    }
}

/// A random placement of the set: each cell empty with probability
/// `empty_percent`%, and about one filled cell in eight pinned.
fn random_board(rng: &mut Rng, set: &Puzzle, empty_percent: u64) -> (Board, Vec<Pin>) {
    let mut order: Vec<usize> = (0..set.pieces.len()).collect();
    rng.shuffle(&mut order);
    let mut pins = Vec::new();
    let placements = order
        .into_iter()
        .enumerate()
        .map(|(pos, piece)| {
            if rng.below(100) < empty_percent {
                return None;
            }
            let rot = rng.below(4) as u8;
            if rng.below(8) == 0 {
                pins.push(Pin { pos, rot });
            }
            Some(Placement { piece, rot })
        })
        .collect();
    (Board::from_placements(set, placements), pins)
}

fn edges_only(board: &Board) -> Board {
    Board::from_edges(board.width, board.height, board.cells.clone())
}

fn board_of(decoded: Decoded) -> BoardInput {
    match decoded {
        Decoded::Board(input) => input,
        Decoded::Puzzle(p) => panic!("expected a board, read the puzzle {}", p.name),
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    #[test]
    fn every_format_round_trips(
        width in 2usize..=16,
        height in 2usize..=16,
        seed in any::<u64>(),
        empty_percent in prop_oneof![Just(0u64), 1u64..=90],
    ) {
        let mut rng = Rng::new(seed);
        let set = random_set(&mut rng, width, height, 22);
        let (board, pins) = random_board(&mut rng, &set, empty_percent);
        let size = Some((width, height));

        // board_edges carries the edges, and the edges carry identity.
        let letters = board_edges::write(&board);
        let back = board_edges::read(&letters, size, set.num_colors).unwrap();
        prop_assert_eq!(&back.cells, &board.cells);
        if width == height {
            prop_assert_eq!(&board_edges::read(&letters, None, MAX_COLOUR).unwrap().cells, &board.cells);
        }
        let mut identified = back;
        identified.identify(&set, None).unwrap();
        prop_assert_eq!(&identified.placements, &board.placements);

        // hints
        prop_assert_eq!(&hints::read(&hints::write(&pins), width, height).unwrap(), &pins);

        // board_pieces, and identity through the overlay
        let overlay = board_pieces::of_board(&board).unwrap();
        let digits = board_pieces::write(&overlay);
        let overlay_back = board_pieces::read(&digits, width, height, Some(set.pieces.len())).unwrap();
        prop_assert_eq!(&overlay_back, &overlay);
        let mut through_overlay = edges_only(&board);
        through_overlay.identify(&set, Some(&overlay_back)).unwrap();
        prop_assert_eq!(&through_overlay.placements, &board.placements);

        // e2pieces keeps positions on full boards only
        if board.is_full() {
            let lines = e2pieces::write(&board);
            prop_assert_eq!(&e2pieces::read(&lines, size, set.num_colors).unwrap().cells, &board.cells);
        }

        // BoardDoc carries everything, identities included
        let doc = boarddoc::write(&set.name, &board, &pins).unwrap();
        let input = boarddoc::read(&doc).unwrap();
        prop_assert_eq!(&input.board, &board);
        prop_assert_eq!(&input.hints, &pins);

        // both links
        for link in [url::write(&set.name, &board, &pins), url::write_bucas(&set.name, &board)] {
            let (input, problems) = url::read(&link, Strictness::Strict).unwrap();
            prop_assert!(problems.is_empty());
            prop_assert_eq!(&input.board.cells, &board.cells);
            prop_assert_eq!(input.name, "random_".to_string() + &format!("{width}x{height}"));
            if link.contains("eternity2.dev") {
                prop_assert_eq!(&input.hints, &pins);
            }
        }

        // the puzzle the board poses: its set with the board's pins as hints
        let mut as_input = BoardInput::new(&set.name, board.clone());
        as_input.hints = pins.clone();
        let puzzle = as_input.to_puzzle(&set).unwrap();
        prop_assert_eq!(&puzzle_json::read(&puzzle_json::write(&puzzle)).unwrap(), &puzzle);
        let csv_representable = width == height
            && !puzzle.hints.iter().any(|h| (h.pos, h.rot) == (0, 0));
        match puzzle_csv::write(&puzzle) {
            Ok(csv) => {
                prop_assert!(csv_representable);
                let back = puzzle_csv::read(&csv, &puzzle.name).unwrap();
                prop_assert_eq!(&back.pieces, &puzzle.pieces);
                // The CSV lists hints in piece order.
                let mut expected = puzzle.hints.clone();
                expected.sort_by_key(|h| h.piece);
                prop_assert_eq!(&back.hints, &expected);
                prop_assert_eq!(back.num_colors, puzzle.max_colour_used());
            }
            Err(_) => prop_assert!(!csv_representable),
        }
    }

    #[test]
    fn every_converter_output_is_recognised_and_reads_back(
        side in 2usize..=9,
        seed in any::<u64>(),
        empty_percent in prop_oneof![Just(0u64), 1u64..=90],
    ) {
        let mut rng = Rng::new(seed);
        let set = random_set(&mut rng, side, side, 12);
        let (board, pins) = random_board(&mut rng, &set, empty_percent);
        let mut input = BoardInput::new("random", edges_only(&board));
        input.hints = pins.clone();
        let conversion = convert(&Decoded::Board(input), Some(&set)).unwrap();
        // The CSV reads a trailing 0,0,0 as "not pinned".
        let csv_representable = !pins.iter().any(|p| (p.pos, p.rot) == (0, 0));
        for output in &conversion.outputs {
            if output.format == OutputFormat::PuzzleCsv && !csv_representable {
                prop_assert!(output.text().unwrap_err().contains("not pinned"));
                continue;
            }
            let text = output.text().unwrap();
            match output.format {
                OutputFormat::Hints => {
                    prop_assert_eq!(&hints::read(text, side, side).unwrap(), &pins);
                }
                OutputFormat::BoardPieces => {
                    prop_assert_eq!(Some(board_pieces::read(text, side, side, None).unwrap()), board_pieces::of_board(&board));
                }
                OutputFormat::PuzzleJson | OutputFormat::PuzzleCsv => {
                    let Decoded::Puzzle(puzzle) = read_any(text, Some("random")).unwrap() else {
                        panic!("{} reads back as a board", output.format)
                    };
                    prop_assert_eq!(&puzzle.pieces, &set.pieces);
                    let mut expected: Vec<(usize, u8)> = pins.iter().map(|p| (p.pos, p.rot)).collect();
                    let mut got: Vec<(usize, u8)> = puzzle.hints.iter().map(|h| (h.pos, h.rot)).collect();
                    expected.sort();
                    got.sort();
                    prop_assert_eq!(got, expected);
                }
                OutputFormat::E2Pieces if !board.is_full() => {}
                _ => {
                    let back = board_of(read_any(text, None).unwrap());
                    prop_assert_eq!(&back.board.cells, &board.cells, "{}", output.format);
                }
            }
        }
        prop_assert_eq!(conversion.score, e2_shared::score::evaluate(&board));
    }
}

// ---- BoardDoc hash -------------------------------------------------------

/// FNV-1a 64 written out from its definition (docs/formats.md), byte by byte.
fn fnv1a_by_hand(bytes: &[u8]) -> u64 {
    let mut hash: u64 = 0xcbf29ce484222325;
    for &byte in bytes {
        hash ^= byte as u64;
        hash = hash.wrapping_mul(0x100000001b3);
    }
    hash
}

#[test]
fn board_hash_is_fnv1a_over_little_endian_entries() {
    // Entries 5, -1, 258 as 4-byte little-endian i32.
    let bytes = [5, 0, 0, 0, 0xff, 0xff, 0xff, 0xff, 2, 1, 0, 0];
    assert_eq!(board_hash(&[5, -1, 258]), fnv1a_by_hand(&bytes));
    // The published FNV-1a 64 of no bytes is the offset basis.
    assert_eq!(board_hash(&[]), 0xcbf29ce484222325);
    // Order matters: the hash is of the row-major vector.
    assert_ne!(board_hash(&[5, -1]), board_hash(&[-1, 5]));
}

#[test]
fn hashes_above_i64_max_survive_json() {
    let mut rng = Rng::new(7);
    let set = random_set(&mut rng, 3, 3, 6);
    // About half of all boards hash above i64::MAX; take the first.
    let (board, doc) = (0..64)
        .map(|_| random_board(&mut rng, &set, 20).0)
        .map(|board| {
            let doc = BoardDoc::new("big", &board, &[]).unwrap();
            (board, doc)
        })
        .find(|(_, doc)| doc.board_hash > i64::MAX as u64)
        .expect("some board hashes above i64::MAX");
    let json = doc.to_json();
    assert!(
        json.contains(&format!("\"board_hash\": {}", doc.board_hash)),
        "{json}"
    );
    let back = BoardDoc::parse(&json).unwrap();
    assert_eq!(back.board_hash, doc.board_hash);
    assert_eq!(boarddoc::read(&json).unwrap().board, board);
    // A near miss is caught exactly, not rounded away.
    let off_by_one = json.replace(
        &doc.board_hash.to_string(),
        &(doc.board_hash - 1).to_string(),
    );
    let e = boarddoc::read(&off_by_one).unwrap_err().to_string();
    assert!(
        e.contains(&(doc.board_hash - 1).to_string()) && e.contains("is not the hash"),
        "{e}"
    );
}

// ---- bad input: one line naming the place and the reason -------------------

fn one_line(e: impl ToString) -> String {
    let message = e.to_string();
    assert!(!message.contains('\n'), "not one line: {message}");
    message
}

fn assert_names(message: &str, parts: &[&str]) {
    for part in parts {
        assert!(
            message.contains(part),
            "{message:?} should mention {part:?}"
        );
    }
}

#[test]
fn board_edges_of_wrong_length() {
    let e = one_line(read_any(&"a".repeat(1020), None).unwrap_err());
    assert_names(&e, &["board_edges", "length", "1020 letters"]);
    let e = one_line(
        url::read(
            "puzzle=x&puzzle_size=16&board_edges=abab",
            Strictness::Strict,
        )
        .unwrap_err(),
    );
    assert_names(
        &e,
        &[
            "board_edges",
            "length",
            "4 letters, expected 4*16*16 = 1024",
        ],
    );
}

#[test]
fn board_edges_with_an_uppercase_letter() {
    let mut letters = "a".repeat(1024);
    letters.replace_range(17 * 4 + 2..17 * 4 + 3, "C");
    let e = one_line(read_any(&letters, None).unwrap_err());
    assert_names(
        &e,
        &["cell 17 (row 1, col 1)", "'C'", "uppercase", "lowercase"],
    );
}

#[test]
fn board_edges_with_a_colour_above_the_set() {
    let mut letters = "a".repeat(64);
    letters.replace_range(6 * 4..6 * 4 + 1, "y");
    let e = one_line(board_edges::read(&letters, None, 22).unwrap_err());
    assert_names(&e, &["cell 6 (row 1, col 2)", "colour 24", "a..=w"]);
}

#[test]
fn hints_out_of_range_rotated_too_far_or_repeated() {
    let e = one_line(hints::read("34.1-256.2", 16, 16).unwrap_err());
    assert_names(&e, &["hints", "item 1 \"256.2\"", "position 256", "16x16"]);
    let e = one_line(hints::read("34.4", 16, 16).unwrap_err());
    assert_names(&e, &["item 0 \"34.4\"", "rotation 4", "0..=3"]);
    let e = one_line(hints::read("34.1-34.2", 16, 16).unwrap_err());
    assert_names(
        &e,
        &[
            "item 1 \"34.2\"",
            "cell 34 (row 2, col 2)",
            "already pinned by item 0",
        ],
    );
}

fn small_set_csv() -> String {
    let mut rng = Rng::new(3);
    let set = random_set(&mut rng, 3, 3, 5);
    puzzle_csv::write(&set).unwrap()
}

#[test]
fn csv_word_that_is_not_16_binary_digits() {
    let csv = small_set_csv();
    let mut lines: Vec<String> = csv.lines().map(str::to_string).collect();
    let mut fields: Vec<String> = lines[3].split(',').map(str::to_string).collect();
    fields[2] = "00000000000001x1".into();
    lines[3] = fields.join(",");
    let e = one_line(puzzle_csv::read(&lines.join("\n"), "p").unwrap_err());
    assert_names(
        &e,
        &[
            "Puzzle CSV",
            "line 4, field 3 (bottom)",
            "\"00000000000001x1\"",
            "16-digit binary word",
        ],
    );
}

fn small_set_json(mutate: impl FnOnce(&mut Puzzle)) -> String {
    let mut rng = Rng::new(4);
    let mut set = random_set(&mut rng, 3, 3, 5);
    mutate(&mut set);
    puzzle_json::write(&set)
}

#[test]
fn puzzle_json_breaking_the_rules_of_a_set() {
    let e = one_line(
        puzzle_json::read(&small_set_json(|p| {
            p.pieces.pop();
        }))
        .unwrap_err(),
    );
    assert_names(&e, &["\"pieces\"", "has 8 pieces", "3*3 = 9"]);

    let e = one_line(puzzle_json::read(&small_set_json(|p| p.pieces[4][1] = 6)).unwrap_err());
    assert_names(&e, &["piece 4", "colour 6 is above numColors = 5"]);

    let e = one_line(
        puzzle_json::read(&small_set_json(|p| p.pieces[7] = rotate(p.pieces[2], 3))).unwrap_err(),
    );
    assert_names(&e, &["piece 7", "equals piece 2", "up to rotation"]);

    let e = one_line(
        puzzle_json::read(&small_set_json(|p| {
            p.hints.push(Hint {
                pos: 4,
                piece: 9,
                rot: 1,
            })
        }))
        .unwrap_err(),
    );
    assert_names(&e, &["hint 0", "piece 9 does not exist"]);
}

#[test]
fn a_board_cell_whose_edges_match_no_piece() {
    let mut rng = Rng::new(5);
    let set = random_set(&mut rng, 4, 4, 9);
    let (mut board, _) = random_board(&mut rng, &set, 0);
    // Colour 10 is beyond the set, so no piece shows it.
    board.cells[6] = Some([10, 10, 10, 1]);
    let input = BoardInput::new("b", edges_only(&board));
    let e = one_line(convert(&Decoded::Board(input), Some(&set)).unwrap_err());
    assert_names(&e, &["cell 6 (row 1, col 2)", "match no piece"]);
}

#[test]
fn an_unknown_motifs_order() {
    let link = format!(
        "https://e2.bucas.name/#puzzle=x&board_w=16&board_h=16&board_edges={}&motifs_order=rainbow",
        "a".repeat(1024)
    );
    let e = one_line(read_any(&link, None).unwrap_err());
    assert_names(&e, &["motifs_order", "\"rainbow\"", "jef", "jblackwood"]);
}

#[test]
fn a_board_without_its_set_says_what_to_add() {
    let mut rng = Rng::new(6);
    let set = random_set(&mut rng, 3, 3, 7);
    let (board, _) = random_board(&mut rng, &set, 0);
    let decoded = read_any(&board_edges::write(&board), None).unwrap();
    let conversion = convert(&decoded, None).unwrap();
    for format in [OutputFormat::BoardPieces, OutputFormat::BoardDoc] {
        let e = one_line(conversion.get(format).text().unwrap_err());
        assert_eq!(e, format!("{format}: needs the piece set: pass --puzzle"));
    }
    for format in [OutputFormat::PuzzleJson, OutputFormat::PuzzleCsv] {
        let e = one_line(conversion.get(format).text().unwrap_err());
        assert_names(&e, &[format.name(), "not a puzzle", "--puzzle"]);
    }
    // With the set, everything is available.
    let conversion = convert(&decoded, Some(&set)).unwrap();
    assert!(conversion.outputs.iter().all(|o| o.value.is_ok()));
}

#[test]
fn a_puzzle_converts_to_itself_and_to_the_board_of_its_hints() {
    let mut rng = Rng::new(8);
    let mut set = random_set(&mut rng, 4, 4, 7);
    set.hints = vec![
        Hint {
            pos: 5,
            piece: 3,
            rot: 1,
        },
        Hint {
            pos: 10,
            piece: 0,
            rot: 2,
        },
    ];
    let decoded = read_any(&puzzle_json::write(&set), None).unwrap();
    let conversion = convert(&decoded, None).unwrap();
    assert_eq!(
        conversion.get(OutputFormat::PuzzleJson).text().unwrap(),
        puzzle_json::write(&set)
    );
    assert_eq!(
        conversion.get(OutputFormat::Hints).text().unwrap(),
        "5.1-10.2"
    );
    let board =
        board_of(read_any(conversion.get(OutputFormat::BoardDoc).text().unwrap(), None).unwrap());
    assert_eq!(board.board.filled(), 2);
    assert_eq!(board.board.cells[5], Some(rotate(set.pieces[3], 1)));
}
