//! The DLX/XCC engine: Knuth's Algorithm C, for exact counts and
//! uniqueness proofs (docs/engines.md).
//!
//! The backtracker is faster at finding good boards; this engine is the
//! instrument of exhaustiveness: it counts every perfect board of a small
//! puzzle, proves a puzzle has one solution, and cross-checks the other
//! engine's counts. It follows TAOCP 7.2.2.1 Algorithm C to the letter
//! because colour purification interacting with cover/uncover is exactly
//! where home-grown variants break, and days go into finding out why.
//!
//! One concept per module:
//!
//! - [`problem`]: an XCC problem as data (items, options, colours);
//! - [`text`]: the text format of Knuth's dlx1/dlx2 programs;
//! - `links`: Knuth's flat node and item arrays and the dance steps
//!   (`cover'`, `hide'`, `purify`, `commit` and their inverses);
//! - `bits`: the same memory as bit sets of options, with the same
//!   search and nodes and no dance (several times faster on small boards;
//!   what counts of puzzles run on when the problem fits);
//! - [`algorithm_c`]: steps C1–C8 with an explicit stack, so a search is a
//!   path of options that can be checkpointed, resumed and split, over
//!   either memory;
//! - [`sparse`]: the same algorithm on sparse sets instead of links (the
//!   data structure of Knuth's SSXCC), faster for whole-file counts but
//!   with its own node counts and no checkpoints; `e2 dlx` uses it unless
//!   asked for the links engine and its dlx2-identical counts;
//! - [`run`]: limits, positions, reports and the listener a run talks to;
//! - [`e2`]: Eternity II as XCC, and the counting tasks of the coordinator
//!   (prefixes, checkpoints, boards).
//!
//! The functions below are the front door for callers that hold a puzzle or
//! a `.dlx` file.

pub mod algorithm_c;
mod bits;
pub mod e2;
mod links;
pub mod problem;
pub mod run;
pub mod sparse;
pub mod text;

pub use algorithm_c::{AlgorithmC, Choice};
pub use e2::{CoverReport, E2Cover, Hooks};
pub use problem::{Entry, Xcc, NO_COLOUR};
pub use run::{Limits, Listener, Position, Quiet, Report};
pub use sparse::{SparseC, SparseReport};

use crate::error::Result;
use crate::model::{Board, Puzzle};
use crate::search::{Checkpoint, Control, Prefix, RunEnd};

/// Counts the perfect boards of `puzzle` below `prefix`.
pub fn count_puzzle(
    puzzle: &Puzzle,
    prefix: &Prefix,
    limits: &Limits,
    hooks: Hooks<'_>,
) -> Result<CoverReport> {
    E2Cover::new(puzzle)?.count(prefix, limits, hooks)
}

/// Resumes a count of `puzzle` from a checkpoint of this engine.
pub fn resume(
    puzzle: &Puzzle,
    checkpoint: &Checkpoint,
    limits: &Limits,
    hooks: Hooks<'_>,
) -> Result<CoverReport> {
    E2Cover::new(puzzle)?.resume(checkpoint, limits, hooks)
}

/// The subtasks `depth` levels down the search of `puzzle`; their counts
/// add up to the whole count.
pub fn prefixes(puzzle: &Puzzle, depth: usize) -> Result<Vec<Prefix>> {
    Ok(cut(puzzle, depth)?.0)
}

/// [`prefixes`], with the nodes above them that no subtask visits: a DLX
/// node is entering a level, and a subtask enters the level below its
/// prefix itself, so those are the enumeration's nodes less one per prefix.
pub fn cut(puzzle: &Puzzle, depth: usize) -> Result<(Vec<Prefix>, u64)> {
    E2Cover::new(puzzle)?.cut(&Vec::new(), depth)
}

/// The first perfect board of `puzzle` in search order, if it has one.
pub fn first_solution(puzzle: &Puzzle) -> Result<Option<Board>> {
    E2Cover::new(puzzle)?.first_solution()
}

/// Counts the perfect boards of `puzzle`, stopping at `limit`: `Ok(n)` with
/// `n < limit` is exact, `n == limit` means "at least".
pub fn count_up_to(puzzle: &Puzzle, limit: u64) -> Result<u64> {
    Ok(count_puzzle(
        puzzle,
        &Vec::new(),
        &Limits::solutions(limit),
        Hooks::default(),
    )?
    .solutions)
}

/// Does `puzzle` have exactly one perfect board?
pub fn is_unique(puzzle: &Puzzle) -> Result<bool> {
    Ok(count_up_to(puzzle, 2)? == 1)
}

/// A generic XCC problem with its solver, e.g. read from a `.dlx` file.
#[derive(Debug, Clone)]
pub struct Dlx {
    xcc: Xcc,
    warnings: Vec<String>,
}

impl Dlx {
    /// Reads the text format of Knuth's dlx1/dlx2 (see [`text`]).
    pub fn from_text(text: &str) -> Result<Self> {
        let parsed = text::parse(text)?;
        Ok(Dlx {
            xcc: parsed.xcc,
            warnings: parsed.warnings,
        })
    }

    pub fn new(xcc: Xcc) -> Self {
        Dlx {
            xcc,
            warnings: Vec::new(),
        }
    }

    pub fn xcc(&self) -> &Xcc {
        &self.xcc
    }

    /// Options the reader dropped for naming no primary item.
    pub fn warnings(&self) -> &[String] {
        &self.warnings
    }

    /// Counts every solution within `limits`.
    pub fn count(&self, limits: &Limits, control: Option<&Control>) -> Report {
        self.run(&Position::default(), limits, control, &mut Quiet)
            .expect("a run without forced options or path cannot fail")
    }

    /// A run from a position (a fresh one, a prefix of forced options, or a
    /// checkpoint) with any listener.
    pub fn run<L: Listener>(
        &self,
        from: &Position,
        limits: &Limits,
        control: Option<&Control>,
        listener: &mut L,
    ) -> Result<Report> {
        AlgorithmC::new(&self.xcc).run(from, limits, control, listener)
    }

    /// The solutions (each a list of option numbers, in level order), at
    /// most `max` of them.
    pub fn solutions(&self, max: Option<u64>) -> Vec<Vec<u32>> {
        struct Collect(Vec<Vec<u32>>);
        impl Listener for Collect {
            const WANTS_SOLUTIONS: bool = true;
            fn solution(&mut self, options: &[u32]) {
                self.0.push(options.to_vec());
            }
        }
        let mut all = Collect(Vec::new());
        let limits = Limits {
            max_solutions: max,
            ..Limits::default()
        };
        self.run(&Position::default(), &limits, None, &mut all)
            .expect("a run without forced options or path cannot fail");
        all.0
    }

    /// The options `depth` levels below `forced` on the MRV search (and the
    /// solutions above that depth), each as a full list of options.
    pub fn prefixes(&self, forced: &[u32], depth: usize) -> Result<Vec<Vec<u32>>> {
        struct Leaves(Vec<Vec<u32>>);
        impl Listener for Leaves {
            fn leaf(&mut self, options: &[u32]) {
                self.0.push(options.to_vec());
            }
        }
        let mut leaves = Leaves(Vec::new());
        AlgorithmC::new(&self.xcc).enumerate(forced, depth, &mut leaves)?;
        Ok(leaves.0)
    }
}

/// Which implementation of Algorithm C counts a `.dlx` problem.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Algorithm {
    /// Dancing links ([`AlgorithmC`]): node and update counts identical to
    /// Knuth's dlx2, checkpoints and splits.
    Links,
    /// Sparse sets ([`SparseC`]): faster, its own node and update counts.
    #[default]
    Sparse,
    /// Bit sets of options ([`AlgorithmC::on_bits`]): dlx2's node counts,
    /// no update counts, the fastest on problems of at most
    /// [`AlgorithmC::MAX_BITS_OPTIONS`] options (larger ones are refused).
    Bits,
}

/// What `e2 dlx FILE` prints.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TextCount {
    pub solutions: u64,
    pub nodes: u64,
    /// Knuth's updates; `None` for the bit sets, which make none.
    pub updates: Option<u64>,
    pub end: RunEnd,
    /// The first solution's options as text lines, when asked for.
    pub first: Option<Vec<String>>,
    /// Options the reader dropped (no primary item).
    pub warnings: Vec<String>,
}

/// Counts a problem given in Knuth's dlx text format with the links engine
/// (dlx2's node and update counts), optionally with the first solution's
/// options.
pub fn count_text(
    text: &str,
    show_first: bool,
    limits: &Limits,
    control: Option<&Control>,
) -> Result<TextCount> {
    count_text_with(Algorithm::Links, text, show_first, limits, control)
}

/// Counts a problem given in Knuth's dlx text format (the `e2 dlx FILE`
/// command) with the chosen engine, optionally with the first solution's
/// options.
pub fn count_text_with(
    algorithm: Algorithm,
    text: &str,
    show_first: bool,
    limits: &Limits,
    control: Option<&Control>,
) -> Result<TextCount> {
    let dlx = Dlx::from_text(text)?;
    let (solutions, nodes, updates, end, first) = match algorithm {
        Algorithm::Links => {
            let r = dlx.count(limits, control);
            (r.solutions, r.nodes, Some(r.updates), r.end, r.first)
        }
        Algorithm::Sparse => {
            let r = SparseC::new(&dlx.xcc).run(limits, control, &mut Quiet);
            (r.solutions, r.nodes, Some(r.updates), r.end, r.first)
        }
        Algorithm::Bits => {
            let Some(mut solver) = AlgorithmC::on_bits(&dlx.xcc, Choice::Mrv) else {
                return Err(crate::error::Error::Invalid(format!(
                    "{} options are more than the bit sets hold ({}): use the sparse or the links algorithm",
                    dlx.xcc.options(),
                    AlgorithmC::MAX_BITS_OPTIONS
                )));
            };
            let r = solver.run(&Position::default(), limits, control, &mut Quiet)?;
            (r.solutions, r.nodes, None, r.end, r.first)
        }
    };
    let first = match (show_first, first) {
        (true, Some(options)) => Some(options.iter().map(|&o| dlx.xcc().option_text(o)).collect()),
        _ => None,
    };
    Ok(TextCount {
        solutions,
        nodes,
        updates,
        end,
        first,
        warnings: dlx.warnings,
    })
}
