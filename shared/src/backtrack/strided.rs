//! Strided tables: every key's run at a fixed place, for the chained walk.
//!
//! The flat tables (`tables.rs`) pack the runs back to back, so finding a
//! cell's candidates takes two loads in a row: the key's offset, then the
//! first candidate at that offset. On the path from one placement to the
//! next cell's first candidate (the key needs the word just placed, the
//! candidate needs the key) that offset load is a whole cache hit of
//! latency per node, and the strict walk of a 16×16 board waits on that
//! chain more than on anything else.
//!
//! Here each table gives every key the same number of slots, a power of
//! two at least one more than the table's longest run: the key's run
//! starts at `base + key · stride`, which the level's key terms compute
//! directly (their factors and the hot term's shift scaled by the stride),
//! and ends at the first [`SENTINEL`], a word no candidate can be (its
//! class field is past every class). The chained walk then goes from a
//! placement to the next candidate with no load but the candidate's own,
//! and never compares its cursor with an end: the sentinel ends the run.
//! On the row scan of a 16×16 set the tables grow by their padding only
//! (an interior run has 2.9 candidates on average and 7 at most, so a
//! stride of 8).
//!
//! Checkpoints, splits and the other walks keep speaking of runs as
//! positions in the flat candidate array. The chained walk converts its
//! runs to those positions before the driver reads them (a poll, a stop)
//! and back after, as the masked walk syncs its frames: a run whose
//! untried siblings a split gave away ends where its next candidate
//! starts, and a run that ends at its sentinel carries [`OPEN_END`].

use super::candidate::{Candidate, CLASS_MASK};
use super::plan::Level;
use super::state::{Run, SearchState};
use super::tables::Tables;

/// Ends every strided run: its class field (all ones) names no class.
pub(crate) const SENTINEL: Candidate = u32::MAX;
const _: () = assert!(SENTINEL & CLASS_MASK == CLASS_MASK);

/// The `end` of a strided run that ends at its sentinel (no split has cut
/// it): above every position, so a cursor never reaches it.
pub(crate) const OPEN_END: u32 = u32::MAX;

/// The plan's levels and candidates in the strided layout.
#[derive(Debug, Clone)]
pub(crate) struct Strided {
    /// The plan's levels with each key landing on its strided run.
    pub levels: Vec<Level>,
    pub candidates: Vec<Candidate>,
    /// Each table's place in both layouts, for [`Strided::refill`].
    tables: Vec<Slots>,
}

/// One table in both layouts.
#[derive(Debug, Clone, Copy)]
struct Slots {
    /// Its first offsets index in the flat tables.
    flat: u32,
    keys: u32,
    /// Its first position here, and the slots per key.
    start: u32,
    stride: u32,
}

impl Strided {
    /// The strided copy of the exact runs of `tables` as `levels` read
    /// them, or `None` when it would not fit in 32-bit positions. `base` is
    /// the tables' key base (colours + 1). With two runs per key (the
    /// best-score search's tables) the one-break runs stay in the flat
    /// tables only.
    pub(crate) fn new(tables: &Tables, levels: &[Level], base: u32) -> Option<Strided> {
        let offsets = tables.offsets();
        let per_key = tables.runs_per_key();
        let mut strided = Strided {
            levels: Vec::with_capacity(levels.len()),
            candidates: Vec::new(),
            tables: Vec::new(),
        };
        for level in levels {
            let keys = base.checked_pow(level.seams)?;
            let found = strided
                .tables
                .iter()
                .find(|t| t.flat == level.table)
                .copied();
            let slots = match found {
                Some(slots) => slots,
                None => {
                    let longest = (0..keys)
                        .map(|key| {
                            let k = (level.table + key * per_key) as usize;
                            offsets[k + 1] - offsets[k]
                        })
                        .max()
                        .unwrap_or(0);
                    // At least the flat factor's multiple, so that the key
                    // terms scale up.
                    let stride = (longest + 1).next_power_of_two().max(per_key);
                    let size = u64::from(keys) * u64::from(stride);
                    let start = strided.candidates.len() as u64;
                    if start + size >= u64::from(OPEN_END) {
                        return None;
                    }
                    let slots = Slots {
                        flat: level.table,
                        keys,
                        start: start as u32,
                        stride,
                    };
                    strided.candidates.resize((start + size) as usize, SENTINEL);
                    strided.tables.push(slots);
                    slots
                }
            };
            // A flat key index is `table + per_key · key`, a strided
            // position `start + stride · key`: every term scales by
            // `stride / per_key`, a power of two.
            let scale = slots.stride.trailing_zeros() - per_key.trailing_zeros();
            let mut here = *level;
            here.table = slots.start;
            for term in here.terms.iter_mut().take(level.cold as usize) {
                term.factor <<= scale;
            }
            if here.hot_mask != 0 {
                // The hot colour is shifted down less, landing `scale`
                // bits higher.
                here.hot_shift = here.hot_shift.checked_sub(scale as u8)?;
                here.hot_mask <<= scale;
            }
            strided.levels.push(here);
        }
        strided.refill(tables);
        Some(strided)
    }

    /// Copies every exact run of `tables` into its slots again, after the
    /// flat runs were reordered (a restart's shuffle).
    pub(crate) fn refill(&mut self, tables: &Tables) {
        let (offsets, flat) = (tables.offsets(), tables.candidates());
        let per_key = tables.runs_per_key();
        for slots in &self.tables {
            for key in 0..slots.keys {
                let k = (slots.flat + key * per_key) as usize;
                let run = &flat[offsets[k] as usize..offsets[k + 1] as usize];
                let at = (slots.start + key * slots.stride) as usize;
                self.candidates[at..at + run.len()].copy_from_slice(run);
            }
        }
    }

    /// Rewrites the runs of levels `0..=top` into positions of the layout
    /// `to`: flat ones for the driver (checkpoints, splits) to read, and
    /// strided ones for the chained walk to go on with.
    pub(crate) fn rewrite_runs(
        &self,
        flat_levels: &[Level],
        offsets: &[u32],
        state: &mut SearchState,
        top: usize,
        to: Positions,
    ) {
        for (level, (flat, here)) in flat_levels
            .iter()
            .zip(&self.levels)
            .enumerate()
            .take(top + 1)
        {
            let board = &state.board;
            let previous = board[flat.hot_cell as usize];
            let k = flat.key_index(board, previous);
            let (start, end) = (offsets[k], offsets[k + 1]);
            let strided = here.key_index(board, previous) as u32;
            let Run { next, end: cut } = state.runs[level];
            state.runs[level] = match to {
                Positions::Flat => Run {
                    next: start + (next - strided),
                    end: if cut == OPEN_END {
                        end
                    } else {
                        start + (cut - strided)
                    },
                },
                Positions::Strided => Run {
                    next: strided + (next - start),
                    end: if cut == end {
                        OPEN_END
                    } else {
                        strided + (cut - start)
                    },
                },
            };
        }
    }
}

/// Which positions [`Strided::rewrite_runs`] writes.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Positions {
    Flat,
    Strided,
}

#[cfg(test)]
mod tests {
    use super::super::candidate::pack;
    use super::super::plan::{Plan, Purpose};
    use super::*;
    use crate::generator::{generate, GenSpec};
    use crate::order::FillOrder;
    use crate::rng::Rng;
    use crate::search::Prefix;

    /// On random boards, every level's strided key lands on its flat exact
    /// run, candidate for candidate, followed by the sentinel: the strided
    /// tables and the rescaled key terms together are the flat tables, for
    /// counting plans (one run per key) and best-score plans (two).
    #[test]
    fn every_strided_run_is_its_flat_run_then_the_sentinel() {
        let mut rng = Rng::new(7);
        let mut checked = 0usize;
        for (w, h, colours, border, seed) in [(5, 5, 6, 2, 1), (6, 4, 9, 3, 2), (7, 7, 22, 5, 3)] {
            let puzzle = generate(&GenSpec::sized(w, h, colours, border, seed))
                .unwrap()
                .puzzle;
            let purposes = [Purpose::Count, Purpose::Best { breaks: true }];
            for (order, purpose) in FillOrder::ALL
                .into_iter()
                .flat_map(|o| purposes.map(|p| (o, p)))
            {
                let plan = Plan::new(&puzzle, order, &Prefix::new(), purpose).unwrap();
                let strided = plan.strided.as_ref().expect("a plan of ≤ 256 levels");
                let (offsets, flat) = (plan.tables.offsets(), plan.tables.candidates());
                for _ in 0..200 {
                    // Any colour on any side, the dummy cell's word 0.
                    let board: Vec<Candidate> = (0..w * h)
                        .map(|_| {
                            let mut edges = [0u8; 4];
                            for e in &mut edges {
                                *e = rng.below(u64::from(puzzle.num_colors) + 1) as u8;
                            }
                            pack(0, 0, edges)
                        })
                        .chain([0])
                        .collect();
                    for (level, here) in plan.levels.iter().zip(&strided.levels) {
                        let previous = board[level.hot_cell as usize];
                        let k = level.key_index(&board, previous);
                        let run = &flat[offsets[k] as usize..offsets[k + 1] as usize];
                        let start = here.key_index(&board, previous);
                        assert_eq!(&strided.candidates[start..start + run.len()], run);
                        assert_eq!(strided.candidates[start + run.len()], SENTINEL);
                        checked += 1;
                    }
                }
            }
        }
        assert!(checked > 10_000, "{checked} runs checked");
    }
}
