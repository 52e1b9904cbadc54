//! The canonical scorer (docs/formats.md): one function, used everywhere.
//!
//! A seam counts when both of its cells are filled and their facing colours
//! are equal and not the border. Frame faces are never seams, so a partial
//! board cannot inflate its score with grey.

use crate::model::{Board, DOWN, LEFT, RIGHT, UP};

/// The score, max and breaks of a board, as every command prints them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Score {
    pub score: u32,
    pub max: u32,
    pub breaks: u32,
}

/// Number of interior seams of a `width`×`height` board: `(W-1)H + W(H-1)`.
pub fn max_score(width: usize, height: usize) -> u32 {
    (width.saturating_sub(1) * height + width * height.saturating_sub(1)) as u32
}

/// Matched interior seams of `board`.
pub fn score(board: &Board) -> u32 {
    let (w, h) = (board.width, board.height);
    let mut matched = 0;
    for row in 0..h {
        for col in 0..w {
            let Some(here) = board.cells[row * w + col] else {
                continue;
            };
            if col + 1 < w {
                if let Some(right) = board.cells[row * w + col + 1] {
                    matched += (here[RIGHT] != 0 && here[RIGHT] == right[LEFT]) as u32;
                }
            }
            if row + 1 < h {
                if let Some(below) = board.cells[(row + 1) * w + col] {
                    matched += (here[DOWN] != 0 && here[DOWN] == below[UP]) as u32;
                }
            }
        }
    }
    matched
}

/// Score, max and breaks together.
pub fn evaluate(board: &Board) -> Score {
    let score = score(board);
    let max = max_score(board.width, board.height);
    Score {
        score,
        max,
        breaks: max - score,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn official_maximum_is_480() {
        assert_eq!(max_score(16, 16), 480);
        assert_eq!(max_score(12, 6), 11 * 6 + 12 * 5);
    }

    #[test]
    fn border_faces_and_empty_cells_never_score() {
        // Two cells whose facing sides are both grey: no seam.
        let b = Board::from_edges(2, 1, vec![Some([0, 0, 0, 0]), Some([0, 0, 0, 0])]);
        assert_eq!(score(&b), 0);
        let b = Board::from_edges(2, 1, vec![Some([0, 3, 0, 0]), Some([0, 0, 0, 3])]);
        assert_eq!(score(&b), 1);
        let b = Board::from_edges(2, 1, vec![Some([0, 3, 0, 0]), None]);
        assert_eq!(score(&b), 0);
        let b = Board::from_edges(1, 2, vec![Some([0, 0, 4, 0]), Some([4, 0, 0, 0])]);
        assert_eq!(
            evaluate(&b),
            Score {
                score: 1,
                max: 1,
                breaks: 0
            }
        );
    }
}
