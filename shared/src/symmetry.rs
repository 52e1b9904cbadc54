//! Counting a quarter (or half) of the tree, exactly: board rotations.
//!
//! Turning a whole board turns every piece with it, so a perfect board of
//! a square puzzle turned a quarter is again a perfect board, unless the
//! puzzle's clues are not where the turn puts them. The boards therefore
//! fall into orbits, and counting one board per orbit and multiplying
//! would cut the work by four; but an orbit can be smaller than four (a
//! board equal to its own turn, possible with repeated pieces), so "count
//! and multiply" is exact only with a marker that no turned board can
//! share. The marker used here is a corner piece that occurs once:
//!
//! - with a *unique* corner piece `c` (no other piece equal to it up to
//!   rotation), every board holds `c` in exactly one corner, and a quarter
//!   turn moves it to the next corner: the boards with `c` in the top-left
//!   corner are exactly a quarter of all boards. No board can equal its own
//!   turn (that would need `c` in two corners), so the factor 4 is exact;
//! - a rectangle (or a square whose clues survive only a half turn) has the
//!   half-turn symmetry only: corners top-left and bottom-right swap, and
//!   so do top-right and bottom-left. So `c` pinned top-left, plus `c`
//!   pinned top-right (or, equally, bottom-left: [`Reduction::along`]
//!   takes whichever corner the fill order meets first), counted as two
//!   parts, is exactly half of the boards;
//! - with no unique corner piece (every corner piece has a twin, as in the
//!   official clue puzzles), or clues that no turn maps onto themselves,
//!   nothing is assumed and the whole tree is counted.
//!
//! A reduction is a list of *parts*, each the puzzle plus one pinned cell,
//! and a factor: the count is `factor × Σ parts`. Every engine counts a
//! pinned puzzle natively (a pin is one more hint), so the reduction needs
//! nothing of the engines and holds for both. [`Reduction::note`] says in
//! words which one was used, for the count's output.

use std::collections::HashMap;

use crate::model::{canonical_form, rotate, Hint, Puzzle, DOWN, LEFT, RIGHT, UP};
use crate::order::FillOrder;

/// How a count's tree is reduced by board rotation.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Reduction {
    /// The pinned corner of each part (empty: one part, the puzzle itself).
    pub pins: Vec<Hint>,
    /// What the sum over the parts is multiplied by.
    pub factor: u64,
    /// Which reduction, in words, e.g. "quarter turns: corner piece 3 fixed
    /// in the top-left corner, count ×4".
    pub note: String,
}

impl Reduction {
    /// No reduction: the whole tree, for `why`.
    pub fn none(why: impl Into<String>) -> Self {
        Reduction {
            pins: Vec::new(),
            factor: 1,
            note: format!("none: {}", why.into()),
        }
    }

    /// The puzzles to count, in order: the puzzle with each pin added as a
    /// hint, or the puzzle itself.
    pub fn parts(&self, puzzle: &Puzzle) -> Vec<Puzzle> {
        if self.pins.is_empty() {
            return vec![puzzle.clone()];
        }
        self.pins
            .iter()
            .map(|&pin| {
                let mut part = puzzle.clone();
                part.hints.push(pin);
                part
            })
            .collect()
    }

    /// The same reduction with its second pin where `order` meets it
    /// first. A half turn swaps top-left with bottom-right and top-right
    /// with bottom-left, so the second part may pin the corner piece in the
    /// top-right or, equally exactly, in the bottom-left corner; an order
    /// that reaches the bottom-left corner sooner (a column scan) prunes
    /// the second part from its first column instead of its last. Other
    /// reductions are returned as they are.
    pub fn along(&self, puzzle: &Puzzle, order: FillOrder) -> Reduction {
        let (w, h) = (puzzle.width, puzzle.height);
        let [first, second] = self.pins[..] else {
            return self.clone();
        };
        let (top_right, bottom_left) = (w - 1, w * h - w);
        let cells = order.cells(w, h, &[]);
        let met = |pos| cells.iter().position(|&c| c == pos);
        let (pos, sides, from, to) = if met(bottom_left) < met(top_right) {
            (bottom_left, [DOWN, LEFT], "top-right", "bottom-left")
        } else {
            (top_right, [UP, RIGHT], "bottom-left", "top-right")
        };
        if second.pos == pos {
            return self.clone();
        }
        let Some(rot) = seat(puzzle.pieces[second.piece], sides) else {
            return self.clone();
        };
        let piece = second.piece;
        Reduction {
            pins: vec![first, Hint { pos, piece, rot }],
            factor: self.factor,
            note: self.note.replace(
                &format!("then the {from} corner"),
                &format!("then the {to} corner"),
            ),
        }
    }
}

/// The cell a clockwise quarter turn of an `n`×`n` board moves `pos` to.
fn quarter(n: usize, pos: usize) -> usize {
    let (r, c) = (pos / n, pos % n);
    c * n + (n - 1 - r)
}

/// The cell a half turn of a `w`×`h` board moves `pos` to.
fn half(w: usize, h: usize, pos: usize) -> usize {
    w * h - 1 - pos
}

/// Whether the clues land on clues with the same placed edges after the
/// board is turned by `turns` quarters with `map`.
fn clues_survive(puzzle: &Puzzle, turns: u8, map: impl Fn(usize) -> usize) -> bool {
    let at: HashMap<usize, [u8; 4]> = puzzle
        .hints
        .iter()
        .map(|h| (h.pos, puzzle.hint_edges(h)))
        .collect();
    puzzle
        .hints
        .iter()
        .all(|h| at.get(&map(h.pos)) == Some(&rotate(puzzle.hint_edges(h), turns)))
}

/// The rotation that seats corner piece `edges` with grey on `sides`.
fn seat(edges: [u8; 4], sides: [usize; 2]) -> Option<u8> {
    (0..4u8).find(|&r| {
        let placed = rotate(edges, r);
        (0..4).all(|i| (placed[i] == 0) == sides.contains(&i))
    })
}

/// The exact rotation reduction of `puzzle`'s count (see the module doc).
pub fn reduce(puzzle: &Puzzle) -> Reduction {
    let (w, h) = (puzzle.width, puzzle.height);
    if w < 2 || h < 2 {
        return Reduction::none("a board one cell wide has no corners to pin");
    }
    let corners = [0, w - 1, w * h - w, w * h - 1];
    if puzzle.hints.iter().any(|h| corners.contains(&h.pos)) {
        return Reduction::none("a clue sits in a corner");
    }
    let quarter_turns = w == h && clues_survive(puzzle, 1, |p| quarter(w, p));
    if !quarter_turns && !clues_survive(puzzle, 2, |p| half(w, h, p)) {
        return Reduction::none("no turn of the board maps its clues onto themselves");
    }
    let mut copies: HashMap<[u8; 4], usize> = HashMap::new();
    for &p in &puzzle.pieces {
        *copies.entry(canonical_form(p)).or_default() += 1;
    }
    let clued: Vec<usize> = puzzle.hints.iter().map(|h| h.piece).collect();
    let unique_corner = puzzle.pieces.iter().enumerate().find_map(|(i, &p)| {
        let top_left = seat(p, [UP, LEFT])?;
        let top_right = seat(p, [UP, RIGHT])?;
        (copies[&canonical_form(p)] == 1 && !clued.contains(&i)).then_some((i, top_left, top_right))
    });
    let Some((piece, top_left, top_right)) = unique_corner else {
        return Reduction::none("every corner piece has a twin");
    };
    let pin = |pos, rot| Hint { pos, piece, rot };
    if quarter_turns {
        Reduction {
            pins: vec![pin(0, top_left)],
            factor: 4,
            note: format!(
                "quarter turns: corner piece {piece} fixed in the top-left corner, count ×4"
            ),
        }
    } else {
        Reduction {
            pins: vec![pin(0, top_left), pin(w - 1, top_right)],
            factor: 2,
            note: format!(
                "half turns: corner piece {piece} fixed in the top-left, then the top-right corner, count ×2"
            ),
        }
    }
}

/// How many labelled boards each distinct board stands for, in the
/// convention that tells identical twins apart and counts every turn of a
/// symmetric piece that gives the same placed edges (how the official
/// clue puzzles' counts were published): the product over classes of
/// equal pieces of (copies not pinned by a clue)!, times, for each
/// unpinned piece, the number of its turns that look alike. `None` if it
/// does not fit in a `u64`.
pub fn labelled_factor(puzzle: &Puzzle) -> Option<u64> {
    let clued: Vec<usize> = puzzle.hints.iter().map(|h| h.piece).collect();
    let mut copies: HashMap<[u8; 4], u64> = HashMap::new();
    let mut factor: u64 = 1;
    for (i, &p) in puzzle.pieces.iter().enumerate() {
        if clued.contains(&i) {
            continue;
        }
        let same_turns = (0..4u8).filter(|&r| rotate(p, r) == p).count() as u64;
        factor = factor.checked_mul(same_turns)?;
        let k = copies.entry(canonical_form(p)).or_default();
        *k += 1;
        factor = factor.checked_mul(*k)?;
    }
    Some(factor)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn square(n: usize, pieces: Vec<[u8; 4]>) -> Puzzle {
        Puzzle {
            name: "t".into(),
            width: n,
            height: n,
            num_colors: 4,
            pieces,
            hints: vec![],
        }
    }

    #[test]
    fn a_quarter_turn_walks_the_corners_clockwise() {
        let n = 5;
        assert_eq!(quarter(n, 0), 4);
        assert_eq!(quarter(n, 4), 24);
        assert_eq!(quarter(n, 24), 20);
        assert_eq!(quarter(n, 20), 0);
        assert!((0..n * n).all(|p| quarter(n, quarter(n, quarter(n, quarter(n, p)))) == p));
        assert_eq!(half(4, 3, 0), 11);
    }

    #[test]
    fn corner_pieces_are_seated_with_grey_outside() {
        let c = [0, 1, 2, 0];
        assert_eq!(rotate(c, seat(c, [UP, LEFT]).unwrap()), [0, 1, 2, 0]);
        assert_eq!(rotate(c, seat(c, [UP, RIGHT]).unwrap()), [0, 0, 1, 2]);
        assert_eq!(seat([0, 1, 2, 3], [UP, LEFT]), None);
    }

    #[test]
    fn twins_in_every_corner_mean_the_whole_tree() {
        let corner = [0, 1, 1, 0];
        let edge = [0, 1, 1, 1];
        let p = square(2, vec![corner; 4]);
        assert_eq!(reduce(&p).factor, 1);
        assert!(reduce(&p).note.contains("twin"), "{}", reduce(&p).note);
        let mut q = square(3, vec![corner, [0, 2, 1, 0], corner, corner]);
        q.pieces.extend([edge; 4]);
        q.pieces.push([1, 1, 1, 1]);
        let r = reduce(&q);
        assert_eq!((r.factor, r.pins.len(), r.pins[0].piece), (4, 1, 1));
    }

    #[test]
    fn labelled_factor_counts_twins_and_alike_turns() {
        // Two twins (2!), one of four alike turns, one of two: 2·4·2 = 16.
        let p = square(
            2,
            vec![[1, 2, 3, 4], [2, 3, 4, 1], [5, 5, 5, 5], [6, 7, 6, 7]],
        );
        assert_eq!(labelled_factor(&p), Some(16));
    }
}
