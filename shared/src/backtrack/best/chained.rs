//! The best-score walk with one copy of its code per level.
//!
//! The same loop as [`Search::run`], and for the same reason as the
//! counting walk's chained copy (`backtrack::chain`): every cell gets its
//! own branches, so the processor predicts "may this cell take a break?",
//! "is this piece in stock?" and "is the run over?" from that cell's own
//! history. It is instantiated once per depth through the same chain of
//! types, four levels inlined into one another per call. The walk keeps no
//! stack of its own: a best-score run is never checkpointed, split or
//! resumed, so each level's cursor, breaks and score live in its frame.
//!
//! Its exact runs come from the plan's strided copy (`backtrack::strided`):
//! the key a level receives is its exact run's position, so a placement
//! leads to the next cell's first candidate with one load, and the run
//! ends at its sentinel. A level that may take a break then reads the
//! one-break run from the flat tables, after its exact run as `run` does.
//!
//! It makes the same placements in the same order as `run`, improves,
//! tightens and polls at the same nodes, so a search with a given seed
//! gives the same boards, nodes and runs whichever walk it takes (a test
//! holds the two to that).

use super::{Search, Stop};
use crate::backtrack::candidate::{class_of, Candidate};
use crate::backtrack::chain::{starts_group, Depth, L};
use crate::backtrack::plan::{Level, Plan};
use crate::backtrack::state::{SearchState, Stacks};
use crate::backtrack::strided::SENTINEL;

/// What every level of one run shares.
struct Cx<'c, 'a> {
    search: &'c mut Search<'a>,
    plan: &'c Plan,
    state: &'c mut SearchState,
    /// The flat levels, offsets and candidates (the one-break runs).
    levels: *const Level,
    offsets: *const u32,
    candidates: *const Candidate,
    /// The strided levels and exact runs.
    strided_levels: *const Level,
    exact: *const Candidate,
    s: Stacks,
    allowed: *const u32,
    leaf: usize,
    /// A placement must keep its breaks below `bound` to ever beat the best.
    bound: u32,
    /// The node count of the next poll, and where the run's share ends.
    mark: u64,
    run_end: u64,
    stopped: Option<Stop>,
}

impl Cx<'_, '_> {
    /// Takes the pointers again after `improve` had the state and search.
    fn rebind(&mut self) {
        self.s = self.state.stacks();
        self.allowed = self.search.allowed.as_ptr();
    }

    /// A better score is on the board, `placed` levels deep.
    #[cold]
    #[inline(never)]
    fn improve(&mut self, placed: usize) {
        self.search.improve(self.plan, self.state, placed);
        self.bound = self.search.max.saturating_sub(self.search.best);
        self.search.tighten(self.plan, self.bound);
        self.rebind();
    }

    /// The poll at the mark: true when the run stops.
    #[cold]
    #[inline(never)]
    fn poll(&mut self) -> bool {
        if let Some(stop) = self.search.poll(self.run_end) {
            self.stopped = Some(stop);
            return true;
        }
        self.mark = self.search.next_mark(self.run_end);
        false
    }
}

/// Into level `T`: a real call at the start of each group, inlined inside one.
///
/// # Safety
/// As [`level`].
#[inline(always)]
unsafe fn descend<T: Depth>(cx: &mut Cx<'_, '_>, at: usize, breaks: u32, score: u32) -> bool {
    if const { starts_group::<T>() } {
        // SAFETY: passed on.
        unsafe { group::<T>(cx, at, breaks, score) }
    } else {
        // SAFETY: passed on.
        unsafe { level::<T>(cx, at, breaks, score) }
    }
}

/// # Safety
/// As [`level`].
#[inline(never)]
unsafe fn group<T: Depth>(cx: &mut Cx<'_, '_>, at: usize, breaks: u32, score: u32) -> bool {
    // SAFETY: passed on.
    unsafe { level::<T>(cx, at, breaks, score) }
}

/// Places `word` on level `T::D` with `cost` breaks (0 or 1) more than the
/// `breaks_before` and `score_before` above, and searches below it (a
/// used piece is skipped). Returns true when the run stops.
///
/// # Safety
/// As [`level`], and `word` is a candidate of the level's run.
#[inline(always)]
unsafe fn place<T: Depth>(
    cx: &mut Cx<'_, '_>,
    here: &Level,
    word: Candidate,
    cost: u32,
    breaks_before: u32,
    score_before: u32,
) -> bool {
    let d = T::D;
    // SAFETY: see the function's contract.
    unsafe {
        let class = class_of(word);
        let left = &mut *cx.s.stock.add(class);
        if *left == 0 {
            return false;
        }
        *left -= 1;
        *cx.s.board.add(here.pos as usize) = word;
        cx.search.nodes += 1;
        let breaks = breaks_before + cost;
        let score = score_before + here.seams - cost;
        if cx.search.pinned_score + score > cx.search.best {
            cx.improve(d + 1);
        }
        if cx.search.nodes >= cx.mark && cx.poll() {
            return true;
        }
        if d + 1 < cx.leaf {
            let next = &*cx.strided_levels.add(d + 1);
            let board = std::slice::from_raw_parts(cx.s.board, cx.s.board_len);
            let at = next.key_index_unchecked(board, word);
            if descend::<T::Next>(cx, at, breaks, score) {
                return true;
            }
        }
        *cx.s.stock.add(class) += 1;
        false
    }
}

/// Walks level `T::D`'s subtree: `at` is the position of its exact run in
/// the strided copy (the one-break run follows the exact run of the same
/// key in the flat tables), with `breaks_before` breaks and `score_before`
/// matched seams placed above. Returns true when the run stops.
///
/// # Safety
/// `T::D < cx.leaf ≤ levels`, `at` is the strided position of level
/// `T::D`'s key for the current board, and the pointers are the plan's
/// tables, its strided copy and the state's stacks: the bounds are those
/// of `Search::run`'s unchecked loop, and every strided run ends with a
/// sentinel.
#[inline(always)]
unsafe fn level<T: Depth>(
    cx: &mut Cx<'_, '_>,
    at: usize,
    breaks_before: u32,
    score_before: u32,
) -> bool {
    let d = T::D;
    // SAFETY (the whole body): see the function's contract; every flat
    // index is one `Search::run` also uses, with the same proof, and the
    // strided exact run is read as the counting walk's chained copy reads
    // its runs (`backtrack::chain`): inside its slots, up to its sentinel.
    unsafe {
        let here = &*cx.levels.add(d);
        // Decided on entry, as `run` decides its window.
        let may_break = breaks_before < *cx.allowed.add(d) && breaks_before + 1 < cx.bound;
        let mut i = at;
        loop {
            let word = *cx.exact.add(i);
            if word == SENTINEL {
                break;
            }
            i += 1;
            if breaks_before >= cx.bound {
                // A better board has lowered the bound below this level.
                return false;
            }
            if place::<T>(cx, here, word, 0, breaks_before, score_before) {
                return true;
            }
        }
        if !may_break {
            return false;
        }
        let board = std::slice::from_raw_parts(cx.s.board, cx.s.board_len);
        let previous = *cx.s.board.add(here.hot_cell as usize);
        let k = here.key_index_unchecked(board, previous);
        let (mid, end) = (*cx.offsets.add(k + 1), *cx.offsets.add(k + 2));
        for i in mid..end {
            if breaks_before + 1 >= cx.bound {
                // Only one-break candidates remain and none can pay off.
                break;
            }
            let word = *cx.candidates.add(i as usize);
            if place::<T>(cx, here, word, 1, breaks_before, score_before) {
                return true;
            }
        }
        false
    }
}

impl Search<'_> {
    /// [`Search::run`] on the chained walk; plans of at most
    /// `chain::CHAIN_LEVELS` levels.
    pub(super) fn run_chained(&mut self, plan: &Plan, state: &mut SearchState) -> Option<Stop> {
        let leaf = plan.levels.len();
        if leaf == 0 {
            return None;
        }
        assert!(plan.chained && leaf <= crate::backtrack::chain::CHAIN_LEVELS);
        assert!(state.board.len() == plan.cells() + 1 && self.allowed.len() == leaf);
        let run_end = self
            .config
            .restart_nodes
            .map_or(u64::MAX, |n| self.nodes.saturating_add(n.max(1)));
        let mark = self.next_mark(run_end);
        let bound = self.max.saturating_sub(self.best);
        let strided = plan
            .strided
            .as_ref()
            .expect("the chained walk runs plans with strided tables");
        let first = &strided.levels[0];
        let at = first.key_index(&state.board, state.board[first.hot_cell as usize]);
        let mut cx = Cx {
            levels: plan.levels.as_ptr(),
            offsets: plan.tables.offsets().as_ptr(),
            candidates: plan.tables.candidates().as_ptr(),
            strided_levels: strided.levels.as_ptr(),
            exact: strided.candidates.as_ptr(),
            s: state.stacks(),
            allowed: self.allowed.as_ptr(),
            search: self,
            plan,
            state,
            leaf,
            bound,
            mark,
            run_end,
            stopped: None,
        };
        // SAFETY: 0 < leaf ≤ CHAIN_LEVELS (asserted), `at` is level 0's
        // strided key on this board, and the pointers are the plan's and
        // the state's.
        if unsafe { group::<L<0>>(&mut cx, at, 0, 0) } {
            Some(cx.stopped.expect("a stopped run says why"))
        } else {
            None
        }
    }
}

#[cfg(test)]
mod tests {
    //! The chained and the plain best-score walks make the same search.
    use std::time::Duration;

    use crate::backtrack::{Backtracker, BestConfig, BreakSchedule};
    use crate::generator::{generate, GenSpec};
    use crate::order::FillOrder;
    use crate::score::score;
    use crate::search::Prefix;

    /// Everything a search shows: each better board's score as reported,
    /// then the final score, board, nodes, runs and how it ended; and the
    /// runs and improvements, to check what the test covered.
    fn search(bt: &mut Backtracker, config: &BestConfig) -> (String, u32, usize) {
        let mut reported = Vec::new();
        let report = bt.best(config, |b| reported.push(score(b))).unwrap();
        let shown = format!(
            "{reported:?} {} {:?} {} {} {:?}",
            report.score, report.board, report.nodes, report.runs, report.end
        );
        (shown, report.runs, reported.len())
    }

    #[test]
    fn both_walks_make_the_same_search() {
        let (mut searches, mut restarted, mut improved) = (0, 0, 0);
        for (w, h, colours, seed) in [(6, 6, 5, 1), (8, 8, 7, 2), (10, 9, 9, 3), (16, 16, 17, 4)] {
            let puzzle = generate(&GenSpec::sized(w, h, colours, 3, seed))
                .unwrap()
                .puzzle;
            for order in [FillOrder::RowMajor, FillOrder::ColumnMajor] {
                let strict = BestConfig {
                    node_budget: Some(200_000),
                    ..BestConfig::default()
                };
                let tolerant = BestConfig {
                    max_breaks: 12,
                    schedule: BreakSchedule::Ramp { from: 100 },
                    restart_nodes: Some(40_000),
                    node_budget: Some(300_000),
                    seed,
                    ..BestConfig::break_tolerant(Duration::from_secs(60), seed)
                };
                let blackwood = BestConfig {
                    schedule: BreakSchedule::blackwood(),
                    beat: 3 * (w * h) as u32 / 2,
                    ..tolerant.clone()
                };
                for config in [strict, tolerant, blackwood] {
                    let mut chained = Backtracker::new(&puzzle, order, &Prefix::new()).unwrap();
                    assert!(chained.plan.chained);
                    let mut plain = chained.clone();
                    plain.plan.chained = false;
                    let a = search(&mut chained, &config);
                    let at = format!("{w}x{h} {seed} {order} {config:?}");
                    assert_eq!(a, search(&mut plain, &config), "{at}");
                    searches += 1;
                    restarted += (a.1 > 1) as usize;
                    improved += (a.2 > 3) as usize;
                }
            }
        }
        assert_eq!(searches, 24);
        assert!(restarted >= 12, "only {restarted} searches restarted");
        assert!(improved >= 12, "only {improved} searches improved often");
    }
}
