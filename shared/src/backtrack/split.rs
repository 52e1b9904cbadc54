//! Splitting a running walk: giving untried branches away as prefixes.
//!
//! Work is given from the shallowest level that has any, because those
//! branches are the biggest: one request moves a large share of the
//! remaining tree to another worker. The walk cuts that level's run at
//! once, so it never searches what it gave away.

use super::candidate::{class_of, Candidate};
use super::plan::Plan;
use super::state::SearchState;
use crate::model::Puzzle;
use crate::search::Prefix;

/// Gives away the untried siblings at the shallowest level (at or above
/// `top`) that has any a search could still place, as prefixes, and cuts
/// that level's run so this walk never searches them.
pub(crate) fn split(
    plan: &Plan,
    state: &mut SearchState,
    puzzle: &Puzzle,
    top: usize,
) -> Vec<Prefix> {
    let candidates = plan.tables.candidates();
    for level in 0..=top {
        let untried = state.runs[level].next..state.runs[level].end;
        // A sibling is tried with the levels below it empty, so a piece
        // they hold now is free for it.
        let available = |class: usize| {
            let held_deeper = (level..=top)
                .filter(|&l| class_of(state.board[plan.levels[l].pos as usize]) == class)
                .count();
            state.stock[class] as usize + held_deeper > 0
        };
        let siblings: Vec<Candidate> = candidates[untried.start as usize..untried.end as usize]
            .iter()
            .copied()
            .filter(|&w| available(class_of(w)))
            .collect();
        if siblings.is_empty() {
            continue;
        }
        state.runs[level].end = state.runs[level].next;
        state.given_away[level] = true;
        return siblings
            .into_iter()
            .map(|w| plan.forced(puzzle, &state.board, level, Some(w)))
            .collect();
    }
    Vec::new()
}
