//! Piece classes: pieces equal up to rotation, searched as one.
//!
//! A solution is a distinct board (docs/engines.md), so two identical pieces (the
//! official clue puzzles repeat some) must not be tried as two candidates:
//! that would count every board once per permutation of the twins. The
//! engine therefore searches *classes* with a stock count, and a class
//! offers one candidate per distinct placed quadruple, so a
//! rotation-symmetric piece (`[c,c,c,c]`, `[a,b,a,b]`) is tried once per
//! quadruple it can show. Piece identities are given back only when a board
//! or a prefix leaves the engine, by handing out the class's free members in
//! a fixed order.

use super::candidate::{class_of, edges_of, pack, Candidate};
use crate::model::{canonical_form, rotate, rotation_to, Edges, Placement};
use std::collections::HashMap;

#[derive(Debug, Clone)]
pub(crate) struct PieceClasses {
    class_of_piece: Vec<usize>,
    /// Each class's pieces, ascending.
    members: Vec<Vec<usize>>,
    /// Each class's shape: its first member's catalogue edges.
    shapes: Vec<Edges>,
}

impl PieceClasses {
    pub(crate) fn new(pieces: &[Edges]) -> Self {
        let mut by_form: HashMap<Edges, usize> = HashMap::new();
        let mut classes = PieceClasses {
            class_of_piece: Vec::with_capacity(pieces.len()),
            members: Vec::new(),
            shapes: Vec::new(),
        };
        for (piece, &edges) in pieces.iter().enumerate() {
            let next = classes.members.len();
            let class = *by_form.entry(canonical_form(edges)).or_insert(next);
            if class == next {
                classes.members.push(Vec::new());
                classes.shapes.push(edges);
            }
            classes.members[class].push(piece);
            classes.class_of_piece.push(class);
        }
        classes
    }

    pub(crate) fn len(&self) -> usize {
        self.members.len()
    }

    pub(crate) fn class_of_piece(&self, piece: usize) -> usize {
        self.class_of_piece[piece]
    }

    pub(crate) fn multiplicity(&self, class: usize) -> usize {
        self.members[class].len()
    }

    /// The rotations of the class's shape that show distinct quadruples,
    /// smallest rotation first.
    pub(crate) fn distinct_rotations(&self, class: usize) -> Vec<(u8, Edges)> {
        let mut out: Vec<(u8, Edges)> = Vec::with_capacity(4);
        for rot in 0..4u8 {
            let placed = rotate(self.shapes[class], rot);
            if out.iter().all(|&(_, e)| e != placed) {
                out.push((rot, placed));
            }
        }
        out
    }

    /// The candidate word for `piece` of `pieces` placed at `rot`.
    pub(crate) fn candidate(&self, pieces: &[Edges], piece: usize, rot: u8) -> Candidate {
        let class = self.class_of_piece[piece];
        let placed = rotate(pieces[piece], rot);
        let shape_rot = rotation_to(self.shapes[class], placed)
            .expect("a piece shows its class shape at some rotation");
        pack(class, shape_rot, placed)
    }
}

/// Hands out piece identities for class placements: pinned cells (hints and
/// forced placements) keep their own piece, every other placement of a class
/// takes that class's next free member.
#[derive(Debug, Clone)]
pub(crate) struct MemberAssigner {
    free: Vec<Vec<usize>>,
}

impl MemberAssigner {
    pub(crate) fn new(classes: &PieceClasses, pinned_pieces: &[usize]) -> Self {
        let free = classes
            .members
            .iter()
            .map(|m| {
                m.iter()
                    .copied()
                    .filter(|p| !pinned_pieces.contains(p))
                    .collect()
            })
            .collect();
        MemberAssigner { free }
    }

    /// Identities for a sequence of class placements taken in the given
    /// order. The stock guarantees a class is never placed more often than
    /// it has free members.
    pub(crate) fn assign(
        &self,
        pieces: &[Edges],
        placed: impl Iterator<Item = Candidate>,
    ) -> Vec<Placement> {
        let mut taken = vec![0usize; self.free.len()];
        placed
            .map(|c| {
                let class = class_of(c);
                let piece = self.free[class][taken[class]];
                taken[class] += 1;
                let rot = rotation_to(pieces[piece], edges_of(c))
                    .expect("a member shows every quadruple of its class");
                Placement { piece, rot }
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn twins_share_a_class_and_symmetric_shapes_have_fewer_rotations() {
        let pieces = [[1, 2, 3, 4], [1, 1, 1, 1], [3, 4, 1, 2], [1, 2, 1, 2]];
        let classes = PieceClasses::new(&pieces);
        assert_eq!(classes.len(), 3);
        assert_eq!(classes.class_of_piece(2), classes.class_of_piece(0));
        assert_eq!(classes.multiplicity(0), 2);
        assert_eq!(classes.distinct_rotations(0).len(), 4);
        assert_eq!(classes.distinct_rotations(1), vec![(0, [1, 1, 1, 1])]);
        assert_eq!(classes.distinct_rotations(2).len(), 2);
    }

    #[test]
    fn members_are_handed_out_with_their_own_rotation() {
        let pieces = [[1, 2, 3, 4], [3, 4, 1, 2]];
        let classes = PieceClasses::new(&pieces);
        let c = classes.candidate(&pieces, 0, 0);
        let assigner = MemberAssigner::new(&classes, &[0]);
        // Piece 0 is pinned elsewhere, so the placement gets piece 1, which
        // shows [1,2,3,4] at rot 2.
        assert_eq!(
            assigner.assign(&pieces, [c].into_iter()),
            vec![Placement { piece: 1, rot: 2 }]
        );
    }
}
