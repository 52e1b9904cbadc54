//! Hint layouts: which cells a generated puzzle pins, as pure functions of
//! the board size, and each layout's pinned-seam floor.
//!
//! The floor is the number of interior seams whose two cells are both pinned.
//! Pins come from the true solution, so those seams are matched before the
//! solver runs: a raw score inflated by them says nothing about search
//! progress. The hint study reads its results through metrics
//! immune to the floor, and this module is where the floor is computed.

use std::fmt;
use std::str::FromStr;

use crate::error::Error;

/// The hint layouts e2 can generate.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Layout {
    /// No hints: the baseline every layout is paired with.
    None,
    /// The five official clue cells (34, 45, 135, 210, 221 on 16×16),
    /// scaled to the board.
    Official5,
    /// One solid square block of side ⌈min(W,H)/4⌉ in the middle.
    Block,
    /// Five solid blocks of side ⌈min(W,H)/4⌉ centred on the official five.
    Blocks5,
    /// A sparse lattice: one pin every 4 cells in each direction, no two
    /// adjacent, so its floor is zero.
    Lattice,
}

pub const ALL_LAYOUTS: [Layout; 5] = [
    Layout::None,
    Layout::Official5,
    Layout::Block,
    Layout::Blocks5,
    Layout::Lattice,
];

impl Layout {
    pub fn name(self) -> &'static str {
        match self {
            Layout::None => "none",
            Layout::Official5 => "official5",
            Layout::Block => "block",
            Layout::Blocks5 => "blocks5",
            Layout::Lattice => "lattice",
        }
    }

    /// The pinned cells, sorted, for a `width`×`height` board.
    pub fn cells(self, width: usize, height: usize) -> Vec<usize> {
        let mut cells: Vec<usize> = match self {
            Layout::None => vec![],
            Layout::Official5 => official5(width, height)
                .into_iter()
                .map(|(r, c)| r * width + c)
                .collect(),
            Layout::Block => {
                let side = block_side(width, height);
                square(width, height, height / 2, width / 2, side)
            }
            Layout::Blocks5 => {
                let side = block_side(width, height);
                official5(width, height)
                    .into_iter()
                    .flat_map(|(r, c)| square(width, height, r, c, side))
                    .collect()
            }
            Layout::Lattice => {
                let mut v = vec![];
                for r in (1..height).step_by(4) {
                    for c in (1..width).step_by(4) {
                        v.push(r * width + c);
                    }
                }
                v
            }
        };
        cells.sort_unstable();
        cells.dedup();
        cells
    }
}

impl fmt::Display for Layout {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for Layout {
    type Err = Error;
    fn from_str(s: &str) -> Result<Self, Error> {
        ALL_LAYOUTS
            .iter()
            .copied()
            .find(|l| l.name() == s)
            .ok_or_else(|| {
                let names: Vec<_> = ALL_LAYOUTS.iter().map(|l| l.name()).collect();
                Error::Invalid(format!(
                    "unknown hint layout \"{s}\": expected one of {}",
                    names.join(", ")
                ))
            })
    }
}

/// The official clue cells as (row, col) on 16×16: (2,2), (2,13), (8,7),
/// (13,2), (13,13); scaled by `round(x * (side-1) / 15)`.
fn official5(width: usize, height: usize) -> Vec<(usize, usize)> {
    let scale = |x: usize, side: usize| ((x * (side - 1)) as f64 / 15.0).round() as usize;
    [(2, 2), (2, 13), (8, 7), (13, 2), (13, 13)]
        .into_iter()
        .map(|(r, c)| (scale(r, height), scale(c, width)))
        .collect()
}

fn block_side(width: usize, height: usize) -> usize {
    width.min(height).div_ceil(4).max(1)
}

/// A `side`×`side` block whose top-left is `side/2` above-left of (r, c),
/// clamped inside the board.
fn square(width: usize, height: usize, r: usize, c: usize, side: usize) -> Vec<usize> {
    let side_r = side.min(height);
    let side_c = side.min(width);
    let top = r.saturating_sub(side / 2).min(height - side_r);
    let left = c.saturating_sub(side / 2).min(width - side_c);
    let mut v = vec![];
    for row in top..top + side_r {
        for col in left..left + side_c {
            v.push(row * width + col);
        }
    }
    v
}

/// Interior seams with both cells pinned.
pub fn pinned_seam_floor(width: usize, height: usize, pinned: &[usize]) -> u32 {
    let mut is_pinned = vec![false; width * height];
    for &p in pinned {
        is_pinned[p] = true;
    }
    let mut floor = 0;
    for r in 0..height {
        for c in 0..width {
            let p = r * width + c;
            if !is_pinned[p] {
                continue;
            }
            floor += (c + 1 < width && is_pinned[p + 1]) as u32;
            floor += (r + 1 < height && is_pinned[p + width]) as u32;
        }
    }
    floor
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn official5_is_the_official_clue_cells_at_16() {
        assert_eq!(Layout::Official5.cells(16, 16), vec![34, 45, 135, 210, 221]);
    }

    #[test]
    fn floors_match_a_hand_count() {
        // Five scattered clues touch nothing.
        assert_eq!(
            pinned_seam_floor(16, 16, &Layout::Official5.cells(16, 16)),
            0
        );
        // A 4x4 block has 4 rows of 3 horizontal seams and 4 columns of 3
        // vertical seams: 24.
        assert_eq!(Layout::Block.cells(16, 16).len(), 16);
        assert_eq!(pinned_seam_floor(16, 16, &Layout::Block.cells(16, 16)), 24);
        // Five disjoint 4x4 blocks: 5 * 24 = 120, a quarter of 480.
        assert_eq!(
            pinned_seam_floor(16, 16, &Layout::Blocks5.cells(16, 16)),
            120
        );
        // The lattice never touches itself.
        assert_eq!(Layout::Lattice.cells(16, 16).len(), 16);
        assert_eq!(pinned_seam_floor(16, 16, &Layout::Lattice.cells(16, 16)), 0);
        // Two pinned neighbours in a row and one below the first: 2 seams.
        assert_eq!(pinned_seam_floor(3, 3, &[0, 1, 3]), 2);
    }

    #[test]
    fn layouts_stay_on_small_boards() {
        for layout in ALL_LAYOUTS {
            for n in 2..=10 {
                assert!(
                    layout.cells(n, n).iter().all(|&p| p < n * n),
                    "{layout} at {n}"
                );
            }
        }
    }
}
