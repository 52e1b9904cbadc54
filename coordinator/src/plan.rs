//! How a new job is cut into its first tasks.
//!
//! A count is cut at the smallest depth that gives many more prefixes than
//! there are worker threads (16 per thread, at least 64), so that uneven
//! subtrees even out and a late worker still finds work; subtrees that turn
//! out long are split further while the job runs. A best job cycles over
//! the depth-1 prefixes of its own fill order, each round with a new seed,
//! for variety; a whole-tree best job is one task, the empty prefix.

use e2_shared::engine::{BestSearch, Engine, COUNT_ORDER};
use e2_shared::search::Prefix;
use e2_shared::{Error, Puzzle};

use crate::records::Mode;

/// Prefixes per worker thread a count job starts with.
const PREFIXES_PER_THREAD: usize = 16;
const MIN_PREFIXES: usize = 64;

pub fn first_tasks(
    puzzle: &Puzzle,
    mode: Mode,
    engine: Engine,
    search: &BestSearch,
    worker_threads: usize,
) -> Result<Vec<Prefix>, Error> {
    let free = puzzle.cells() - puzzle.hints.len();
    if free == 0 {
        return Ok(vec![Vec::new()]);
    }
    match mode {
        Mode::Best => {
            let prefixes = search.prefixes(engine, puzzle, 1)?;
            Ok(if prefixes.is_empty() {
                vec![Vec::new()]
            } else {
                prefixes
            })
        }
        Mode::Count => {
            let target = (PREFIXES_PER_THREAD * worker_threads).max(MIN_PREFIXES);
            let mut depth = 1;
            loop {
                let prefixes = engine.prefixes(puzzle, COUNT_ORDER, depth)?;
                if prefixes.is_empty() || prefixes.len() >= target || depth >= free {
                    return Ok(prefixes);
                }
                depth += 1;
            }
        }
    }
}
