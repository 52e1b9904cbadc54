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
use crate::symmetry::{reductions, Reduction};

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
/// Estimated nodes above which every marker piece of the rotation
/// reduction is estimated, not only the first (about ten seconds of one
/// thread: the extra estimates cost well under a second).
pub const TRY_EVERY_MARKER: f64 = 5e8;
/// Estimated nodes above which the choice gets a second look (minutes of
/// counting at least): 2,000 probes leave the estimate of an 8×8 tree
/// uncertain by a factor of three, enough to pick a tree twice the size of
/// the best one (Brendan 8×8 set 2: 2.3 T nodes instead of about 0.9 T).
/// Every candidate within [`FINALISTS_WITHIN`] of the smallest is then
/// estimated again with [`FINAL_PROBES`], a second or two each.
pub const SECOND_LOOK: f64 = 2e10;
pub const FINALISTS_WITHIN: f64 = 4.0;
pub const FINAL_PROBES: u64 = 200_000;
/// Estimated nodes from which each task's subtree is estimated too (a
/// minute or more of counting): the job's progress and time left are then
/// reckoned in estimated nodes, not in tasks, whose sizes differ a
/// hundredfold. Each task gets [`TASK_PROBES`] probes of its own.
pub const SIZE_TASKS_ABOVE: f64 = 5e9;
pub const TASK_PROBES: u64 = 1_000;

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
    /// Each task's estimated subtree in nodes, in the order of `tasks`;
    /// empty when the tree is below [`SIZE_TASKS_ABOVE`] or a task could
    /// not be estimated.
    pub task_estimates: Vec<u64>,
    /// Nodes above the tasks' prefixes, which no task visits (see
    /// [`Engine::cut`]): the tasks' nodes plus these are the tree's.
    pub cut_nodes: u64,
}

/// The tree a count walks: the reduction (as asked), its parts, and the
/// fill order (as asked, or the smallest estimated tree: chosen `true`).
///
/// With the reduction asked for, the marker piece is chosen too: every
/// unique corner piece gives an exact reduction and its own tree, so when
/// the first one's tree is large ([`TRY_EVERY_MARKER`]) each is estimated
/// under each order (pinned where that order meets it first) and the
/// smallest tree wins; a very large one ([`SECOND_LOOK`]) has its close
/// candidates estimated again, a hundred times better. Small counts keep
/// the first marker and spend no time on estimates that could not pay for
/// themselves.
pub fn choose_tree(
    puzzle: &Puzzle,
    engine: Engine,
    symmetry: bool,
    order: Option<FillOrder>,
) -> (Reduction, Vec<Puzzle>, FillOrder, bool) {
    let markers = if symmetry {
        reductions(puzzle).unwrap_or_else(|none| vec![none])
    } else {
        vec![Reduction::none("not asked for (--no-symmetry)")]
    };
    let orders: Vec<FillOrder> = match order {
        Some(o) => vec![o],
        None if engine.capabilities().fill_orders => FillOrder::ALL.to_vec(),
        None => vec![crate::engine::COUNT_ORDER],
    };
    let chosen = order.is_none() && engine.capabilities().fill_orders;
    // One marker's estimated tree under each of `orders`.
    let estimates_of = |marker: &Reduction| -> Vec<(FillOrder, f64)> {
        orders
            .iter()
            .filter_map(|&o| {
                let parts = marker.along(puzzle, o).parts(puzzle);
                estimate_parts(engine, &parts, o, CHOOSING_PROBES, 1).map(|n| (o, n))
            })
            .collect()
    };
    // Markers in turn, the first always, the others only for a large tree;
    // with one order and one marker there is nothing to choose.
    let (mut marker, mut order, mut smallest) = (0, orders[0], f64::INFINITY);
    let mut candidates: Vec<(usize, FillOrder, f64)> = Vec::new();
    if orders.len() > 1 || markers.len() > 1 {
        for (i, m) in markers.iter().enumerate() {
            if i > 0 && smallest < TRY_EVERY_MARKER {
                break;
            }
            let estimates = estimates_of(m);
            candidates.extend(estimates.iter().map(|&(o, n)| (i, o, n)));
            if let Some(&(o, n)) = estimates.iter().min_by(|a, b| a.1.total_cmp(&b.1)) {
                if n < smallest {
                    (marker, order, smallest) = (i, o, n);
                }
            }
        }
    }
    if smallest >= SECOND_LOOK {
        // The second look: the close ones again, with many more probes.
        let finalists = candidates
            .iter()
            .filter(|c| c.2 <= smallest * FINALISTS_WITHIN)
            .filter_map(|&(i, o, _)| {
                let parts = markers[i].along(puzzle, o).parts(puzzle);
                estimate_parts(engine, &parts, o, FINAL_PROBES, 1).map(|n| (i, o, n))
            });
        if let Some((i, o, _)) = finalists.min_by(|a, b| a.2.total_cmp(&b.2)) {
            (marker, order) = (i, o);
        }
    }
    let reduction = markers[marker].along(puzzle, order);
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
    let task_estimates = match estimate {
        Some(n) if n >= SIZE_TASKS_ABOVE && tasks.len() > 1 => {
            estimate_tasks(ask.engine, &parts, order, &tasks, threads)
        }
        _ => Vec::new(),
    };
    Ok(CountPlan {
        reduction,
        order,
        order_chosen,
        estimate,
        tasks,
        task_estimates,
        cut_nodes,
    })
}

/// Each task's subtree estimated with [`TASK_PROBES`] probes (seeded by
/// its index, so a plan is reproducible), on up to `threads` threads; empty
/// if any task cannot be estimated. (A coordinator also calls it for the
/// tasks of a count planned before tasks had estimates.)
pub fn estimate_tasks(
    engine: Engine,
    parts: &[Puzzle],
    order: FillOrder,
    tasks: &[(u32, Prefix)],
    threads: usize,
) -> Vec<u64> {
    let one = |i: usize| -> Option<u64> {
        let (part, prefix) = &tasks[i];
        let config = Probes {
            probes: TASK_PROBES,
            seed: 1 + i as u64,
        };
        let puzzle = parts.get(*part as usize)?;
        // DLX's cut lists the hinted cells too (its first levels place
        // them); the probes, which pin hints themselves, take the rest.
        let free: Prefix = prefix
            .iter()
            .filter(|f| !puzzle.hints.iter().any(|h| h.pos == f.pos))
            .cloned()
            .collect();
        let subtree = Subtree::new(puzzle, &free).with_order(order);
        let nodes = engine.estimate(&subtree, &config).ok()?.nodes;
        nodes.is_finite().then(|| nodes.round() as u64)
    };
    let chunk = tasks.len().div_ceil(threads.max(1));
    let estimates: Vec<Option<u64>> = std::thread::scope(|scope| {
        let handles: Vec<_> = (0..tasks.len())
            .step_by(chunk)
            .map(|from| {
                let to = (from + chunk).min(tasks.len());
                scope.spawn(move || (from..to).map(one).collect::<Vec<_>>())
            })
            .collect();
        handles
            .into_iter()
            .flat_map(|h| h.join().unwrap_or_default())
            .collect()
    });
    if estimates.len() != tasks.len() {
        return Vec::new();
    }
    estimates
        .into_iter()
        .collect::<Option<Vec<_>>>()
        .unwrap_or_default()
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

    /// The plan of a whole-tree count of `puzzle` cut for two threads,
    /// always the large cut (`sized: false`).
    fn large_cut(puzzle: &Puzzle, engine: Engine, order: FillOrder) -> CountPlan {
        let ask = CountAsk {
            engine,
            symmetry: false,
            order: Some(order),
            threads: 2,
            sized: false,
        };
        plan_count(puzzle, ask).unwrap()
    }

    /// The nodes `engine` really visits below each of `plan`'s tasks, summed.
    fn tasks_nodes(puzzle: &Puzzle, engine: Engine, order: FillOrder, plan: &CountPlan) -> u64 {
        plan.tasks
            .iter()
            .map(|(_, prefix)| {
                let subtree = Subtree::new(puzzle, prefix).with_order(order);
                engine
                    .count(&subtree, None, &Limits::none(), |_| {})
                    .unwrap()
                    .nodes
            })
            .sum()
    }

    /// A large tree: every marker piece is estimated under every order,
    /// and the one chosen is pinned where its order meets the board first;
    /// a small tree keeps the first marker.
    #[test]
    fn the_marker_and_its_corner_follow_the_smallest_estimate() {
        for seed in [1, 2, 4] {
            let puzzle = generate(&GenSpec::sized(7, 7, 9, 2, seed)).unwrap().puzzle;
            let markers = reductions(&puzzle).unwrap();
            assert!(markers.len() >= 2, "seed {seed}: {} markers", markers.len());
            let (reduction, parts, order, chosen) =
                choose_tree(&puzzle, Engine::Backtrack, true, None);
            assert!(chosen);
            let cells = order.cells(7, 7, &[]);
            let first_corner = *cells
                .iter()
                .find(|&&c| [0, 6, 42, 48].contains(&c))
                .unwrap();
            assert_eq!(reduction.pins[0].pos, first_corner, "{}", reduction.note);
            assert_eq!(parts.len(), 1);
            let estimate = |r: &Reduction, o: FillOrder| {
                let parts = r.along(&puzzle, o).parts(&puzzle);
                estimate_parts(Engine::Backtrack, &parts, o, CHOOSING_PROBES, 1).unwrap()
            };
            let picked = estimate(&reduction, order);
            assert!(
                (TRY_EVERY_MARKER..SECOND_LOOK).contains(&picked),
                "seed {seed}: a tree of {picked:e} nodes does not test the first look"
            );
            for marker in &markers {
                for o in FillOrder::ALL {
                    assert!(picked <= estimate(marker, o), "{} {o}", marker.note);
                }
            }
        }
        // A small tree: the first marker, no further estimates.
        let small = generate(&GenSpec::sized(4, 4, 5, 2, 3)).unwrap().puzzle;
        let (reduction, _, _, _) = choose_tree(&small, Engine::Backtrack, true, None);
        assert_eq!(
            reduction.pins[0].piece,
            reductions(&small).unwrap()[0].pins[0].piece
        );
    }

    /// A very large tree: the candidates close to the smallest first
    /// estimate are estimated again with many more probes, and the
    /// smallest of those wins, on some puzzle against the first look.
    #[test]
    fn a_very_large_tree_is_chosen_on_a_second_look() {
        let mut overruled = 0;
        for seed in 1..=4 {
            let puzzle = generate(&GenSpec::sized(8, 8, 8, 2, seed)).unwrap().puzzle;
            let (reduction, _, order, chosen) = choose_tree(&puzzle, Engine::Backtrack, true, None);
            assert!(chosen);
            let estimate = |r: &Reduction, o: FillOrder, probes: u64| {
                let parts = r.along(&puzzle, o).parts(&puzzle);
                estimate_parts(Engine::Backtrack, &parts, o, probes, 1).unwrap()
            };
            let first: Vec<(Reduction, FillOrder, f64)> = reductions(&puzzle)
                .unwrap()
                .into_iter()
                .flat_map(|m| {
                    FillOrder::ALL.map(|o| (m.clone(), o, estimate(&m, o, CHOOSING_PROBES)))
                })
                .collect();
            let (first_pick, smallest) = first
                .iter()
                .map(|c| (c.0.along(&puzzle, c.1), c.2))
                .min_by(|a, b| a.1.total_cmp(&b.1))
                .unwrap();
            assert!(
                smallest >= SECOND_LOOK,
                "seed {seed}: a tree too small to test: {smallest:e}"
            );
            let picked = estimate(&reduction, order, FINAL_PROBES);
            for (marker, o, n) in &first {
                if *n <= smallest * FINALISTS_WITHIN {
                    assert!(
                        picked <= estimate(marker, *o, FINAL_PROBES),
                        "seed {seed}: {} {o}",
                        marker.note
                    );
                }
            }
            overruled += (first_pick != reduction) as usize;
        }
        assert!(
            overruled >= 1,
            "the second look never changed the first look's choice"
        );
    }

    /// Each task's own estimate: one per task, and together about the
    /// tasks' real nodes (Knuth's probes are unbiased; a thousand per task
    /// over dozens of tasks land well within a factor of 1.5). A small
    /// tree's plan estimates no task.
    #[test]
    fn each_task_is_estimated_and_the_estimates_add_up_to_the_tree() {
        let puzzle = generate(&GenSpec::sized(6, 6, 9, 2, 1)).unwrap().puzzle;
        let engine = Engine::Backtrack;
        let order = FillOrder::RowMajor;
        let plan = large_cut(&puzzle, engine, order);
        assert!(plan.estimate.unwrap() < SIZE_TASKS_ABOVE);
        assert!(plan.task_estimates.is_empty());
        assert!(plan.tasks.len() >= MIN_TASKS, "{} tasks", plan.tasks.len());
        let parts = [puzzle.clone()];
        let estimates = estimate_tasks(engine, &parts, order, &plan.tasks, 2);
        assert_eq!(estimates.len(), plan.tasks.len());
        assert_eq!(
            estimates,
            estimate_tasks(engine, &parts, order, &plan.tasks, 1)
        );
        let real = tasks_nodes(&puzzle, engine, order, &plan);
        let estimated: u64 = estimates.iter().sum();
        let ratio = estimated as f64 / real as f64;
        assert!(real > 100_000, "a tree too small to test: {real} nodes");
        assert!(
            (1.0 / 1.5..1.5).contains(&ratio),
            "{estimated} estimated, {real} real"
        );
    }

    /// Hints, and prefixes that list them (DLX's cut places the hinted
    /// cells first), leave every task estimated, on both engines. The
    /// probes walk the fill order's tree, which is the backtracker's; DLX's
    /// tree under hints is smaller (here about half: its scan rule takes
    /// forced cells first), a constant factor the ETA's correction removes.
    #[test]
    fn tasks_below_hints_are_estimated_on_both_engines() {
        let mut spec = GenSpec::sized(6, 6, 7, 2, 7);
        spec.layout = crate::layouts::Layout::Lattice;
        let puzzle = generate(&spec).unwrap().puzzle;
        assert!(!puzzle.hints.is_empty());
        let order = FillOrder::RowMajor;
        let mut by_engine = Vec::new();
        for engine in Engine::ALL {
            let plan = large_cut(&puzzle, engine, order);
            let parts = [puzzle.clone()];
            let estimates = estimate_tasks(engine, &parts, order, &plan.tasks, 2);
            assert_eq!(estimates.len(), plan.tasks.len(), "{engine}");
            let real = tasks_nodes(&puzzle, engine, order, &plan);
            let ratio = estimates.iter().sum::<u64>() as f64 / real as f64;
            assert!((1.0 / 3.0..3.0).contains(&ratio), "{engine}: {ratio}");
            by_engine.push(ratio);
        }
        // The backtracker's own tree is what the probes walk.
        assert!((1.0 / 1.5..1.5).contains(&by_engine[0]), "{by_engine:?}");
    }

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
            let plan = large_cut(&puzzle, engine, order);
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
