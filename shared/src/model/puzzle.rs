//! The puzzle: a piece set at rotation 0 and the pinned hints (docs/formats.md).

use std::collections::HashMap;

use super::board::Placement;
use super::edges::{canonical_form, rotate, Edges};
use crate::error::{cell_place, Error, Result};

/// A pinned cell: `piece` (0-based index into the set) sits on `pos` at `rot`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Hint {
    pub pos: usize,
    pub piece: usize,
    pub rot: u8,
}

/// A puzzle instance: the only solver input.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Puzzle {
    pub name: String,
    pub width: usize,
    pub height: usize,
    /// Number of interior colours; valid colours are `0..=num_colors`.
    pub num_colors: u8,
    /// Each piece's URDL colours at rotation 0.
    pub pieces: Vec<Edges>,
    pub hints: Vec<Hint>,
}

/// The largest colour any letter or digit notation can carry (`'z'`).
pub const MAX_COLOUR: u8 = 25;
/// The largest side e2 accepts; `board_pieces` has three digits per piece.
pub const MAX_SIDE: usize = 31;

impl Puzzle {
    pub fn cells(&self) -> usize {
        self.width * self.height
    }

    /// Checks every rule of a real piece set, including that pieces are
    /// pairwise distinct up to rotation (the official set is).
    pub fn validate(&self) -> Result<()> {
        self.validate_inner(false)
    }

    /// The same checks, except that pieces may repeat up to rotation, as in
    /// the official clue puzzles. Engines then count distinct boards.
    pub fn validate_allowing_duplicates(&self) -> Result<()> {
        self.validate_inner(true)
    }

    fn validate_inner(&self, allow_duplicates: bool) -> Result<()> {
        for (field, side) in [("width", self.width), ("height", self.height)] {
            if side == 0 || side > MAX_SIDE {
                return Err(Error::puzzle(
                    format!("field \"{field}\""),
                    format!("{side} is out of range, expected 1..={MAX_SIDE}"),
                ));
            }
        }
        if self.num_colors > MAX_COLOUR {
            return Err(Error::puzzle(
                "field \"numColors\"",
                format!(
                    "{} is above the {MAX_COLOUR} colours the formats can carry",
                    self.num_colors
                ),
            ));
        }
        if self.pieces.len() != self.cells() {
            return Err(Error::puzzle(
                "field \"pieces\"",
                format!(
                    "has {} pieces, expected width*height = {}*{} = {}",
                    self.pieces.len(),
                    self.width,
                    self.height,
                    self.cells()
                ),
            ));
        }
        for (i, piece) in self.pieces.iter().enumerate() {
            if let Some(&c) = piece.iter().find(|&&c| c > self.num_colors) {
                return Err(Error::puzzle(
                    format!("piece {i} {piece:?}"),
                    format!("colour {c} is above numColors = {}", self.num_colors),
                ));
            }
        }
        if !allow_duplicates {
            let mut seen: HashMap<Edges, usize> = HashMap::new();
            for (i, piece) in self.pieces.iter().enumerate() {
                if let Some(first) = seen.insert(canonical_form(*piece), i) {
                    return Err(Error::puzzle(
                        format!("piece {i} {piece:?}"),
                        format!(
                            "equals piece {first} {:?} up to rotation; pieces of a set must be distinct",
                            self.pieces[first]
                        ),
                    ));
                }
            }
        }
        let mut cell_of_piece: HashMap<usize, usize> = HashMap::new();
        let mut piece_at_cell: HashMap<usize, usize> = HashMap::new();
        for (k, h) in self.hints.iter().enumerate() {
            let place = format!("hint {k}");
            if h.pos >= self.cells() {
                return Err(Error::puzzle(
                    place,
                    format!(
                        "pos {} is outside the {}x{} board (0..{})",
                        h.pos,
                        self.width,
                        self.height,
                        self.cells()
                    ),
                ));
            }
            if h.piece >= self.pieces.len() {
                return Err(Error::puzzle(
                    place,
                    format!(
                        "piece {} does not exist (the set has {} pieces)",
                        h.piece,
                        self.pieces.len()
                    ),
                ));
            }
            if h.rot > 3 {
                return Err(Error::puzzle(
                    place,
                    format!("rot {} is not a quarter turn 0..=3", h.rot),
                ));
            }
            if let Some(other) = piece_at_cell.insert(h.pos, k) {
                return Err(Error::puzzle(
                    place,
                    format!(
                        "{} is already pinned by hint {other}",
                        cell_place(h.pos, self.width)
                    ),
                ));
            }
            if let Some(other) = cell_of_piece.insert(h.piece, k) {
                return Err(Error::puzzle(
                    place,
                    format!("piece {} is already pinned by hint {other}", h.piece),
                ));
            }
        }
        Ok(())
    }

    /// The placed quadruple of hint `h`.
    pub fn hint_edges(&self, h: &Hint) -> Edges {
        rotate(self.pieces[h.piece], h.rot)
    }

    /// Largest colour actually used by any piece.
    pub fn max_colour_used(&self) -> u8 {
        self.pieces.iter().flatten().copied().max().unwrap_or(0)
    }

    /// An index from placed quadruple to the pieces that can show it.
    pub fn index(&self) -> PieceIndex {
        PieceIndex::new(&self.pieces)
    }
}

/// Maps every placed quadruple to the (piece, smallest rotation) pairs that
/// produce it: the machinery of identity recovery (docs/formats.md).
#[derive(Debug, Clone)]
pub struct PieceIndex {
    by_edges: HashMap<Edges, Vec<Placement>>,
    pieces: Vec<Edges>,
}

impl PieceIndex {
    pub fn new(pieces: &[Edges]) -> Self {
        let mut by_edges: HashMap<Edges, Vec<Placement>> = HashMap::new();
        for (piece, &edges) in pieces.iter().enumerate() {
            for rot in 0..4u8 {
                let placed = rotate(edges, rot);
                let list = by_edges.entry(placed).or_default();
                // A symmetric piece shows the same quadruple at several
                // rotations: keep only its smallest.
                if !list.iter().any(|p| p.piece == piece) {
                    list.push(Placement { piece, rot });
                }
            }
        }
        PieceIndex {
            by_edges,
            pieces: pieces.to_vec(),
        }
    }

    /// Every (piece, rot) that shows `placed`.
    pub fn lookup(&self, placed: &Edges) -> &[Placement] {
        self.by_edges.get(placed).map(Vec::as_slice).unwrap_or(&[])
    }

    pub fn pieces(&self) -> &[Edges] {
        &self.pieces
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn two_by_two() -> Puzzle {
        Puzzle {
            name: "t".into(),
            width: 2,
            height: 2,
            num_colors: 2,
            pieces: vec![[0, 1, 2, 0], [0, 0, 1, 1], [2, 2, 0, 0], [1, 0, 0, 2]],
            hints: vec![],
        }
    }

    #[test]
    fn a_well_formed_puzzle_validates() {
        two_by_two().validate().unwrap();
    }

    #[test]
    fn wrong_piece_count_is_named() {
        let mut p = two_by_two();
        p.pieces.pop();
        let e = p.validate().unwrap_err().to_string();
        assert!(
            e.contains("\"pieces\"") && e.contains("has 3 pieces, expected"),
            "{e}"
        );
    }

    #[test]
    fn colour_above_num_colors_is_named() {
        let mut p = two_by_two();
        p.pieces[2] = [3, 2, 0, 0];
        let e = p.validate().unwrap_err().to_string();
        assert!(
            e.contains("piece 2") && e.contains("colour 3 is above numColors = 2"),
            "{e}"
        );
    }

    #[test]
    fn pieces_equal_up_to_rotation_are_refused() {
        let mut p = two_by_two();
        p.pieces[3] = [1, 2, 0, 0];
        let e = p.validate().unwrap_err().to_string();
        assert!(e.contains("piece 3") && e.contains("equals piece 0"), "{e}");
        p.validate_allowing_duplicates().unwrap();
    }

    #[test]
    fn hint_to_a_missing_piece_is_named() {
        let mut p = two_by_two();
        p.hints.push(Hint {
            pos: 0,
            piece: 9,
            rot: 0,
        });
        let e = p.validate().unwrap_err().to_string();
        assert!(
            e.contains("hint 0") && e.contains("piece 9 does not exist"),
            "{e}"
        );
    }

    #[test]
    fn index_keeps_the_smallest_rotation_of_symmetric_pieces() {
        let idx = PieceIndex::new(&[[1, 2, 1, 2], [1, 1, 1, 1]]);
        assert_eq!(idx.lookup(&[2, 1, 2, 1]), &[Placement { piece: 0, rot: 1 }]);
        assert_eq!(idx.lookup(&[1, 1, 1, 1]), &[Placement { piece: 1, rot: 0 }]);
    }
}
