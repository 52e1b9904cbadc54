//! Checking the boards workers report before keeping them.
//!
//! A worker's claim is never trusted: each board is rebuilt from its codes,
//! must use every piece at most once and honour every hint, and is scored by
//! the one canonical scorer. Only then does it become a BoardDoc.

use e2_shared::{Board, Puzzle};

use e2_shared::formats::{self, Pin};

/// A board that passed every check.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CheckedBoard {
    pub score: u32,
    pub hash: u64,
    /// BoardDoc JSON.
    pub doc: String,
    /// The board itself, as rebuilt and checked.
    pub board: Board,
}

pub fn check_board(puzzle: &Puzzle, codes: &[i32]) -> Result<CheckedBoard, String> {
    let board = Board::from_codes(puzzle, codes).map_err(|e| e.to_string())?;
    let mut used = vec![false; puzzle.pieces.len()];
    for p in board.placements.iter().flatten().flatten() {
        if std::mem::replace(&mut used[p.piece], true) {
            return Err(format!("board: piece {} is placed twice", p.piece));
        }
    }
    let (_, broken) = board.check_hints(puzzle);
    if let Some(&k) = broken.first() {
        let h = puzzle.hints[k];
        return Err(format!(
            "board: hint {k} (piece {} on {} at rot {}) is not honoured",
            h.piece,
            e2_shared::error::cell_place(h.pos, puzzle.width),
            h.rot
        ));
    }
    let score = e2_shared::score::score(&board);
    let pins: Vec<Pin> = puzzle
        .hints
        .iter()
        .map(|h| Pin {
            pos: h.pos,
            rot: h.rot,
        })
        .collect();
    let doc = formats::boarddoc::write(&puzzle.name, &board, &pins).map_err(|e| e.to_string())?;
    Ok(CheckedBoard {
        score,
        hash: formats::board_hash(codes),
        doc,
        board,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use e2_shared::Hint;

    fn puzzle() -> Puzzle {
        Puzzle {
            name: "pair".into(),
            width: 2,
            height: 1,
            num_colors: 1,
            pieces: vec![[0, 1, 0, 0], [0, 0, 0, 1]],
            hints: vec![Hint {
                pos: 0,
                piece: 0,
                rot: 0,
            }],
        }
    }

    #[test]
    fn a_good_board_is_rescored() {
        let b = check_board(&puzzle(), &[0, 4]).unwrap();
        assert_eq!(b.score, 1);
        let doc: serde_json::Value = serde_json::from_str(&b.doc).unwrap();
        assert_eq!(doc["score"], 1);
        assert_eq!(doc["board"], serde_json::json!([0, 4]));
    }

    #[test]
    fn broken_hints_and_reused_pieces_are_refused() {
        let e = check_board(&puzzle(), &[4, 0]).unwrap_err();
        assert!(e.contains("hint 0"), "{e}");
        let e = check_board(&puzzle(), &[0, 0]).unwrap_err();
        assert!(e.contains("placed twice"), "{e}");
        assert!(check_board(&puzzle(), &[0]).is_err());
    }
}
