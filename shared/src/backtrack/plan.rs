//! The search plan: which cells the engine fills, in which order, and how
//! each one finds its candidates.
//!
//! Everything the fill order decides is decided here, once, before the
//! search starts: pinned cells (hints and a subtask's forced placements)
//! are laid on the board and taken out of the stock; every other cell
//! becomes a *level* holding its position, the start of its table and up to
//! four key terms `(neighbour cell, colour shift, factor)`. The inner loop
//! then computes a key with one load, shift and multiply-add per
//! constrained side. Unused terms point at a dummy cell past the board
//! whose word is always 0, so they add nothing where a fixed-width sum is
//! simpler than a count.
//!
//! The term for the cell of the previous level, when it is a neighbour
//! (the left neighbour in the row scan), is kept apart as the *hot* term:
//! the inner loop takes that colour from the word it has just placed, still
//! in a register, instead of reloading it from the board it has just
//! written, which takes the store-to-load round trip off the critical path.
//! Its table puts that side in key digit 0, whose factor is 1 or 2, so the
//! hot term is a shift and a mask (`hot_mask` is 0 when the previous cell
//! is not a neighbour) and the multiplies stay on the cold terms, whose
//! loads do not wait for the placement.

use super::candidate::{colour_of, colour_shift, Candidate, COLOUR_MASK, MAX_CLASSES};
use super::classes::{MemberAssigner, PieceClasses};
use super::jit::Compiled;
use super::masks::RunMasks;
use super::open::OpenPlan;
use super::strided::Strided;
use super::tables::{CellView, Tables, NO_LOW_SIDE};
use crate::error::{cell_place, Error, Result};
use crate::model::{Board, Placement, Puzzle};
use crate::order::FillOrder;
use crate::search::{Forced, Prefix};

/// One key term: `((board[cell] >> shift) & COLOUR_MASK) * factor`.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Term {
    pub cell: u16,
    pub shift: u8,
    pub factor: u32,
}

/// One searched cell: one cache line, so descending touches one line and
/// indexing the level array is a shift (a test keeps it at 64 bytes).
#[derive(Debug, Clone, Copy)]
#[repr(align(64))]
pub(crate) struct Level {
    pub pos: u32,
    /// Where this cell's table starts in the offsets array.
    pub table: u32,
    /// The term on the previous level's cell, `hot_cell`, as a shift and a
    /// mask: `(word >> hot_shift) & hot_mask` (key digit 0, whose factor
    /// folds into both; the mask is 0 when that cell is not a neighbour).
    pub hot_cell: u16,
    pub hot_shift: u8,
    pub hot_mask: u32,
    /// The other terms; those past `cold` are dummies.
    pub terms: [Term; 4],
    /// How many of `terms` are real.
    pub cold: u32,
    /// Seams to cells placed before it: what an exact placement adds to the score.
    pub seams: u32,
    /// The cell's index in the fill order (pinned cells included).
    pub depth: u32,
}

#[derive(Debug, Clone)]
pub(crate) struct Plan {
    pub width: usize,
    pub height: usize,
    pub order: FillOrder,
    pub prefix: Prefix,
    pub assigner: MemberAssigner,
    pub tables: Tables,
    /// Availability masks of the exact runs, for counting plans whose runs
    /// all fit in a word (see `masks`).
    pub masks: Option<RunMasks>,
    /// What the open-node walk needs, for counting plans it can run (see `open`).
    pub open: Option<OpenPlan>,
    /// Whether a walk without masks runs the chained copy, one piece of
    /// code per level (see `chain`): set for plans of at most
    /// `chain::CHAIN_LEVELS` levels; a test clears it to compare the two.
    pub chained: bool,
    /// The levels and exact runs in the strided layout the chained walks
    /// read (see `strided`): set for plans of at most `chain::CHAIN_LEVELS`
    /// levels.
    pub strided: Option<Strided>,
    /// The compiled walks that counts on the strided tables take (see
    /// `jit`), written when first needed.
    pub compiled: Compiled,
    pub levels: Vec<Level>,
    /// Stock per class once pinned pieces are taken out.
    pub stock: Vec<u16>,
    /// The board with only the pinned cells, plus the dummy cell at the end.
    pub pinned_board: Vec<Candidate>,
    /// Identity of each pinned cell.
    pub pinned: Vec<Option<Placement>>,
    /// Pinned cells show grey exactly on the frame and agree on every seam
    /// between two of them; otherwise no perfect board honours them.
    pub pinned_consistent: bool,
}

/// Which search a plan serves, which decides its table layout.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Purpose {
    /// Exact runs only: counting, first solution, prefixes.
    Count,
    /// Exact and one-break runs per key (the one-break runs are empty
    /// unless `breaks`): the best-score search.
    Best { breaks: bool },
}

/// The neighbour of `pos` across side `side` (URDL), if it is on the board.
pub(crate) fn neighbour(pos: usize, side: usize, width: usize, height: usize) -> Option<usize> {
    let (row, col) = (pos / width, pos % width);
    match side {
        0 => (row > 0).then(|| pos - width),
        1 => (col + 1 < width).then_some(pos + 1),
        2 => (row + 1 < height).then_some(pos + width),
        _ => (col > 0).then(|| pos - 1),
    }
}

fn on_perimeter(pos: usize, width: usize, height: usize) -> bool {
    let (row, col) = (pos / width, pos % width);
    row == 0 || col == 0 || row + 1 == height || col + 1 == width
}

impl Plan {
    /// `purpose` decides the table layout (see [`Purpose`]).
    pub(crate) fn new(
        puzzle: &Puzzle,
        order: FillOrder,
        prefix: &Prefix,
        purpose: Purpose,
    ) -> Result<Plan> {
        let with_breaks = purpose == Purpose::Best { breaks: true };
        puzzle.validate_allowing_duplicates()?;
        let (width, height) = (puzzle.width, puzzle.height);
        let cells = width * height;
        let classes = PieceClasses::new(&puzzle.pieces);
        if classes.len() > MAX_CLASSES {
            return Err(Error::Invalid(format!(
                "puzzle \"{}\": {} distinct pieces is more than the backtracker's {MAX_CLASSES}",
                puzzle.name,
                classes.len()
            )));
        }

        let mut pinned: Vec<Option<Placement>> = vec![None; cells];
        let mut pinned_pieces: Vec<usize> = Vec::new();
        for h in &puzzle.hints {
            pinned[h.pos] = Some(Placement {
                piece: h.piece,
                rot: h.rot,
            });
            pinned_pieces.push(h.piece);
        }
        for (k, f) in prefix.iter().enumerate() {
            let place = |reason: String| Error::Invalid(format!("prefix entry {k}: {reason}"));
            if f.pos >= cells {
                return Err(place(format!(
                    "pos {} is outside the {width}x{height} board",
                    f.pos
                )));
            }
            if f.piece >= puzzle.pieces.len() {
                return Err(place(format!(
                    "piece {} does not exist (the set has {} pieces)",
                    f.piece,
                    puzzle.pieces.len()
                )));
            }
            if f.rot > 3 {
                return Err(place(format!("rot {} is not a quarter turn 0..=3", f.rot)));
            }
            if pinned[f.pos].is_some() {
                return Err(place(format!(
                    "{} is already pinned by a hint or an earlier entry",
                    cell_place(f.pos, width)
                )));
            }
            if pinned_pieces.contains(&f.piece) {
                return Err(place(format!(
                    "piece {} is already pinned by a hint or an earlier entry",
                    f.piece
                )));
            }
            pinned[f.pos] = Some(Placement {
                piece: f.piece,
                rot: f.rot,
            });
            pinned_pieces.push(f.piece);
        }

        let mut stock: Vec<u16> = (0..classes.len())
            .map(|c| classes.multiplicity(c) as u16)
            .collect();
        let mut pinned_board = vec![0 as Candidate; cells + 1];
        for (pos, p) in pinned.iter().enumerate() {
            if let Some(p) = p {
                let word = classes.candidate(&puzzle.pieces, p.piece, p.rot);
                pinned_board[pos] = word;
                stock[classes.class_of_piece(p.piece)] -= 1;
            }
        }
        let pinned_consistent = (0..cells).filter(|&p| pinned[p].is_some()).all(|pos| {
            (0..4).all(|side| {
                let colour = colour_of(pinned_board[pos], side);
                match neighbour(pos, side, width, height) {
                    None => colour == 0,
                    Some(n) if pinned[n].is_some() => {
                        colour != 0 && colour == colour_of(pinned_board[n], (side + 2) % 4)
                    }
                    Some(_) => colour != 0,
                }
            })
        });

        let mut tables = Tables::new(puzzle.num_colors, purpose != Purpose::Count);
        let mut placed_before: Vec<bool> = pinned.iter().map(Option::is_some).collect();
        let mut levels = Vec::with_capacity(cells);
        let dummy = Term {
            cell: cells as u16,
            shift: 0,
            factor: 0,
        };
        let mut previous: Option<usize> = None;
        for (depth, pos) in order
            .cells(
                width,
                height,
                &puzzle.hints.iter().map(|h| h.pos).collect::<Vec<_>>(),
            )
            .into_iter()
            .enumerate()
        {
            if pinned[pos].is_some() {
                continue;
            }
            let mut view = CellView {
                frame: 0,
                constrained: 0,
                breakable: 0,
                low: NO_LOW_SIDE,
            };
            for side in 0..4 {
                match neighbour(pos, side, width, height) {
                    None => view.frame |= 1 << side,
                    Some(n) if placed_before[n] => {
                        view.constrained |= 1 << side;
                        let frame_seam =
                            on_perimeter(pos, width, height) && on_perimeter(n, width, height);
                        if with_breaks && !frame_seam {
                            view.breakable |= 1 << side;
                        }
                        if previous == Some(n) {
                            view.low = side as u8;
                        }
                    }
                    Some(_) => {}
                }
            }
            let mut terms = [dummy; 4];
            let mut cold = 0;
            let (mut hot_cell, mut hot_shift, mut hot_mask) = (dummy.cell, 0, 0);
            let digit_sides = view.digit_sides();
            for (digit, &side) in digit_sides.iter().enumerate() {
                let n = neighbour(pos, side, width, height)
                    .expect("a constrained side has a neighbour");
                let term = Term {
                    cell: n as u16,
                    shift: colour_shift((side + 2) % 4) as u8,
                    factor: tables.factor(digit),
                };
                if usize::from(view.low) == side {
                    debug_assert_eq!(digit, 0);
                    let low = tables.low_digit_shift();
                    hot_cell = term.cell;
                    hot_shift = term.shift - low as u8;
                    hot_mask = COLOUR_MASK << low;
                } else {
                    terms[cold] = term;
                    cold += 1;
                }
            }
            let seams = digit_sides.len();
            let table = tables.table_for(view, &classes, &stock);
            levels.push(Level {
                pos: pos as u32,
                table,
                hot_cell,
                hot_shift,
                hot_mask,
                terms,
                cold: cold as u32,
                seams: seams as u32,
                depth: depth as u32,
            });
            placed_before[pos] = true;
            previous = Some(pos);
        }

        let assigner = MemberAssigner::new(&classes, &pinned_pieces);
        let masks = match purpose {
            Purpose::Count => RunMasks::new(&tables, stock.len()),
            Purpose::Best { .. } => None,
        };
        let level_pos: Vec<u32> = levels.iter().map(|l| l.pos).collect();
        let open = OpenPlan::new(masks.as_ref(), &stock, &level_pos, cells as u32);
        let chained = levels.len() <= super::chain::CHAIN_LEVELS;
        let strided = chained
            .then(|| Strided::new(&tables, &levels, u32::from(puzzle.num_colors) + 1))
            .flatten();
        Ok(Plan {
            width,
            height,
            order,
            prefix: prefix.clone(),
            assigner,
            tables,
            masks,
            open,
            chained,
            strided,
            compiled: Compiled::new(),
            levels,
            stock,
            pinned_board,
            pinned,
            pinned_consistent,
        })
    }

    pub(crate) fn cells(&self) -> usize {
        self.width * self.height
    }

    /// The offsets index of `level`'s candidates for the current board.
    #[inline(always)]
    pub(crate) fn key_index(&self, level: &Level, board: &[Candidate]) -> usize {
        level.key_index(board, board[level.hot_cell as usize])
    }
}

impl Level {
    /// The offsets index of this level's candidates, given the word placed
    /// on the previous level's cell.
    #[inline(always)]
    pub(crate) fn key_index(&self, board: &[Candidate], previous: Candidate) -> usize {
        let hot = (previous >> self.hot_shift) & self.hot_mask;
        let cold = self
            .terms
            .iter()
            .map(|t| ((board[t.cell as usize] >> t.shift) & COLOUR_MASK) * t.factor);
        (self.table + hot + cold.sum::<u32>()) as usize
    }

    /// [`Level::key_index`] without bounds checks, for the inner loops.
    ///
    /// # Safety
    /// `board` must be a board of this plan: every term names a board cell
    /// or the dummy cell, and such a board holds one word per cell plus the
    /// dummy, so every load is in bounds.
    #[inline(always)]
    pub(crate) unsafe fn key_index_unchecked(
        &self,
        board: &[Candidate],
        previous: Candidate,
    ) -> usize {
        // SAFETY: see the function's contract.
        let term = |t: &Term| unsafe {
            ((*board.get_unchecked(t.cell as usize) >> t.shift) & COLOUR_MASK) * t.factor
        };
        let t = &self.terms;
        // Most cells of a scan have one cold term, so this match is well
        // predicted and skips the dummy loads.
        let cold = match self.cold {
            0 => 0,
            1 => term(&t[0]),
            2 => term(&t[0]) + term(&t[1]),
            _ => term(&t[0]) + term(&t[1]) + term(&t[2]) + term(&t[3]),
        };
        // Key digit 0: no multiply (see the module doc).
        let hot = (previous >> self.hot_shift) & self.hot_mask;
        (self.table + hot + cold) as usize
    }
}

impl Plan {
    /// The board with the pinned cells and the first `placed` levels filled
    /// from `words`, with piece identities handed out by the assigner.
    pub(crate) fn board(&self, puzzle: &Puzzle, words: &[Candidate], placed: usize) -> Board {
        let mut placements = self.pinned.clone();
        let levels = &self.levels[..placed];
        let identities = self
            .assigner
            .assign(&puzzle.pieces, levels.iter().map(|l| words[l.pos as usize]));
        for (level, identity) in levels.iter().zip(identities) {
            placements[level.pos as usize] = Some(identity);
        }
        Board::from_placements(puzzle, placements)
    }

    /// The forced placements that pin the first `placed` levels as they
    /// stand in `words`, then `extra` at level `placed`: a prefix for a
    /// subtask that starts one level deeper.
    pub(crate) fn forced(
        &self,
        puzzle: &Puzzle,
        words: &[Candidate],
        placed: usize,
        extra: Option<Candidate>,
    ) -> Prefix {
        let levels = &self.levels[..placed + extra.is_some() as usize];
        let sequence = levels[..placed]
            .iter()
            .map(|l| words[l.pos as usize])
            .chain(extra);
        let mut prefix = self.prefix.clone();
        for (level, p) in levels
            .iter()
            .zip(self.assigner.assign(&puzzle.pieces, sequence))
        {
            prefix.push(Forced {
                pos: level.pos as usize,
                piece: p.piece,
                rot: p.rot,
            });
        }
        prefix
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_level_fills_exactly_one_cache_line() {
        assert_eq!(std::mem::size_of::<Level>(), 64);
    }
}
