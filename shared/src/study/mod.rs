//! The hint study as a reproducible apparatus.
//!
//! The study asks what hints are worth to a plain depth-first search, and
//! whether the fill order matters more. Its grid is every fill order × every
//! hint layout × seeds, each hinted run paired with a run of the *same
//! generated puzzle* without hints, so the paired difference removes the
//! large instance-to-instance variance of these boards.
//!
//! Runs are strict DFS (no breaks, no propagation) with a node budget, not a
//! time limit, so a result depends only on (size, seed, order, layout,
//! budget) and reruns agree byte for byte on any machine. Results are read
//! through metrics immune to the pinned-seam floor: depth reached (the
//! share of the searched, non-pinned cells placed) and solve rate; raw score
//! is only compared between runs that share a floor.
//!
//! - [`grid`]: the runs of a study and what each one does.
//! - [`report`]: per-run JSONL, the Markdown tables and the SVG chart.

pub mod grid;
pub mod report;

pub use grid::{run_on, run_one, PuzzleCache, RunResult, RunSpec, StudySpec};
pub use report::{chart_svg, jsonl, markdown};
