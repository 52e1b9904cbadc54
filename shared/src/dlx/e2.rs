//! Eternity II as exact cover with colours (docs/engines.md), and the counting
//! tasks the coordinator runs on it.
//!
//! Items, in this order (the order of `shared/data/dlx/*.dlx`, so that the
//! search, and Knuth's node counts, are the same):
//!
//! - primary `c<pos>` for every cell, then `p<piece>` for every piece
//!   (with [`E2Cover::ordered`], the cells in a fill order's sequence, and
//!   step C3 follows [`Choice::Scan`]: the next empty cell of that order
//!   unless a cell or piece is down to one option or none);
//! - secondary `h<x>_<y>` for the seam between cells (x, y) and (x+1, y),
//!   then `v<x>_<y>` for the seam between (x, y) and (x, y+1); x is the
//!   column, y the row.
//!
//! An option places piece p on cell c at one rotation and covers `c<c>`,
//! `p<p>` and the interior seams of c (up, right, down, left) coloured with
//! the placed faces. Placements that show a non-0 face on the frame or a 0
//! face inside are left out, as is any rotation giving a quadruple an
//! earlier rotation already gave (a symmetric piece has one option per
//! distinct orientation: e2 counts boards, not rotations). Options are
//! listed by cell, then piece, then rotation.
//!
//! Hints are not search levels: a hinted cell keeps only the options showing
//! the hinted quadruple, and a hinted piece keeps only its option on the
//! hinted cell.
//!
//! # Pieces that repeat up to rotation
//!
//! e2 counts distinct boards, but with m copies of a piece every board
//! is reached by m! assignments of copies to cells. Two exact alternatives
//! were considered and rejected: Knuth's multiplicities (a class item
//! covered m times) need Algorithm M, a different algorithm from the one
//! this engine reproduces; counting assignments and dividing by the
//! product of the m! is exact for a whole count but not for a subtree (a
//! prefix pins particular copies, so its assignment count is not a multiple
//! of the divisor), and the coordinator adds up subtree counts.
//!
//! Instead the copies of a class `p_1 < p_2 < ... < p_m` are made to lie in
//! increasing cell order, which picks exactly one assignment per board, with
//! nothing but more secondary items, so the search stays Algorithm C and
//! every subtree count is a count of distinct boards. For each consecutive
//! pair (p_k, p_k+1) and each cell j where the class fits there is a
//! secondary item; `p_k` on cell c covers the items of cells `j <= c`, and
//! `p_k+1` on cell c' covers the item of c', so the two options clash
//! exactly when `c' <= c`. A hint then pins the hinted quadruple on its
//! cell, not a particular copy, and [`E2Cover::board`] swaps copies so the
//! hinted piece sits on its hinted cell.

use std::collections::HashMap;

use super::algorithm_c::{AlgorithmC, Choice};
use super::problem::{Entry, Xcc, NO_COLOUR};
use super::run::{Limits, Listener, Position, Report};
use crate::error::{Error, Result};
use crate::estimate::{Estimate, Probes};
use crate::model::{
    canonical_form, rotate, rotation_to, Board, Edges, Placement, Puzzle, DOWN, LEFT, RIGHT, UP,
};
use crate::order::FillOrder;
use crate::search::Engine;
use crate::search::{Checkpoint, Control, Forced, Prefix, RunEnd};

/// What a counting run may be connected to. All optional.
#[derive(Default)]
pub struct Hooks<'a> {
    /// Stop and split requests; donated prefixes go to `Control::donate`.
    pub control: Option<&'a Control>,
    /// Periodic checkpoints (see [`Limits::checkpoint_every`]).
    pub on_checkpoint: Option<&'a mut dyn FnMut(Checkpoint)>,
    /// Every solution, as a board with piece identities.
    pub on_board: Option<&'a mut dyn FnMut(Board)>,
}

/// The outcome of counting a subtree of a puzzle through the encoding:
/// what the contract's [`crate::search::CountReport`] says, plus Knuth's
/// update count and the first board.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CoverReport {
    /// Distinct perfect boards counted (including the checkpoint's).
    pub solutions: u64,
    /// Search-tree nodes (including the checkpoint's).
    pub nodes: u64,
    /// Knuth's updates in this run.
    pub updates: u64,
    pub end: RunEnd,
    /// Where to resume, unless the subtree was finished.
    pub checkpoint: Option<Checkpoint>,
    /// The first board this run found.
    pub first: Option<Board>,
}

/// A puzzle encoded as XCC, with the map between options and placements.
#[derive(Debug, Clone)]
pub struct E2Cover {
    puzzle: Puzzle,
    xcc: Xcc,
    /// The placement of each option (its smallest rotation).
    placements: Vec<Forced>,
    by_placement: HashMap<(usize, usize, Edges), u32>,
    /// Piece -> index of its class of pieces equal up to rotation.
    class_of: Vec<usize>,
    /// Step C3's rule for every search on this encoding.
    choice: Choice,
}

impl E2Cover {
    /// Encodes `puzzle` (pieces may repeat up to rotation), cells in
    /// position order, searched with Knuth's MRV rule: dlx2's tree.
    pub fn new(puzzle: &Puzzle) -> Result<Self> {
        let cells: Vec<usize> = (0..puzzle.cells()).collect();
        Self::encode(puzzle, &cells, Choice::Mrv)
    }

    /// Encodes `puzzle` with its cell items in `order`'s sequence, searched
    /// with [`Choice::Scan`]: the row scan of that order, forced moves first.
    /// Options and their numbers are [`E2Cover::new`]'s, so are counts; the
    /// tree (and so the meaning of a checkpoint's path) is the order's.
    pub fn ordered(puzzle: &Puzzle, order: FillOrder) -> Result<Self> {
        let hints: Vec<usize> = puzzle.hints.iter().map(|h| h.pos).collect();
        // A permutation of the cells (every order is; `order.rs` tests it).
        let cells = order.cells(puzzle.width, puzzle.height, &hints);
        Self::encode(puzzle, &cells, Choice::Scan)
    }

    /// The encoding with the cell items listed in `cell_order` (a
    /// permutation of the cells).
    fn encode(puzzle: &Puzzle, cell_order: &[usize], choice: Choice) -> Result<Self> {
        puzzle.validate_allowing_duplicates()?;
        let (w, h) = (puzzle.width, puzzle.height);
        let cells = puzzle.cells();
        // item_of_cell[pos]: the primary item of cell `pos`.
        let mut item_of_cell = vec![0u32; cells];
        for (item, &pos) in cell_order.iter().enumerate() {
            item_of_cell[pos] = item as u32;
        }

        let mut class_by_form: HashMap<Edges, usize> = HashMap::new();
        let mut members: Vec<Vec<usize>> = Vec::new();
        let class_of: Vec<usize> = puzzle
            .pieces
            .iter()
            .enumerate()
            .map(|(piece, &edges)| {
                let class = *class_by_form
                    .entry(canonical_form(edges))
                    .or_insert_with(|| {
                        members.push(Vec::new());
                        members.len() - 1
                    });
                members[class].push(piece);
                class
            })
            .collect();

        let hinted_cell: HashMap<usize, Edges> = puzzle
            .hints
            .iter()
            .map(|hint| (hint.pos, puzzle.hint_edges(hint)))
            .collect();
        // A piece with copies is not pinned itself: any copy may show the
        // hinted quadruple (see the module comment).
        let hinted_piece: HashMap<usize, usize> = puzzle
            .hints
            .iter()
            .filter(|hint| members[class_of[hint.piece]].len() == 1)
            .map(|hint| (hint.piece, hint.pos))
            .collect();

        let mut candidates: Vec<(usize, usize, u8, Edges)> = Vec::new();
        for pos in 0..cells {
            for (piece, &catalogue) in puzzle.pieces.iter().enumerate() {
                for rot in 0..4u8 {
                    let placed = rotate(catalogue, rot);
                    if rotation_to(catalogue, placed) != Some(rot)
                        || !fits_frame(pos, w, h, placed)
                        || hinted_cell.get(&pos).is_some_and(|&q| q != placed)
                        || hinted_piece.get(&piece).is_some_and(|&p| p != pos)
                    {
                        continue;
                    }
                    candidates.push((pos, piece, rot, placed));
                }
            }
        }

        // Cells where each repeated class can go: its ordering items.
        let mut class_cells: Vec<Vec<usize>> = vec![Vec::new(); members.len()];
        for &(pos, piece, _, _) in &candidates {
            let cells_of = &mut class_cells[class_of[piece]];
            if members[class_of[piece]].len() > 1 && cells_of.last() != Some(&pos) {
                cells_of.push(pos);
            }
        }

        let mut primary: Vec<String> = cell_order.iter().map(|c| format!("c{c}")).collect();
        primary.extend((0..cells).map(|p| format!("p{p}")));
        let mut secondary = Vec::new();
        for y in 0..h {
            for x in 0..w.saturating_sub(1) {
                secondary.push(format!("h{x}_{y}"));
            }
        }
        for y in 0..h.saturating_sub(1) {
            for x in 0..w {
                secondary.push(format!("v{x}_{y}"));
            }
        }
        let h_seam = |x: usize, y: usize| (2 * cells + y * (w - 1) + x) as u32;
        let v_seam = |x: usize, y: usize| (2 * cells + h * (w - 1) + y * w + x) as u32;
        // order_base[class][k]: first ordering item of the pair (p_k, p_k+1).
        let mut order_base: Vec<Vec<u32>> = vec![Vec::new(); members.len()];
        for (class, copies) in members.iter().enumerate() {
            for pair in copies.windows(2) {
                order_base[class].push((2 * cells + secondary.len()) as u32);
                for &j in &class_cells[class] {
                    secondary.push(format!("{}<{}@c{j}", pair[0], pair[1]));
                }
            }
        }
        let order_item = |class: usize, k: usize, cell: usize| {
            let rank = class_cells[class]
                .binary_search(&cell)
                .expect("a class's ordering items cover every cell it fits");
            order_base[class][k] + rank as u32
        };

        let mut xcc = Xcc::new(primary, secondary)?;
        let mut placements = Vec::with_capacity(candidates.len());
        let mut by_placement = HashMap::with_capacity(candidates.len());
        let mut entries = Vec::with_capacity(8);
        for &(pos, piece, rot, placed) in &candidates {
            let (y, x) = (pos / w, pos % w);
            let seam = |item: u32, colour: u8| Entry {
                item,
                colour: colour as u32,
            };
            entries.clear();
            entries.push(Entry {
                item: item_of_cell[pos],
                colour: NO_COLOUR,
            });
            entries.push(Entry {
                item: (cells + piece) as u32,
                colour: NO_COLOUR,
            });
            if y > 0 {
                entries.push(seam(v_seam(x, y - 1), placed[UP]));
            }
            if x + 1 < w {
                entries.push(seam(h_seam(x, y), placed[RIGHT]));
            }
            if y + 1 < h {
                entries.push(seam(v_seam(x, y), placed[DOWN]));
            }
            if x > 0 {
                entries.push(seam(h_seam(x - 1, y), placed[LEFT]));
            }
            let class = class_of[piece];
            let copies = &members[class];
            if copies.len() > 1 {
                let k = copies
                    .binary_search(&piece)
                    .expect("a piece is in its class");
                if k + 1 < copies.len() {
                    for &j in class_cells[class].iter().take_while(|&&j| j <= pos) {
                        entries.push(Entry {
                            item: order_item(class, k, j),
                            colour: NO_COLOUR,
                        });
                    }
                }
                if k > 0 {
                    entries.push(Entry {
                        item: order_item(class, k - 1, pos),
                        colour: NO_COLOUR,
                    });
                }
            }
            let option = xcc.add_option(&entries)?;
            placements.push(Forced { pos, piece, rot });
            by_placement.insert((pos, piece, placed), option);
        }
        Ok(E2Cover {
            puzzle: puzzle.clone(),
            xcc,
            placements,
            by_placement,
            class_of,
            choice,
        })
    }

    pub fn puzzle(&self) -> &Puzzle {
        &self.puzzle
    }

    /// The XCC problem (for printing it as dlx text, or running it raw).
    pub fn xcc(&self) -> &Xcc {
        &self.xcc
    }

    /// The placement option `o` stands for.
    pub fn placement(&self, option: u32) -> Forced {
        self.placements[option as usize]
    }

    /// The option of a placement; `Ok(None)` when the placement can be in
    /// no perfect board (it breaks the frame rule or a hint). Out-of-range
    /// fields are an error naming the placement.
    pub fn option_of(&self, forced: &Forced) -> Result<Option<u32>> {
        let (cells, pieces) = (self.puzzle.cells(), self.puzzle.pieces.len());
        if forced.pos >= cells || forced.piece >= pieces || forced.rot > 3 {
            return Err(Error::Invalid(format!(
                "placement {{pos {}, piece {}, rot {}}} is outside the puzzle ({} cells, {} pieces, rot 0..=3)",
                forced.pos, forced.piece, forced.rot, cells, pieces
            )));
        }
        let placed = rotate(self.puzzle.pieces[forced.piece], forced.rot);
        Ok(self
            .by_placement
            .get(&(forced.pos, forced.piece, placed))
            .copied())
    }

    /// The (possibly partial) board of a list of options, with each hinted
    /// piece on its hinted cell.
    pub fn board(&self, options: &[u32]) -> Board {
        let mut cells: Vec<Option<Placement>> = vec![None; self.puzzle.cells()];
        for &o in options {
            let f = self.placements[o as usize];
            cells[f.pos] = Some(Placement {
                piece: f.piece,
                rot: f.rot,
            });
        }
        self.put_hinted_copies_in_place(&mut cells);
        Board::from_placements(&self.puzzle, cells)
    }

    /// Copies of a repeated piece are interchangeable, and the encoding
    /// picks the copy by cell order; swap copies so every hinted piece is
    /// the one on its hinted cell. Each swap touches only the hinted cell
    /// and the cell the hinted piece came from, never an earlier hinted
    /// cell (that one holds its own hinted piece).
    fn put_hinted_copies_in_place(&self, cells: &mut [Option<Placement>]) {
        for hint in &self.puzzle.hints {
            let Some(here) = cells[hint.pos] else {
                continue;
            };
            if here.piece == hint.piece || self.class_of[here.piece] != self.class_of[hint.piece] {
                continue;
            }
            let pieces = &self.puzzle.pieces;
            let turn = |piece: usize, shown: Placement| {
                rotation_to(pieces[piece], rotate(pieces[shown.piece], shown.rot))
                    .expect("copies of a class show the same quadruples")
            };
            let elsewhere = cells
                .iter()
                .position(|c| c.is_some_and(|c| c.piece == hint.piece));
            cells[hint.pos] = Some(Placement {
                piece: hint.piece,
                rot: turn(hint.piece, here),
            });
            if let Some(other) = elsewhere {
                let there = cells[other].expect("found above");
                cells[other] = Some(Placement {
                    piece: here.piece,
                    rot: turn(here.piece, there),
                });
            }
        }
    }

    /// The prefix as options; `None` if some placement can be in no perfect
    /// board.
    fn options_of_prefix(&self, prefix: &Prefix) -> Result<Option<Vec<u32>>> {
        let mut options = Vec::with_capacity(prefix.len());
        for (k, f) in prefix.iter().enumerate() {
            match self
                .option_of(f)
                .map_err(|e| Error::Invalid(format!("prefix placement {k}: {e}")))?
            {
                Some(o) => options.push(o),
                None => return Ok(None),
            }
        }
        Ok(Some(options))
    }

    fn prefix_of_options(&self, options: &[u32]) -> Prefix {
        options.iter().map(|&o| self.placement(o)).collect()
    }

    /// Counts the perfect boards below `prefix` (forced after the hints).
    ///
    /// A placement no perfect board can have (against the frame rule or a
    /// hint, or on a cell or piece an earlier placement took) makes an
    /// empty subtree, not an error. For a set with repeated pieces, prefixes
    /// should come from [`E2Cover::prefixes`]: a copy placed out of cell
    /// order is an empty subtree here (its board is counted under the copy
    /// the encoding picks).
    pub fn count(&self, prefix: &Prefix, limits: &Limits, hooks: Hooks<'_>) -> Result<CoverReport> {
        let Some(forced) = self.options_of_prefix(prefix)? else {
            return Ok(CoverReport {
                solutions: 0,
                nodes: 0,
                updates: 0,
                end: RunEnd::Finished,
                checkpoint: None,
                first: None,
            });
        };
        let from = Position {
            forced,
            ..Position::default()
        };
        self.run(&from, limits, hooks)
    }

    /// Resumes a count from a checkpoint this encoding took; finishes with
    /// exactly the count an uninterrupted run gives.
    pub fn resume(
        &self,
        checkpoint: &Checkpoint,
        limits: &Limits,
        hooks: Hooks<'_>,
    ) -> Result<CoverReport> {
        if checkpoint.engine != Engine::Dlx {
            return Err(Error::Invalid(format!(
                "checkpoint: taken by the {} engine, cannot be resumed by dlx",
                checkpoint.engine
            )));
        }
        let Some(forced) = self.options_of_prefix(&checkpoint.prefix)? else {
            return Err(Error::Invalid(
                "checkpoint: its prefix has a placement no perfect board can have".into(),
            ));
        };
        if let Some(&bad) = checkpoint.path.iter().find(|&&o| o >= self.xcc.options()) {
            return Err(Error::Invalid(format!(
                "checkpoint: path option {bad} does not exist (this puzzle has {} options)",
                self.xcc.options()
            )));
        }
        let from = Position {
            forced,
            path: checkpoint.path.clone(),
            solutions: checkpoint.solutions,
            nodes: checkpoint.nodes,
        };
        self.run(&from, limits, hooks)
    }

    fn run(&self, from: &Position, limits: &Limits, mut hooks: Hooks<'_>) -> Result<CoverReport> {
        let mut solver = AlgorithmC::fastest(&self.xcc, self.choice);
        let control = hooks.control;
        let mut listener = E2Listener {
            cover: self,
            hooks: &mut hooks,
        };
        let report = solver.run(from, limits, control, &mut listener)?;
        Ok(self.count_report(report))
    }

    fn count_report(&self, report: Report) -> CoverReport {
        CoverReport {
            solutions: report.solutions,
            nodes: report.nodes,
            updates: report.updates,
            end: report.end,
            checkpoint: report.position.map(|p| self.checkpoint(&p)),
            first: report.first.map(|options| self.board(&options)),
        }
    }

    /// A checkpoint's `prefix` is the placements above the searched subtree
    /// (the task's prefix, extended by the levels a split froze); its `path`
    /// holds option numbers of this encoding, which the puzzle determines.
    fn checkpoint(&self, position: &Position) -> Checkpoint {
        Checkpoint {
            engine: Engine::Dlx,
            prefix: self.prefix_of_options(&position.forced),
            path: position.path.clone(),
            solutions: position.solutions,
            nodes: position.nodes,
        }
    }

    /// Every prefix `depth` levels below `base` on this encoding's search (and every
    /// solution above that depth): the subtasks whose counts add up to the
    /// count below `base`. Choices the hints force are levels too.
    pub fn prefixes(&self, base: &Prefix, depth: usize) -> Result<Vec<Prefix>> {
        Ok(self.cut(base, depth)?.0)
    }

    /// [`E2Cover::prefixes`] and the nodes above them that no subtask
    /// visits (see `dlx::cut`).
    pub fn cut(&self, base: &Prefix, depth: usize) -> Result<(Vec<Prefix>, u64)> {
        let Some(forced) = self.options_of_prefix(base)? else {
            return Ok((Vec::new(), 0));
        };
        struct Leaves(Vec<Vec<u32>>);
        impl Listener for Leaves {
            fn leaf(&mut self, options: &[u32]) {
                self.0.push(options.to_vec());
            }
        }
        let mut leaves = Leaves(Vec::new());
        let report =
            AlgorithmC::fastest(&self.xcc, self.choice).enumerate(&forced, depth, &mut leaves)?;
        let nodes = report.nodes.saturating_sub(leaves.0.len() as u64);
        let prefixes = leaves
            .0
            .iter()
            .map(|options| self.prefix_of_options(options))
            .collect();
        Ok((prefixes, nodes))
    }

    /// Knuth's estimate of the tree [`E2Cover::count`] walks below
    /// `prefix`: its nodes as the count reports them (the subtree's root
    /// entry included), and its boards. A prefix no perfect board can have
    /// is an empty tree, as for the count.
    pub fn estimate(&self, prefix: &Prefix, config: &Probes) -> Result<Estimate> {
        crate::estimate::check(config)?;
        let Some(forced) = self.options_of_prefix(prefix)? else {
            return Ok(Estimate::empty(config.probes, 0.0));
        };
        let mut estimate = AlgorithmC::fastest(&self.xcc, self.choice).estimate(&forced, config)?;
        // The run counts its entry into the subtree's root; a probe does
        // not (unless the forced options conflict: then neither does).
        if estimate.nodes > 0.0 || estimate.solutions > 0.0 {
            estimate.nodes += 1.0;
        }
        Ok(estimate)
    }

    /// The first perfect board in search order, if any.
    pub fn first_solution(&self) -> Result<Option<Board>> {
        Ok(self
            .count(&Vec::new(), &Limits::solutions(1), Hooks::default())?
            .first)
    }
}

/// Does `placed` on cell `pos` show 0 exactly on the frame?
fn fits_frame(pos: usize, width: usize, height: usize, placed: Edges) -> bool {
    let (y, x) = (pos / width, pos % width);
    let on_frame = [y == 0, x + 1 == width, y + 1 == height, x == 0];
    (0..4).all(|face| on_frame[face] == (placed[face] == 0))
}

/// Translates engine events into boards, checkpoints and donated prefixes.
struct E2Listener<'c, 'h, 'a> {
    cover: &'c E2Cover,
    hooks: &'h mut Hooks<'a>,
}

impl Listener for E2Listener<'_, '_, '_> {
    const WANTS_SOLUTIONS: bool = true;
    const ACCEPTS_DONATIONS: bool = true;

    fn solution(&mut self, options: &[u32]) {
        if let Some(on_board) = self.hooks.on_board.as_mut() {
            on_board(self.cover.board(options));
        }
    }

    fn checkpoint(&mut self, position: &Position) {
        if let Some(on_checkpoint) = self.hooks.on_checkpoint.as_mut() {
            on_checkpoint(self.cover.checkpoint(position));
        }
    }

    fn donate(&mut self, prefixes: Vec<Vec<u32>>) {
        if let Some(control) = self.hooks.control {
            control.donate(
                prefixes
                    .iter()
                    .map(|options| self.cover.prefix_of_options(options))
                    .collect(),
            );
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::generator::{generate, GenSpec};

    fn solutions(cover: &E2Cover) -> (u64, u64) {
        let r = cover
            .count(&Vec::new(), &Limits::default(), Hooks::default())
            .unwrap();
        assert_eq!(r.end, RunEnd::Finished);
        (r.solutions, r.nodes)
    }

    /// The scan rule walks another tree, never another count: every fill
    /// order against MRV, on boards square and not, with and without
    /// pieces repeated up to rotation, and with a hint.
    #[test]
    fn the_scan_rule_counts_what_mrv_counts_under_every_order() {
        let (mut repeated, mut smaller, mut counted) = (0, 0, 0);
        for (w, h, colours, border, seed) in [
            (4, 4, 3, 2, 1),
            (5, 4, 3, 2, 2),
            (4, 5, 3, 1, 3),
            (5, 5, 4, 2, 4),
            (3, 6, 2, 1, 5),
        ] {
            let generated = generate(&GenSpec::sized(w, h, colours, border, seed)).unwrap();
            let mut puzzle = generated.puzzle;
            if seed == 4 {
                let pos = w + 1;
                let p = generated.solution.placements.as_ref().unwrap()[pos].unwrap();
                puzzle.hints.push(crate::model::Hint {
                    pos,
                    piece: p.piece,
                    rot: p.rot,
                });
            }
            let mrv = E2Cover::new(&puzzle).unwrap();
            repeated += usize::from(mrv.class_of.iter().max() != Some(&(puzzle.cells() - 1)));
            let (count, mrv_nodes) = solutions(&mrv);
            assert!(count >= 1, "{w}x{h} seed {seed}: the generated board");
            counted += 1;
            for order in FillOrder::ALL {
                let (scan, nodes) = solutions(&E2Cover::ordered(&puzzle, order).unwrap());
                assert_eq!(scan, count, "{w}x{h} seed {seed} {order}");
                smaller += usize::from(nodes < mrv_nodes);
            }
        }
        assert_eq!(counted, 5);
        assert!(repeated >= 2, "only {repeated} sets repeat a piece");
        assert!(smaller > 0, "the scan rule's tree was never the smaller");
    }

    /// With no item forced at the root, the scan rule branches on the first
    /// cell of the order: every first-level prefix places there.
    #[test]
    fn the_scan_rule_branches_on_the_orders_next_cell() {
        let puzzle = generate(&GenSpec::sized(6, 5, 5, 3, 9)).unwrap().puzzle;
        for order in FillOrder::ALL {
            let first = order.cells(6, 5, &[])[0];
            let prefixes = E2Cover::ordered(&puzzle, order)
                .unwrap()
                .prefixes(&Vec::new(), 1)
                .unwrap();
            assert!(prefixes.len() > 1, "{order}");
            for prefix in &prefixes {
                assert_eq!(prefix.len(), 1);
                assert_eq!(prefix[0].pos, first, "{order}");
            }
        }
        // (MRV, whose fewest options at the root are a corner's, would never
        // branch on spiral-out's first cell, in the middle of the board.)
    }

    #[test]
    fn frame_rule_is_exact() {
        // 2x2: cell 0 needs 0 on up and left only.
        assert!(fits_frame(0, 2, 2, [0, 1, 1, 0]));
        assert!(!fits_frame(0, 2, 2, [0, 1, 0, 0]));
        assert!(!fits_frame(0, 2, 2, [1, 1, 1, 0]));
        // 1x1: all four faces are frame.
        assert!(fits_frame(0, 1, 1, [0, 0, 0, 0]));
    }

    #[test]
    fn symmetric_piece_has_one_option_per_orientation() {
        let puzzle = Puzzle {
            name: "t".into(),
            width: 3,
            height: 3,
            num_colors: 2,
            pieces: vec![
                [0, 1, 1, 0],
                [0, 1, 1, 1],
                [0, 0, 1, 1],
                [1, 1, 1, 0],
                [1, 1, 1, 1],
                [1, 0, 1, 1],
                [1, 1, 0, 0],
                [1, 1, 0, 1],
                [1, 0, 0, 1],
            ],
            hints: vec![],
        };
        let cover = E2Cover::new(&puzzle).unwrap();
        // The centre takes only piece 4 ([1,1,1,1]), and only once.
        let centre: Vec<Forced> = (0..cover.xcc().options())
            .map(|o| cover.placement(o))
            .filter(|f| f.pos == 4)
            .collect();
        assert_eq!(
            centre,
            vec![Forced {
                pos: 4,
                piece: 4,
                rot: 0
            }]
        );
    }
}
