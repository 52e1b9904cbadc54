//! The grid of runs and the one function that runs a cell of it.

use serde::{Deserialize, Serialize};

use crate::backtrack::{Backtracker, BestConfig};
use crate::error::Result;
use crate::generator::{generate, GenSpec};
use std::collections::hash_map::{Entry, HashMap};

use crate::generator::Generated;
use crate::layouts::{pinned_seam_floor, Layout};
use crate::model::{Board, Hint, Puzzle};
use crate::order::FillOrder;

/// What a study covers.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StudySpec {
    pub sizes: Vec<usize>,
    /// Seeds `1..=seeds`: each a distinct generated instance.
    pub seeds: u64,
    /// Node budget of every run.
    pub budget_nodes: u64,
    pub orders: Vec<FillOrder>,
    /// Hinted layouts; each is paired with the `none` baseline.
    pub layouts: Vec<Layout>,
}

/// The orders of the published study: the first eight of
/// [`FillOrder::ALL`] (every order e2 had then; `column-major` came later
/// and is not part of it).
pub const STUDY_ORDERS: &[FillOrder] = FillOrder::ALL.split_at(8).0;

impl StudySpec {
    /// The published study's shape: its eight orders, every hinted layout, 15 seeds.
    pub fn full(sizes: Vec<usize>, seeds: u64, budget_nodes: u64) -> Self {
        StudySpec {
            sizes,
            seeds,
            budget_nodes,
            orders: STUDY_ORDERS.to_vec(),
            layouts: crate::layouts::ALL_LAYOUTS
                .iter()
                .copied()
                .filter(|l| *l != Layout::None)
                .collect(),
        }
    }

    /// Every run, baselines included, in a fixed order.
    pub fn runs(&self) -> Vec<RunSpec> {
        let mut runs = vec![];
        for &size in &self.sizes {
            for seed in 1..=self.seeds {
                for &order in &self.orders {
                    for layout in std::iter::once(Layout::None).chain(self.layouts.iter().copied())
                    {
                        runs.push(RunSpec {
                            size,
                            seed,
                            order,
                            layout,
                            budget_nodes: self.budget_nodes,
                        });
                    }
                }
            }
        }
        runs
    }
}

/// One run: a generated puzzle, a fill order, a layout, a node budget.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct RunSpec {
    pub size: usize,
    pub seed: u64,
    #[serde(with = "name_serde")]
    pub order: FillOrder,
    #[serde(with = "name_serde")]
    pub layout: Layout,
    pub budget_nodes: u64,
}

impl RunSpec {
    /// The generated puzzle of this run. The layout only chooses which
    /// cells are pinned, so the hinted puzzle and its `none` baseline share
    /// every piece: the pairing is on the same instance.
    pub fn puzzle(&self) -> Result<(Puzzle, u32)> {
        let g = generate(&GenSpec {
            layout: self.layout,
            ..GenSpec::square(self.size, self.seed)
        })?;
        Ok((g.puzzle, g.pinned_seam_floor))
    }

    /// The search settings: strict DFS in this order, no restarts, a node budget.
    pub fn config(&self) -> BestConfig {
        BestConfig {
            node_budget: Some(self.budget_nodes),
            ..BestConfig::default()
        }
    }
}

/// The puzzles of a grid, generated once per (size, seed).
///
/// A layout only chooses which cells are pinned, and a pin is the solution's
/// own placement, so every layout's puzzle is the `none` instance plus
/// hints read off its known solution. Generating is by far the slowest
/// part of a small run, and this turns one generation per run into one per
/// instance. Equal to [`RunSpec::puzzle`] (tested).
#[derive(Default)]
pub struct PuzzleCache(HashMap<(usize, u64), Generated>);

impl PuzzleCache {
    /// `run.puzzle()`, from the cached instance.
    pub fn puzzle(&mut self, run: &RunSpec) -> Result<(Puzzle, u32)> {
        let base = match self.0.entry((run.size, run.seed)) {
            Entry::Occupied(e) => e.into_mut(),
            Entry::Vacant(e) => e.insert(generate(&GenSpec::square(run.size, run.seed))?),
        };
        let (w, h) = (base.puzzle.width, base.puzzle.height);
        let cells = run.layout.cells(w, h);
        let placements = base.solution.placements.as_ref().ok_or_else(|| {
            crate::error::Error::Invalid("a generated solution without placements".into())
        })?;
        let hints = cells
            .iter()
            .map(|&pos| {
                placements[pos]
                    .map(|p| Hint {
                        pos,
                        piece: p.piece,
                        rot: p.rot,
                    })
                    .ok_or_else(|| {
                        crate::error::Error::Invalid(format!(
                            "the generated solution leaves {} empty",
                            crate::error::cell_place(pos, w)
                        ))
                    })
            })
            .collect::<Result<Vec<_>>>()?;
        let name = match base.puzzle.name.strip_suffix(Layout::None.name()) {
            Some(stem) => format!("{stem}{}", run.layout.name()),
            None => base.puzzle.name.clone(),
        };
        let puzzle = Puzzle {
            name,
            hints,
            ..base.puzzle.clone()
        };
        Ok((puzzle, pinned_seam_floor(w, h, &cells)))
    }
}

/// What one run reached.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RunResult {
    #[serde(flatten)]
    pub run: RunSpec,
    pub pinned: usize,
    /// Interior seams with both ends pinned.
    pub floor: u32,
    /// Non-pinned cells placed on the deepest board.
    pub depth: usize,
    /// Non-pinned cells in all.
    pub searchable: usize,
    pub solved: bool,
    /// Canonical score of the best board (floor included).
    pub score: u32,
    pub max_score: u32,
    pub nodes: u64,
    pub board_hash: u64,
}

impl RunResult {
    /// Depth reached as a share of the searched cells.
    pub fn depth_fraction(&self) -> f64 {
        if self.searchable == 0 {
            1.0
        } else {
            self.depth as f64 / self.searchable as f64
        }
    }
}

/// Runs one cell of the grid in this thread. Pure: same spec, same result.
pub fn run_one(run: &RunSpec) -> Result<RunResult> {
    let (puzzle, floor) = run.puzzle()?;
    run_on(run, &puzzle, floor)
}

/// [`run_one`] on `run.puzzle()`'s puzzle and floor, already generated:
/// a grid shares one puzzle between all its fill orders, and generating
/// it once per (size, seed, layout) saves most of a small grid's time.
pub fn run_on(run: &RunSpec, puzzle: &Puzzle, floor: u32) -> Result<RunResult> {
    let mut engine = Backtracker::new(puzzle, run.order, &vec![])?;
    let report = engine.best(&run.config(), |_| {})?;
    Ok(RunResult::from_board(
        run,
        puzzle,
        floor,
        report.board.as_ref(),
        report.nodes,
    ))
}

impl RunResult {
    /// What `run` reached, read off its best board and node count alone:
    /// how a result is rebuilt from a board that came back from a cluster,
    /// so the local and the distributed path share every definition.
    /// `puzzle` and `floor` are `run.puzzle()`'s.
    pub fn from_board(
        run: &RunSpec,
        puzzle: &Puzzle,
        floor: u32,
        board: Option<&Board>,
        nodes: u64,
    ) -> RunResult {
        let cells = puzzle.cells();
        let pinned = puzzle.hints.len();
        let (filled, codes, score) = match board {
            Some(b) => (
                b.filled(),
                b.codes().unwrap_or_default(),
                crate::score::score(b),
            ),
            None => (pinned, vec![], 0),
        };
        RunResult {
            run: *run,
            pinned,
            floor,
            depth: filled.saturating_sub(pinned),
            searchable: cells - pinned,
            solved: filled == cells,
            score,
            max_score: crate::score::max_score(puzzle.width, puzzle.height),
            nodes,
            board_hash: crate::formats::board_hash(&codes),
        }
    }
}

/// Orders and layouts travel by their command-line names.
mod name_serde {
    use serde::{Deserialize, Deserializer, Serializer};
    use std::fmt::Display;
    use std::str::FromStr;

    pub fn serialize<T: Display, S: Serializer>(value: &T, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(value)
    }

    pub fn deserialize<'de, T, D>(d: D) -> Result<T, D::Error>
    where
        T: FromStr,
        T::Err: Display,
        D: Deserializer<'de>,
    {
        let text = String::deserialize(d)?;
        text.parse().map_err(serde::de::Error::custom)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_hinted_run_has_its_baseline_on_the_same_pieces() {
        let spec = StudySpec::full(vec![6], 2, 1000);
        let runs = spec.runs();
        assert_eq!(runs.len(), 2 * 8 * 5);
        let hinted = runs.iter().find(|r| r.layout == Layout::Official5).unwrap();
        let base = RunSpec {
            layout: Layout::None,
            ..*hinted
        };
        assert!(runs.contains(&base));
        let (a, _) = hinted.puzzle().unwrap();
        let (b, _) = base.puzzle().unwrap();
        assert_eq!(a.pieces, b.pieces);
        assert_eq!((a.hints.len(), b.hints.len()), (5, 0));
    }

    #[test]
    fn the_cache_gives_what_generating_gives() {
        let mut cache = PuzzleCache::default();
        // Generating is slow: one order is enough, the puzzle ignores it.
        let spec = StudySpec {
            orders: vec![FillOrder::SpiralIn],
            ..StudySpec::full(vec![6], 2, 1)
        };
        for run in spec.runs() {
            let (a, fa) = cache.puzzle(&run).unwrap();
            let (b, fb) = run.puzzle().unwrap();
            assert_eq!(
                (a.name, a.pieces, a.hints, fa),
                (b.name, b.pieces, b.hints, fb)
            );
        }
    }

    #[test]
    fn a_run_is_deterministic_and_respects_its_budget() {
        let run = RunSpec {
            size: 6,
            seed: 1,
            order: FillOrder::SpiralIn,
            layout: Layout::Official5,
            budget_nodes: 5000,
        };
        let a = run_one(&run).unwrap();
        assert_eq!(a, run_one(&run).unwrap());
        assert!(a.nodes <= 5000 + 1, "{}", a.nodes);
        assert!(a.depth <= a.searchable);
        assert_eq!(a.pinned, 5);
    }
}
