//! Class masks: a level visits only the pieces still in stock, never
//! testing a used one.
//!
//! Deep in a count most candidates of a run name pieces already on the
//! board. Testing them one by one costs a load and a branch each, and that
//! branch is the hardest one of the walk to predict. When the puzzle has at
//! most 64 piece classes, the walk instead keeps the classes in stock as one
//! word `free` (in a register), and every run as the word of the classes it
//! lists: a level's untried choices are `run & free`, visited lowest class
//! first (`trailing_zeros`, clear lowest). A run lists its classes in
//! ascending order, so the first candidate of class `c` is the run's entry
//! number `popcount(run & (2^c − 1)) + popcount(twice & (2^c − 1))`, where
//! `twice` marks the classes the run lists two turns of (a piece such as
//! `[a, a, a, b]` shows up `a` and left `a` in two turns); the walk tries
//! both turns of such a class before the next class. So it tries candidates
//! in exactly the run's order, and its tree, checkpoint paths and splits are
//! those of a walk that tests every candidate.
//!
//! A level's own snapshot `run & free` stays right while it iterates,
//! because everything placed below it is taken off before its next sibling.
//!
//! There are no masks when a set has more than 64 classes, or when a run
//! lists one class three times or more (only a cell keyed by one side can
//! see that): then the walk tests candidates one by one.

use super::candidate::class_of;
use super::tables::Tables;

/// What the masked walk reads of one run when a level's turn comes: one
/// load of one line, instead of an offset from one array and a mask from
/// another.
#[derive(Debug, Clone, Copy, Default)]
#[repr(C, align(32))]
pub(crate) struct RunInfo {
    /// The classes the run lists.
    pub classes: u64,
    /// The classes it lists in two turns.
    pub twice: u64,
    /// Where its candidates start (its offset).
    pub start: u32,
}

/// Per run (offsets index), its [`RunInfo`].
#[derive(Debug, Clone)]
pub(crate) struct RunMasks {
    runs: Vec<RunInfo>,
    /// Every run's `classes` again, packed: the open walk's test of a
    /// child reads only this word, and reads it from a denser array.
    classes: Vec<u64>,
    any_twice: bool,
    most_turns: u32,
}

impl RunMasks {
    /// Masks for `tables` (one run per offsets index) over `classes`
    /// piece classes, or `None` when they do not fit (see the module doc).
    pub(crate) fn new(tables: &Tables, classes: usize) -> Option<RunMasks> {
        if classes > 64 {
            return None;
        }
        let candidates = tables.candidates();
        let runs = tables.offsets().len().saturating_sub(1);
        let mut infos = Vec::with_capacity(runs);
        for w in tables.offsets().windows(2) {
            let (mut mask, mut two) = (0u64, 0u64);
            for &word in &candidates[w[0] as usize..w[1] as usize] {
                let bit = 1u64 << class_of(word);
                if mask & bit != 0 {
                    // A class's turns are adjacent; a third is not supported.
                    if two & bit != 0 {
                        return None;
                    }
                    two |= bit;
                }
                // Ascending: the rank of a class is where its turns start.
                if mask & !(bit - 1) & !bit != 0 {
                    return None;
                }
                mask |= bit;
            }
            infos.push(RunInfo {
                classes: mask,
                twice: two,
                start: w[0],
            });
        }
        let any_twice = infos.iter().any(|r| r.twice != 0);
        let most_turns = infos
            .iter()
            .map(|r| r.classes.count_ones() + r.twice.count_ones())
            .max()
            .unwrap_or(0);
        Some(RunMasks {
            classes: infos.iter().map(|r| r.classes).collect(),
            runs: infos,
            any_twice,
            most_turns,
        })
    }

    /// Every run, indexed like the offsets (the last offset starts no run
    /// and has no entry).
    #[inline(always)]
    pub(crate) fn runs(&self) -> &[RunInfo] {
        &self.runs
    }

    /// Every run's classes, indexed like [`RunMasks::runs`].
    #[inline(always)]
    pub(crate) fn classes(&self) -> &[u64] {
        &self.classes
    }

    /// The most candidates any one run lists: the most children a node has.
    pub(crate) fn most_turns(&self) -> u32 {
        self.most_turns
    }

    /// Whether some run lists a class in two turns.
    pub(crate) fn any_twice(&self) -> bool {
        self.any_twice
    }
}

/// The classes of `stock` with a piece left, as bits.
pub(crate) fn free_classes(stock: &[u16]) -> u64 {
    stock
        .iter()
        .enumerate()
        .filter(|&(_, &left)| left > 0)
        .fold(0, |free, (class, _)| free | 1 << class)
}

/// First entry of class `bit` (a single set bit) in a run listing
/// `classes`, `twice` of them twice.
#[inline(always)]
pub(crate) fn entry(classes: u64, twice: u64, bit: u64) -> u32 {
    let below = bit - 1;
    (classes & below).count_ones() + (twice & below).count_ones()
}
