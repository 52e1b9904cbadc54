//! The depth-first walk: an explicit stack over the plan's levels.
//!
//! Two loops walk the same tree in the same order: the masked walk, for
//! plans with class masks (see `masks`), visits only the classes of a run
//! still in stock; the plain walk tests each candidate of the run against
//! the stock. The plain walk also has a copy with one piece of code per
//! level (`chain`), which plans of up to 256 levels take, and counts on
//! x86-64 take that copy written as machine code for their plan (`jit`).
//! A test holds them to the same counts, nodes and checkpoints.
//!
//! No recursion and no allocation: per level the stack keeps the rest of
//! the level's candidate run, the board keeps the placed words, and the
//! stock keeps how many pieces of each class are left. The current level's
//! cursor lives in registers; it is spilled to the stack only on descent.
//! What to do at a leaf (count, stop at the first board, record a prefix)
//! is a [`Visitor`] chosen at compile time, so the loop carries no dynamic
//! dispatch.
//!
//! Whenever the walk stops early its state is "a node was just placed at
//! level `top` and its subtree is untouched", which is exactly what a
//! checkpoint records and what [`Entry::Placed`] resumes.

use super::candidate::class_of;
use super::masks::{self, free_classes, RunMasks};
use super::open;
use super::plan::Plan;
use super::poll::{Driver, Polls};
use super::state::{Counters, Frame, Run, SearchState};
use crate::search::{Checkpoint, RunEnd};

/// What happens when the walk places its last level. A visitor reads the
/// board, never the stock (the masked walk may hold it in a register).
pub(crate) trait Visitor {
    /// True when `leaf` only adds one to the solutions and never stops the
    /// walk: then a count may run on the open-node walk (`open`), which
    /// counts a level's leaves at once instead of visiting each, and the
    /// chained walk on its compiled copy (`jit`), which adds the one itself.
    const COUNTS_ONLY: bool = false;

    /// Called with levels `0..leaf` placed; returns true to stop the walk.
    fn leaf(&mut self, plan: &Plan, state: &SearchState, counters: &mut Counters) -> bool;

    /// The chained walk (`chain::walk`) with this visitor. Each visitor
    /// implements it by calling `chain::walk` itself, so that the chain,
    /// one function per level, is compiled in this crate only, once per
    /// visitor (see `chain`).
    fn chained(
        &mut self,
        plan: &Plan,
        state: &mut SearchState,
        leaf: usize,
        entry: Entry,
        counters: &mut Counters,
        driver: &mut dyn Polls,
    ) -> (RunEnd, Option<usize>);
}

/// A visitor's [`Visitor::chained`]: the chained walk with `self`.
macro_rules! chained_by_chain {
    () => {
        fn chained(
            &mut self,
            plan: &$crate::backtrack::plan::Plan,
            state: &mut $crate::backtrack::state::SearchState,
            leaf: usize,
            entry: $crate::backtrack::walk::Entry,
            counters: &mut $crate::backtrack::state::Counters,
            driver: &mut dyn $crate::backtrack::poll::Polls,
        ) -> ($crate::search::RunEnd, Option<usize>) {
            $crate::backtrack::chain::walk(plan, state, leaf, entry, counters, driver, self)
        }
    };
}
pub(crate) use chained_by_chain;

/// Counts every leaf.
pub(crate) struct Count;

impl Visitor for Count {
    const COUNTS_ONLY: bool = true;

    #[inline(always)]
    fn leaf(&mut self, _: &Plan, _: &SearchState, counters: &mut Counters) -> bool {
        counters.solutions += 1;
        false
    }

    chained_by_chain!();
}

/// Where a walk starts.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Entry {
    /// Nothing placed: start at level 0.
    Fresh,
    /// Levels `0..=top` placed (by a replay); the subtree of `top` is next.
    Placed(usize),
}

/// Walks the subtree from `entry` down to `leaf` levels. Returns how it
/// ended and, unless it finished, the level just placed when it stopped.
///
/// The loop indexes without bounds checks; each access carries its proof.
/// The proofs rest on three facts established when the plan is built:
/// every offset is at most `candidates.len()`; every candidate's class is
/// below `stock.len()`; and a key index stays inside its level's table,
/// because every colour on the board is at most `num_colors` (puzzles are
/// validated), so with `r` runs per key `Σ colour_j · r·base^j ≤ r·(base^n − 1)`
/// while the table holds `r·base^n + 1` offsets.
pub(crate) fn walk<V: Visitor, F: FnMut(&Checkpoint)>(
    plan: &Plan,
    state: &mut SearchState,
    leaf: usize,
    entry: Entry,
    counters: &mut Counters,
    driver: &mut Driver<'_, F>,
    visitor: &mut V,
) -> (RunEnd, Option<usize>) {
    match (&plan.masks, &plan.open) {
        (Some(masks), Some(open)) if V::COUNTS_ONLY => {
            open::walk(plan, masks, open, state, leaf, entry, counters, driver)
        }
        (Some(masks), _) => walk_masked(plan, masks, state, leaf, entry, counters, driver, visitor),
        (None, _) if plan.chained && plan.strided.is_some() => {
            visitor.chained(plan, state, leaf, entry, counters, driver)
        }
        (None, _) => walk_runs(plan, state, leaf, entry, counters, driver, visitor),
    }
}

/// How a leg of the masked walk ends when it was handed a mark (see
/// [`masked_leg`]): as any walk ends, or by yielding after its first poll
/// that let it go on, with levels `0..=top` placed.
pub(crate) enum Leg {
    End(RunEnd, Option<usize>),
    Yield(usize),
}

/// The masked walk of a count from `entry` up to `mark` nodes, where it
/// polls its driver as the whole walk would, then yields unless it was
/// told to stop. The open-node walk runs these short legs around each of
/// its driver's marks, so that every poll, checkpoint, split and budget
/// stop falls exactly where the masked walk puts it.
///
/// Sets whose classes each hold one piece only (`UNIQUE`), and `mark`
/// above `counters.nodes`.
#[inline(always)]
#[allow(clippy::too_many_arguments)]
pub(crate) fn masked_leg<F: FnMut(&Checkpoint), const TWICE: bool>(
    plan: &Plan,
    masks: &RunMasks,
    state: &mut SearchState,
    leaf: usize,
    entry: Entry,
    counters: &mut Counters,
    driver: &mut Driver<'_, F>,
    mark: u64,
) -> Leg {
    debug_assert!(mark > counters.nodes);
    walk_masked_body::<Count, F, true, TWICE>(
        plan,
        masks,
        state,
        leaf,
        entry,
        counters,
        driver,
        &mut Count,
        Some(mark),
    )
}

/// The walk that tests each candidate of a run against the stock: for
/// plans whose runs are too long for masks.
fn walk_runs<V: Visitor, F: FnMut(&Checkpoint)>(
    plan: &Plan,
    state: &mut SearchState,
    leaf: usize,
    entry: Entry,
    counters: &mut Counters,
    driver: &mut Driver<'_, F>,
    visitor: &mut V,
) -> (RunEnd, Option<usize>) {
    assert!(leaf >= 1 && leaf <= plan.levels.len());
    assert!(state.runs.len() >= leaf);
    let levels = &plan.levels[..leaf];
    let offsets = plan.tables.offsets();
    let candidates = plan.tables.candidates();
    // The three stacks as plain slices (pointer and length in registers):
    // through `state` the compiler would reload each vector's pointer after
    // every store, since a store into one buffer might change another's
    // header. They are rebound after every call that takes `state`.
    let (mut board, mut stock, mut runs) = (
        state.board.as_mut_slice(),
        state.stock.as_mut_slice(),
        state.runs.as_mut_slice(),
    );
    macro_rules! rebind {
        () => {
            (board, stock, runs) = (
                state.board.as_mut_slice(),
                state.stock.as_mut_slice(),
                state.runs.as_mut_slice(),
            )
        };
    }
    // Nodes are counted down to the driver's next mark, which keeps one
    // register free: `nodes = mark - countdown`. A mark is always at least
    // one node ahead, so the count never starts at zero.
    let mut mark = driver.next_mark(counters.nodes).max(counters.nodes + 1);
    let mut countdown = mark - counters.nodes;

    let (mut level, mut resume) = match entry {
        Entry::Fresh => (0, false),
        Entry::Placed(top) => (top, true),
    };
    let mut here = &levels[level];
    // The word on the current level's cell, kept in a register for the
    // next level's hot key term.
    let mut placed = board[here.pos as usize];
    let (mut i, mut end) = if resume {
        (runs[level].next, runs[level].end)
    } else {
        let k = plan.key_index(here, board);
        (offsets[k], offsets[k + 1])
    };

    loop {
        if !resume {
            // Find the next placement at `level`, backtracking as needed.
            loop {
                if i < end {
                    // SAFETY: i < end ≤ candidates.len() (offsets never exceed it).
                    let word = unsafe { *candidates.get_unchecked(i as usize) };
                    i += 1;
                    let class = class_of(word);
                    // SAFETY: every candidate's class is below stock.len().
                    let left = unsafe { stock.get_unchecked_mut(class) };
                    if *left == 0 {
                        continue;
                    }
                    *left -= 1;
                    // SAFETY: a level's pos is a cell of the board.
                    unsafe { *board.get_unchecked_mut(here.pos as usize) = word };
                    placed = word;
                    countdown -= 1;
                    if countdown == 0 {
                        runs[level] = Run { next: i, end };
                        counters.nodes = mark;
                        let stop = driver.poll(plan, state, level, counters);
                        rebind!();
                        if let Some(stop) = stop {
                            return (stop, Some(level));
                        }
                        // A split may have cut this level's run short.
                        end = runs[level].end;
                        mark = driver.next_mark(counters.nodes).max(counters.nodes + 1);
                        countdown = mark - counters.nodes;
                    }
                    break;
                }
                if level == 0 {
                    counters.nodes = mark - countdown;
                    return (RunEnd::Finished, None);
                }
                level -= 1;
                // SAFETY: level < leaf ≤ levels.len(), and the stack arrays
                // hold at least `leaf` entries (asserted above).
                unsafe {
                    here = levels.get_unchecked(level);
                    let placed = *board.get_unchecked(here.pos as usize);
                    *stock.get_unchecked_mut(class_of(placed)) += 1;
                    Run { next: i, end } = *runs.get_unchecked(level);
                }
            }
        }
        resume = false;
        if level + 1 == leaf {
            counters.nodes = mark - countdown;
            let stop = visitor.leaf(plan, state, counters);
            rebind!();
            if stop {
                runs[level] = Run { next: i, end };
                return (RunEnd::FoundFirst, Some(level));
            }
            stock[class_of(placed)] += 1;
            continue;
        }
        // SAFETY: level + 1 < leaf ≤ levels.len() ≤ stack lengths; the key
        // index and its successor lie inside the level's table (see above).
        unsafe {
            *runs.get_unchecked_mut(level) = Run { next: i, end };
            level += 1;
            here = levels.get_unchecked(level);
            let k = here.key_index_unchecked(board, placed);
            i = *offsets.get_unchecked(k);
            end = *offsets.get_unchecked(k + 1);
        }
    }
}

/// The masked walk (see `masks`), compiled twice: with the bit
/// instructions of x86-64 v3 (`popcnt`, `tzcnt`, `bzhi`) when the CPU has
/// them, chosen at run time, and portable otherwise, so one binary runs
/// everywhere.
#[allow(clippy::too_many_arguments)]
fn walk_masked<V: Visitor, F: FnMut(&Checkpoint)>(
    plan: &Plan,
    masks: &RunMasks,
    state: &mut SearchState,
    leaf: usize,
    entry: Entry,
    counters: &mut Counters,
    driver: &mut Driver<'_, F>,
    visitor: &mut V,
) -> (RunEnd, Option<usize>) {
    // Sets whose every class holds one piece need no stock counts (the
    // free bit is the count), and runs that list no class twice need no
    // second-turn bookkeeping: each case gets its own copy of the loop.
    let unique = plan.stock.iter().all(|&left| left <= 1);
    let twice = masks.any_twice();
    macro_rules! run {
        ($unique:literal, $twice:literal) => {{
            #[cfg(target_arch = "x86_64")]
            if std::arch::is_x86_feature_detected!("popcnt")
                && std::arch::is_x86_feature_detected!("bmi1")
                && std::arch::is_x86_feature_detected!("bmi2")
            {
                // SAFETY: the CPU has the features this copy is compiled for.
                return unsafe {
                    walk_masked_bmi::<V, F, $unique, $twice>(
                        plan, masks, state, leaf, entry, counters, driver, visitor,
                    )
                };
            }
            walk_masked_body::<V, F, $unique, $twice>(
                plan, masks, state, leaf, entry, counters, driver, visitor, None,
            )
            .ended()
        }};
    }
    match (unique, twice) {
        (true, false) => run!(true, false),
        (true, true) => run!(true, true),
        (false, false) => run!(false, false),
        (false, true) => run!(false, true),
    }
}

/// [`walk_masked_body`] compiled for CPUs with `popcnt` and BMI1/2.
///
/// # Safety
/// The CPU must have those features.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "popcnt,bmi1,bmi2")]
#[allow(clippy::too_many_arguments)]
unsafe fn walk_masked_bmi<
    V: Visitor,
    F: FnMut(&Checkpoint),
    const UNIQUE: bool,
    const TWICE: bool,
>(
    plan: &Plan,
    masks: &RunMasks,
    state: &mut SearchState,
    leaf: usize,
    entry: Entry,
    counters: &mut Counters,
    driver: &mut Driver<'_, F>,
    visitor: &mut V,
) -> (RunEnd, Option<usize>) {
    walk_masked_body::<V, F, UNIQUE, TWICE>(
        plan, masks, state, leaf, entry, counters, driver, visitor, None,
    )
    .ended()
}

impl Leg {
    /// The end of a walk that was handed no mark, which never yields.
    fn ended(self) -> (RunEnd, Option<usize>) {
        match self {
            Leg::End(end, top) => (end, top),
            Leg::Yield(_) => unreachable!("only a walk handed a mark yields"),
        }
    }
}

/// The masked walk itself: a level visits exactly the classes in stock of
/// its run, in run order, so it never tests a used piece.
///
/// Same contract and tree as [`walk_runs`]. Its invariant: `free` holds
/// the classes with a piece left in `stock`, and a level's frame holds its
/// run's classes and the untried ones among those free when the level's
/// turn came. A set bit of a run's classes is a class of one of its
/// entries, so its rank is below the run's length and `start + rank` is a
/// candidate index.
///
/// `UNIQUE` (every class holds one piece): the loop leaves `stock` alone,
/// since the free bit is the count, and writes it back from `free` before
/// the driver or a caller can read it. `TWICE` (some run lists a class
/// twice): the loop tracks a class's second turn.
///
/// `handoff`: the first mark, for a leg of the open-node walk, which then
/// yields after that poll (see [`masked_leg`]); `None` runs to the end.
#[inline(always)]
#[allow(clippy::too_many_arguments)]
fn walk_masked_body<V: Visitor, F: FnMut(&Checkpoint), const UNIQUE: bool, const TWICE: bool>(
    plan: &Plan,
    masks: &RunMasks,
    state: &mut SearchState,
    leaf: usize,
    entry: Entry,
    counters: &mut Counters,
    driver: &mut Driver<'_, F>,
    visitor: &mut V,
    handoff: Option<u64>,
) -> Leg {
    assert!(leaf >= 1 && leaf <= plan.levels.len());
    assert!(state.runs.len() >= leaf && state.frames.len() >= leaf);
    let levels = &plan.levels[..leaf];
    let offsets = plan.tables.offsets();
    let candidates = plan.tables.candidates();
    let runs = masks.runs();
    assert_eq!(runs.len() + 1, offsets.len());
    let (mut level, mut resume) = match entry {
        Entry::Fresh => (0, false),
        Entry::Placed(top) => (top, true),
    };
    // A leg of the open walk is handed its frames already laid.
    let mut free = if handoff.is_some() {
        free_classes(&state.stock)
    } else {
        lay_frames(plan, masks, state, resume.then_some(level))
    };
    let (mut board, mut stock, mut frames) = (
        state.board.as_mut_slice(),
        state.stock.as_mut_slice(),
        state.frames.as_mut_slice(),
    );
    macro_rules! rebind {
        () => {
            (board, stock, frames) = (
                state.board.as_mut_slice(),
                state.stock.as_mut_slice(),
                state.frames.as_mut_slice(),
            )
        };
    }
    let mut mark =
        handoff.unwrap_or_else(|| driver.next_mark(counters.nodes).max(counters.nodes + 1));
    let mut countdown = mark - counters.nodes;

    let mut here = &levels[level];
    let mut placed = board[here.pos as usize];
    let Frame {
        mut rest,
        mut classes,
        twice: mut two,
        mut start,
        mut second,
    } = if resume {
        frames[level]
    } else {
        let run = runs[plan.key_index(here, board)];
        Frame {
            rest: run.classes & free,
            classes: run.classes,
            twice: run.twice,
            start: run.start,
            second: 0,
        }
    };
    macro_rules! frame {
        () => {
            Frame {
                rest,
                classes,
                twice: two,
                start,
                second,
            }
        };
    }

    loop {
        if !resume {
            // Take the next free class at `level`, backtracking as needed.
            loop {
                if rest != 0 {
                    let bit = rest & rest.wrapping_neg();
                    let index = if TWICE {
                        let index = start + masks::entry(classes, two, bit) + second;
                        if two & bit == 0 || second == 1 {
                            rest ^= bit;
                            second = 0;
                        } else {
                            // The class's second turn is next.
                            second = 1;
                        }
                        index
                    } else {
                        rest ^= bit;
                        start + masks::entry(classes, 0, bit)
                    };
                    // SAFETY: `index` is a candidate of the run (see above);
                    // classes are below stock.len(); a level's pos is a cell.
                    let word = unsafe { *candidates.get_unchecked(index as usize) };
                    unsafe {
                        if UNIQUE {
                            free ^= bit;
                        } else {
                            let left = stock.get_unchecked_mut(class_of(word));
                            *left -= 1;
                            if *left == 0 {
                                free ^= bit;
                            }
                        }
                        *board.get_unchecked_mut(here.pos as usize) = word;
                    }
                    placed = word;
                    countdown -= 1;
                    if countdown == 0 {
                        frames[level] = frame!();
                        counters.nodes = mark;
                        if UNIQUE {
                            write_stock(stock, free);
                        }
                        sync_runs(plan, state, level);
                        let stop = driver.poll(plan, state, level, counters);
                        if stop.is_none() {
                            // A split cuts the runs of the levels it gave from.
                            for l in 0..=level {
                                if state.given_away[l] {
                                    state.frames[l].rest = 0;
                                    state.frames[l].second = 0;
                                }
                            }
                        }
                        rebind!();
                        if let Some(stop) = stop {
                            return Leg::End(stop, Some(level));
                        }
                        if handoff.is_some() {
                            // Frames, stock and runs are as the poll left them.
                            return Leg::Yield(level);
                        }
                        (rest, second) = (frames[level].rest, frames[level].second);
                        mark = driver.next_mark(counters.nodes).max(counters.nodes + 1);
                        countdown = mark - counters.nodes;
                    }
                    break;
                }
                if level == 0 {
                    counters.nodes = mark - countdown;
                    if UNIQUE {
                        write_stock(stock, free);
                    }
                    return Leg::End(RunEnd::Finished, None);
                }
                level -= 1;
                // SAFETY: level < leaf ≤ the stack lengths (asserted above).
                unsafe {
                    here = levels.get_unchecked(level);
                    let class = class_of(*board.get_unchecked(here.pos as usize));
                    if UNIQUE {
                        free |= 1 << class;
                    } else {
                        let left = stock.get_unchecked_mut(class);
                        if *left == 0 {
                            free |= 1 << class;
                        }
                        *left += 1;
                    }
                    Frame {
                        rest,
                        classes,
                        twice: two,
                        start,
                        second,
                    } = *frames.get_unchecked(level);
                }
            }
        }
        resume = false;
        if level + 1 == leaf {
            counters.nodes = mark - countdown;
            let stop = visitor.leaf(plan, state, counters);
            rebind!();
            if stop {
                frames[level] = frame!();
                if UNIQUE {
                    write_stock(stock, free);
                }
                sync_runs(plan, state, level);
                return Leg::End(RunEnd::FoundFirst, Some(level));
            }
            let class = class_of(placed);
            if UNIQUE {
                free |= 1 << class;
            } else {
                if stock[class] == 0 {
                    free |= 1 << class;
                }
                stock[class] += 1;
            }
            continue;
        }
        // SAFETY: level + 1 < leaf ≤ the stack lengths; the key index lies
        // inside the level's table (see `walk_runs`), and `runs` has one
        // word per offsets index but the last.
        unsafe {
            *frames.get_unchecked_mut(level) = frame!();
            level += 1;
            here = levels.get_unchecked(level);
            let run = runs.get_unchecked(here.key_index_unchecked(board, placed));
            start = run.start;
            classes = run.classes;
            if TWICE {
                two = run.twice;
            }
            rest = classes & free;
            second = 0;
        }
    }
}

/// The stock of a set whose classes hold one piece each, from its free bits.
#[cold]
pub(crate) fn write_stock(stock: &mut [u16], free: u64) {
    for (class, left) in stock.iter_mut().enumerate() {
        *left = (free >> class & 1) as u16;
    }
}

/// Sets up a masked walk and returns its `free` classes: for a walk that
/// resumes with levels `0..=top` placed (by a replay, which left each
/// level's untried run in `runs`), each of those levels' frame, from the
/// stock as it stood when the level's turn came.
pub(crate) fn lay_frames(
    plan: &Plan,
    masks: &RunMasks,
    state: &mut SearchState,
    top: Option<usize>,
) -> u64 {
    let placed = top.map_or(0, |t| t + 1);
    let mut stock = state.stock.clone();
    for here in &plan.levels[..placed] {
        stock[class_of(state.board[here.pos as usize])] += 1;
    }
    let offsets = plan.tables.offsets();
    let candidates = plan.tables.candidates();
    for (level, here) in plan.levels[..placed].iter().enumerate() {
        let k = plan.key_index(here, &state.board);
        let start = offsets[k];
        let Run { next, end } = state.runs[level];
        let untried = candidates[next as usize..end as usize]
            .iter()
            .fold(0u64, |m, &w| m | 1 << class_of(w));
        // The next entry may be the second turn of the class just placed.
        let placed = class_of(state.board[here.pos as usize]);
        let second = (next < end && class_of(candidates[next as usize]) == placed) as u32;
        state.frames[level] = Frame {
            rest: untried & free_classes(&stock),
            classes: masks.runs()[k].classes,
            twice: masks.runs()[k].twice,
            start,
            second,
        };
        stock[class_of(state.board[here.pos as usize])] -= 1;
    }
    debug_assert_eq!(stock, state.stock);
    free_classes(&state.stock)
}

/// Writes each placed level's untried run `next..end` into `runs`, which
/// checkpoints and splits read: the masked walk keeps only its frames.
pub(crate) fn sync_runs(plan: &Plan, state: &mut SearchState, top: usize) {
    let offsets = plan.tables.offsets();
    let candidates = plan.tables.candidates();
    for level in 0..=top {
        let here = &plan.levels[level];
        let k = plan.key_index(here, &state.board);
        let (start, end) = (offsets[k], offsets[k + 1]);
        let word = state.board[here.pos as usize];
        let index = candidates[start as usize..end as usize]
            .iter()
            .position(|&c| c == word)
            .expect("a placed word is in its level's run") as u32;
        let next = start + index + 1;
        state.runs[level] = Run {
            next,
            end: if state.given_away[level] { next } else { end },
        };
    }
}

#[cfg(test)]
mod tests {
    //! The five walks of a count against one another: the open-node walk,
    //! the masked walk, and the walk that tests every candidate in its
    //! compiled, chained and plain copies give the same counts, nodes and
    //! checkpoints, poll and split at the same nodes, and each resumes the
    //! others' checkpoints.
    use super::super::Backtracker;
    use crate::generator::{generate, GenSpec};
    use crate::model::Puzzle;
    use crate::order::FillOrder;
    use crate::search::{Checkpoint, Control, Limits, Prefix, POLL_INTERVAL};

    fn gen(w: usize, h: usize, colours: u8, border: u8, seed: u64) -> Puzzle {
        generate(&GenSpec::sized(w, h, colours, border, seed))
            .unwrap()
            .puzzle
    }

    /// A backtracker for each walk, when the plan has masks: as planned
    /// (the open walk when it can run the plan), masked, compiled (where
    /// this machine has the compiled walk, else chained), chained and plain.
    fn walks(puzzle: &Puzzle, order: FillOrder) -> Option<[Backtracker; 5]> {
        let planned = Backtracker::new(puzzle, order, &Prefix::new()).unwrap();
        planned.plan.masks.as_ref()?;
        let mut masked = planned.clone();
        masked.plan.open = None;
        let mut compiled = masked.clone();
        compiled.plan.masks = None;
        assert!(compiled.plan.chained);
        let mut chained = compiled.clone();
        chained.plan.compiled.enabled = false;
        let mut plain = chained.clone();
        plain.plan.chained = false;
        Some([planned, masked, compiled, chained, plain])
    }

    #[test]
    fn every_walk_counts_checkpoints_and_resumes_alike() {
        let (mut compared, mut open, mut with_twice) = (0, 0, 0);
        for seed in 1..=4 {
            for (w, h, colours) in [(4, 4, 4), (5, 4, 5), (4, 5, 5), (4, 4, 5), (5, 5, 7)] {
                let puzzle = gen(w, h, colours, 2, seed);
                for order in FillOrder::ALL {
                    let Some(mut walks) = walks(&puzzle, order) else {
                        continue;
                    };
                    compared += 1;
                    open += walks[0].plan.open.is_some() as usize;
                    let masks = walks[0].plan.masks.as_ref().unwrap();
                    with_twice += (walks[0].plan.open.is_some() && masks.any_twice()) as usize;
                    let at = format!("{w}x{h} {seed} {order}");
                    let whole = walks[4].count(&Limits::none());
                    for walk in &mut walks[..4] {
                        assert_eq!(walk.count(&Limits::none()), whole, "{at}");
                    }
                    // Stopped at the same node: the same checkpoint, and
                    // each walk resumes it to the same totals.
                    for budget in [1, 7, whole.nodes / 3, whole.nodes / 2 + 1] {
                        if budget >= whole.nodes {
                            continue;
                        }
                        let stopped = walks[4].count(&Limits::nodes(budget));
                        for walk in &mut walks[..4] {
                            assert_eq!(
                                walk.count(&Limits::nodes(budget)),
                                stopped,
                                "{at} at {budget}"
                            );
                        }
                        let cp = stopped.checkpoint.expect("stopped early");
                        for walk in &mut walks {
                            let rest = walk.resume(&cp, &Limits::none(), |_| {}).unwrap();
                            assert_eq!(
                                (rest.solutions, rest.nodes),
                                (whole.solutions, whole.nodes),
                                "{at} resumed at {budget}"
                            );
                        }
                    }
                    // Depth-cut walks (prefixes, per-depth counts) agree too.
                    let depths = walks[4].nodes_per_depth(6);
                    let prefixes = walks[4].prefixes(3);
                    for walk in &mut walks[..4] {
                        assert_eq!(walk.nodes_per_depth(6), depths, "{at}");
                        assert_eq!(walk.prefixes(3), prefixes, "{at}");
                    }
                }
            }
        }
        assert!(compared >= 60, "only {compared} plans had masks");
        assert!(open >= 40, "only {open} plans ran the open walk");
        assert!(with_twice > 0, "no open plan listed a class twice in a run");
    }

    /// What a count hands its driver: every checkpoint, and the prefixes
    /// given away at the splits it is asked for (at the first poll, then
    /// at every other checkpoint), run to the end through its budget stops.
    fn driven(
        walk: &mut Backtracker,
        budget: u64,
        every: u64,
    ) -> (Vec<Checkpoint>, Vec<Prefix>, u64, u64) {
        let control = Control::new();
        let limits = Limits {
            max_nodes: Some(budget),
            checkpoint_every: Some(every),
            control: Some(&control),
        };
        control.request_split();
        let mut checkpoints = Vec::new();
        let mut on_checkpoint = |cp: &Checkpoint| {
            checkpoints.push(cp.clone());
            if checkpoints.len() % 2 == 0 {
                control.request_split();
            }
        };
        let mut report = walk.count_with(&limits, &mut on_checkpoint);
        while let Some(cp) = report.checkpoint.take() {
            on_checkpoint(&cp);
            report = walk.resume(&cp, &limits, &mut on_checkpoint).unwrap();
        }
        (
            checkpoints,
            control.take_donated(),
            report.solutions,
            report.nodes,
        )
    }

    #[test]
    fn every_walk_polls_splits_and_checkpoints_where_the_plain_walk_does() {
        let (mut cases, mut checkpoints, mut given) = (0, 0, 0);
        for seed in 1..=3 {
            let puzzle = gen(6, 6, 10, 2, seed);
            for order in [
                FillOrder::RowMajor,
                FillOrder::ColumnMajor,
                FillOrder::RowMajorBottomUp,
            ] {
                let Some([mut open, mut masked, mut compiled, mut chained, mut plain]) =
                    walks(&puzzle, order)
                else {
                    continue;
                };
                if open.plan.open.is_none() {
                    continue;
                }
                let whole = plain.count(&Limits::none());
                if whole.nodes < 8 * POLL_INTERVAL {
                    continue;
                }
                cases += 1;
                let at = format!("6x6 {seed} {order}");
                let (budget, every) = (3 * POLL_INTERVAL + 17, POLL_INTERVAL / 3 + 5);
                let a = driven(&mut plain, budget, every);
                for walk in [&mut open, &mut masked, &mut compiled, &mut chained] {
                    assert_eq!(driven(walk, budget, every), a, "{at}");
                }
                checkpoints += a.0.len();
                given += a.1.len();
                // What was kept and what was given away make the whole.
                let (mut solutions, mut nodes) = (a.2, a.3);
                for prefix in &a.1 {
                    let part = Backtracker::new(&puzzle, order, prefix)
                        .unwrap()
                        .count(&Limits::none());
                    solutions += part.solutions;
                    nodes += part.nodes;
                }
                assert_eq!((solutions, nodes), (whole.solutions, whole.nodes), "{at}");
            }
        }
        assert!(cases >= 3, "only {cases} puzzles were large enough");
        assert!(checkpoints >= 30, "only {checkpoints} checkpoints");
        assert!(given >= 6, "only {given} prefixes given away");
    }
}
