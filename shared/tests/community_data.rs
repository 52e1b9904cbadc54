//! The formats against the community's own files (`shared/data`): a round
//! trip or a score that matches them is evidence, not self-agreement.
//!
//! Every test needs the data: on a clone without it they are ignored
//! (`shared/build.rs`).

use std::fs;
use std::path::{Path, PathBuf};

use e2_shared::formats::{
    board_pieces, convert, puzzle_csv, puzzle_json, read_any, url, BoardInput, Decoded, Duplicates,
    OutputFormat, Strictness,
};
use e2_shared::model::Placement;
use e2_shared::score::{evaluate, max_score};
use e2_shared::{Hint, Puzzle};
use serde_json::Value;

const DATA: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../shared/data");

/// The data directory; its absence is a failure here (the tests are
/// ignored on clones built without it).
fn data() -> PathBuf {
    let dir = PathBuf::from(DATA);
    assert!(dir.is_dir(), "community data not found at {DATA}");
    dir
}

fn text(path: &Path) -> String {
    fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn official_set(dir: &Path) -> Puzzle {
    puzzle_csv::read(
        &text(&dir.join("official/official_eternity2.csv")),
        "official_eternity2",
    )
    .unwrap()
}

struct KnownBoard {
    id: String,
    claimed_score: Option<u32>,
    input: BoardInput,
}

fn known_boards(dir: &Path) -> Vec<KnownBoard> {
    let doc: Value = serde_json::from_str(&text(&dir.join("boards/known_boards.json"))).unwrap();
    doc["boards"]
        .as_array()
        .unwrap()
        .iter()
        .map(|b| {
            let id = b["id"].as_str().unwrap().to_string();
            let (input, problems) = url::read(b["params"].as_str().unwrap(), Strictness::Strict)
                .unwrap_or_else(|e| panic!("{id}: {e}"));
            assert!(problems.is_empty());
            KnownBoard {
                claimed_score: b["score"].as_u64().map(|s| s as u32),
                id,
                input,
            }
        })
        .collect()
}

#[test]
#[cfg_attr(
    e2_no_data,
    ignore = "needs ../shared/data (community files), absent on this clone"
)]
fn every_known_board_scores_its_claim() {
    let dir = data();
    let boards = known_boards(&dir);
    assert_eq!(boards.len(), 21);
    let mut checked = 0;
    for b in &boards {
        assert_eq!(
            (b.input.board.width, b.input.board.height),
            (16, 16),
            "{}",
            b.id
        );
        if let Some(claimed) = b.claimed_score {
            assert_eq!(evaluate(&b.input.board).score, claimed, "{}", b.id);
            checked += 1;
        }
    }
    // Only "Clues" (the five clues alone) makes no claim.
    assert_eq!(checked, 20);
}

#[test]
#[cfg_attr(
    e2_no_data,
    ignore = "needs ../shared/data (community files), absent on this clone"
)]
fn every_filled_cell_of_every_known_board_is_one_official_piece() {
    let dir = data();
    let set = official_set(&dir);
    let index = set.index();
    for b in known_boards(&dir) {
        for (pos, cell) in b.input.board.cells.iter().enumerate() {
            if let Some(edges) = cell {
                assert_eq!(
                    index.lookup(edges).len(),
                    1,
                    "{}: cell {pos} {edges:?} should match exactly one official piece",
                    b.id
                );
            }
        }
        let mut edges_only = b.input.board.clone();
        edges_only
            .identify(&set, None)
            .unwrap_or_else(|e| panic!("{}: {e}", b.id));
        let placements = edges_only.placements.as_ref().unwrap();
        let filled = b.input.board.filled();
        assert_eq!(placements.iter().flatten().count(), filled, "{}", b.id);
        // Identity and rotation reproduce the edges the board shows.
        let rebuilt = e2_shared::Board::from_placements(&set, placements.clone());
        assert_eq!(rebuilt.cells, b.input.board.cells, "{}", b.id);
    }
}

#[test]
#[cfg_attr(
    e2_no_data,
    ignore = "needs ../shared/data (community files), absent on this clone"
)]
fn boards_with_their_own_board_pieces_agree_with_the_edges() {
    let dir = data();
    let set = official_set(&dir);
    let mut with_overlay = Vec::new();
    for b in known_boards(&dir) {
        let Some(overlay) = &b.input.pieces_overlay else {
            continue;
        };
        with_overlay.push(b.id.clone());
        let mut from_edges = b.input.board.clone();
        from_edges.identify(&set, None).unwrap();
        let recovered = board_pieces::of_board(&from_edges).unwrap();
        assert_eq!(&recovered, overlay, "{}", b.id);
        let mut from_overlay = b.input.board.clone();
        from_overlay.identify(&set, Some(overlay)).unwrap();
        assert_eq!(from_overlay.placements, from_edges.placements, "{}", b.id);
    }
    for id in [
        "Louis_Verhaard_467",
        "Louis_Verhaard_467_a",
        "Louis_Verhaard_467_b",
        "Louis_Verhaard_467_c",
        "Clues",
    ] {
        assert!(
            with_overlay.contains(&id.to_string()),
            "{id} carries board_pieces"
        );
    }
}

#[test]
#[cfg_attr(
    e2_no_data,
    ignore = "needs ../shared/data (community files), absent on this clone"
)]
fn the_clues_board_shows_the_official_clues() {
    let dir = data();
    let set = official_set(&dir);
    let clues = known_boards(&dir)
        .into_iter()
        .find(|b| b.id == "Clues")
        .unwrap();
    let mut board = clues.input.board.clone();
    board
        .identify(&set, clues.input.pieces_overlay.as_deref())
        .unwrap();
    let mut on_board: Vec<Hint> = board
        .placements
        .unwrap()
        .iter()
        .enumerate()
        .filter_map(|(pos, p)| p.map(|Placement { piece, rot }| Hint { pos, piece, rot }))
        .collect();
    let mut official = set.hints.clone();
    on_board.sort();
    official.sort();
    assert_eq!(on_board, official);
}

#[test]
#[cfg_attr(
    e2_no_data,
    ignore = "needs ../shared/data (community files), absent on this clone"
)]
fn known_boards_survive_every_output_format() {
    let dir = data();
    let set = official_set(&dir);
    for b in known_boards(&dir) {
        let conversion = convert(&Decoded::Board(b.input.clone()), Some(&set))
            .unwrap_or_else(|e| panic!("{}: {e}", b.id));
        assert_eq!(conversion.score.max, max_score(16, 16));
        if b.id == "JBlackwood+PMcGavin_469" {
            // The sanitising example of docs/formats.md, on the board it came from.
            let link = conversion.get(OutputFormat::Url).text().unwrap();
            assert!(link.contains("?puzzle=JBlackwood_PMcGavin_469&"), "{link}");
        }
        for format in [
            OutputFormat::BoardEdges,
            OutputFormat::Url,
            OutputFormat::BucasUrl,
            OutputFormat::BoardDoc,
            OutputFormat::E2Pieces,
        ] {
            if format == OutputFormat::E2Pieces && !b.input.board.is_full() {
                continue;
            }
            let written = conversion.get(format).text().unwrap();
            let Decoded::Board(back) = read_any(written, None).unwrap() else {
                panic!("{}: {format} reads back as a puzzle", b.id)
            };
            assert_eq!(back.board.cells, b.input.board.cells, "{}: {format}", b.id);
        }
    }
}

/// The five official clues, as every variant repeats them.
fn official_clue_hints(variant: &Puzzle, pinned: &[Hint]) -> Vec<Hint> {
    variant
        .hints
        .iter()
        .filter(|h| !pinned.contains(h))
        .copied()
        .collect()
}

fn manifest_pins(manifest: &Value, id: usize) -> Vec<Hint> {
    let variant = manifest["variants"]
        .as_array()
        .unwrap()
        .iter()
        .find(|v| v["id"].as_u64() == Some(id as u64))
        .unwrap();
    variant["pinned_hints"]
        .as_array()
        .unwrap()
        .iter()
        .map(|h| Hint {
            pos: h["pos"].as_u64().unwrap() as usize,
            piece: h["piece"].as_u64().unwrap() as usize,
            rot: h["rot"].as_u64().unwrap() as u8,
        })
        .collect()
}

fn sorted(mut hints: Vec<Hint>) -> Vec<Hint> {
    hints.sort();
    hints
}

#[test]
#[cfg_attr(
    e2_no_data,
    ignore = "needs ../shared/data (community files), absent on this clone"
)]
fn variant_csv_files_read_back_equal_to_their_json() {
    let dir = data();
    let manifest: Value = serde_json::from_str(&text(&dir.join("variants/manifest.json"))).unwrap();
    let official = official_set(&dir);
    assert_eq!(official.hints.len(), 5);
    for id in 0..10 {
        let json_text = text(&dir.join(format!("variants/variant_{id:02}.json")));
        let csv_text = text(&dir.join(format!("variants/variant_{id:02}.csv")));
        let from_json = puzzle_json::read(&json_text).unwrap();
        let from_csv = puzzle_csv::read(&csv_text, &from_json.name).unwrap();
        assert_eq!(from_csv.num_colors, 22);
        assert_eq!(
            (
                from_csv.width,
                from_csv.height,
                from_csv.num_colors,
                &from_csv.pieces
            ),
            (
                from_json.width,
                from_json.height,
                from_json.num_colors,
                &from_json.pieces
            ),
            "variant {id}"
        );
        // The CSV lists hints in piece order, the JSON clues first then pins.
        assert_eq!(
            sorted(from_csv.hints.clone()),
            sorted(from_json.hints.clone())
        );
        let pins = manifest_pins(&manifest, id);
        assert_eq!(pins.len(), 3);
        assert_eq!(
            sorted(official_clue_hints(&from_json, &pins)),
            sorted(official.hints.clone()),
            "variant {id}: 5 clues + 3 pinned corners"
        );
        assert_eq!(from_json.hints.len(), 8);
        assert_eq!(official.pieces, from_json.pieces);
    }
}

#[test]
#[cfg_attr(
    e2_no_data,
    ignore = "needs ../shared/data (community files), absent on this clone"
)]
fn puzzle_files_are_written_back_byte_for_byte() {
    let dir = data();
    let official_path = dir.join("official/official_eternity2.csv");
    let official = text(&official_path);
    assert_eq!(
        puzzle_csv::write(&puzzle_csv::read(&official, "official").unwrap()).unwrap(),
        official
    );
    for id in 0..10 {
        let csv = text(&dir.join(format!("variants/variant_{id:02}.csv")));
        let json = text(&dir.join(format!("variants/variant_{id:02}.json")));
        let from_csv = puzzle_csv::read(&csv, "v").unwrap();
        assert_eq!(
            puzzle_csv::write(&from_csv).unwrap(),
            csv,
            "variant_{id:02}.csv"
        );
        let from_json = puzzle_json::read(&json).unwrap();
        assert_eq!(puzzle_json::write(&from_json), json, "variant_{id:02}.json");
        // And across formats: the JSON's puzzle writes the CSV file.
        assert_eq!(
            puzzle_csv::write(&from_json).unwrap(),
            csv,
            "variant_{id:02}"
        );
    }
}

#[test]
#[cfg_attr(
    e2_no_data,
    ignore = "needs ../shared/data (community files), absent on this clone"
)]
fn clue_puzzles_repeat_pieces_and_need_permission() {
    let dir = data();
    for (n, (width, height)) in [(6, 6), (12, 6), (6, 6), (12, 6)].into_iter().enumerate() {
        let path = dir.join(format!("clue_puzzles/clue{}.json", n + 1));
        let json = text(&path);
        let e = puzzle_json::read(&json).unwrap_err().to_string();
        assert!(e.contains("up to rotation"), "{}: {e}", path.display());
        let puzzle = puzzle_json::read_with(&json, Duplicates::Allow).unwrap();
        assert_eq!((puzzle.width, puzzle.height), (width, height));
        assert_eq!(
            puzzle_json::read_with(&puzzle_json::write(&puzzle), Duplicates::Allow).unwrap(),
            puzzle
        );
    }
}

#[test]
#[cfg_attr(
    e2_no_data,
    ignore = "needs ../shared/data (community files), absent on this clone"
)]
fn brendan_puzzles_are_real_sets() {
    let dir = data();
    for set in ["s1", "s2"] {
        for side in 4..=7 {
            let path = dir.join(format!("brendan/{set}_{side:02}x{side:02}.json"));
            let puzzle = puzzle_json::read(&text(&path)).unwrap();
            assert_eq!((puzzle.width, puzzle.height), (side, side));
            let csv = puzzle_csv::write(&puzzle).unwrap();
            let back = puzzle_csv::read(&csv, &puzzle.name).unwrap();
            assert_eq!(back, puzzle, "{}", path.display());
        }
    }
}
