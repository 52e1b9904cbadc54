//! The one door between the distributed machinery and the engines.
//!
//! Everything else in the worker and coordinator sees engines only through
//! these four functions, so an engine's internals can change without
//! touching leases, ledgers or RPCs:
//!
//! - [`prefixes`]: the subtasks at a given depth (used by the coordinator to
//!   split a count job before any worker runs);
//! - [`count`]: count the perfect boards under a prefix, or resume from a
//!   checkpoint, for at most a node budget, obeying a [`Control`];
//! - [`best`]: spend a node budget searching for high-scoring boards,
//!   reporting each improvement.
//!
//! Counts are *cumulative*: a run resumed from a checkpoint reports the
//! checkpoint's solutions and nodes plus its own, so a task's final count is
//! whatever its last run says.
//!
//! `dlx` runs `e2_shared::dlx` (Algorithm C). TEMPORARY: the backtracker
//! (`e2_shared::backtrack`) is being written on another branch; until it is
//! merged, `backtrack` runs [`reference`], a plain, slow, obviously correct
//! search that honours the same contract (checkpoints, splits, budgets), and
//! best-score searches run its randomised greedy fill. Replace those arms
//! with calls to the backtracker once it lands.

use e2_shared::dlx::{self, Hooks, Limits};
use e2_shared::search::{Checkpoint, Control, Prefix, RunEnd};
use e2_shared::{Board, Error, Puzzle};

pub use e2_proto::pb::Engine;

/// What one call to [`count`] did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CountRun {
    /// Perfect boards counted in the task so far (cumulative).
    pub solutions: u64,
    /// Nodes visited in the task so far (cumulative).
    pub nodes: u64,
    pub end: RunEnd,
    /// Where to resume; `None` once the subtree is finished.
    pub checkpoint: Option<Checkpoint>,
}

/// What one call to [`best`] did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BestRun {
    pub nodes: u64,
    pub best_score: Option<u32>,
    pub end: RunEnd,
}

/// Every prefix of `depth` forced placements that can still lead to a
/// perfect board, in the engine's search order. A depth beyond the free
/// cells is clamped.
pub fn prefixes(puzzle: &Puzzle, engine: Engine, depth: usize) -> Result<Vec<Prefix>, Error> {
    match engine {
        Engine::Dlx => dlx::prefixes(puzzle, depth),
        Engine::Backtrack | Engine::Unspecified => reference::prefixes(puzzle, depth),
    }
}

/// Counts the perfect boards under `prefix` (or from `resume`, whose prefix
/// supersedes it), visiting at most `budget` nodes.
///
/// A split asked through `control` donates untried siblings with
/// [`Control::donate`]; the checkpoint returned afterwards describes only
/// what is left to this run (its prefix is extended accordingly).
pub fn count(
    puzzle: &Puzzle,
    engine: Engine,
    prefix: &Prefix,
    resume: Option<&Checkpoint>,
    budget: u64,
    control: &Control,
) -> Result<CountRun, Error> {
    let name = e2_proto::engine_name(engine);
    if let Some(cp) = resume {
        if cp.engine != name {
            return Err(Error::Invalid(format!(
                "a {} checkpoint cannot resume the {name} engine",
                cp.engine
            )));
        }
    }
    if engine == Engine::Dlx {
        let limits = Limits {
            max_nodes: (budget != u64::MAX).then_some(budget),
            ..Limits::default()
        };
        let hooks = Hooks {
            control: Some(control),
            ..Hooks::default()
        };
        let report = match resume {
            Some(cp) => dlx::resume(puzzle, cp, &limits, hooks)?,
            None => dlx::count_puzzle(puzzle, prefix, &limits, hooks)?,
        };
        return Ok(CountRun {
            solutions: report.solutions,
            nodes: report.nodes,
            end: report.end,
            checkpoint: report.checkpoint,
        });
    }
    let mut search = match resume {
        Some(cp) => reference::Count::resume(puzzle, name, cp)?,
        None => reference::Count::new(puzzle, name, prefix)?,
    };
    let end = search.run(budget, control);
    Ok(CountRun {
        solutions: search.solutions(),
        nodes: search.nodes(),
        end,
        checkpoint: (end != RunEnd::Finished).then(|| search.checkpoint()),
    })
}

/// Searches the subtree of `prefix` for high-scoring boards for about
/// `budget` nodes, calling `on_improved` with each board better than every
/// earlier one of this run. Boards honour the hints and the prefix.
pub fn best(
    puzzle: &Puzzle,
    engine: Engine,
    prefix: &Prefix,
    seed: u64,
    budget: u64,
    control: &Control,
    on_improved: &mut dyn FnMut(&Board),
) -> Result<BestRun, Error> {
    let _ = engine;
    reference::best(puzzle, prefix, seed, budget, control, on_improved)
}

/// TEMPORARY reference engine (see the module comment): a row-major
/// depth-first search over explicit frames, so that its position is a path
/// of choice indices and a split is a truncation of one frame.
mod reference {
    use e2_shared::model::{canonical_form, rotate, Edges, Placement, DOWN, LEFT, RIGHT, UP};
    use e2_shared::rng::Rng;
    use e2_shared::search::{Checkpoint, Control, Forced, Prefix, RunEnd};
    use e2_shared::{Board, Error, Puzzle};

    /// How often (in loop steps) the control is polled: often, because the
    /// reference engine is used on tiny puzzles where splits must still happen.
    const POLL_EVERY: u64 = 64;

    struct Frame {
        candidates: Vec<Forced>,
        next: usize,
    }

    /// The board with hints and a prefix applied, and what is left free.
    struct Setup {
        cells: Vec<Option<Edges>>,
        used: Vec<bool>,
        free: Vec<usize>,
        /// Fixed cells contradict each other: nothing under this prefix.
        dead: bool,
    }

    fn setup(puzzle: &Puzzle, prefix: &Prefix) -> Result<Setup, Error> {
        let n = puzzle.cells();
        let mut cells = vec![None; n];
        let mut used = vec![false; puzzle.pieces.len()];
        let fixed = puzzle
            .hints
            .iter()
            .map(|h| Forced {
                pos: h.pos,
                piece: h.piece,
                rot: h.rot,
            })
            .chain(prefix.iter().copied());
        for f in fixed {
            if f.pos >= n || f.piece >= puzzle.pieces.len() || f.rot > 3 {
                return Err(Error::Invalid(format!(
                    "forced placement {f:?} is outside the puzzle"
                )));
            }
            if cells[f.pos].is_some() || used[f.piece] {
                return Err(Error::Invalid(format!(
                    "forced placement {f:?} reuses a cell or piece"
                )));
            }
            cells[f.pos] = Some(rotate(puzzle.pieces[f.piece], f.rot));
            used[f.piece] = true;
        }
        let dead = (0..n).any(|pos| cells[pos].is_some_and(|e| !fits(puzzle, &cells, pos, e)));
        let free = (0..n).filter(|&p| cells[p].is_none()).collect();
        Ok(Setup {
            cells,
            used,
            free,
            dead,
        })
    }

    /// Does `edges` on `pos` show grey exactly on the frame and match every
    /// filled neighbour?
    fn fits(puzzle: &Puzzle, cells: &[Option<Edges>], pos: usize, edges: Edges) -> bool {
        let (w, h) = (puzzle.width, puzzle.height);
        let (row, col) = (pos / w, pos % w);
        let neighbours = [
            (UP, (row > 0).then(|| pos - w), DOWN),
            (RIGHT, (col + 1 < w).then(|| pos + 1), LEFT),
            (DOWN, (row + 1 < h).then(|| pos + w), UP),
            (LEFT, (col > 0).then(|| pos - 1), RIGHT),
        ];
        neighbours
            .into_iter()
            .all(|(side, other, facing)| match other {
                None => edges[side] == 0,
                Some(o) => edges[side] != 0 && cells[o].is_none_or(|e| e[facing] == edges[side]),
            })
    }

    /// Placements for `pos`: unused pieces at each distinct rotation, taking
    /// only the first unused piece of a class of equal pieces so that a
    /// repeated piece never doubles a board.
    fn candidates(
        puzzle: &Puzzle,
        cells: &[Option<Edges>],
        used: &[bool],
        pos: usize,
    ) -> Vec<Forced> {
        let mut out = Vec::new();
        let mut classes_tried: Vec<Edges> = Vec::new();
        for (piece, &catalogue) in puzzle.pieces.iter().enumerate() {
            if used[piece] {
                continue;
            }
            let class = canonical_form(catalogue);
            if classes_tried.contains(&class) {
                continue;
            }
            classes_tried.push(class);
            let mut shown: Vec<Edges> = Vec::with_capacity(4);
            for rot in 0..4u8 {
                let placed = rotate(catalogue, rot);
                if shown.contains(&placed) {
                    continue;
                }
                shown.push(placed);
                if fits(puzzle, cells, pos, placed) {
                    out.push(Forced { pos, piece, rot });
                }
            }
        }
        out
    }

    pub fn prefixes(puzzle: &Puzzle, depth: usize) -> Result<Vec<Prefix>, Error> {
        let mut s = setup(puzzle, &Vec::new())?;
        let mut out = Vec::new();
        if s.dead {
            return Ok(out);
        }
        let depth = depth.min(s.free.len());
        let mut path = Vec::new();
        collect(puzzle, &mut s, depth, &mut path, &mut out);
        Ok(out)
    }

    fn collect(
        puzzle: &Puzzle,
        s: &mut Setup,
        depth: usize,
        path: &mut Prefix,
        out: &mut Vec<Prefix>,
    ) {
        if path.len() == depth {
            out.push(path.clone());
            return;
        }
        let pos = s.free[path.len()];
        for f in candidates(puzzle, &s.cells, &s.used, pos) {
            s.cells[pos] = Some(rotate(puzzle.pieces[f.piece], f.rot));
            s.used[f.piece] = true;
            path.push(f);
            collect(puzzle, s, depth, path, out);
            path.pop();
            s.used[f.piece] = false;
            s.cells[pos] = None;
        }
    }

    /// A resumable count of one subtree.
    pub struct Count<'a> {
        puzzle: &'a Puzzle,
        engine: &'a str,
        s: Setup,
        /// The task's prefix, extended by every split.
        prefix: Prefix,
        stack: Vec<Frame>,
        /// Levels below `base` were frozen into `prefix` by a split.
        base: usize,
        solutions: u64,
        nodes: u64,
        /// Only for a board with no free cell: has it been counted?
        trivial_done: bool,
    }

    impl<'a> Count<'a> {
        pub fn new(puzzle: &'a Puzzle, engine: &'a str, prefix: &Prefix) -> Result<Self, Error> {
            let s = setup(puzzle, prefix)?;
            let mut c = Count {
                puzzle,
                engine,
                s,
                prefix: prefix.clone(),
                stack: Vec::new(),
                base: 0,
                solutions: 0,
                nodes: 0,
                trivial_done: false,
            };
            if !c.s.dead && !c.s.free.is_empty() {
                let candidates = c.candidates_at(0);
                c.stack.push(Frame {
                    candidates,
                    next: 0,
                });
            }
            c.trivial_done = c.s.dead;
            Ok(c)
        }

        pub fn resume(puzzle: &'a Puzzle, engine: &'a str, cp: &Checkpoint) -> Result<Self, Error> {
            let mut c = Count::new(puzzle, engine, &cp.prefix)?;
            c.solutions = cp.solutions;
            c.nodes = cp.nodes;
            if cp.path.is_empty() {
                return Ok(c);
            }
            let misfit = || Error::Invalid("checkpoint path does not fit its prefix".into());
            if c.stack.is_empty() || cp.path.len() > c.s.free.len() {
                return Err(misfit());
            }
            c.stack.clear();
            for (level, &choice) in cp.path.iter().enumerate() {
                let candidates = c.candidates_at(level);
                let choice = choice as usize;
                if choice >= candidates.len() {
                    return Err(misfit());
                }
                let chosen = candidates[choice];
                c.stack.push(Frame {
                    candidates,
                    next: choice,
                });
                if level + 1 < cp.path.len() {
                    c.place(chosen);
                }
            }
            Ok(c)
        }

        fn candidates_at(&self, level: usize) -> Vec<Forced> {
            candidates(self.puzzle, &self.s.cells, &self.s.used, self.s.free[level])
        }

        fn place(&mut self, f: Forced) {
            self.s.cells[f.pos] = Some(rotate(self.puzzle.pieces[f.piece], f.rot));
            self.s.used[f.piece] = true;
        }

        fn unplace(&mut self, f: Forced) {
            self.s.cells[f.pos] = None;
            self.s.used[f.piece] = false;
        }

        pub fn solutions(&self) -> u64 {
            self.solutions
        }

        pub fn nodes(&self) -> u64 {
            self.nodes
        }

        pub fn checkpoint(&self) -> Checkpoint {
            Checkpoint {
                engine: self.engine.to_string(),
                prefix: self.prefix.clone(),
                path: self.stack[self.base.min(self.stack.len())..]
                    .iter()
                    .map(|f| f.next as u32)
                    .collect(),
                solutions: self.solutions,
                nodes: self.nodes,
            }
        }

        pub fn run(&mut self, budget: u64, control: &Control) -> RunEnd {
            if self.s.free.is_empty() {
                if !self.trivial_done {
                    self.trivial_done = true;
                    self.solutions += 1;
                    self.nodes += 1;
                }
                return RunEnd::Finished;
            }
            let start = self.nodes;
            let mut steps = 0u64;
            loop {
                let Some(top) = self.stack.last() else {
                    return RunEnd::Finished;
                };
                if top.next >= top.candidates.len() {
                    self.stack.pop();
                    if let Some(parent) = self.stack.last() {
                        let f = parent.candidates[parent.next];
                        self.unplace(f);
                        self.stack.last_mut().expect("parent").next += 1;
                    }
                    continue;
                }
                steps += 1;
                if steps % POLL_EVERY == 1 {
                    if control.is_stopped() {
                        return RunEnd::Stopped;
                    }
                    if control.split_wanted() {
                        self.split(control);
                    }
                }
                if self.nodes - start >= budget {
                    return RunEnd::BudgetSpent;
                }
                let level = self.stack.len() - 1;
                let top = &self.stack[level];
                let f = top.candidates[top.next];
                self.place(f);
                self.nodes += 1;
                if level + 1 == self.s.free.len() {
                    self.solutions += 1;
                    self.unplace(f);
                    self.stack[level].next += 1;
                } else {
                    let candidates = self.candidates_at(level + 1);
                    self.stack.push(Frame {
                        candidates,
                        next: 0,
                    });
                }
            }
        }

        /// Gives away the untried siblings of the shallowest open level and
        /// freezes the levels down to it into the prefix.
        fn split(&mut self, control: &Control) {
            let Some(k) = (self.base..self.stack.len())
                .find(|&l| self.stack[l].next + 1 < self.stack[l].candidates.len())
            else {
                return;
            };
            let mut stem = self.prefix.clone();
            stem.extend(
                self.stack[self.base..k]
                    .iter()
                    .map(|f| f.candidates[f.next]),
            );
            let frame = &mut self.stack[k];
            let donated = frame.candidates[frame.next + 1..]
                .iter()
                .map(|&sibling| {
                    let mut p = stem.clone();
                    p.push(sibling);
                    p
                })
                .collect();
            frame.candidates.truncate(frame.next + 1);
            stem.push(frame.candidates[frame.next]);
            self.prefix = stem;
            self.base = k + 1;
            control.donate(donated);
        }
    }

    /// Randomised greedy fills: each free cell (row-major) takes the unused
    /// placement matching most filled neighbours, ties broken by the seed.
    pub fn best(
        puzzle: &Puzzle,
        prefix: &Prefix,
        seed: u64,
        budget: u64,
        control: &Control,
        on_improved: &mut dyn FnMut(&Board),
    ) -> Result<super::BestRun, Error> {
        let base = setup(puzzle, prefix)?;
        let mut rng = Rng::new(seed);
        let mut nodes = 0u64;
        let mut best_score: Option<u32> = None;
        let budget = budget.max(1);
        let mut placements: Vec<Option<Placement>> = vec![None; puzzle.cells()];
        for h in &puzzle.hints {
            placements[h.pos] = Some(Placement {
                piece: h.piece,
                rot: h.rot,
            });
        }
        for f in prefix {
            placements[f.pos] = Some(Placement {
                piece: f.piece,
                rot: f.rot,
            });
        }
        while nodes < budget {
            if control.is_stopped() {
                return Ok(super::BestRun {
                    nodes,
                    best_score,
                    end: RunEnd::Stopped,
                });
            }
            let mut cells = base.cells.clone();
            let mut used = base.used.clone();
            let mut board = placements.clone();
            for &pos in &base.free {
                let mut chosen: Option<(u32, u64, Forced)> = None;
                for (piece, &catalogue) in puzzle.pieces.iter().enumerate() {
                    if used[piece] {
                        continue;
                    }
                    for rot in 0..4u8 {
                        let edges = rotate(catalogue, rot);
                        let gain = matches(puzzle, &cells, pos, edges);
                        let tie = rng.next_u64();
                        if chosen.is_none_or(|(g, t, _)| (gain, tie) > (g, t)) {
                            chosen = Some((gain, tie, Forced { pos, piece, rot }));
                        }
                    }
                }
                let (_, _, f) = chosen.expect("as many pieces as cells");
                cells[pos] = Some(rotate(puzzle.pieces[f.piece], f.rot));
                used[f.piece] = true;
                board[pos] = Some(Placement {
                    piece: f.piece,
                    rot: f.rot,
                });
                nodes += 1;
            }
            let filled = Board::from_placements(puzzle, board);
            let score = e2_shared::score::score(&filled);
            if best_score.is_none_or(|b| score > b) {
                best_score = Some(score);
                on_improved(&filled);
            }
            if puzzle.cells() == 0 || base.free.is_empty() {
                break;
            }
        }
        Ok(super::BestRun {
            nodes,
            best_score,
            end: RunEnd::BudgetSpent,
        })
    }

    /// Matched seams `edges` would make on `pos`, frame faces weighed so
    /// that grey goes to the frame first.
    fn matches(puzzle: &Puzzle, cells: &[Option<Edges>], pos: usize, edges: Edges) -> u32 {
        let (w, h) = (puzzle.width, puzzle.height);
        let (row, col) = (pos / w, pos % w);
        let sides = [
            (UP, (row > 0).then(|| pos - w), DOWN),
            (RIGHT, (col + 1 < w).then(|| pos + 1), LEFT),
            (DOWN, (row + 1 < h).then(|| pos + w), UP),
            (LEFT, (col > 0).then(|| pos - 1), RIGHT),
        ];
        sides
            .into_iter()
            .map(|(side, other, facing)| match other {
                None => 4 * (edges[side] == 0) as u32,
                Some(o) => match cells[o] {
                    Some(e) => (edges[side] != 0 && e[facing] == edges[side]) as u32,
                    None => 0,
                },
            })
            .sum()
    }

    #[cfg(test)]
    mod tests {
        use super::*;

        /// Four distinct corners that close into one 2x2 board; turning
        /// the whole board gives the other three solutions.
        fn ring() -> Puzzle {
            Puzzle {
                name: "ring".into(),
                width: 2,
                height: 2,
                num_colors: 2,
                pieces: vec![[0, 1, 2, 0], [0, 0, 1, 1], [2, 2, 0, 0], [1, 0, 0, 2]],
                hints: vec![],
            }
        }

        fn count_all(p: &Puzzle, prefix: &Prefix) -> u64 {
            let mut c = Count::new(p, "backtrack", prefix).unwrap();
            assert_eq!(c.run(u64::MAX, &Control::default()), RunEnd::Finished);
            c.solutions()
        }

        #[test]
        fn prefixes_partition_the_count() {
            let p = ring();
            let whole = count_all(&p, &Vec::new());
            assert_eq!(whole, 4);
            for depth in 1..=4 {
                let parts: u64 = prefixes(&p, depth)
                    .unwrap()
                    .iter()
                    .map(|x| count_all(&p, x))
                    .sum();
                assert_eq!(parts, whole, "depth {depth}");
            }
        }

        #[test]
        fn budgeted_resumes_and_splits_add_up() {
            let p = ring();
            let whole = count_all(&p, &Vec::new());
            // Tiny budgets, a split at every poll: the pieces must add up.
            let control = Control::default();
            let mut queue: Vec<Prefix> = vec![Vec::new()];
            let mut total = 0;
            while let Some(prefix) = queue.pop() {
                let mut cp: Option<Checkpoint> = None;
                loop {
                    let mut c = match &cp {
                        Some(cp) => Count::resume(&p, "backtrack", cp).unwrap(),
                        None => Count::new(&p, "backtrack", &prefix).unwrap(),
                    };
                    control.request_split();
                    let end = c.run(1, &control);
                    queue.extend(control.take_donated());
                    if end == RunEnd::Finished {
                        total += c.solutions();
                        break;
                    }
                    cp = Some(c.checkpoint());
                }
            }
            assert_eq!(total, whole);
        }
    }
}
