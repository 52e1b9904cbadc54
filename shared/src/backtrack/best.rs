//! Best-score search: the deepest, best-matched board a time or node budget
//! allows.
//!
//! The walk is the counting walk's twin with two more numbers per level:
//! the breaks (unmatched seams) and the score so far. *Strict* search
//! allows no break and so reports ever deeper partial boards. The
//! *break-tolerant* search reads one run further in each table (the
//! candidates that mismatch exactly one breakable side, never a seam
//! between two frame cells) while the breaks so far stay under the cap and
//! the depth schedule: Blackwood's record solver releases one more break at
//! each of a few late depths, so the early board is built without
//! compromise and breaks go where the search is hardest.
//!
//! A board can never score above `max_score − breaks`, so once a board
//! scoring `s` is known the walk refuses any placement that would bring the
//! breaks to `max_score − s`: a bound that costs one compare.
//!
//! Restarts shuffle every candidate run with a seeded [`Rng`] stream and
//! start over: the first rows then take other pieces and the walk explores
//! another basin instead of grinding one subtree for the whole budget.
//! Every improvement is handed to the caller as a [`Board`] whose score
//! comes from the canonical scorer.

use std::time::{Duration, Instant};

use super::candidate::class_of;
use super::plan::{Plan, Purpose};
use super::state::SearchState;
use super::Backtracker;
use crate::error::Result;
use crate::model::{Board, Puzzle};
use crate::rng::Rng;
use crate::score::{max_score, score};
use crate::search::{Control, RunEnd, POLL_INTERVAL};

mod chained;

/// A depth given for a 256-cell board (the official size the settings were
/// tuned on), scaled to a board of `cells`, rounded to the nearest cell.
pub fn scale_depth(depth: u32, cells: usize) -> u32 {
    ((u64::from(depth) * cells as u64 + 128) / 256) as u32
}

/// When breaks become allowed, by depth (a cell's index in the fill order).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum BreakSchedule {
    /// The cap applies from the first cell.
    Flat,
    /// One more break allowed from each of these depths, given for a
    /// 256-cell board and scaled to the board's cell count.
    Depths(Vec<u32>),
    /// None before depth `from` (given for 256 cells, scaled), then a
    /// linear ramp reaching the cap at the last cell.
    Ramp { from: u32 },
}

impl BreakSchedule {
    /// Blackwood's schedule: ten breaks released between depths 201 and 239.
    pub fn blackwood() -> Self {
        BreakSchedule::Depths(vec![201, 206, 211, 216, 221, 225, 229, 233, 237, 239])
    }

    /// Breaks allowed at `depth` on a board of `cells`, before the cap.
    pub fn allowed(&self, depth: u32, cells: usize, cap: u32) -> u32 {
        let scale = |d: u32| scale_depth(d, cells);
        let allowed = match self {
            BreakSchedule::Flat => cap,
            BreakSchedule::Depths(depths) => {
                depths.iter().filter(|&&d| depth >= scale(d)).count() as u32
            }
            BreakSchedule::Ramp { from } => {
                let from = scale(*from);
                let last = cells.saturating_sub(1) as u32;
                if depth < from || last <= from {
                    u32::from(depth >= from) * cap
                } else {
                    ((u64::from(cap) * u64::from(depth - from + 1))
                        .div_ceil(u64::from(last - from + 1))) as u32
                }
            }
        };
        allowed.min(cap)
    }
}

/// How a best-score search runs.
#[derive(Debug, Clone)]
pub struct BestConfig {
    /// Most unmatched seams a board may carry; 0 is the strict search.
    pub max_breaks: u32,
    pub schedule: BreakSchedule,
    pub seed: u64,
    /// Nodes per restart; `None` never restarts.
    pub restart_nodes: Option<u64>,
    /// Most restarts (the first run included); `None` runs until a limit.
    pub max_runs: Option<u32>,
    pub time_limit: Option<Duration>,
    pub node_budget: Option<u64>,
    /// A score already reached elsewhere (another lease of the same job):
    /// the search prunes from its first node as if it had found such a
    /// board itself, so it spends its nodes only where a better one can
    /// be, and reports only better boards. 0: nothing known.
    pub beat: u32,
}

impl Default for BestConfig {
    fn default() -> Self {
        BestConfig {
            max_breaks: 0,
            schedule: BreakSchedule::Flat,
            seed: 0,
            restart_nodes: None,
            max_runs: None,
            time_limit: None,
            node_budget: None,
            beat: 0,
        }
    }
}

impl BestConfig {
    /// The break-tolerant setting measured best on the ten official
    /// variants at 5–60 s per run: strict up to depth 195 (of 256, scaled),
    /// then a ramp to 32 breaks that tightens with every better board, and
    /// a restart every 30M nodes.
    pub fn break_tolerant(time_limit: Duration, seed: u64) -> Self {
        BestConfig {
            max_breaks: 32,
            schedule: BreakSchedule::Ramp { from: 195 },
            seed,
            restart_nodes: Some(30_000_000),
            time_limit: Some(time_limit),
            ..BestConfig::default()
        }
    }
}

/// The outcome of a best-score search.
#[derive(Debug, Clone)]
pub struct BestReport {
    /// Canonical score of `board` (0 when nothing was placed). With
    /// [`BestConfig::beat`], `board` is the pinned board unless a better
    /// board than that was found.
    pub score: u32,
    pub board: Option<Board>,
    pub nodes: u64,
    /// Runs started (the first one included).
    pub runs: u32,
    /// `Finished` when every run searched its whole tree.
    pub end: RunEnd,
}

/// Why a run stopped before its tree was exhausted.
enum Stop {
    /// The run's node share is spent: shuffle and start over.
    Restart,
    /// The whole search ends.
    End(RunEnd),
}

/// Per-level stack of the best-score walk.
struct Stack {
    next: Vec<u32>,
    /// Where the exact run ends and the one-break run starts.
    mid: Vec<u32>,
    limit: Vec<u32>,
    breaks_before: Vec<u32>,
    score_before: Vec<u32>,
}

/// What persists across runs: the best board and the counters. Not generic
/// over the caller's callback (it is reached through a pointer, once per
/// better board), so that the chained walk (`chained`), one function per
/// level, is compiled once, in this crate.
struct Search<'a> {
    puzzle: &'a Puzzle,
    config: &'a BestConfig,
    control: Option<&'a Control>,
    /// Breaks allowed at each level (schedule and cap).
    allowed: Vec<u32>,
    /// The cap `allowed` was computed with.
    cap: u32,
    pinned_score: u32,
    max: u32,
    /// The score to beat: the best board's, or the one known elsewhere.
    best: u32,
    best_board: Option<Board>,
    nodes: u64,
    started: Instant,
    stack: Stack,
    on_improvement: &'a mut dyn FnMut(&Board),
}

impl Backtracker {
    /// Searches for the best-scoring board under `config`, calling
    /// `on_improvement` with each strictly better board (partial boards
    /// included, the pinned cells alone first, unless they do not beat
    /// [`BestConfig::beat`]). Every board honours the hints and the
    /// prefix; its score is the canonical one.
    pub fn best(
        &mut self,
        config: &BestConfig,
        on_improvement: impl FnMut(&Board),
    ) -> Result<BestReport> {
        self.best_with(config, None, on_improvement)
    }

    /// [`Backtracker::best`], stopping early when `control` asks (only the
    /// stop request is honoured: a best-score search is never split).
    pub fn best_with(
        &mut self,
        config: &BestConfig,
        control: Option<&Control>,
        mut on_improvement: impl FnMut(&Board),
    ) -> Result<BestReport> {
        let mut plan = Plan::new(
            &self.puzzle,
            self.plan.order,
            &self.plan.prefix,
            Purpose::Best {
                breaks: config.max_breaks > 0,
            },
        )?;
        // The walk this backtracker was told to take (a test compares them).
        plan.chained &= self.plan.chained;
        let cells = plan.cells();
        let levels = plan.levels.len();
        let pinned_board = plan.board(&self.puzzle, &plan.pinned_board, 0);
        let pinned_score = score(&pinned_board);
        if config.beat == 0 || pinned_score > config.beat {
            on_improvement(&pinned_board);
        }
        let mut search = Search {
            puzzle: &self.puzzle,
            config,
            control,
            allowed: plan
                .levels
                .iter()
                .map(|l| config.schedule.allowed(l.depth, cells, config.max_breaks))
                .collect(),
            cap: config.max_breaks,
            pinned_score,
            max: max_score(plan.width, plan.height),
            best: pinned_score.max(config.beat),
            best_board: Some(pinned_board),
            nodes: 0,
            started: Instant::now(),
            stack: Stack {
                next: vec![0; levels],
                mid: vec![0; levels],
                limit: vec![0; levels],
                breaks_before: vec![0; levels],
                score_before: vec![0; levels],
            },
            on_improvement: &mut on_improvement,
        };
        // A known score tightens the schedule from the first node.
        search.tighten(&plan, search.max.saturating_sub(search.best));
        let mut state = SearchState::new(&plan);
        let mut runs = 0;
        let end = loop {
            if config.max_runs.is_some_and(|m| runs >= m) {
                break RunEnd::BudgetSpent;
            }
            plan.tables
                .shuffle(&mut Rng::fork(config.seed, u64::from(runs)));
            if plan.chained {
                if let Some(strided) = &mut plan.strided {
                    strided.refill(&plan.tables);
                }
            }
            runs += 1;
            state.reset(&plan);
            let ended = if plan.chained && plan.strided.is_some() {
                search.run_chained(&plan, &mut state)
            } else {
                search.run(&plan, &mut state)
            };
            match ended {
                None => break RunEnd::Finished,
                Some(Stop::Restart) => continue,
                Some(Stop::End(end)) => break end,
            }
        };
        Ok(BestReport {
            // Not `best`, which may be the score to beat from elsewhere.
            score: search.best_board.as_ref().map_or(0, score),
            board: search.best_board,
            nodes: search.nodes,
            runs,
            end,
        })
    }
}

impl Search<'_> {
    /// One run from the pinned board. `None` when its tree is exhausted.
    ///
    /// Indexing is unchecked on the same grounds as the counting walk's
    /// (see `walk`): offsets never exceed the candidate array, classes are
    /// below the stock's length, key indexes stay inside their table (the
    /// one-break run's end, `k + 2`, is the table's last offset at most),
    /// and every stack array holds one entry per level.
    fn run(&mut self, plan: &Plan, state: &mut SearchState) -> Option<Stop> {
        let levels = &plan.levels;
        let leaf = levels.len();
        if leaf == 0 {
            return None;
        }
        assert!(state.board.len() == plan.cells() + 1 && self.allowed.len() == leaf);
        let candidates = plan.tables.candidates();
        let offsets = plan.tables.offsets();
        let run_end = self
            .config
            .restart_nodes
            .map_or(u64::MAX, |n| self.nodes.saturating_add(n.max(1)));
        let mut mark = self.next_mark(run_end);
        // A placement must keep breaks below `bound` to ever beat the best.
        let mut bound = self.max.saturating_sub(self.best);
        let mut level = 0;
        let mut here = &levels[0];
        let (mut breaks_before, mut score_before) = (0u32, 0u32);
        let window = |allowed: &[u32], k: usize, level: usize, breaks_before: u32, bound: u32| {
            // SAFETY: k + 2 is at most the table's last offset (module doc),
            // and level < leaf == allowed.len().
            let (start, mid, end, allowed) = unsafe {
                (
                    *offsets.get_unchecked(k),
                    *offsets.get_unchecked(k + 1),
                    *offsets.get_unchecked(k + 2),
                    *allowed.get_unchecked(level),
                )
            };
            let may_break = breaks_before < allowed && breaks_before + 1 < bound;
            (start, mid, if may_break { end } else { mid })
        };
        let (mut i, mut mid, mut limit) = window(
            &self.allowed,
            plan.key_index(here, &state.board),
            0,
            0,
            bound,
        );
        loop {
            if i < limit {
                // SAFETY: i < limit ≤ candidates.len().
                let word = unsafe { *candidates.get_unchecked(i as usize) };
                let cost = u32::from(i >= mid);
                i += 1;
                let breaks = breaks_before + cost;
                if breaks >= bound {
                    // Only one-break candidates remain and none can pay off.
                    i = limit;
                    continue;
                }
                let class = class_of(word);
                // SAFETY: every candidate's class is below stock.len().
                let left = unsafe { state.stock.get_unchecked_mut(class) };
                if *left == 0 {
                    continue;
                }
                *left -= 1;
                // SAFETY: a level's pos is a board cell.
                unsafe { *state.board.get_unchecked_mut(here.pos as usize) = word };
                self.nodes += 1;
                let score = score_before + here.seams - cost;
                if self.pinned_score + score > self.best {
                    self.improve(plan, state, level + 1);
                    bound = self.max.saturating_sub(self.best);
                    self.tighten(plan, bound);
                }
                if self.nodes >= mark {
                    if let Some(stop) = self.poll(run_end) {
                        return Some(stop);
                    }
                    mark = self.next_mark(run_end);
                }
                if level + 1 == leaf {
                    state.stock[class] += 1;
                    continue;
                }
                let s = &mut self.stack;
                // SAFETY: level < leaf and every stack array has `leaf` entries.
                unsafe {
                    *s.next.get_unchecked_mut(level) = i;
                    *s.mid.get_unchecked_mut(level) = mid;
                    *s.limit.get_unchecked_mut(level) = limit;
                    *s.breaks_before.get_unchecked_mut(level) = breaks_before;
                    *s.score_before.get_unchecked_mut(level) = score_before;
                }
                breaks_before = breaks;
                score_before = score;
                level += 1;
                // SAFETY: level < leaf; the board is this plan's.
                let k = unsafe {
                    here = levels.get_unchecked(level);
                    here.key_index_unchecked(&state.board, word)
                };
                (i, mid, limit) = window(&self.allowed, k, level, breaks_before, bound);
            } else {
                if level == 0 {
                    return None;
                }
                level -= 1;
                let s = &self.stack;
                // SAFETY: level < leaf: stack arrays, levels and the board
                // cell are in bounds, and a placed word's class is below
                // stock.len().
                unsafe {
                    here = levels.get_unchecked(level);
                    let placed = *state.board.get_unchecked(here.pos as usize);
                    *state.stock.get_unchecked_mut(class_of(placed)) += 1;
                    i = *s.next.get_unchecked(level);
                    mid = *s.mid.get_unchecked(level);
                    limit = *s.limit.get_unchecked(level);
                    breaks_before = *s.breaks_before.get_unchecked(level);
                    score_before = *s.score_before.get_unchecked(level);
                }
            }
        }
    }

    #[cold]
    #[inline(never)]
    fn improve(&mut self, plan: &Plan, state: &SearchState, placed: usize) {
        let board = plan.board(self.puzzle, &state.board, placed);
        let canonical = score(&board);
        if canonical > self.best {
            self.best = canonical;
            (self.on_improvement)(&board);
            self.best_board = Some(board);
        }
    }

    /// Rescales the schedule to the breaks a better board may still carry
    /// (`bound - 1`): a ramp then spreads fewer breaks over the same depths
    /// instead of letting the walk spend them all early and be cut off at
    /// the end by the bound alone.
    fn tighten(&mut self, plan: &Plan, bound: u32) {
        let cap = self.config.max_breaks.min(bound.saturating_sub(1));
        if cap < self.cap {
            self.cap = cap;
            let cells = plan.cells();
            for (allowed, level) in self.allowed.iter_mut().zip(&plan.levels) {
                *allowed = self.config.schedule.allowed(level.depth, cells, cap);
            }
        }
    }

    fn next_mark(&self, run_end: u64) -> u64 {
        let global_end = self.config.node_budget.unwrap_or(u64::MAX);
        (self.nodes + POLL_INTERVAL).min(run_end).min(global_end)
    }

    #[cold]
    #[inline(never)]
    fn poll(&self, run_end: u64) -> Option<Stop> {
        if self.control.is_some_and(|c| c.is_stopped()) {
            return Some(Stop::End(RunEnd::Stopped));
        }
        let out_of_time = self
            .config
            .time_limit
            .is_some_and(|t| self.started.elapsed() >= t);
        let out_of_nodes = self.config.node_budget.is_some_and(|b| self.nodes >= b);
        if out_of_time || out_of_nodes {
            return Some(Stop::End(RunEnd::BudgetSpent));
        }
        (self.nodes >= run_end).then_some(Stop::Restart)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn blackwood_schedule_releases_ten_breaks_late() {
        let s = BreakSchedule::blackwood();
        assert_eq!(s.allowed(200, 256, 99), 0);
        assert_eq!(s.allowed(201, 256, 99), 1);
        assert_eq!(s.allowed(225, 256, 99), 6);
        assert_eq!(s.allowed(255, 256, 99), 10);
        assert_eq!(s.allowed(255, 256, 4), 4, "the cap still applies");
        // Scaled to 64 cells: 201 → 50, 239 → 60.
        assert_eq!(s.allowed(49, 64, 99), 0);
        assert_eq!(s.allowed(50, 64, 99), 1);
        assert_eq!(s.allowed(63, 64, 99), 10);
    }

    #[test]
    fn ramp_reaches_the_cap_at_the_last_cell() {
        let s = BreakSchedule::Ramp { from: 200 };
        assert_eq!(s.allowed(199, 256, 20), 0);
        assert!(s.allowed(200, 256, 20) >= 1);
        assert_eq!(s.allowed(255, 256, 20), 20);
        let mid = s.allowed(228, 256, 20);
        assert!((9..=12).contains(&mid), "{mid}");
        assert_eq!(BreakSchedule::Flat.allowed(0, 256, 7), 7);
    }
}
