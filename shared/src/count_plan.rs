//! How a count is planned before any task runs: which tree, which fill
//! order, how many tasks.
//!
//! Three choices decide how long an exhaustive count takes, and all three
//! are made once, here, for `e2 count` and the coordinator alike:
//! - **the tree**: the rotation reduction of [`crate::symmetry`] counts a
//!   quarter (or half) of the boards when that is exact, as parts whose sum
//!   is multiplied back;
//! - **the fill order**: orders change a tree's size by orders of
//!   magnitude, so unless one is asked for, each order the engine can walk
//!   is estimated by Knuth's probes ([`crate::estimate`]) and the smallest
//!   tree wins. A checkpoint resumes only under the order that took it, so
//!   the order chosen is recorded with the job;
//! - **the tasks**: a tree of a few million nodes is one task (a flush per
//!   task would cost more than the search), a large one is cut into many
//!   more tasks than threads (16 per thread, at least 64) so that uneven
//!   subtrees even out, and the sizes in between get one task per
//!   [`NODES_PER_TASK`] estimated nodes, at least one per thread.

use crate::engine::{Cut, Engine, Subtree};
use crate::error::Result;
use crate::estimate::Probes;
use crate::model::Puzzle;
use crate::order::FillOrder;
use crate::search::Prefix;
use crate::symmetry::{reduce, Reduction};

/// A tree estimated below this many nodes is counted as one task.
pub const ONE_TASK_NODES: f64 = 4e6;
/// Estimated nodes per task for mid-sized trees.
pub const NODES_PER_TASK: f64 = 5e6;
/// Tasks per worker thread (and at least [`MIN_TASKS`]) for large trees.
pub const TASKS_PER_THREAD: usize = 16;
pub const MIN_TASKS: usize = 64;
/// Probes per order when choosing one, and for the chosen tree's size.
const CHOOSING_PROBES: u64 = 2_000;
const SIZING_PROBES: u64 = 10_000;

/// What the caller asks for.
#[derive(Debug, Clone, Copy)]
pub struct CountAsk {
    pub engine: Engine,
    /// Use the rotation reduction where it is exact.
    pub symmetry: bool,
    /// The fill order to use; `None`: the smallest estimated tree.
    pub order: Option<FillOrder>,
    /// Worker threads the tasks are for.
    pub threads: usize,
    /// Size the tasks by the estimate (false: always the large cut, for
    /// counts whose tasks must not be split, such as verified ones).
    pub sized: bool,
}

/// The planned count.
#[derive(Debug, Clone)]
pub struct CountPlan {
    /// The reduction used (factor 1 and no pins when none).
    pub reduction: Reduction,
    pub order: FillOrder,
    /// Whether the order was chosen by estimate (not asked for).
    pub order_chosen: bool,
    /// Estimated nodes of the tree to count (all parts), if estimated.
    pub estimate: Option<f64>,
    /// The tasks: the part each belongs to, and its prefix.
    pub tasks: Vec<(u32, Prefix)>,
    /// Nodes above the tasks' prefixes, which no task visits (see
    /// [`Engine::cut`]): the tasks' nodes plus these are the tree's.
    pub cut_nodes: u64,
}

/// The tree a count walks: the reduction (as asked), its parts, and the
/// fill order (as asked, or the smallest estimated tree: chosen `true`).
pub fn choose_tree(
    puzzle: &Puzzle,
    engine: Engine,
    symmetry: bool,
    order: Option<FillOrder>,
) -> (Reduction, Vec<Puzzle>, FillOrder, bool) {
    let reduction = if symmetry {
        reduce(puzzle)
    } else {
        Reduction::none("not asked for (--no-symmetry)")
    };
    let (order, chosen) = match order {
        Some(o) => (o, false),
        None if engine.capabilities().fill_orders => {
            let best = FillOrder::ALL
                .iter()
                .filter_map(|&o| {
                    let parts = reduction.along(puzzle, o).parts(puzzle);
                    estimate_parts(engine, &parts, o, CHOOSING_PROBES, 1).map(|n| (o, n))
                })
                .min_by(|a, b| a.1.total_cmp(&b.1))
                .map_or(crate::engine::COUNT_ORDER, |(o, _)| o);
            (best, true)
        }
        None => (crate::engine::COUNT_ORDER, false),
    };
    let reduction = reduction.along(puzzle, order);
    let parts = reduction.parts(puzzle);
    (reduction, parts, order, chosen)
}

/// The estimated nodes of counting every part under `order`, if the
/// engine can estimate its tree.
pub fn estimate_parts(
    engine: Engine,
    parts: &[Puzzle],
    order: FillOrder,
    probes: u64,
    seed: u64,
) -> Option<f64> {
    let root = Prefix::new();
    let config = Probes { probes, seed };
    parts
        .iter()
        .map(|p| {
            engine
                .estimate(&Subtree::new(p, &root).with_order(order), &config)
                .ok()
                .map(|e| e.nodes)
        })
        .sum()
}

/// Plans the count of `puzzle` (see the module doc).
pub fn plan_count(puzzle: &Puzzle, ask: CountAsk) -> Result<CountPlan> {
    let (reduction, parts, order, order_chosen) =
        choose_tree(puzzle, ask.engine, ask.symmetry, ask.order);
    let estimate = estimate_parts(ask.engine, &parts, order, SIZING_PROBES, 1);
    let threads = ask.threads.max(1);
    let large = (TASKS_PER_THREAD * threads).max(MIN_TASKS);
    let target = match estimate {
        _ if !ask.sized => large,
        Some(n) if n < ONE_TASK_NODES => 1,
        Some(n) => ((n / NODES_PER_TASK).ceil() as usize).clamp(threads, large),
        None => large,
    };
    let per_part = target.div_ceil(parts.len()).max(1);
    let (mut tasks, mut cut_nodes) = (Vec::new(), 0);
    for (k, part) in parts.iter().enumerate() {
        let part_cut = cut(ask.engine, part, order, per_part)?;
        cut_nodes += part_cut.nodes;
        for prefix in part_cut.prefixes {
            tasks.push((k as u32, prefix));
        }
    }
    Ok(CountPlan {
        reduction,
        order,
        order_chosen,
        estimate,
        tasks,
        cut_nodes,
    })
}

/// The prefixes of the smallest depth that gives at least `target` of them
/// (the empty prefix, for a target of one).
fn cut(engine: Engine, puzzle: &Puzzle, order: FillOrder, target: usize) -> Result<Cut> {
    let free = puzzle.cells() - puzzle.hints.len();
    if target <= 1 || free == 0 {
        return Ok(Cut {
            prefixes: vec![Prefix::new()],
            nodes: 0,
        });
    }
    let mut depth = 1;
    loop {
        let cut = engine.cut(puzzle, order, depth)?;
        if cut.prefixes.is_empty() || cut.prefixes.len() >= target || depth >= free {
            return Ok(cut);
        }
        depth += 1;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::generator::{generate, GenSpec};
    use crate::search::Limits;

    /// Cut into many tasks, a count's nodes (its tasks' plus the cut's)
    /// are the uncut tree's, on both engines, and so are its boards.
    #[test]
    fn a_cut_count_totals_the_nodes_of_the_uncut_tree() {
        let puzzle = generate(&GenSpec::sized(4, 4, 5, 2, 3)).unwrap().puzzle;
        for engine in Engine::ALL {
            let order = FillOrder::RowMajor;
            let whole = engine
                .count(
                    &Subtree::new(&puzzle, &Prefix::new()).with_order(order),
                    None,
                    &Limits::none(),
                    |_| {},
                )
                .unwrap();
            let plan = plan_count(
                &puzzle,
                CountAsk {
                    engine,
                    symmetry: false,
                    order: Some(order),
                    threads: 2,
                    sized: false,
                },
            )
            .unwrap();
            assert!(plan.tasks.len() > 8, "{engine}: {} tasks", plan.tasks.len());
            assert!(plan.cut_nodes > 0, "{engine}");
            let (mut solutions, mut nodes) = (0, plan.cut_nodes);
            for (_, prefix) in &plan.tasks {
                let subtree = Subtree::new(&puzzle, prefix).with_order(order);
                let report = engine
                    .count(&subtree, None, &Limits::none(), |_| {})
                    .unwrap();
                solutions += report.solutions;
                nodes += report.nodes;
            }
            assert_eq!(
                (solutions, nodes),
                (whole.solutions, whole.nodes),
                "{engine}"
            );
        }
    }
}
