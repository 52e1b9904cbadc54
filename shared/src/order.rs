//! Fill orders (docs/engines.md): the sequence in which a backtracker visits cells.
//!
//! An order is a pure function of the board size and the hint positions, so
//! two runs (or two machines sharing one job) that name the same order walk
//! exactly the same tree, and a checkpoint or a prefix taken under it means
//! the same thing everywhere. Every order returns a permutation of all
//! cells, hint cells included: the engine skips cells that are already
//! placed, so an order never has to know what a hint is for.
//!
//! Throughput in nodes/s is never compared across orders: a node under one
//! order is not the same unit of work as under another.

use std::collections::VecDeque;
use std::fmt;
use std::str::FromStr;

use crate::error::Error;

/// The fill orders e2 knows, named as on the command line.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum FillOrder {
    /// Row by row from the top-left corner: the scan.
    RowMajor,
    /// The scan's mirror: the bottom row first, each row left to right.
    RowMajorBottomUp,
    /// Clockwise from the top-left corner, ring by ring towards the centre.
    SpiralIn,
    /// `spiral-in` reversed: from the centre out to the top-left corner.
    SpiralOut,
    /// The frame clockwise from the top-left corner, then the interior row by row.
    BorderFirst,
    /// Verhaard's comb: the first R rows row by row, then the remaining rows
    /// column by column, so the last cells close short columns.
    VerhaardComb,
    /// The rows holding hints first (top to bottom), then the others: a control.
    HintRowsFirst,
    /// Shortest paths from the top-left corner to each hint in turn, nearest
    /// first, then the rest row by row (the study's worst performer).
    ConnectHintsFirst,
    /// Column by column from the top-left corner, each column top to
    /// bottom: the scan of the turned board, shorter rows on a wide one.
    ColumnMajor,
}

impl FillOrder {
    /// Every order, in the order docs/engines.md lists them.
    pub const ALL: [FillOrder; 9] = [
        FillOrder::RowMajor,
        FillOrder::RowMajorBottomUp,
        FillOrder::SpiralIn,
        FillOrder::SpiralOut,
        FillOrder::BorderFirst,
        FillOrder::VerhaardComb,
        FillOrder::HintRowsFirst,
        FillOrder::ConnectHintsFirst,
        FillOrder::ColumnMajor,
    ];

    /// The name used on the command line and in job records.
    pub fn name(self) -> &'static str {
        match self {
            FillOrder::RowMajor => "row-major",
            FillOrder::RowMajorBottomUp => "row-major-bottom-up",
            FillOrder::SpiralIn => "spiral-in",
            FillOrder::SpiralOut => "spiral-out",
            FillOrder::BorderFirst => "border-first",
            FillOrder::VerhaardComb => "verhaard-comb",
            FillOrder::HintRowsFirst => "hint-rows-first",
            FillOrder::ConnectHintsFirst => "connect-hints-first",
            FillOrder::ColumnMajor => "column-major",
        }
    }

    /// The cells of a `width`×`height` board in visiting order: a permutation
    /// of `0..width*height`. Hint positions outside the board are ignored.
    pub fn cells(&self, width: usize, height: usize, hint_positions: &[usize]) -> Vec<usize> {
        match self {
            FillOrder::RowMajor => (0..width * height).collect(),
            FillOrder::RowMajorBottomUp => (0..height)
                .rev()
                .flat_map(|row| (0..width).map(move |col| row * width + col))
                .collect(),
            FillOrder::SpiralIn => spiral_in(width, height),
            FillOrder::SpiralOut => {
                let mut cells = spiral_in(width, height);
                cells.reverse();
                cells
            }
            FillOrder::BorderFirst => border_first(width, height),
            FillOrder::VerhaardComb => verhaard_comb(width, height, comb_rows(height)),
            FillOrder::HintRowsFirst => hint_rows_first(width, height, hint_positions),
            FillOrder::ConnectHintsFirst => connect_hints_first(width, height, hint_positions),
            FillOrder::ColumnMajor => (0..width)
                .flat_map(|col| (0..height).map(move |row| row * width + col))
                .collect(),
        }
    }
}

impl fmt::Display for FillOrder {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for FillOrder {
    type Err = Error;

    fn from_str(s: &str) -> Result<Self, Error> {
        FillOrder::ALL
            .into_iter()
            .find(|o| o.name() == s)
            .ok_or_else(|| {
                let names: Vec<&str> = FillOrder::ALL.iter().map(|o| o.name()).collect();
                Error::Invalid(format!(
                    "fill order \"{s}\" is unknown, expected one of {}",
                    names.join(", ")
                ))
            })
    }
}

/// Rows the comb scans row by row: 10 of 16 on the official board, scaled
/// as `round(10 * height / 16)` (halves round up) for other heights.
pub fn comb_rows(height: usize) -> usize {
    ((10 * height + 8) / 16).min(height)
}

fn spiral_in(width: usize, height: usize) -> Vec<usize> {
    let mut out = Vec::with_capacity(width * height);
    let (mut top, mut left) = (0usize, 0usize);
    let (mut bottom, mut right) = (height, width); // exclusive bounds
    while top < bottom && left < right {
        out.extend((left..right).map(|c| top * width + c));
        out.extend((top + 1..bottom).map(|r| r * width + right - 1));
        if bottom - top > 1 {
            out.extend((left..right - 1).rev().map(|c| (bottom - 1) * width + c));
        }
        if right - left > 1 {
            out.extend((top + 1..bottom - 1).rev().map(|r| r * width + left));
        }
        top += 1;
        left += 1;
        bottom -= 1;
        right = right.saturating_sub(1);
    }
    out
}

fn border_first(width: usize, height: usize) -> Vec<usize> {
    // The first ring of the spiral is exactly the frame, clockwise.
    let frame_len = if width == 1 || height == 1 {
        width * height
    } else {
        2 * (width + height) - 4
    };
    let mut out: Vec<usize> = spiral_in(width, height)
        .into_iter()
        .take(frame_len)
        .collect();
    for row in 1..height.saturating_sub(1) {
        out.extend((1..width.saturating_sub(1)).map(|col| row * width + col));
    }
    out
}

fn verhaard_comb(width: usize, height: usize, rows: usize) -> Vec<usize> {
    let mut out: Vec<usize> = (0..rows * width).collect();
    for col in 0..width {
        out.extend((rows..height).map(|row| row * width + col));
    }
    out
}

fn hint_rows_first(width: usize, height: usize, hint_positions: &[usize]) -> Vec<usize> {
    let mut has_hint = vec![false; height];
    for &pos in hint_positions.iter().filter(|&&p| p < width * height) {
        has_hint[pos / width] = true;
    }
    let rows = (0..height)
        .filter(|&r| has_hint[r])
        .chain((0..height).filter(|&r| !has_hint[r]));
    rows.flat_map(|row| (0..width).map(move |col| row * width + col))
        .collect()
}

fn connect_hints_first(width: usize, height: usize, hint_positions: &[usize]) -> Vec<usize> {
    let cells = width * height;
    let mut visited = vec![false; cells];
    let mut out = Vec::with_capacity(cells);
    let mut pending: Vec<usize> = hint_positions
        .iter()
        .copied()
        .filter(|&p| p < cells)
        .collect();
    if cells == 0 {
        return out;
    }
    visited[0] = true;
    out.push(0);
    let mut came_from = vec![usize::MAX; cells];
    let mut queue = VecDeque::new();
    loop {
        pending.retain(|&p| !visited[p]);
        if pending.is_empty() {
            break;
        }
        // Multi-source BFS from everything visited so far: the first pending
        // hint it dequeues is the nearest one, and `came_from` walks back to
        // the visited region along a shortest path.
        came_from.iter_mut().for_each(|c| *c = usize::MAX);
        queue.clear();
        queue.extend((0..cells).filter(|&p| visited[p]));
        let mut seen = visited.clone();
        let mut reached = None;
        while let Some(p) = queue.pop_front() {
            if !visited[p] && pending.contains(&p) {
                reached = Some(p);
                break;
            }
            for n in neighbours(p, width, height) {
                if !seen[n] {
                    seen[n] = true;
                    came_from[n] = p;
                    queue.push_back(n);
                }
            }
        }
        let Some(target) = reached else { break };
        let mut path = Vec::new();
        let mut p = target;
        while !visited[p] {
            path.push(p);
            p = came_from[p];
        }
        for &p in path.iter().rev() {
            visited[p] = true;
            out.push(p);
        }
    }
    out.extend((0..cells).filter(|&p| !visited[p]));
    out
}

/// Up, right, down, left neighbours that exist.
fn neighbours(pos: usize, width: usize, height: usize) -> impl Iterator<Item = usize> {
    let (row, col) = (pos / width, pos % width);
    [
        (row > 0).then(|| pos - width),
        (col + 1 < width).then_some(pos + 1),
        (row + 1 < height).then_some(pos + width),
        (col > 0).then(|| pos - 1),
    ]
    .into_iter()
    .flatten()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn is_permutation(cells: &[usize], n: usize) -> bool {
        let mut seen = vec![false; n];
        cells.len() == n
            && cells
                .iter()
                .all(|&c| c < n && !std::mem::replace(&mut seen[c], true))
    }

    #[test]
    fn every_order_is_a_permutation_at_every_small_size() {
        for width in 1..=8 {
            for height in 1..=8 {
                let n = width * height;
                let hint_sets = [vec![], vec![n - 1], vec![n / 2, n / 3, n - 1, n + 5]];
                for hints in &hint_sets {
                    for order in FillOrder::ALL {
                        let cells = order.cells(width, height, hints);
                        assert!(
                            is_permutation(&cells, n),
                            "{order} on {width}x{height} with hints {hints:?}: {cells:?}"
                        );
                    }
                }
            }
        }
    }

    #[test]
    fn names_round_trip_and_unknown_names_are_refused() {
        for order in FillOrder::ALL {
            assert_eq!(order.to_string().parse::<FillOrder>().unwrap(), order);
        }
        let e = "zigzag".parse::<FillOrder>().unwrap_err().to_string();
        assert!(e.contains("\"zigzag\"") && e.contains("row-major"), "{e}");
    }

    #[test]
    fn small_orders_pinned_by_hand() {
        assert_eq!(
            FillOrder::SpiralIn.cells(3, 3, &[]),
            [0, 1, 2, 5, 8, 7, 6, 3, 4]
        );
        assert_eq!(
            FillOrder::SpiralIn.cells(4, 2, &[]),
            [0, 1, 2, 3, 7, 6, 5, 4]
        );
        assert_eq!(
            FillOrder::SpiralOut.cells(3, 3, &[]),
            [4, 3, 6, 7, 8, 5, 2, 1, 0]
        );
        assert_eq!(
            FillOrder::BorderFirst.cells(3, 4, &[]),
            [0, 1, 2, 5, 8, 11, 10, 9, 6, 3, 4, 7]
        );
        assert_eq!(
            FillOrder::RowMajorBottomUp.cells(2, 3, &[]),
            [4, 5, 2, 3, 0, 1]
        );
        assert_eq!(FillOrder::ColumnMajor.cells(3, 2, &[]), [0, 3, 1, 4, 2, 5]);
        // 4 rows: R = round(2.5) = 3 rows scanned, then one row by column.
        assert_eq!(
            FillOrder::VerhaardComb.cells(3, 4, &[]),
            [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11]
        );
        // 8 rows: R = 5, then rows 5..8 column by column.
        let comb = FillOrder::VerhaardComb.cells(2, 8, &[]);
        assert_eq!(&comb[10..], [10, 12, 14, 11, 13, 15]);
        assert_eq!(
            FillOrder::HintRowsFirst.cells(2, 3, &[5]),
            [4, 5, 0, 1, 2, 3]
        );
        // From 0, the hint at 8 is reached along a shortest path first.
        let connect = FillOrder::ConnectHintsFirst.cells(3, 3, &[8]);
        assert_eq!(connect.len(), 9);
        assert_eq!(connect[0], 0);
        assert_eq!(connect[4], 8);
        assert!(connect[..5]
            .windows(2)
            .all(|w| neighbours(w[0], 3, 3).any(|n| n == w[1])));
    }

    #[test]
    fn comb_keeps_ten_of_sixteen_rows() {
        assert_eq!(comb_rows(16), 10);
        assert_eq!(comb_rows(8), 5);
        assert_eq!(comb_rows(1), 1);
        let comb = FillOrder::VerhaardComb.cells(16, 16, &[]);
        assert_eq!(&comb[..160], (0..160).collect::<Vec<_>>());
        assert_eq!(&comb[160..163], [160, 176, 192]);
    }

    #[test]
    fn without_hints_the_hint_orders_are_the_scan() {
        let scan = FillOrder::RowMajor.cells(5, 4, &[]);
        assert_eq!(FillOrder::HintRowsFirst.cells(5, 4, &[]), scan);
        assert_eq!(FillOrder::ConnectHintsFirst.cells(5, 4, &[]), scan);
    }
}
