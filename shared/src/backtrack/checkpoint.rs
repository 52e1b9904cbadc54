//! Checkpoints: a walk's position as plain data, and laying it back.
//!
//! A position is the candidate index chosen at each level, relative to the
//! start of that level's run, which the board above it determines. So the
//! path alone, replayed level by level on the pinned board, rebuilds the
//! board, the stock and every level's remaining run, and the counts stored
//! beside it make the resumed totals exact. Levels whose untried siblings
//! were given away by a split carry [`GIVEN_AWAY`], so a resumed walk does
//! not search them again.

use super::candidate::class_of;
use super::plan::Plan;
use super::state::{Counters, Run, SearchState};
use crate::error::{Error, Result};
use crate::search::Checkpoint;

/// Marks a checkpoint path entry whose untried siblings were given away by
/// a split: resuming must not search them.
pub(crate) const GIVEN_AWAY: u32 = 1 << 31;

/// Start of the exact run of `level` on the current board.
fn run_start(plan: &Plan, state: &SearchState, level: usize) -> u32 {
    plan.tables.offsets()[plan.key_index(&plan.levels[level], &state.board)]
}

/// The checkpoint of a walk stopped with levels `0..=top` placed (or of a
/// fresh position when `top` is `None`).
pub(crate) fn checkpoint(
    plan: &Plan,
    state: &SearchState,
    top: Option<usize>,
    counters: &Counters,
) -> Checkpoint {
    let path = match top {
        None => Vec::new(),
        Some(top) => (0..=top)
            .map(|level| {
                let index = state.runs[level].next - 1 - run_start(plan, state, level);
                index
                    | if state.given_away[level] {
                        GIVEN_AWAY
                    } else {
                        0
                    }
            })
            .collect(),
    };
    Checkpoint {
        engine: crate::search::Engine::Backtrack,
        prefix: plan.prefix.clone(),
        path,
        solutions: counters.solutions,
        nodes: counters.nodes,
    }
}

/// Lays the placements of a checkpoint path back on a reset board. Returns
/// the top level placed, or `None` for an empty path.
pub(crate) fn replay(plan: &Plan, state: &mut SearchState, path: &[u32]) -> Result<Option<usize>> {
    state.reset(plan);
    if path.len() > plan.levels.len() {
        return Err(Error::Invalid(format!(
            "checkpoint path has {} levels but this subtask searches only {}",
            path.len(),
            plan.levels.len()
        )));
    }
    let offsets = plan.tables.offsets();
    for (level, &entry) in path.iter().enumerate() {
        let index = entry & !GIVEN_AWAY;
        let k = plan.key_index(&plan.levels[level], &state.board);
        let (start, end) = (offsets[k], offsets[k + 1]);
        if index >= end - start {
            return Err(Error::Invalid(format!(
                "checkpoint path level {level}: choice {index} is beyond the {} candidates there \
                 (was it taken under another fill order?)",
                end - start
            )));
        }
        let word = plan.tables.candidates()[(start + index) as usize];
        let class = class_of(word);
        if state.stock[class] == 0 {
            return Err(Error::Invalid(format!(
                "checkpoint path level {level}: choice {index} uses a piece already placed"
            )));
        }
        state.stock[class] -= 1;
        state.board[plan.levels[level].pos as usize] = word;
        let given_away = entry & GIVEN_AWAY != 0;
        state.runs[level] = Run {
            next: start + index + 1,
            end: if given_away { start + index + 1 } else { end },
        };
        state.given_away[level] = given_away;
    }
    Ok(path.len().checked_sub(1))
}
