//! Knuth's random-probe estimate of a backtrack tree's size ("Estimating
//! the efficiency of backtrack programs", Math. Comp. 29, 1975).
//!
//! Why probes: an exhaustive count can take from milliseconds to days, and
//! the fill order alone moves that by orders of magnitude, so a count (and
//! the coordinator cutting a job into tasks) needs the size of a tree before
//! walking it. One probe walks from the root to a dead end or a full board,
//! taking a uniformly random child at every node; if the nodes on its path
//! had `d1, d2, …` children, then `d1 + d1·d2 + d1·d2·d3 + …` is an
//! unbiased estimate of the number of nodes below the root (the root itself
//! is not a node: a node is a placement). The mean over many probes
//! converges on the true size; its standard error is the spread. The
//! estimate is heavy-tailed (a few probes down rich branches carry most of
//! the weight), so a small spread needs thousands of probes, which cost
//! microseconds each.
//!
//! The arithmetic here knows nothing of boards: an engine exposes its tree
//! through [`ProbeTree`] (children of the current node, descend into one,
//! back to the root), and [`knuth`] does the rest. The backtracker's tree is
//! `crate::backtrack`'s, the very tree its count walks; the entry point by
//! puzzle, order and prefix (what a task is) is the engine contract's
//! `Engine::estimate`, which the CLI and the count planner call, beside
//! `Engine::measure_rate` for the time it would take.

use serde::Serialize;

use crate::error::{Error, Result};
use crate::rng::Rng;

/// A tree an engine lets [`knuth`] probe: a cursor on one node.
pub trait ProbeTree {
    /// Back to the root, undoing every descent.
    fn restart(&mut self);
    /// How many children the current node has (0 at a dead end or a full
    /// board).
    fn children(&mut self) -> u64;
    /// Moves to child `k` (`k` below the last [`ProbeTree::children`]).
    fn descend(&mut self, k: u64);
    /// Whether the current node is a complete board (a solution).
    fn complete(&self) -> bool;
}

/// How many probes and which random stream.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Probes {
    pub probes: u64,
    pub seed: u64,
}

impl Default for Probes {
    fn default() -> Self {
        Probes {
            probes: 10_000,
            seed: 1,
        }
    }
}

/// The most probes one estimate takes: a typo (`--probes 10000000000000`)
/// is an error rather than an afternoon.
pub const MAX_PROBES: u64 = 1 << 32;

/// What the probes say about one tree.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Estimate {
    /// Estimated nodes (placements) in the tree: the mean over probes.
    pub nodes: f64,
    /// Standard error of `nodes` (sample standard deviation / √probes).
    pub stderr: f64,
    /// Estimated complete boards (leaves at full depth), the same way.
    pub solutions: f64,
    pub probes: u64,
    /// Estimated nodes at each depth `1..`: entry `d - 1` estimates the
    /// placements on the `d`-th searched cell.
    pub per_depth: Vec<f64>,
}

impl Estimate {
    /// `stderr / nodes` (0 for an empty tree).
    pub fn relative_stderr(&self) -> f64 {
        if self.nodes > 0.0 {
            self.stderr / self.nodes
        } else {
            0.0
        }
    }

    /// The exact answer for a tree with no nodes (pinned cells that
    /// disagree, or nothing left to place).
    pub fn empty(probes: u64, solutions: f64) -> Self {
        Estimate {
            nodes: 0.0,
            stderr: 0.0,
            solutions,
            probes,
            per_depth: Vec::new(),
        }
    }
}

/// Knuth's estimate of `tree` from `config.probes` probes seeded with
/// `config.seed`: the same inputs give the same figures on any machine.
pub fn knuth(tree: &mut impl ProbeTree, config: &Probes) -> Result<Estimate> {
    check(config)?;
    let mut rng = Rng::fork(config.seed, 0x006b_6e75_7468); // "knuth"
    let (mut sum, mut sum_sq, mut solutions) = (0.0f64, 0.0f64, 0.0f64);
    let mut per_depth: Vec<f64> = Vec::new();
    for _ in 0..config.probes {
        tree.restart();
        let (mut weight, mut total, mut depth) = (1.0f64, 0.0f64, 0usize);
        loop {
            let children = tree.children();
            if children == 0 {
                break;
            }
            weight *= children as f64;
            total += weight;
            if per_depth.len() == depth {
                per_depth.push(0.0);
            }
            per_depth[depth] += weight;
            depth += 1;
            tree.descend(rng.below(children));
        }
        if tree.complete() {
            solutions += weight;
        }
        sum += total;
        sum_sq += total * total;
    }
    let n = config.probes as f64;
    let mean = sum / n;
    let variance = if config.probes > 1 {
        ((sum_sq - n * mean * mean) / (n - 1.0)).max(0.0)
    } else {
        0.0
    };
    per_depth.iter_mut().for_each(|d| *d /= n);
    Ok(Estimate {
        nodes: mean,
        stderr: (variance / n).sqrt(),
        solutions: solutions / n,
        probes: config.probes,
        per_depth,
    })
}

pub(crate) fn check(config: &Probes) -> Result<()> {
    if config.probes == 0 || config.probes > MAX_PROBES {
        return Err(Error::Invalid(format!(
            "probes: {} is out of range 1..={MAX_PROBES}",
            config.probes
        )));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A complete tree: `branching[d]` children at depth `d`.
    struct Uniform {
        branching: Vec<u64>,
        depth: usize,
    }

    impl ProbeTree for Uniform {
        fn restart(&mut self) {
            self.depth = 0;
        }
        fn children(&mut self) -> u64 {
            self.branching.get(self.depth).copied().unwrap_or(0)
        }
        fn descend(&mut self, k: u64) {
            assert!(k < self.branching[self.depth]);
            self.depth += 1;
        }
        fn complete(&self) -> bool {
            self.depth == self.branching.len()
        }
    }

    /// A path of `n` only children, with a second child at the root that is
    /// a dead end: the estimate swings between two values.
    struct Lopsided {
        n: usize,
        depth: usize,
        took_dead_end: bool,
    }

    impl ProbeTree for Lopsided {
        fn restart(&mut self) {
            self.depth = 0;
            self.took_dead_end = false;
        }
        fn children(&mut self) -> u64 {
            match (self.depth, self.took_dead_end) {
                (_, true) => 0,
                (0, _) => 2,
                (d, _) if d < self.n => 1,
                _ => 0,
            }
        }
        fn descend(&mut self, k: u64) {
            if self.depth == 0 && k == 1 {
                self.took_dead_end = true;
            }
            self.depth += 1;
        }
        fn complete(&self) -> bool {
            !self.took_dead_end && self.depth == self.n
        }
    }

    #[test]
    fn a_uniform_tree_is_estimated_exactly_with_no_spread() {
        let mut tree = Uniform {
            branching: vec![3, 2, 4],
            depth: 0,
        };
        let e = knuth(&mut tree, &Probes { probes: 5, seed: 9 }).unwrap();
        assert_eq!(e.nodes, (3 + 6 + 24) as f64);
        assert_eq!(e.per_depth, [3.0, 6.0, 24.0]);
        assert_eq!(e.solutions, 24.0);
        assert_eq!(e.stderr, 0.0);
    }

    #[test]
    fn a_lopsided_tree_converges_on_its_size_and_reports_spread() {
        // True size: 2 children at the root, then n - 1 more on one path.
        let n = 10;
        let mut tree = Lopsided {
            n,
            depth: 0,
            took_dead_end: false,
        };
        let e = knuth(
            &mut tree,
            &Probes {
                probes: 20_000,
                seed: 3,
            },
        )
        .unwrap();
        let truth = (2 + n - 1) as f64;
        assert!((e.nodes - truth).abs() < 4.0 * e.stderr, "{e:?}");
        assert!(e.stderr > 0.0);
        assert!((e.solutions - 1.0).abs() < 0.05, "{e:?}");
        let again = knuth(
            &mut tree,
            &Probes {
                probes: 20_000,
                seed: 3,
            },
        )
        .unwrap();
        assert_eq!(e, again, "a fixed seed gives the same estimate");
    }

    #[test]
    fn zero_or_absurd_probes_are_refused_by_name() {
        let mut tree = Uniform {
            branching: vec![2],
            depth: 0,
        };
        for probes in [0, MAX_PROBES + 1] {
            let e = knuth(&mut tree, &Probes { probes, seed: 0 })
                .unwrap_err()
                .to_string();
            assert!(
                e.starts_with("probes:") && e.contains("out of range"),
                "{e}"
            );
        }
    }
}
