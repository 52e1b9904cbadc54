//! Algorithm C on sparse sets: the fast way to count a whole `.dlx` file.
//!
//! Why a second solver: dancing links pay for every removal with writes to
//! two neighbours scattered over memory, and for every undo with the same
//! writes again. With sparse sets (Briggs and Torczon's trick, as Knuth uses
//! it in his program SSXCC) each item keeps its active options in a
//! contiguous segment of one array; removing an option from an item is one
//! swap with the segment's last active slot and a shorter size, and undoing
//! a whole level is writing back the sizes saved when the level began, in
//! one sequential pass. Nothing is unlinked, so nothing needs relinking.
//!
//! The layout, all flat `u32` arrays indexed by `u32`s built in [`SparseC::new`]:
//!
//! - `set`: for each item, a header of two words (its position in the
//!   active-item array, then its size: how many of its options are active)
//!   followed by one slot per option that contains it. An item is named by
//!   the index `x` of its first slot, so its header is `set[x - 2]`,
//!   `set[x - 1]`, and its active options are the nodes `set[x..x + size]`.
//!   Items keep their input order, so `x` increases with the item number and
//!   the primary items are exactly those with `x < second`.
//! - `nodes`: the options one after another, one node per entry (its item
//!   `x` and its slot `loc` in that item's segment, kept so that
//!   `set[loc] == node`), each option followed by a spacer whose item field
//!   is minus the option's length, so a walk round an option jumps back to
//!   its first node. Colours and option numbers sit in parallel arrays: the
//!   walk reads item and slot together, the colour only in `hide`.
//! - `items`: the active-item array. The active items are `items[..active]`;
//!   covering or purifying an item swaps it to just below `active` and
//!   lowers `active`, so a level's items come back by restoring `active`.
//! - the save stack: at each branching level, every active item with its
//!   size (a forced level, whose item has one option left, saves nothing:
//!   it has no second choice to restore for).
//!
//! The search is Algorithm C with Christine Solnon's refinements as Knuth
//! adopted them in SSXCC: covering and purifying are one `hide` (remove
//! from the other items every option of an item, or every option with the
//! wrong colour for a secondary item), and a primary item left with a
//! single option is pushed on a stack of forced moves, taken before any
//! branching. The branching item is the active primary item with fewest
//! options (ties: the first in input order). Node and update counts are
//! this solver's own (a node is an entry to a level, a solution included;
//! an update is an option leaving an item's set or an item leaving the
//! active array): they are not dlx2's, which the links engine
//! ([`super::AlgorithmC`]) reproduces for cross-checks.
//!
//! This solver counts and lists solutions from scratch; it does not resume
//! from checkpoints or split its work (the links engine does both).

use super::problem::{Xcc, NO_COLOUR};
use super::run::{Limits, Listener};
use crate::search::{Control, RunEnd};

/// One entry of an option: the item's segment start `x` (`> 0`), or in a
/// spacer minus the length of the option before it; and where the node sits
/// in its item's segment.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
#[repr(C)]
struct Node {
    item: i32,
    loc: u32,
}

/// The outcome of one sparse-set run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SparseReport {
    pub solutions: u64,
    /// Levels entered, solutions included (Knuth's SSXCC counts the same way).
    pub nodes: u64,
    /// Options removed from an item's set, and items removed from the
    /// active array.
    pub updates: u64,
    /// [`RunEnd::Finished`], [`RunEnd::BudgetSpent`], [`RunEnd::Stopped`] or
    /// [`RunEnd::FoundFirst`] (the solution limit was reached).
    pub end: RunEnd,
    /// The options of the first solution, in level order.
    pub first: Option<Vec<u32>>,
}

/// Algorithm C on sparse sets over one problem (see the module docs).
///
/// The arrays built by `new` are a template: each run works on a copy, so
/// one solver can run any number of times.
#[derive(Debug, Clone)]
pub struct SparseC {
    set: Vec<u32>,
    nodes: Vec<Node>,
    colour: Vec<u32>,
    option_of: Vec<u32>,
    items: Vec<u32>,
    /// Segment starts `x < second` are primary items.
    second: u32,
    primary: usize,
    /// A primary item no option contains: the problem has no solution.
    uncoverable: bool,
}

/// `v[i]`, unchecked in release builds.
///
/// Every index the search uses is an item start `x` (or `x - 1`, `x - 2`),
/// a slot in `x..x + size` with `size` at most the item's original length,
/// a node index read from a slot, or a node index plus an offset that stays
/// inside its option (spacers bring the walk back to the option's first
/// node). `new` builds every stored index that way and the search only
/// copies such values between slots, so each index is in bounds; debug
/// builds (the tests) check it on every access.
#[inline(always)]
fn at(v: &[u32], i: usize) -> u32 {
    debug_assert!(i < v.len());
    // SAFETY: in bounds by the invariant above.
    unsafe { *v.get_unchecked(i) }
}

#[inline(always)]
fn put(v: &mut [u32], i: usize, value: u32) {
    debug_assert!(i < v.len());
    // SAFETY: in bounds by the invariant above `at`.
    unsafe { *v.get_unchecked_mut(i) = value }
}

#[inline(always)]
fn node(v: &[Node], i: usize) -> Node {
    debug_assert!(i < v.len());
    // SAFETY: in bounds by the invariant above `at`.
    unsafe { *v.get_unchecked(i) }
}

#[inline(always)]
fn set_loc(v: &mut [Node], i: usize, loc: u32) {
    debug_assert!(i < v.len());
    // SAFETY: in bounds by the invariant above `at`.
    unsafe { v.get_unchecked_mut(i).loc = loc }
}

/// The header words of item `x`.
#[inline(always)]
fn pos_of(set: &[u32], x: usize) -> u32 {
    at(set, x - 2)
}

#[inline(always)]
fn size_of(set: &[u32], x: usize) -> u32 {
    at(set, x - 1)
}

/// The working memory of one run.
struct State<'a> {
    set: Vec<u32>,
    nodes: Vec<Node>,
    colour: &'a [u32],
    items: Vec<u32>,
    second: usize,
    active: u32,
    /// `active` before the current level swapped its items out: a secondary
    /// item at a position `>= oactive` was purified below and is left alone.
    oactive: u32,
    force: Vec<u32>,
    updates: u64,
}

impl State<'_> {
    /// Swaps item `x` (active, at a position below `below`) to position
    /// `below - 1`.
    #[inline(always)]
    fn swap_out(&mut self, x: usize, below: u32) {
        let to = below - 1;
        let from = pos_of(&self.set, x);
        let other = at(&self.items, to as usize);
        put(&mut self.items, to as usize, x as u32);
        put(&mut self.items, from as usize, other);
        put(&mut self.set, other as usize - 2, from);
        put(&mut self.set, x - 2, to);
        self.updates += 1;
    }

    /// Removes from the other items' sets every option of item `c` (every
    /// option whose colour on `c` is not `colour`, when `colour` is one).
    ///
    /// With `CHECK`, returns `false` as soon as an active primary item would
    /// be left with no option, and pushes every active primary item left
    /// with one option on the forced stack.
    #[inline(always)]
    fn hide<const CHECK: bool>(&mut self, c: usize, colour: u32) -> bool {
        let end = c + size_of(&self.set, c) as usize;
        for slot in c..end {
            let option = at(&self.set, slot) as usize;
            if colour != NO_COLOUR && at(self.colour, option) == colour {
                continue;
            }
            let mut n = option + 1;
            while n != option {
                let Node { item, loc } = node(&self.nodes, n);
                if item < 0 {
                    n = (n as isize + item as isize) as usize;
                    continue;
                }
                let u = item as usize;
                let pos = pos_of(&self.set, u);
                if pos < self.oactive {
                    let left = size_of(&self.set, u) - 1;
                    if CHECK && left <= 1 && u < self.second && pos < self.active {
                        if left == 0 {
                            return false;
                        }
                        self.force.push(u as u32);
                    }
                    // Swap node n with the last active node of u's set.
                    let last = u + left as usize;
                    let moved = at(&self.set, last);
                    put(&mut self.set, u - 1, left);
                    put(&mut self.set, last, n as u32);
                    put(&mut self.set, loc as usize, moved);
                    set_loc(&mut self.nodes, n, last as u32);
                    set_loc(&mut self.nodes, moved as usize, loc);
                    self.updates += 1;
                }
                n += 1;
            }
        }
        true
    }
}

/// Where the search loop goes next.
#[derive(Clone, Copy)]
enum Step {
    /// Enter a level: choose an item.
    Forward,
    /// Try the option at `cur_choice`.
    Advance,
    /// The option at `cur_choice` is done (or failed): try the next.
    Abort,
    /// Leave the level.
    Backup,
}

impl SparseC {
    /// Lays `xcc` out in sparse sets.
    pub fn new(xcc: &Xcc) -> Self {
        let n = xcc.items();
        let mut len = vec![0u32; n];
        for o in 0..xcc.options() {
            for e in xcc.option(o) {
                len[e.item as usize] += 1;
            }
        }
        let mut items = Vec::with_capacity(n);
        let mut x = 2u32;
        for &l in &len {
            items.push(x);
            x += l + 2;
        }
        let total = x as usize - 2;
        let mut set = vec![0u32; total];
        for (k, &x) in items.iter().enumerate() {
            set[x as usize - 2] = k as u32;
            set[x as usize - 1] = len[k];
        }
        let second = items.get(xcc.primary_items()).copied().unwrap_or(x);
        let mut fill = vec![0u32; n];
        let entries = xcc.entries() + xcc.options() as usize + 1;
        let mut nodes = Vec::with_capacity(entries);
        let mut colour = Vec::with_capacity(entries);
        let mut option_of = Vec::with_capacity(entries);
        nodes.push(Node::default());
        colour.push(NO_COLOUR);
        option_of.push(0);
        for o in 0..xcc.options() {
            let option = xcc.option(o);
            for e in option {
                let k = e.item as usize;
                let slot = items[k] + fill[k];
                fill[k] += 1;
                set[slot as usize] = nodes.len() as u32;
                nodes.push(Node {
                    item: items[k] as i32,
                    loc: slot,
                });
                colour.push(e.colour);
                option_of.push(o);
            }
            nodes.push(Node {
                item: -(option.len() as i32),
                loc: 0,
            });
            colour.push(NO_COLOUR);
            option_of.push(o);
        }
        let primary = xcc.primary_items();
        SparseC {
            set,
            nodes,
            colour,
            option_of,
            items,
            second,
            primary,
            uncoverable: len[..primary].contains(&0),
        }
    }

    /// Counts (and reports to `listener`) every solution within `limits`,
    /// polling `control` for a stop request.
    pub fn run<L: Listener>(
        &self,
        limits: &Limits,
        control: Option<&Control>,
        listener: &mut L,
    ) -> SparseReport {
        let mut report = SparseReport {
            solutions: 0,
            nodes: 0,
            updates: 0,
            end: RunEnd::Finished,
            first: None,
        };
        if self.uncoverable {
            return report;
        }
        let mut s = State {
            set: self.set.clone(),
            nodes: self.nodes.clone(),
            colour: &self.colour,
            items: self.items.clone(),
            second: self.second as usize,
            active: self.items.len() as u32,
            oactive: 0,
            force: Vec::with_capacity(self.primary + 1),
            updates: 0,
        };
        // Every level covers a primary item.
        let levels = self.primary + 1;
        let mut choice = vec![0u32; levels];
        let mut saved = vec![0u32; levels + 1];
        let mut save: Vec<[u32; 2]> = vec![[0, 0]; (levels * s.items.len()).min(1 << 20)];
        let mut save_top = 0usize;
        let mut options = Vec::with_capacity(levels);

        let max_solutions = limits.max_solutions.unwrap_or(u64::MAX);
        let budget_end = limits.max_nodes.unwrap_or(u64::MAX);
        let poll_every = limits.poll_interval.max(1);
        let polling = control.is_some();
        let mut next_poll = if polling { poll_every } else { u64::MAX };
        let mut next_event = budget_end.min(next_poll);

        let mut level = 0usize;
        let mut best = 0usize;
        let mut cur_choice = 0usize;
        let mut step = Step::Forward;
        loop {
            match step {
                Step::Forward => {
                    if report.nodes >= next_event {
                        if report.nodes >= budget_end {
                            report.end = RunEnd::BudgetSpent;
                            break;
                        }
                        if control.is_some_and(|c| c.is_stopped()) {
                            report.end = RunEnd::Stopped;
                            break;
                        }
                        next_poll = report.nodes + poll_every;
                        next_event = budget_end.min(next_poll);
                    }
                    report.nodes += 1;
                    // A forced move left by the level below?
                    let mut forced = false;
                    while let Some(x) = s.force.pop() {
                        if pos_of(&s.set, x as usize) < s.active {
                            best = x as usize;
                            forced = true;
                            break;
                        }
                    }
                    if !forced {
                        // The active primary item with fewest options.
                        let mut fewest = u32::MAX;
                        let mut dead = false;
                        for k in 0..s.active as usize {
                            let x = at(&s.items, k) as usize;
                            if x >= s.second {
                                continue;
                            }
                            let size = size_of(&s.set, x);
                            if size <= 1 {
                                // `hide` reports items it empties, so an
                                // empty one here would be a dead end all the
                                // same; treat it as one.
                                dead |= size == 0;
                                s.force.push(x as u32);
                            } else if size < fewest || (size == fewest && x < best) {
                                best = x;
                                fewest = size;
                            }
                        }
                        if dead {
                            s.force.clear();
                            step = Step::Backup;
                            continue;
                        }
                        if let Some(x) = s.force.pop() {
                            best = x as usize;
                            forced = true;
                        } else if fewest == u32::MAX {
                            report.solutions += 1;
                            if L::WANTS_SOLUTIONS || report.first.is_none() {
                                options.clear();
                                options.extend(
                                    choice[..level]
                                        .iter()
                                        .map(|&n| at(&self.option_of, n as usize)),
                                );
                                if L::WANTS_SOLUTIONS {
                                    listener.solution(&options);
                                }
                                report.first.get_or_insert_with(|| options.clone());
                            }
                            if report.solutions >= max_solutions {
                                report.end = RunEnd::FoundFirst;
                                break;
                            }
                            step = Step::Backup;
                            continue;
                        }
                    }
                    let active = s.active;
                    s.swap_out(best, active);
                    s.active -= 1;
                    s.oactive = s.active;
                    s.hide::<false>(best, NO_COLOUR);
                    cur_choice = best;
                    if forced {
                        saved[level + 1] = save_top as u32;
                    } else {
                        let count = s.active as usize;
                        if save_top + count > save.len() {
                            save.resize((save_top + count).max(2 * save.len()), [0, 0]);
                        }
                        for k in 0..count {
                            let x = at(&s.items, k);
                            save[save_top + k] = [x, size_of(&s.set, x as usize)];
                        }
                        save_top += count;
                        saved[level + 1] = save_top as u32;
                    }
                    step = Step::Advance;
                }
                Step::Advance => {
                    let option = at(&s.set, cur_choice) as usize;
                    choice[level] = option as u32;
                    // Take the option's other items out of the active array.
                    s.oactive = s.active;
                    let mut below = s.active;
                    let mut n = option + 1;
                    while n != option {
                        let item = node(&s.nodes, n).item;
                        if item < 0 {
                            n = (n as isize + item as isize) as usize;
                            continue;
                        }
                        if pos_of(&s.set, item as usize) < below {
                            s.swap_out(item as usize, below);
                            below -= 1;
                        }
                        n += 1;
                    }
                    s.active = below;
                    // Then hide their options (the clashing colours only,
                    // for a secondary item not purified below).
                    let mut ok = true;
                    let mut n = option + 1;
                    while n != option {
                        let item = node(&s.nodes, n).item;
                        if item < 0 {
                            n = (n as isize + item as isize) as usize;
                            continue;
                        }
                        let c = item as usize;
                        let fine = if c < s.second {
                            s.hide::<true>(c, NO_COLOUR)
                        } else if pos_of(&s.set, c) < s.oactive {
                            s.hide::<true>(c, at(s.colour, n))
                        } else {
                            true
                        };
                        if !fine {
                            ok = false;
                            break;
                        }
                        n += 1;
                    }
                    if ok {
                        level += 1;
                        step = Step::Forward;
                    } else {
                        s.force.clear();
                        step = Step::Abort;
                    }
                }
                Step::Abort => {
                    if cur_choice + 1 >= best + size_of(&s.set, best) as usize {
                        step = Step::Backup;
                        continue;
                    }
                    // Back to the sizes this level saved.
                    let from = saved[level] as usize;
                    let to = saved[level + 1] as usize;
                    save_top = to;
                    s.active = (to - from) as u32;
                    for &[x, size] in &save[from..to] {
                        put(&mut s.set, x as usize - 1, size);
                    }
                    cur_choice += 1;
                    step = Step::Advance;
                }
                Step::Backup => {
                    if level == 0 {
                        break;
                    }
                    level -= 1;
                    let n = node(&s.nodes, choice[level] as usize);
                    best = n.item as usize;
                    cur_choice = n.loc as usize;
                    step = Step::Abort;
                }
            }
        }
        report.updates = s.updates;
        report
    }
}
