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
//!   pinned top-right, counted as two parts, is exactly half of the boards;
//! - with no unique corner piece (every corner piece has a twin, as in the
//!   official clue puzzles), or clues that no turn maps onto themselves,
//!   nothing is assumed and the whole tree is counted.
//!
//! Any corner serves as well as the top-left, and any unique corner piece
//! as well as another: the count is the same, the tree is not. A pin the
//! fill order reaches first prunes from the first level
//! ([`Reduction::along`] moves the pins there), and which piece is pinned
//! changes the tree by up to 3× on Brendan's 7×7s (Knuth probes), so
//! [`reductions`] lists one reduction per unique corner piece and the count
//! planner estimates each.
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

    /// The same reduction with its pins where `order` meets them first.
    ///
    /// Any corner will do for the marker, since the turns carry every
    /// board with `c` in one corner onto a board with `c` in any other: a
    /// quarter-turn reduction may pin `c` in any one corner, and a
    /// half-turn reduction in any two corners that the half turn does not
    /// swap (two neighbouring corners). What the choice changes is the
    /// tree: a pin that the order reaches first prunes from the first
    /// level, one it reaches last only at the end. So the first pin goes
    /// to the corner the order meets first and, for a half turn, the
    /// second to the neighbouring corner it meets first. A reduction
    /// without pins is returned as it is.
    pub fn along(&self, puzzle: &Puzzle, order: FillOrder) -> Reduction {
        let Some(first) = self.pins.first() else {
            return self.clone();
        };
        let (w, h) = (puzzle.width, puzzle.height);
        let cells = order.cells(w, h, &[]);
        let met = |corner: usize| cells.iter().position(|&c| c == (CORNERS[corner].pos)(w, h));
        let x = (0..4).min_by_key(|&k| met(k)).expect("four corners");
        let corners = if self.factor == 4 {
            vec![x]
        } else {
            // The two neighbours of x (the opposite corner is its half turn).
            let y = [(x + 1) % 4, (x + 3) % 4]
                .into_iter()
                .min_by_key(|&k| met(k))
                .expect("two neighbours");
            vec![x, y]
        };
        pinned(puzzle, first.piece, self.factor, &corners).unwrap_or_else(|| self.clone())
    }
}

/// A corner of the board: its name, its cell on a `w`×`h` board, and the
/// sides a piece seated there shows grey on.
struct Corner {
    name: &'static str,
    pos: fn(usize, usize) -> usize,
    sides: [usize; 2],
}

/// Clockwise from the top-left, so `k ± 1` are a corner's neighbours.
const CORNERS: [Corner; 4] = [
    Corner {
        name: "top-left",
        pos: |_, _| 0,
        sides: [UP, LEFT],
    },
    Corner {
        name: "top-right",
        pos: |w, _| w - 1,
        sides: [UP, RIGHT],
    },
    Corner {
        name: "bottom-right",
        pos: |w, h| w * h - 1,
        sides: [DOWN, RIGHT],
    },
    Corner {
        name: "bottom-left",
        pos: |w, h| w * h - w,
        sides: [DOWN, LEFT],
    },
];

/// The reduction pinning corner piece `piece` in `corners` (indexes of
/// [`CORNERS`]; one for quarter turns, two neighbours for half turns), or
/// `None` if the piece is not a corner piece.
fn pinned(puzzle: &Puzzle, piece: usize, factor: u64, corners: &[usize]) -> Option<Reduction> {
    let (w, h) = (puzzle.width, puzzle.height);
    let mut pins = Vec::with_capacity(corners.len());
    for &k in corners {
        let corner = &CORNERS[k];
        let rot = seat(puzzle.pieces[piece], corner.sides)?;
        pins.push(Hint {
            pos: (corner.pos)(w, h),
            piece,
            rot,
        });
    }
    let names: Vec<&str> = corners.iter().map(|&k| CORNERS[k].name).collect();
    let note = match names[..] {
        [one] => format!(
            "quarter turns: corner piece {piece} fixed in the {one} corner, count ×{factor}"
        ),
        [one, two] => format!(
            "half turns: corner piece {piece} fixed in the {one}, then the {two} corner, count ×{factor}"
        ),
        _ => return None,
    };
    Some(Reduction { pins, factor, note })
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

/// The exact rotation reduction of `puzzle`'s count (see the module doc),
/// with the first unique corner piece pinned top-left (and top-right).
pub fn reduce(puzzle: &Puzzle) -> Reduction {
    match reductions(puzzle) {
        Ok(mut all) => all.swap_remove(0),
        Err(none) => none,
    }
}

/// Every exact rotation reduction of `puzzle`'s count: one per unique
/// corner piece (no clue holds it), pinned top-left (and top-right), in
/// piece order; or, when there is none, the reason as the whole tree's
/// [`Reduction::none`]. The marker changes the tree's size (the count
/// planner estimates each), never the count.
pub fn reductions(puzzle: &Puzzle) -> std::result::Result<Vec<Reduction>, Reduction> {
    let (w, h) = (puzzle.width, puzzle.height);
    if w < 2 || h < 2 {
        return Err(Reduction::none(
            "a board one cell wide has no corners to pin",
        ));
    }
    let corners = [0, w - 1, w * h - w, w * h - 1];
    if puzzle.hints.iter().any(|h| corners.contains(&h.pos)) {
        return Err(Reduction::none("a clue sits in a corner"));
    }
    let quarter_turns = w == h && clues_survive(puzzle, 1, |p| quarter(w, p));
    if !quarter_turns && !clues_survive(puzzle, 2, |p| half(w, h, p)) {
        return Err(Reduction::none(
            "no turn of the board maps its clues onto themselves",
        ));
    }
    let mut copies: HashMap<[u8; 4], usize> = HashMap::new();
    for &p in &puzzle.pieces {
        *copies.entry(canonical_form(p)).or_default() += 1;
    }
    let clued: Vec<usize> = puzzle.hints.iter().map(|h| h.piece).collect();
    let (factor, at): (u64, &[usize]) = if quarter_turns {
        (4, &[0])
    } else {
        (2, &[0, 1])
    };
    let all: Vec<Reduction> = (0..puzzle.pieces.len())
        .filter(|&i| copies[&canonical_form(puzzle.pieces[i])] == 1 && !clued.contains(&i))
        .filter_map(|i| pinned(puzzle, i, factor, at))
        .collect();
    if all.is_empty() {
        return Err(Reduction::none("every corner piece has a twin"));
    }
    Ok(all)
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
