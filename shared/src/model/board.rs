//! The board: placed edges, and the piece identities when they are known.

use super::edges::{rotate, Edges};
use super::puzzle::{PieceIndex, Puzzle};
use crate::error::{cell_place, Error, Result};

/// A piece on a cell: `piece` (0-based) turned `rot` quarter turns clockwise.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Placement {
    pub piece: usize,
    pub rot: u8,
}

impl Placement {
    /// The BoardDoc encoding `piece*4 + rot`.
    pub fn code(self) -> i32 {
        (self.piece * 4 + self.rot as usize) as i32
    }
}

/// A `width`×`height` grid, row-major (`pos = row*width + col`).
///
/// `cells` always holds the placed edges (`None` = empty). `placements`,
/// when present, has one entry per cell naming the piece and rotation; it is
/// `None` when the board was read from a notation that carries only edges
/// and has not yet been matched against a piece set.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Board {
    pub width: usize,
    pub height: usize,
    pub cells: Vec<Option<Edges>>,
    pub placements: Option<Vec<Option<Placement>>>,
}

impl Board {
    pub fn empty(width: usize, height: usize) -> Self {
        Board {
            width,
            height,
            cells: vec![None; width * height],
            placements: None,
        }
    }

    /// A board of edges only.
    pub fn from_edges(width: usize, height: usize, cells: Vec<Option<Edges>>) -> Self {
        debug_assert_eq!(cells.len(), width * height);
        Board {
            width,
            height,
            cells,
            placements: None,
        }
    }

    /// A board built from identities; its edges follow from the piece set.
    pub fn from_placements(puzzle: &Puzzle, placements: Vec<Option<Placement>>) -> Self {
        let cells = placements
            .iter()
            .map(|p| p.map(|p| rotate(puzzle.pieces[p.piece], p.rot)))
            .collect();
        Board {
            width: puzzle.width,
            height: puzzle.height,
            cells,
            placements: Some(placements),
        }
    }

    /// A board from the BoardDoc vector (`piece*4 + rot`, `-1` empty).
    pub fn from_codes(puzzle: &Puzzle, codes: &[i32]) -> Result<Self> {
        if codes.len() != puzzle.cells() {
            return Err(Error::board(
                "board vector",
                format!("has {} entries, expected {}", codes.len(), puzzle.cells()),
            ));
        }
        let mut placements = Vec::with_capacity(codes.len());
        for (pos, &code) in codes.iter().enumerate() {
            placements.push(match code {
                -1 => None,
                c if c >= 0 && (c as usize) / 4 < puzzle.pieces.len() => Some(Placement {
                    piece: c as usize / 4,
                    rot: (c % 4) as u8,
                }),
                c => {
                    return Err(Error::board(
                        cell_place(pos, puzzle.width),
                        format!(
                            "entry {c} is neither -1 nor piece*4+rot for one of {} pieces",
                            puzzle.pieces.len()
                        ),
                    ))
                }
            });
        }
        Ok(Self::from_placements(puzzle, placements))
    }

    pub fn len(&self) -> usize {
        self.cells.len()
    }

    pub fn is_empty(&self) -> bool {
        self.filled() == 0
    }

    pub fn filled(&self) -> usize {
        self.cells.iter().filter(|c| c.is_some()).count()
    }

    pub fn is_full(&self) -> bool {
        self.cells.iter().all(Option::is_some)
    }

    /// The BoardDoc vector, when identities are known.
    pub fn codes(&self) -> Option<Vec<i32>> {
        let placements = self.placements.as_ref()?;
        Some(
            placements
                .iter()
                .map(|p| p.map_or(-1, Placement::code))
                .collect(),
        )
    }

    /// Recovers every filled cell's piece and rotation from its edges.
    ///
    /// `overlay` is a `board_pieces` channel (0-based piece per cell, `None`
    /// for empty), used to choose among pieces that repeat up to rotation.
    /// Errors name the first cell that matches no piece, that is ambiguous
    /// without an overlay, or whose piece is already used elsewhere.
    pub fn identify(&mut self, puzzle: &Puzzle, overlay: Option<&[Option<usize>]>) -> Result<()> {
        if (self.width, self.height) != (puzzle.width, puzzle.height) {
            return Err(Error::board(
                "size",
                format!(
                    "the board is {}x{} but the puzzle \"{}\" is {}x{}",
                    self.width, self.height, puzzle.name, puzzle.width, puzzle.height
                ),
            ));
        }
        let index = puzzle.index();
        let placements = self.identify_with(&index, overlay)?;
        self.placements = Some(placements);
        Ok(())
    }

    fn identify_with(
        &self,
        index: &PieceIndex,
        overlay: Option<&[Option<usize>]>,
    ) -> Result<Vec<Option<Placement>>> {
        let mut used_at: Vec<Option<usize>> = vec![None; index.pieces().len()];
        let mut reserved = vec![false; index.pieces().len()];
        for &piece in overlay.unwrap_or_default().iter().flatten() {
            if let Some(r) = reserved.get_mut(piece) {
                *r = true;
            }
        }
        let mut out = Vec::with_capacity(self.cells.len());
        for (pos, cell) in self.cells.iter().enumerate() {
            let place = || cell_place(pos, self.width);
            let Some(edges) = cell else {
                out.push(None);
                continue;
            };
            let candidates = index.lookup(edges);
            let chosen = match overlay.and_then(|o| o.get(pos).copied().flatten()) {
                Some(piece) => {
                    let Some(p) = candidates.iter().find(|p| p.piece == piece) else {
                        let catalogue = index.pieces().get(piece);
                        return Err(Error::board(
                            place(),
                            match catalogue {
                                Some(c) => format!(
                                    "board_pieces names piece {} {c:?}, which cannot show edges {edges:?} at any rotation",
                                    piece + 1
                                ),
                                None => format!("board_pieces names piece {}, which the set does not have", piece + 1),
                            },
                        ));
                    };
                    *p
                }
                None => match candidates {
                    [] => {
                        return Err(Error::board(
                            place(),
                            format!("edges {edges:?} match no piece of the set at any rotation"),
                        ))
                    }
                    [p] => *p,
                    _ => {
                        // Pieces repeating up to rotation: take the first not yet
                        // used and not named by the overlay for another cell.
                        let free = |p: &&Placement| used_at[p.piece].is_none();
                        candidates
                            .iter()
                            .filter(free)
                            .find(|p| !reserved[p.piece])
                            .or_else(|| candidates.iter().find(free))
                            .copied()
                            .unwrap_or(candidates[0])
                    }
                },
            };
            if let Some(other) = used_at[chosen.piece] {
                return Err(Error::board(
                    place(),
                    format!(
                        "piece {} (edges {edges:?}) is already used at {}",
                        chosen.piece,
                        cell_place(other, self.width)
                    ),
                ));
            }
            used_at[chosen.piece] = Some(pos);
            out.push(Some(chosen));
        }
        Ok(out)
    }

    /// The hints of `puzzle` this board honours and those it does not.
    pub fn check_hints(&self, puzzle: &Puzzle) -> (Vec<usize>, Vec<usize>) {
        let mut honoured = Vec::new();
        let mut broken = Vec::new();
        for (k, h) in puzzle.hints.iter().enumerate() {
            if self.cells.get(h.pos).copied().flatten() == Some(puzzle.hint_edges(h)) {
                honoured.push(k);
            } else {
                broken.push(k);
            }
        }
        (honoured, broken)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn puzzle() -> Puzzle {
        Puzzle {
            name: "t".into(),
            width: 2,
            height: 1,
            num_colors: 2,
            pieces: vec![[0, 1, 0, 0], [0, 0, 2, 1]],
            hints: vec![],
        }
    }

    #[test]
    fn identity_is_recovered_from_edges() {
        let p = puzzle();
        let mut b = Board::from_edges(2, 1, vec![Some([0, 0, 2, 1]), Some([1, 0, 0, 0])]);
        b.identify(&p, None).unwrap();
        assert_eq!(b.codes().unwrap(), vec![4, 3]);
    }

    #[test]
    fn unknown_edges_name_the_cell() {
        let p = puzzle();
        let mut b = Board::from_edges(2, 1, vec![Some([0, 2, 0, 1]), None]);
        let e = b.identify(&p, None).unwrap_err().to_string();
        assert!(
            e.contains("cell 0 (row 0, col 0)") && e.contains("match no piece"),
            "{e}"
        );
    }
}
