//! The open-node walk: how a count visits the same tree with fewer
//! unpredictable branches.
//!
//! A depth-first walk spends most of its time on one branch it cannot
//! predict: does the piece just placed leave the next cell anything? About
//! a third of a count's nodes leave nothing, and which ones do is noise to
//! the branch predictor. The open-node walk asks that question for all the
//! children of a node at once, when the node is *expanded*: each child's
//! run for the next cell is looked up straight away and the child is
//! written to an explicit stack of *open* nodes, the stack pointer moving
//! on only when that run still has a piece in stock. The test becomes an
//! add, the children's look-ups are independent of one another, and a
//! dead child costs a store instead of a descent and a return. A node's
//! children are counted with one popcount; at the last level they are the
//! solutions and are never pushed.
//!
//! An open node is one 16-byte entry: the classes still in stock after its
//! placement (the masked walk's `free` word), the index of the next cell's
//! run with that level in the top bits, and the placed word, which is
//! written to the board when the node is popped. Children are pushed in
//! descending class order, so they are popped, and their subtrees walked,
//! in the run order of every other walk. The board then always holds the
//! path to the node being expanded: every node above it wrote its own cell
//! when it was popped, and nothing popped since wrote a cell that high.
//!
//! It walks the masked walk's tree node for node, and the driver sees no
//! difference at all. A poll must come exactly at its mark, at a node the
//! masked walk would be visiting, and must read that walk's state
//! (checkpoints, splits); the open walk counts a node's children before it
//! visits them. So when the count is within one expansion of the next mark,
//! the open walk stops at the node it has just popped, works out what the
//! masked walk would have counted there (its own count, less the siblings
//! still ahead on the path, which it counted early), lays down the masked
//! walk's state for that path, and lets the masked walk run the few
//! hundred nodes up to the mark and poll ([`masked_leg`]). If the driver
//! lets it go on, the open walk picks up again from the masked walk's
//! state, as it does when resuming a checkpoint. Counts, nodes,
//! checkpoints, splits and budget stops are therefore those of the masked
//! walk, to the node (a test holds them equal), and the open walk never
//! polls itself.
//!
//! Because each poll is such a hand-over, the open walk polls eight times
//! less often than the masked walk ([`OPEN_POLL_INTERVAL`] nodes rather
//! than [`crate::search::POLL_INTERVAL`]); the budget's end and the
//! periodic checkpoints are marks in both walks, so they still fall on the
//! same nodes. Only the node at which an asynchronous stop or split request
//! is heard moves, and that node was never fixed.
//!
//! It runs counts on sets whose classes each hold one piece (every real
//! set: the free word is then the whole stock) and that have masks. Sets
//! that repeat pieces, and visitors that must see each board, keep the
//! masked walk.

use super::candidate::class_of;
use super::masks::{self, RunMasks};
use super::plan::Plan;
use super::poll::Driver;
use super::state::{Counters, Frame, SearchState};
use super::walk::{lay_frames, masked_leg, sync_runs, write_stock, Entry, Leg};
use crate::search::{Checkpoint, RunEnd, OPEN_POLL_INTERVAL};

/// Bits of an open node's `key` that index the run; the level sits above.
const KEY_BITS: u32 = 24;
const KEY_MASK: u32 = (1 << KEY_BITS) - 1;

/// One open node: a placement whose subtree is still to walk.
#[derive(Debug, Clone, Copy, Default)]
#[repr(C, align(16))]
pub(crate) struct Open {
    /// The classes in stock once the node is placed.
    free: u64,
    /// `level << KEY_BITS | run`: the level the node's children fill and
    /// the index of their run.
    key: u32,
    /// The word placed on the level above `level` (0 for the root).
    word: u32,
}

/// What the open walk needs beside the plan, fixed when the plan is made.
#[derive(Debug, Clone)]
pub(crate) struct OpenPlan {
    /// Per level, the cell of the level above, where a popped node writes
    /// its word; level 0 has the dummy cell past the board, which stays 0.
    prev_pos: Vec<u32>,
    /// The most candidates of one run: the most children of one node.
    most_turns: u64,
}

impl OpenPlan {
    /// The open walk's part of a counting plan, or `None` when it cannot
    /// run one: no masks, a class with two pieces or more, or a run index
    /// or a level count too large for an open node's key.
    pub(crate) fn new(
        masks: Option<&RunMasks>,
        stock: &[u16],
        level_pos: &[u32],
        dummy: u32,
    ) -> Option<OpenPlan> {
        let masks = masks?;
        let fits = masks.runs().len() <= KEY_MASK as usize && level_pos.len() < 1 << 8;
        if !fits || stock.iter().any(|&left| left > 1) {
            return None;
        }
        Some(OpenPlan {
            prev_pos: std::iter::once(dummy)
                .chain(level_pos.iter().copied())
                .collect(),
            most_turns: u64::from(masks.most_turns().max(1)),
        })
    }

    /// Room for every node a walk can hold open: at most one run's
    /// candidates per level (children of one node are all pushed before
    /// any deeper node is), plus the root.
    pub(crate) fn stack_len(&self) -> usize {
        self.prev_pos.len() * self.most_turns as usize + 1
    }
}

/// Everything one open walk reads and drives, passed as one.
struct Walk<'w, 'd, F: FnMut(&Checkpoint)> {
    plan: &'w Plan,
    masks: &'w RunMasks,
    open: &'w OpenPlan,
    state: &'w mut SearchState,
    leaf: usize,
    counters: &'w mut Counters,
    driver: &'w mut Driver<'d, F>,
}

/// Counts the subtree from `entry` down to `leaf` levels (the [`Count`]
/// visitor of `walk`): same contract, tree, polls and result as the masked
/// walk (see the module doc).
///
/// [`Count`]: super::walk::Count
#[allow(clippy::too_many_arguments)]
pub(crate) fn walk<F: FnMut(&Checkpoint)>(
    plan: &Plan,
    masks: &RunMasks,
    open: &OpenPlan,
    state: &mut SearchState,
    leaf: usize,
    entry: Entry,
    counters: &mut Counters,
    driver: &mut Driver<'_, F>,
) -> (RunEnd, Option<usize>) {
    assert!(leaf >= 1 && leaf <= plan.levels.len());
    assert!(open.prev_pos.len() == plan.levels.len() + 1);
    assert!(state.open.len() >= open.stack_len());
    let twice = masks.any_twice();
    let mut walk = Walk {
        plan,
        masks,
        open,
        state,
        leaf,
        counters,
        driver,
    };
    #[cfg(target_arch = "x86_64")]
    if std::arch::is_x86_feature_detected!("popcnt")
        && std::arch::is_x86_feature_detected!("bmi1")
        && std::arch::is_x86_feature_detected!("bmi2")
        && std::arch::is_x86_feature_detected!("lzcnt")
    {
        // SAFETY: the CPU has the features these copies are compiled for.
        return unsafe {
            if twice {
                walk_bmi::<F, true>(&mut walk, entry)
            } else {
                walk_bmi::<F, false>(&mut walk, entry)
            }
        };
    }
    if twice {
        walk_legs::<F, true>(&mut walk, entry)
    } else {
        walk_legs::<F, false>(&mut walk, entry)
    }
}

/// [`walk_legs`] compiled for CPUs with `popcnt`, BMI1/2 and `lzcnt`.
///
/// # Safety
/// The CPU must have those features.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "popcnt,bmi1,bmi2,lzcnt")]
unsafe fn walk_bmi<F: FnMut(&Checkpoint), const TWICE: bool>(
    walk: &mut Walk<'_, '_, F>,
    entry: Entry,
) -> (RunEnd, Option<usize>) {
    walk_legs::<F, TWICE>(walk, entry)
}

/// Alternates open runs and masked legs until the walk ends: lay the open
/// stack, expand nodes until the next mark is near, hand the path to the
/// masked walk, and lay the stack again from where that leg yields.
#[inline(always)]
fn walk_legs<F: FnMut(&Checkpoint), const TWICE: bool>(
    walk: &mut Walk<'_, '_, F>,
    mut entry: Entry,
) -> (RunEnd, Option<usize>) {
    let Walk {
        plan,
        masks,
        open,
        ref mut state,
        leaf,
        ref mut counters,
        ref mut driver,
    } = *walk;
    // A resumed path has its runs from a replay; a leg yields its frames.
    let mut laid = false;
    loop {
        let mark = driver
            .next_mark_every(counters.nodes, OPEN_POLL_INTERVAL)
            .max(counters.nodes + 1);
        let top = lay::<TWICE>(plan, masks, state, leaf, entry, laid, counters);
        // A node adds at most `most_turns` to the count, so below this
        // the count cannot pass the mark before the next pop.
        let near = mark.saturating_sub(open.most_turns);
        let Some((level, free)) =
            expand::<TWICE>(plan, masks, open, state, leaf, top, near, counters)
        else {
            return (RunEnd::Finished, None);
        };
        // Hand the path to the masked walk: the node just popped is placed
        // on `level - 1` with its subtree untouched, which is how the
        // masked walk resumes. Its count leaves out the siblings still
        // ahead, which this walk has already counted.
        write_stock(&mut state.stock, free);
        let at = match level.checked_sub(1) {
            None => Entry::Fresh,
            Some(top) => {
                sync_runs(plan, state, top);
                lay_frames(plan, masks, state, Some(top));
                counters.nodes -= pending::<TWICE>(&state.frames[..=top]);
                Entry::Placed(top)
            }
        };
        match masked_leg::<F, TWICE>(plan, masks, state, leaf, at, counters, driver, mark) {
            Leg::End(end, top) => return (end, top),
            Leg::Yield(top) => (entry, laid) = (Entry::Placed(top), true),
        }
    }
}

/// The candidates a level has still to try, from its frame: every turn of
/// every class in `rest`, less the first turn of the lowest when `second`.
#[inline(always)]
fn untried<const TWICE: bool>(frame: &Frame) -> u64 {
    let turns = frame.rest.count_ones()
        + if TWICE {
            (frame.rest & frame.twice).count_ones()
        } else {
            0
        };
    u64::from(turns - frame.second)
}

/// The siblings still ahead on a path, over the frames of its levels.
fn pending<const TWICE: bool>(frames: &[Frame]) -> u64 {
    frames.iter().map(untried::<TWICE>).sum()
}

/// Lays the open stack for a walk from `entry` and returns its height. For
/// a path (`Entry::Placed(top)`: the board, stock and runs as a replay
/// leaves them, and the frames too when `laid`, as a masked leg does) it pushes, level by level from the top of the
/// board down, the siblings each level has still to try, then the node on
/// `top`, so that they are popped in the masked walk's order; the siblings
/// are counted now, as an expansion counts its children (at the last level
/// they are solutions, and so is a path that ends there).
fn lay<const TWICE: bool>(
    plan: &Plan,
    masks: &RunMasks,
    state: &mut SearchState,
    leaf: usize,
    entry: Entry,
    laid: bool,
    counters: &mut Counters,
) -> usize {
    let runs = masks.runs();
    let candidates = plan.tables.candidates();
    let Entry::Placed(top) = entry else {
        state.open[0] = Open {
            free: masks::free_classes(&state.stock),
            key: plan.key_index(&plan.levels[0], &state.board) as u32,
            word: 0,
        };
        return 1;
    };
    let free_below = if laid {
        masks::free_classes(&state.stock)
    } else {
        lay_frames(plan, masks, state, Some(top))
    };
    let class_bit = |level: usize| 1u64 << class_of(state.board[plan.levels[level].pos as usize]);
    // The classes in stock when the level's turn came.
    let mut free_at = (0..=top).fold(free_below, |free, level| free | class_bit(level));
    let mut height = 0;
    for level in 0..=top {
        let free_here = free_at;
        free_at ^= class_bit(level);
        let frame = state.frames[level];
        let count = untried::<TWICE>(&frame);
        counters.nodes += count;
        if level + 1 == leaf {
            counters.solutions += count;
            continue;
        }
        // The untried turns in run order: (class bit, candidate index).
        let mut turns: Vec<(u64, u32)> = Vec::with_capacity(count as usize);
        let mut rest = frame.rest;
        let mut second = frame.second;
        while rest != 0 {
            let bit = rest & rest.wrapping_neg();
            rest ^= bit;
            let first = frame.start + masks::entry(frame.classes, frame.twice, bit);
            let twice = TWICE && frame.twice & bit != 0;
            if second == 0 {
                turns.push((bit, first));
            }
            if twice {
                turns.push((bit, first + 1));
            }
            second = 0;
        }
        debug_assert_eq!(turns.len() as u64, count);
        let next = &plan.levels[level + 1];
        for &(bit, index) in turns.iter().rev() {
            let word = candidates[index as usize];
            let free = free_here ^ bit;
            let k = next.key_index(&state.board, word);
            state.open[height] = Open {
                free,
                key: ((level + 1) as u32) << KEY_BITS | k as u32,
                word,
            };
            height += (runs[k].classes & free != 0) as usize;
        }
    }
    if top + 1 == leaf {
        counters.solutions += 1;
    } else {
        let word = state.board[plan.levels[top].pos as usize];
        state.open[height] = Open {
            free: free_below,
            key: ((top + 1) as u32) << KEY_BITS
                | plan.levels[top + 1].key_index(&state.board, word) as u32,
            word,
        };
        height += 1;
    }
    height
}

/// Pops and expands open nodes until the stack is empty (`None`) or the
/// count reaches `near` (`Some((level, free))` of the node just popped,
/// unexpanded, its word on the board).
///
/// The loop indexes without bounds checks. The proofs: an open node's
/// level is below `leaf` (children are pushed only when their level is)
/// and its run index is a run of `masks`, being a key index of that level
/// (see `walk::walk_runs`); a run's candidate index is below the run's end
/// (see `masks`); `prev_pos` holds a cell or the dummy cell for every
/// level; and the stack never holds more than [`OpenPlan::stack_len`]
/// nodes, with one free slot for the child written before the pointer
/// decides whether to keep it.
#[inline(always)]
#[allow(clippy::too_many_arguments)]
fn expand<const TWICE: bool>(
    plan: &Plan,
    masks: &RunMasks,
    open: &OpenPlan,
    state: &mut SearchState,
    leaf: usize,
    mut top: usize,
    near: u64,
    counters: &mut Counters,
) -> Option<(usize, u64)> {
    let levels = &plan.levels[..leaf];
    let runs = masks.runs();
    let classes = masks.classes();
    let candidates = plan.tables.candidates();
    let prev_pos = open.prev_pos.as_slice();
    let board = state.board.as_mut_slice();
    let stack = state.open.as_mut_slice();
    let (mut nodes, mut solutions) = (counters.nodes, counters.solutions);
    let popped = loop {
        if top == 0 {
            break None;
        }
        top -= 1;
        // SAFETY: see the function doc for every unchecked access below.
        let node = unsafe { *stack.get_unchecked(top) };
        let level = (node.key >> KEY_BITS) as usize;
        unsafe { *board.get_unchecked_mut(*prev_pos.get_unchecked(level) as usize) = node.word };
        if nodes >= near {
            break Some((level, node.free));
        }
        let run = unsafe { *runs.get_unchecked((node.key & KEY_MASK) as usize) };
        let mut rest = run.classes & node.free;
        let twice = if TWICE { run.twice & rest } else { 0 };
        let children = u64::from(rest.count_ones() + twice.count_ones());
        nodes += children;
        if level + 1 == leaf {
            solutions += children;
            continue;
        }
        let next = unsafe { levels.get_unchecked(level + 1) };
        // The next cell's key less the term on this level's cell.
        let base = unsafe { next.key_index_unchecked(board, 0) } as u32;
        let (shift, mask) = (next.hot_shift, next.hot_mask);
        let tag = ((level + 1) as u32) << KEY_BITS;
        while rest != 0 {
            let bit = 1u64 << (63 - rest.leading_zeros());
            rest ^= bit;
            let free = node.free ^ bit;
            let index = run.start + masks::entry(run.classes, twice_of::<TWICE>(&run), bit);
            unsafe {
                if TWICE && twice & bit != 0 {
                    // The second turn is popped after the first: push it first.
                    let word = *candidates.get_unchecked(index as usize + 1);
                    let k = base + ((word >> shift) & mask);
                    *stack.get_unchecked_mut(top) = Open {
                        free,
                        key: tag | k,
                        word,
                    };
                    top += (classes.get_unchecked(k as usize) & free != 0) as usize;
                }
                let word = *candidates.get_unchecked(index as usize);
                let k = base + ((word >> shift) & mask);
                *stack.get_unchecked_mut(top) = Open {
                    free,
                    key: tag | k,
                    word,
                };
                top += (classes.get_unchecked(k as usize) & free != 0) as usize;
            }
        }
    };
    counters.nodes = nodes;
    counters.solutions = solutions;
    popped
}

#[inline(always)]
fn twice_of<const TWICE: bool>(run: &masks::RunInfo) -> u64 {
    if TWICE {
        run.twice
    } else {
        0
    }
}
