//! Candidate tables keyed by the colours a cell is constrained to show.
//!
//! When a cell's turn comes, the fill order has already decided which of its
//! neighbours are placed (earlier in the order, or pinned) and the board
//! decides which of its sides face the outer frame. Those two facts, the
//! cell's [`CellView`], are static, so every cell of one view shares one
//! table: for each tuple of colours on the constrained sides, a contiguous
//! run of candidates that show those colours there, grey exactly on the
//! frame sides and never grey inside. For the row scan this is the
//! community's two-colour table (key = up colour × left colour); for any
//! other order the same scheme covers one to four constrained sides.
//!
//! A key is `Σ colour_j · base^j` over the constrained sides, with
//! `base = num_colors + 1`; digit 0 is the view's *low* side (the side
//! facing the previous cell of the fill order, when that is a neighbour)
//! and the others follow in URDL order. Putting the colour the walk has
//! just placed in the lowest digit lets it add that term with a shift
//! instead of a multiply, on the one chain of dependent instructions
//! that runs from a placement to the next key, and indexes a flat array of offsets into one
//! flat candidate array shared by all tables: finding a cell's candidates is
//! one multiply-add per constrained side and two loads, with no hashing and
//! no pointer chasing.
//!
//! For the best-score search each key owns two adjacent runs: the exact
//! candidates, then the candidates that mismatch exactly one breakable side
//! (empty unless breaks are allowed). `offsets[2k]..offsets[2k+1]` is the
//! exact run and `offsets[2k+1]..offsets[2k+2]` the one-break run, so a
//! search that allows a break simply reads one run further. Counting only
//! ever reads exact runs, so its tables have one run per key and half the
//! offsets to keep in cache.

use std::collections::HashMap;

use super::candidate::{pack, Candidate};
use super::classes::PieceClasses;
use crate::rng::Rng;

/// What a cell sees when its turn comes, as side masks (bit `s` = URDL side `s`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) struct CellView {
    /// Sides on the outer boundary: they must show grey.
    pub frame: u8,
    /// Sides whose neighbour is placed before this cell: they key the table.
    pub constrained: u8,
    /// Constrained sides that may carry a break (best-score search only):
    /// never a seam between two frame cells.
    pub breakable: u8,
    /// The constrained side that takes key digit 0, or [`NO_LOW_SIDE`].
    pub low: u8,
}

/// [`CellView::low`] when digits simply follow URDL order.
pub(crate) const NO_LOW_SIDE: u8 = 4;

impl CellView {
    /// The constrained sides in key digit order (digit `j` has weight `base^j`).
    pub(crate) fn digit_sides(&self) -> Vec<usize> {
        let low = usize::from(self.low);
        let constrained = |s: usize| self.constrained >> s & 1 == 1;
        let first = (low < 4 && constrained(low)).then_some(low);
        first
            .into_iter()
            .chain((0..4).filter(|&s| constrained(s) && Some(s) != first))
            .collect()
    }
}

#[derive(Debug, Clone)]
pub(crate) struct Tables {
    base: u32,
    /// 1 (exact runs only) or 2 (exact and one-break runs).
    runs_per_key: u32,
    offsets: Vec<u32>,
    candidates: Vec<Candidate>,
    by_view: HashMap<CellView, u32>,
}

impl Tables {
    /// Tables with one run per key, or two when `break_runs`.
    pub(crate) fn new(num_colors: u8, break_runs: bool) -> Self {
        Tables {
            base: u32::from(num_colors) + 1,
            runs_per_key: if break_runs { 2 } else { 1 },
            offsets: Vec::new(),
            candidates: Vec::new(),
            by_view: HashMap::new(),
        }
    }

    /// The weight of the `j`-th key digit in an offsets index (one offset
    /// per run).
    pub(crate) fn factor(&self, j: usize) -> u32 {
        self.runs_per_key * self.base.pow(j as u32)
    }

    /// 1 (exact runs only) or 2 (exact and one-break runs).
    pub(crate) fn runs_per_key(&self) -> u32 {
        self.runs_per_key
    }

    /// `log2` of [`Tables::factor`]`(0)`: digit 0 is added with a shift.
    pub(crate) fn low_digit_shift(&self) -> u32 {
        self.runs_per_key.trailing_zeros()
    }

    /// The offsets index where `view`'s table starts, building it on first use.
    /// Classes whose stock is empty (all their pieces pinned) get no candidates.
    pub(crate) fn table_for(
        &mut self,
        view: CellView,
        classes: &PieceClasses,
        stock: &[u16],
    ) -> u32 {
        if let Some(&start) = self.by_view.get(&view) {
            return start;
        }
        assert!(
            view.breakable == 0 || self.runs_per_key == 2,
            "breaks need tables with break runs"
        );
        let constrained = view.digit_sides();
        let keys = self.base.pow(constrained.len() as u32) as usize;
        let key_of = |edges: &[u8; 4]| -> usize {
            constrained
                .iter()
                .rev()
                .fold(0, |k, &s| k * self.base as usize + edges[s] as usize)
        };
        // (key, breaks, candidate), collected in class order so each run
        // lists classes ascending: the search order is deterministic.
        let mut entries: Vec<(usize, u8, Candidate)> = Vec::new();
        for (class, _) in stock.iter().enumerate().filter(|&(_, &left)| left > 0) {
            for (rot, edges) in classes.distinct_rotations(class) {
                let fits_frame = (0..4).all(|s| (edges[s] == 0) == (view.frame >> s & 1 == 1));
                if !fits_frame {
                    continue;
                }
                let word = pack(class, rot, edges);
                entries.push((key_of(&edges), 0, word));
                for s in (0..4).filter(|s| view.breakable >> s & 1 == 1) {
                    for other in (1..self.base as u8).filter(|&c| c != edges[s]) {
                        let mut shown = edges;
                        shown[s] = other;
                        entries.push((key_of(&shown), 1, word));
                    }
                }
            }
        }
        entries.sort_by_key(|&(key, breaks, _)| (key, breaks));
        let start = self.offsets.len() as u32;
        let mut next = entries.iter().peekable();
        for key in 0..keys {
            for breaks in 0..self.runs_per_key as u8 {
                self.offsets.push(self.candidates.len() as u32);
                while let Some(&(_, _, word)) = next.next_if(|e| e.0 == key && e.1 == breaks) {
                    self.candidates.push(word);
                }
            }
        }
        self.offsets.push(self.candidates.len() as u32);
        self.by_view.insert(view, start);
        start
    }

    /// The flat offsets array (see the module doc for its layout).
    #[inline(always)]
    pub(crate) fn offsets(&self) -> &[u32] {
        &self.offsets
    }

    #[inline(always)]
    pub(crate) fn candidates(&self) -> &[Candidate] {
        &self.candidates
    }

    /// Shuffles every run in place: a restart of the best-score search
    /// walks the same tree in another order.
    pub(crate) fn shuffle(&mut self, rng: &mut Rng) {
        for run in self.offsets.windows(2) {
            let (a, b) = (run[0] as usize, run[1] as usize);
            // Tables sit back to back, so a window spanning two tables is
            // empty (b == a); a run never straddles a table.
            if b > a {
                rng.shuffle(&mut self.candidates[a..b]);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::candidate::{class_of, colour_of};
    use super::*;

    #[test]
    fn two_colour_table_lists_exactly_the_matching_rotations() {
        let pieces = [[1, 2, 3, 4], [2, 2, 1, 3], [0, 1, 2, 3]];
        let classes = PieceClasses::new(&pieces);
        let mut tables = Tables::new(4, true);
        let view = CellView {
            frame: 0,
            constrained: 0b1001, // up and left
            breakable: 0,
            low: NO_LOW_SIDE,
        };
        let t = tables.table_for(view, &classes, &[1, 1, 1]) as usize;
        let run = |up: u32, left: u32| {
            let k = t + (up * tables.factor(0) + left * tables.factor(1)) as usize;
            let (a, b) = (
                tables.offsets()[k] as usize,
                tables.offsets()[k + 1] as usize,
            );
            tables.candidates()[a..b].to_vec()
        };
        // Up 1 / left 4: piece 0 at rot 0. Up 3 / left 2: piece 0 at rot 2.
        assert_eq!(run(1, 4).len(), 1);
        assert_eq!(class_of(run(1, 4)[0]), 0);
        let c = run(3, 2);
        assert_eq!((c.len(), colour_of(c[0], 1)), (1, 4));
        // Piece 1 [2,2,1,3]: up 2 left 3 at rot 0, and up 3 left 1 at rot 1.
        assert_eq!(run(2, 3).len(), 1);
        assert_eq!(run(3, 1).len(), 1);
        // The grey piece never appears in an interior table.
        let total: usize = (0..5)
            .flat_map(|u| (0..5).map(move |l| (u, l)))
            .map(|(u, l)| run(u, l).len())
            .sum();
        assert_eq!(total, 8);
    }

    #[test]
    fn break_runs_follow_exact_runs() {
        let pieces = [[1, 2, 3, 4]];
        let classes = PieceClasses::new(&pieces);
        let mut tables = Tables::new(4, true);
        let view = CellView {
            frame: 0,
            constrained: 0b0001,
            breakable: 0b0001,
            low: NO_LOW_SIDE,
        };
        let t = tables.table_for(view, &classes, &[1]) as usize;
        let off = tables.offsets();
        // Key "up = 2": no exact candidate (no rotation shows 2 on top?
        // rot 3 does: [2,3,4,1]), and three one-break candidates (the
        // rotations showing 1, 3, 4 on top).
        let k = t + 2 * tables.factor(0) as usize;
        assert_eq!(off[k + 1] - off[k], 1);
        assert_eq!(off[k + 2] - off[k + 1], 3);
    }
}
