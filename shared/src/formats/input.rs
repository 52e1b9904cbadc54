//! The board every board notation decodes to.
//!
//! A notation gives some of: the placed edges, the pinned cells, and the
//! piece identities (directly, as BoardDoc's `board` vector, or as a
//! `board_pieces` overlay). [`BoardInput`] holds whatever was given, checks
//! that the parts agree with each other, and, once a piece set is known,
//! completes the identities so every output format can be written.

use super::board_pieces::{self, Overlay};
use super::hints::Pin;
use crate::error::{cell_place, Error, Result};
use crate::model::{rotate, Board, Hint, Puzzle};

/// A decoded board with its name, pins and known identities.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BoardInput {
    /// The name as the input gave it; writers sanitise it.
    pub name: String,
    /// Edges always; `placements` when the notation carried identities.
    pub board: Board,
    /// The pinned cells (`hints`), in input order.
    pub hints: Vec<Pin>,
    /// A `board_pieces` channel, when the input carried one.
    pub pieces_overlay: Option<Overlay>,
}

impl BoardInput {
    /// An input of edges only, with no pins.
    pub fn new(name: impl Into<String>, board: Board) -> Self {
        BoardInput {
            name: name.into(),
            board,
            hints: Vec::new(),
            pieces_overlay: None,
        }
    }

    /// Checks the parts against each other: every pin is on a filled cell
    /// (a hint's piece is whatever the board holds there), and the overlay
    /// names a piece exactly where the edges have one.
    pub fn check(&self) -> Result<()> {
        let width = self.board.width;
        for (k, pin) in self.hints.iter().enumerate() {
            if self.board.cells.get(pin.pos).copied().flatten().is_none() {
                return Err(Error::format(
                    "hints",
                    format!("item {k} \"{}.{}\"", pin.pos, pin.rot),
                    format!(
                        "{} is empty on the board, so the hint has no piece",
                        cell_place(pin.pos, width)
                    ),
                ));
            }
        }
        if let Some(overlay) = &self.pieces_overlay {
            for (pos, (piece, cell)) in overlay.iter().zip(&self.board.cells).enumerate() {
                match (piece, cell) {
                    (Some(p), None) => {
                        return Err(Error::format(
                            "board_pieces",
                            cell_place(pos, width),
                            format!("names piece {} but board_edges has the cell empty", p + 1),
                        ))
                    }
                    (None, Some(_)) => {
                        return Err(Error::format(
                            "board_pieces",
                            cell_place(pos, width),
                            "is 000 but board_edges has a piece there",
                        ))
                    }
                    _ => {}
                }
            }
        }
        Ok(())
    }

    /// The identities to prefer when matching against a set: the overlay,
    /// else the pieces the input already named.
    fn known_pieces(&self) -> Option<Overlay> {
        self.pieces_overlay
            .clone()
            .or_else(|| board_pieces::of_board(&self.board))
    }

    /// Matches every filled cell against `set`, recovering (or confirming)
    /// each piece and rotation, and checks that each pin's rotation shows
    /// the edges the board has on its cell.
    pub fn identify(&mut self, set: &Puzzle) -> Result<()> {
        let mut known = self.known_pieces();
        // The set's own hints name the piece of their cells: prefer them
        // where the board shows that piece, so a set whose pieces repeat up
        // to rotation still resolves its pinned cells to the pinned piece.
        for h in &set.hints {
            let shows = |edges: Option<crate::model::Edges>| {
                edges.is_some_and(|e| crate::model::rotation_to(set.pieces[h.piece], e).is_some())
            };
            if h.pos < self.board.cells.len() && shows(self.board.cells[h.pos]) {
                let overlay = known.get_or_insert_with(|| vec![None; self.board.cells.len()]);
                overlay[h.pos].get_or_insert(h.piece);
            }
        }
        self.board.identify(set, known.as_deref())?;
        self.to_hints(set).map(|_| ())
    }

    /// The pins as puzzle hints, with the piece each cell holds. The board
    /// must have been identified against `set`.
    pub fn to_hints(&self, set: &Puzzle) -> Result<Vec<Hint>> {
        let placements = self.board.placements.as_ref().ok_or_else(|| {
            Error::Invalid("the board has no piece identities: identify it against its set".into())
        })?;
        self.hints
            .iter()
            .enumerate()
            .map(|(k, pin)| {
                let place = format!("item {k} \"{}.{}\"", pin.pos, pin.rot);
                let placement = placements.get(pin.pos).copied().flatten().ok_or_else(|| {
                    Error::format("hints", &place, "the cell is empty or off the board")
                })?;
                let shown = rotate(set.pieces[placement.piece], pin.rot);
                if Some(shown) != self.board.cells[pin.pos] {
                    return Err(Error::format(
                        "hints",
                        place,
                        format!(
                            "{} holds piece {} at rotation {}; at rotation {} it would show {shown:?}, not the board's {:?}",
                            cell_place(pin.pos, self.board.width),
                            placement.piece,
                            placement.rot,
                            pin.rot,
                            self.board.cells[pin.pos].unwrap_or_default()
                        ),
                    ));
                }
                Ok(Hint {
                    pos: pin.pos,
                    piece: placement.piece,
                    rot: pin.rot,
                })
            })
            .collect()
    }

    /// The puzzle this board poses: `set`'s pieces with the board's pins as
    /// its hints. The board must have been identified against `set`.
    pub fn to_puzzle(&self, set: &Puzzle) -> Result<Puzzle> {
        Ok(Puzzle {
            hints: self.to_hints(set)?,
            ..set.clone()
        })
    }

    /// The board of a puzzle's hints alone, pins included: what a puzzle
    /// shows in a board viewer. Fails when the puzzle breaks a rule of a
    /// set (other than repeating pieces), since its hints may then point
    /// off the board or at missing pieces.
    pub fn from_puzzle_hints(puzzle: &Puzzle) -> Result<Self> {
        puzzle.validate_allowing_duplicates()?;
        let mut placements = vec![None; puzzle.cells()];
        for h in &puzzle.hints {
            placements[h.pos] = Some(crate::Placement {
                piece: h.piece,
                rot: h.rot,
            });
        }
        Ok(BoardInput {
            name: puzzle.name.clone(),
            board: Board::from_placements(puzzle, placements),
            hints: puzzle
                .hints
                .iter()
                .map(|h| Pin {
                    pos: h.pos,
                    rot: h.rot,
                })
                .collect(),
            pieces_overlay: None,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn set() -> Puzzle {
        Puzzle {
            name: "t".into(),
            width: 2,
            height: 1,
            num_colors: 2,
            pieces: vec![[0, 1, 0, 0], [0, 0, 2, 1]],
            hints: vec![],
        }
    }

    fn input() -> BoardInput {
        // Piece 1 at rot 2 faces piece 0 at rot 2 with colour 1.
        let board = Board::from_edges(2, 1, vec![Some([2, 1, 0, 0]), Some([0, 0, 0, 1])]);
        BoardInput::new("b", board)
    }

    #[test]
    fn pins_become_hints_with_the_piece_on_their_cell() {
        let mut input = input();
        input.hints = vec![Pin { pos: 1, rot: 2 }];
        input.identify(&set()).unwrap();
        assert_eq!(
            input.to_puzzle(&set()).unwrap().hints,
            vec![Hint {
                pos: 1,
                piece: 0,
                rot: 2
            }]
        );
    }

    #[test]
    fn a_pin_whose_rotation_does_not_show_the_cell_is_refused() {
        let mut input = input();
        input.hints = vec![Pin { pos: 0, rot: 1 }];
        let e = input.identify(&set()).unwrap_err().to_string();
        assert!(
            e.contains("item 0 \"0.1\"") && e.contains("holds piece 1 at rotation 2"),
            "{e}"
        );
    }

    #[test]
    fn parts_that_disagree_are_named() {
        let mut input = input();
        input.board.cells[1] = None;
        input.hints = vec![Pin { pos: 1, rot: 0 }];
        let e = input.check().unwrap_err().to_string();
        assert!(
            e.contains("item 0") && e.contains("is empty on the board"),
            "{e}"
        );
        input.hints.clear();
        input.pieces_overlay = Some(vec![Some(1), Some(0)]);
        let e = input.check().unwrap_err().to_string();
        assert!(
            e.contains("board_pieces: cell 1 (row 0, col 1)") && e.contains("names piece 1"),
            "{e}"
        );
    }

    #[test]
    fn a_puzzle_shows_its_hints_as_a_board() {
        let mut puzzle = set();
        puzzle.hints = vec![Hint {
            pos: 1,
            piece: 1,
            rot: 3,
        }];
        let input = BoardInput::from_puzzle_hints(&puzzle).unwrap();
        assert_eq!(input.board.cells, vec![None, Some([0, 2, 1, 0])]);
        assert_eq!(input.hints, vec![Pin { pos: 1, rot: 3 }]);
    }
}
