//! Algorithm C (exact covering with colours, TAOCP 7.2.2.1), steps C1–C8.
//!
//! The search is Knuth's, step for step: the only liberties are the ones a
//! distributed counter needs, and none of them changes which nodes are
//! visited or in which order.
//!
//! - The stack `x_0 .. x_{l-1}` is an explicit array (Knuth's too), so the
//!   search state is a path of options: it can be written to a checkpoint,
//!   replayed, split.
//! - A *floor*: levels below it are forced (a prefix, or levels a split
//!   gave the siblings of away) and step C8 terminates when it would leave
//!   the floor, exactly as Knuth's terminates at level 0.
//! - A forced option is entered as a level whose item is the option's first
//!   primary item and whose only choice is that option. The memory after
//!   committing a set of options does not depend on the order or on which
//!   item each was reached through (every list is its original order minus
//!   the hidden nodes, and the purified colours are the same), so a replay
//!   lands in exactly the state the original run was in.
//! - Between nodes (at step C2, never inside a dance step) the run may stop
//!   for a node budget, a solution limit or a stop request, hand out a
//!   checkpoint, or give away its untried siblings.
//!
//! MRV (step C3) is Knuth's rule: the first primary item of minimum `LEN`
//! in the active list, scanning stopped at a zero length. Options are tried
//! in input order. With the same input, node counts equal dlx2's.
//!
//! [`Choice::Scan`] is the other rule step C3 may follow: the same scan, but
//! the item it keeps is the one of minimum `LEN` only when that length is 0
//! or 1 (a dead end or a forced move); otherwise it is the first active
//! primary item. When the primary items begin with one item per cell,
//! listed in a fill order, that is the next empty cell of the order: the
//! row scan's tree, with every forced move taken (and every dead end seen)
//! as soon as it appears. On edge-matching boards this tree is several
//! times smaller than MRV's (a most-constrained piece item with two options
//! is a poor branch where a cell next to filled ones is a good one).

use super::bits::Bits;
use super::links::{Links, Narrow, Wide, Width};
use super::problem::Xcc;
use super::run::{Limits, Listener, Position, Report};
use crate::error::{Error, Result};
use crate::estimate::{Estimate, ProbeTree, Probes};
use crate::search::{Control, RunEnd};

/// The four places step C2's bookkeeping can send the search.
#[derive(Clone, Copy)]
enum Step {
    /// C2: enter level `l`.
    Enter,
    /// C5: try `x_l` (or C7 when the list of `i` is exhausted).
    Try,
    /// C6: undo `x_l` and move to the next option of `i`.
    TryAgain,
    /// C8: leave level `l`.
    Leave,
}

/// What happened when the search tried to force an option.
enum ForceOutcome {
    Entered,
    /// The option conflicts with the options forced before it.
    Blocked,
}

/// When step C2 next has bookkeeping to do, so that the hot path pays a
/// single comparison per node.
struct Pace {
    budget_end: u64,
    checkpoint_every: u64,
    next_checkpoint: u64,
    poll_mask: u64,
    next_poll: u64,
    next_event: u64,
}

impl Pace {
    fn new(limits: &Limits, polling: bool, nodes: u64) -> Self {
        let poll_mask = limits.poll_interval.max(1).next_power_of_two() - 1;
        let checkpoint_every = limits.checkpoint_every.map_or(u64::MAX, |n| n.max(1));
        let budget_end = limits
            .max_nodes
            .map_or(u64::MAX, |n| nodes.saturating_add(n));
        let next_checkpoint = nodes.saturating_add(checkpoint_every);
        let next_poll = if polling {
            (nodes | poll_mask) + 1
        } else {
            u64::MAX
        };
        Pace {
            budget_end,
            checkpoint_every,
            next_checkpoint,
            poll_mask,
            next_poll,
            next_event: budget_end.min(next_checkpoint).min(next_poll),
        }
    }
}

/// Algorithm C over one problem: a memory and the stack.
///
/// Between runs the memory is always back in its initial state, so one
/// solver can run many prefixes one after another. Three memories carry
/// the same search (the same nodes in the same order, so the same counts,
/// checkpoints and splits): Knuth's dancing links with 16-bit fields when
/// the problem fits them, else 32-bit ones (see `links.rs`), which also
/// count Knuth's updates; and bit sets of options (`bits.rs`), which count
/// no updates and are several times faster on small problems such as the
/// edge-matching boards. Which one runs is decided once, here.
#[derive(Debug, Clone)]
pub struct AlgorithmC(Layout);

#[derive(Debug, Clone)]
enum Layout {
    Narrow(Search<Links<Narrow>>),
    Wide(Search<Links<Wide>>),
    /// Boxed: its state arrays make it the largest by far.
    Bits(Box<Search<Bits>>),
}

impl AlgorithmC {
    /// Step C1: lays `xcc` out in memory.
    pub fn new(xcc: &Xcc) -> Self {
        Self::with_choice(xcc, Choice::Mrv)
    }

    /// Step C1, with step C3 following `choice`, on dancing links: the
    /// memory whose node and update counts are dlx2's.
    pub fn with_choice(xcc: &Xcc, choice: Choice) -> Self {
        AlgorithmC(if Narrow::fits(xcc) {
            Layout::Narrow(Search::with_choice(Links::new(xcc), xcc, choice))
        } else {
            Layout::Wide(Search::with_choice(Links::new(xcc), xcc, choice))
        })
    }

    /// Step C1 on the fastest memory for `xcc`: bit sets when the problem
    /// is small enough ([`Bits::suits`]), else dancing links. The search
    /// and its nodes are the same; `updates` are counted only on links.
    pub fn fastest(xcc: &Xcc, choice: Choice) -> Self {
        Self::on_bits(xcc, choice).unwrap_or_else(|| Self::with_choice(xcc, choice))
    }

    /// Step C1 on bit sets, if the problem is small enough for them
    /// (at most [`AlgorithmC::MAX_BITS_OPTIONS`] options).
    pub fn on_bits(xcc: &Xcc, choice: Choice) -> Option<Self> {
        Bits::suits(xcc).then(|| {
            AlgorithmC(Layout::Bits(Box::new(Search::with_choice(
                Bits::new(xcc, choice),
                xcc,
                choice,
            ))))
        })
    }

    /// The most options a problem may have to run on bit sets.
    pub const MAX_BITS_OPTIONS: u32 = super::bits::MAX_OPTIONS;

    /// Counts (and reports to `listener`) the solutions below `from`.
    ///
    /// A fresh run is `Position { forced: prefix, ..Default::default() }`.
    /// A prefix whose options conflict has no solutions: the run finishes at
    /// once with none. A position whose path does not fit the problem is an
    /// error.
    pub fn run<L: Listener>(
        &mut self,
        from: &Position,
        limits: &Limits,
        control: Option<&Control>,
        listener: &mut L,
    ) -> Result<Report> {
        let leaves = usize::MAX;
        match &mut self.0 {
            Layout::Narrow(s) => s.search(from, limits, control, leaves, listener),
            Layout::Wide(s) => s.search(from, limits, control, leaves, listener),
            Layout::Bits(s) => {
                #[cfg(target_arch = "x86_64")]
                if std::arch::is_x86_feature_detected!("popcnt")
                    && std::arch::is_x86_feature_detected!("bmi1")
                {
                    // SAFETY: the CPU has the features the copy is built for.
                    return unsafe { search_popcnt(s, from, limits, control, leaves, listener) };
                }
                s.search(from, limits, control, leaves, listener)
            }
        }
    }

    /// Reports to [`Listener::leaf`] every node `depth` levels below the
    /// forced options (and every solution above that depth), each as the
    /// full list of options leading to it. Their subtrees partition the
    /// search: their counts add up to the whole count.
    pub fn enumerate<L: Listener>(
        &mut self,
        forced: &[u32],
        depth: usize,
        listener: &mut L,
    ) -> Result<Report> {
        match &mut self.0 {
            Layout::Narrow(s) => s.enumerate(forced, depth, listener),
            Layout::Wide(s) => s.enumerate(forced, depth, listener),
            Layout::Bits(s) => s.enumerate(forced, depth, listener),
        }
    }

    /// Knuth's random-probe estimate ([`crate::estimate`]) of the tree
    /// below the `forced` options: each probe takes step C3's item at every
    /// node and one of the options still in its list, uniformly at random,
    /// so it sees exactly the children the search would try there. `nodes`
    /// estimates the level entries below the subtree's root (a run also
    /// counts the root's own entry: one more). Forced options that conflict
    /// leave an empty tree.
    pub fn estimate(&mut self, forced: &[u32], config: &Probes) -> Result<Estimate> {
        match &mut self.0 {
            Layout::Narrow(s) => s.estimate(forced, config),
            Layout::Wide(s) => s.estimate(forced, config),
            Layout::Bits(s) => s.estimate(forced, config),
        }
    }

    /// Whether the memory has 16-bit fields.
    #[cfg(test)]
    fn is_narrow(&self) -> bool {
        matches!(self.0, Layout::Narrow(_))
    }

    /// Whether the memory is bit sets.
    #[cfg(test)]
    fn is_bits(&self) -> bool {
        matches!(self.0, Layout::Bits(_))
    }
}

/// [`Search::search`] compiled for CPUs with `popcnt` and BMI1: the bit
/// sets count a word's removed options a group at a time, and without the
/// instruction each count is a dozen shifts and masks. One binary still
/// runs everywhere: [`AlgorithmC::run`] picks this copy at run time.
///
/// # Safety
/// The CPU must have those features.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "popcnt,bmi1")]
unsafe fn search_popcnt<M: Memory, L: Listener>(
    s: &mut Search<M>,
    from: &Position,
    limits: &Limits,
    control: Option<&Control>,
    leaf_level: usize,
    listener: &mut L,
) -> Result<Report> {
    s.search(from, limits, control, leaf_level, listener)
}

/// What the search needs of its memory: the dance steps, and a cursor over
/// the options of the item a level branches on.
///
/// Items are Knuth's numbers (`1..=N1` primary). A cursor is a memory's
/// own handle on one option of a covered item's list (a node, for links);
/// the list is the item's options still compatible when it was covered, in
/// input order. Covers and uncovers nest (last covered, first uncovered),
/// and so do commits and uncommits inside them.
///
/// The reading rule: the search reads the memory's state (its active
/// items and step C3's choice; the cursors of covered levels are always
/// readable) only after a cover, after a commit, after the uncommit of an
/// option that has a next one, and after the uncover of the first level.
/// After the uncommit of a level's last option the level's uncover
/// follows, and after the uncover of a deeper level the level below's
/// uncommit, so a memory may leave the state unfinished there: the bit
/// sets restore a saved state only at those reads.
///
/// One more liberty, in step C5 only ([`Memory::commit_until_dead`]): a
/// commit may stop as soon as it has left some active primary item
/// without options. The node below is then a dead end whatever the rest
/// of the commit would do (options only leave), so the search reads of
/// that state only step C3's choice, which must be such an item, and the
/// cover of it; then comes the uncommit. Forced options and replayed
/// paths are committed whole, since more commits follow them.
pub(crate) trait Memory {
    type Cursor: Copy + Default + Eq + std::fmt::Debug;
    /// Whether a primary item is still to be covered (step C2's test).
    fn any_active(&self) -> bool;
    /// Step C3 under `choice` (only called when [`Memory::any_active`]).
    fn choose(&self, choice: Choice) -> u32;
    /// Whether primary item `i` is still to be covered.
    fn is_active(&self, i: u32) -> bool;
    /// The first primary item of option `o`.
    fn first_primary(&self, o: u32) -> u32;
    /// Step C4: covers `i`; the cursor at the first option of its list.
    fn cover(&mut self, i: u32) -> Self::Cursor;
    /// The inverse of [`Memory::cover`].
    fn uncover(&mut self, i: u32);
    /// The cursor after `c` in the list of the level's item `i`.
    fn next(&self, c: Self::Cursor) -> Self::Cursor;
    /// Whether `c` is past the end of item `i`'s list.
    fn at_end(&self, c: Self::Cursor, i: u32) -> bool;
    /// The option (0-based) at `c`.
    fn option(&self, c: Self::Cursor) -> u32;
    /// Step C5's commits for the option at `c`, chosen through item `i`.
    fn commit(&mut self, c: Self::Cursor, i: u32);
    /// [`Memory::commit`], which may stop once an active primary item has
    /// no options left (the reading rule above).
    #[inline(always)]
    fn commit_until_dead(&mut self, c: Self::Cursor, i: u32) {
        self.commit(c, i)
    }
    /// The inverse of [`Memory::commit`] (step C6).
    fn uncommit(&mut self, c: Self::Cursor, i: u32);
    /// Knuth's updates since the last [`Memory::reset_updates`].
    fn updates(&self) -> u64;
    fn reset_updates(&mut self);
}

impl<W: Width> Memory for Links<W> {
    type Cursor = u32;

    #[inline(always)]
    fn any_active(&self) -> bool {
        self.rlink(0) != 0
    }

    #[inline(always)]
    fn choose(&self, choice: Choice) -> u32 {
        let mut t = i32::MAX;
        let mut best = 0;
        let mut k = self.rlink(0);
        while k != 0 {
            let len = self.len(k);
            if len < t {
                t = len;
                best = k;
                if t == 0 {
                    break;
                }
            }
            k = self.rlink(k);
        }
        if choice == Choice::Scan && t > 1 {
            return self.rlink(0);
        }
        best
    }

    fn is_active(&self, i: u32) -> bool {
        Links::is_active(self, i)
    }

    fn first_primary(&self, o: u32) -> u32 {
        let n1 = self.primary_items();
        let p = self
            .first_primary_node(o, n1)
            .expect("every option has a primary item");
        self.top(p) as u32
    }

    #[inline(always)]
    fn cover(&mut self, i: u32) -> u32 {
        self.cover_(i);
        self.dlink(i)
    }

    #[inline(always)]
    fn uncover(&mut self, i: u32) {
        self.uncover_(i);
    }

    #[inline(always)]
    fn next(&self, c: u32) -> u32 {
        self.dlink(c)
    }

    #[inline(always)]
    fn at_end(&self, c: u32, i: u32) -> bool {
        c == i
    }

    fn option(&self, c: u32) -> u32 {
        self.option_of(c)
    }

    #[inline(always)]
    fn commit(&mut self, c: u32, _i: u32) {
        self.commit_others(c);
    }

    #[inline(always)]
    fn uncommit(&mut self, c: u32, _i: u32) {
        self.uncommit_others(c);
    }

    fn updates(&self) -> u64 {
        self.updates
    }

    fn reset_updates(&mut self) {
        self.updates = 0;
    }
}

/// The search over one memory.
#[derive(Debug, Clone)]
struct Search<M: Memory> {
    mem: M,
    options: u32,
    /// `x_0, x_1, ...`: the option chosen at each level, as a cursor.
    x: Vec<M::Cursor>,
    /// The item each level branches on.
    items: Vec<u32>,
    choice: Choice,
}

/// How step C3 picks the item to branch on.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Choice {
    /// Knuth's minimum remaining values: dlx2's rule and node counts.
    #[default]
    Mrv,
    /// A dead or forced item (`LEN` 0 or 1) when there is one, else the
    /// first active primary item (module doc).
    Scan,
}

impl<M: Memory> Search<M> {
    /// Step C1 (`mem` laid out from `xcc`), with step C3 following `choice`.
    fn with_choice(mem: M, xcc: &Xcc, choice: Choice) -> Self {
        let n1 = xcc.primary_items();
        Search {
            mem,
            options: xcc.options(),
            // Every level covers at least one primary item.
            x: vec![M::Cursor::default(); n1 + 1],
            items: vec![0; n1 + 1],
            choice,
        }
    }

    /// [`AlgorithmC::enumerate`].
    fn enumerate<L: Listener>(
        &mut self,
        forced: &[u32],
        depth: usize,
        listener: &mut L,
    ) -> Result<Report> {
        let from = Position {
            forced: forced.to_vec(),
            ..Position::default()
        };
        self.search(
            &from,
            &Limits::default(),
            None,
            forced.len().saturating_add(depth),
            listener,
        )
    }

    #[inline(always)]
    fn search<L: Listener>(
        &mut self,
        from: &Position,
        limits: &Limits,
        control: Option<&Control>,
        leaf_level: usize,
        listener: &mut L,
    ) -> Result<Report> {
        let mut report = Report {
            solutions: from.solutions,
            nodes: from.nodes,
            updates: 0,
            end: RunEnd::Finished,
            position: None,
            first: None,
        };
        let mut l = 0usize;
        for (k, &o) in from.forced.iter().enumerate() {
            match self.force(l, o)? {
                ForceOutcome::Entered => l += 1,
                ForceOutcome::Blocked => {
                    if !from.path.is_empty() {
                        self.unwind(l);
                        return Err(Error::Invalid(format!(
                            "checkpoint: forced option {k} ({o}) conflicts with the ones before it"
                        )));
                    }
                    self.unwind(l);
                    return Ok(report);
                }
            }
        }
        let mut floor = l;
        for (k, &o) in from.path.iter().enumerate() {
            if let Err(e) = self.replay(l, o) {
                self.unwind(l);
                return Err(Error::Invalid(format!("checkpoint: path level {k}: {e}")));
            }
            l += 1;
        }
        self.mem.reset_updates();

        let mut pace = Pace::new(limits, control.is_some(), report.nodes);
        let max_solutions = limits.max_solutions.unwrap_or(u64::MAX);
        let enumerating = leaf_level != usize::MAX;
        let mut i = 0u32;
        let mut step = Step::Enter;
        loop {
            match step {
                Step::Enter => {
                    // C2. [Enter level l.]
                    if report.nodes >= pace.next_event {
                        let end = self
                            .between_nodes(&mut pace, &mut floor, l, &report, control, listener);
                        if let Some(end) = end {
                            report.position = Some(self.position(floor, l, &report));
                            report.end = end;
                            break;
                        }
                    }
                    report.nodes += 1;
                    if !self.mem.any_active() {
                        // All primary items are covered: visit x_0 .. x_{l-1}.
                        report.solutions += 1;
                        if L::WANTS_SOLUTIONS || enumerating || report.first.is_none() {
                            let options = self.options_of(0, l);
                            if L::WANTS_SOLUTIONS {
                                listener.solution(&options);
                            }
                            if enumerating {
                                listener.leaf(&options);
                            }
                            report.first.get_or_insert(options);
                        }
                        if report.solutions >= max_solutions {
                            // Resuming re-enters this very node, so the
                            // position counts neither it nor its solution.
                            let mut position = self.position(floor, l, &report);
                            position.solutions -= 1;
                            position.nodes -= 1;
                            report.position = Some(position);
                            report.end = RunEnd::FoundFirst;
                            break;
                        }
                        step = Step::Leave;
                        continue;
                    }
                    if l == leaf_level {
                        listener.leaf(&self.options_of(0, l));
                        step = Step::Leave;
                        continue;
                    }
                    // C3. [Choose i.]
                    i = self.mem.choose(self.choice);
                    // C4. [Cover i.]
                    let first = self.mem.cover(i);
                    self.set_x(l, first, i);
                    step = Step::Try;
                }
                Step::Try => {
                    // C5. [Try x_l.]
                    let x_l = self.x_at(l);
                    if self.mem.at_end(x_l, i) {
                        // C7. [Backtrack.]
                        self.mem.uncover(i);
                        step = Step::Leave;
                        continue;
                    }
                    self.mem.commit_until_dead(x_l, i);
                    l += 1;
                    step = Step::Enter;
                }
                Step::TryAgain => {
                    // C6. [Try again.]
                    let x_l = self.x_at(l);
                    i = self.item_at(l);
                    self.mem.uncommit(x_l, i);
                    self.set_x(l, self.mem.next(x_l), i);
                    step = Step::Try;
                }
                Step::Leave => {
                    // C8. [Leave level l.] Terminate at the floor.
                    if l == floor {
                        break;
                    }
                    l -= 1;
                    step = Step::TryAgain;
                }
            }
        }
        report.updates = self.mem.updates();
        self.unwind(l);
        Ok(report)
    }

    /// The bookkeeping step C2 does every few thousand nodes: the node
    /// budget, periodic checkpoints, stop and split requests. Returns how
    /// the run ends, if it must end here.
    fn between_nodes<L: Listener>(
        &mut self,
        pace: &mut Pace,
        floor: &mut usize,
        l: usize,
        report: &Report,
        control: Option<&Control>,
        listener: &mut L,
    ) -> Option<RunEnd> {
        let nodes = report.nodes;
        if nodes >= pace.budget_end {
            return Some(RunEnd::BudgetSpent);
        }
        if nodes >= pace.next_checkpoint {
            listener.checkpoint(&self.position(*floor, l, report));
            pace.next_checkpoint = nodes.saturating_add(pace.checkpoint_every);
        }
        if let Some(control) = control {
            if nodes >= pace.next_poll {
                if control.is_stopped() {
                    return Some(RunEnd::Stopped);
                }
                if L::ACCEPTS_DONATIONS && control.split_wanted() {
                    *floor = self.split(*floor, l, listener);
                }
                pace.next_poll = (nodes | pace.poll_mask) + 1;
            }
        }
        pace.next_event = pace
            .budget_end
            .min(pace.next_checkpoint)
            .min(pace.next_poll);
        None
    }

    #[inline(always)]
    fn x_at(&self, l: usize) -> M::Cursor {
        debug_assert!(l < self.x.len());
        // SAFETY: `l` never exceeds N1 (each level covers a primary item,
        // so at most N1 levels are entered before every primary item is
        // covered) and `x` has N1 + 1 entries.
        unsafe { *self.x.get_unchecked(l) }
    }

    #[inline(always)]
    fn item_at(&self, l: usize) -> u32 {
        debug_assert!(l < self.items.len());
        // SAFETY: as in `x_at`; `items` has as many entries as `x`.
        unsafe { *self.items.get_unchecked(l) }
    }

    #[inline(always)]
    fn set_x(&mut self, l: usize, x: M::Cursor, i: u32) {
        debug_assert!(l < self.x.len() && l < self.items.len());
        // SAFETY: as in `x_at`.
        unsafe {
            *self.x.get_unchecked_mut(l) = x;
            *self.items.get_unchecked_mut(l) = i;
        }
    }

    /// [`AlgorithmC::estimate`].
    fn estimate(&mut self, forced: &[u32], config: &Probes) -> Result<Estimate> {
        crate::estimate::check(config)?;
        let mut probe = Probe {
            search: self,
            forced,
            level: 0,
            pending: None,
            children: Vec::new(),
            complete: false,
        };
        if !probe.force_all()? {
            probe.undo();
            return Ok(Estimate::empty(config.probes, 0.0));
        }
        let estimate = crate::estimate::knuth(&mut probe, config);
        probe.undo();
        estimate
    }

    /// Enters level `l` with option `o` as its only choice.
    fn force(&mut self, l: usize, o: u32) -> Result<ForceOutcome> {
        if o >= self.options {
            return Err(Error::Invalid(format!(
                "forced option {o} does not exist (the problem has {} options)",
                self.options
            )));
        }
        let i = self.mem.first_primary(o);
        if !self.mem.is_active(i) {
            return Ok(ForceOutcome::Blocked);
        }
        let first = self.mem.cover(i);
        let Some(p) = self.find(first, i, o) else {
            self.mem.uncover(i);
            return Ok(ForceOutcome::Blocked);
        };
        self.set_x(l, p, i);
        self.mem.commit(p, i);
        Ok(ForceOutcome::Entered)
    }

    /// Re-enters level `l` of a checkpoint: steps C3–C5 with option `o`.
    fn replay(&mut self, l: usize, o: u32) -> std::result::Result<(), String> {
        if !self.mem.any_active() {
            return Err("the path continues below a solution".into());
        }
        let i = self.mem.choose(self.choice);
        let first = self.mem.cover(i);
        let Some(p) = self.find(first, i, o) else {
            self.mem.uncover(i);
            return Err(format!(
                "option {o} is not a remaining choice for the item this level branches on"
            ));
        };
        self.set_x(l, p, i);
        self.mem.commit(p, i);
        Ok(())
    }

    /// The cursor of option `o` in the list of item `i` from `c` on.
    fn find(&self, mut c: M::Cursor, i: u32, o: u32) -> Option<M::Cursor> {
        while !self.mem.at_end(c, i) {
            if self.mem.option(c) == o {
                return Some(c);
            }
            c = self.mem.next(c);
        }
        None
    }

    /// Gives away the untried siblings at the shallowest level (at or above
    /// the floor) that has any, and returns the raised floor.
    fn split<L: Listener>(&mut self, floor: usize, l: usize, listener: &mut L) -> usize {
        for k in floor..l {
            let (x_k, i_k) = (self.x[k], self.items[k]);
            let mut s = self.mem.next(x_k);
            if self.mem.at_end(s, i_k) {
                continue;
            }
            let above = self.options_of(0, k);
            let mut prefixes = Vec::new();
            while !self.mem.at_end(s, i_k) {
                let mut prefix = above.clone();
                prefix.push(self.mem.option(s));
                prefixes.push(prefix);
                s = self.mem.next(s);
            }
            listener.donate(prefixes);
            return k + 1;
        }
        floor
    }

    /// The options of levels `from..to`.
    fn options_of(&self, from: usize, to: usize) -> Vec<u32> {
        self.x[from..to]
            .iter()
            .map(|&q| self.mem.option(q))
            .collect()
    }

    fn position(&self, floor: usize, l: usize, report: &Report) -> Position {
        Position {
            forced: self.options_of(0, floor),
            path: self.options_of(floor, l),
            solutions: report.solutions,
            nodes: report.nodes,
        }
    }

    /// Undoes levels `l-1 .. 0` (steps C6 and C7 without moving on), so the
    /// memory is back in its initial state.
    fn unwind(&mut self, l: usize) {
        for k in (0..l).rev() {
            let (x_k, i_k) = (self.x[k], self.items[k]);
            self.mem.uncommit(x_k, i_k);
            self.mem.uncover(i_k);
        }
    }
}

/// A cursor on one node of the search for Knuth's probes: levels
/// `0..level` committed (the forced ones first), and, once its children
/// are asked for, the item step C3 chose covered at `level`.
///
/// It takes the search's own steps in the search's order (cover, commit
/// until dead, then uncommit and uncover nested last in, first out), so
/// it keeps the memory's reading rule; between probes it undoes every
/// level and forces the options again, since only after the first level's
/// uncover may the memory be read without the level below's uncommit.
struct Probe<'a, M: Memory> {
    search: &'a mut Search<M>,
    forced: &'a [u32],
    level: usize,
    /// The item covered at `level` whose list `children` holds.
    pending: Option<u32>,
    children: Vec<M::Cursor>,
    /// Whether the current node had every primary item covered.
    complete: bool,
}

impl<M: Memory> Probe<'_, M> {
    /// Forces `forced` from the initial state; `false` when one conflicts
    /// with those before it (the levels entered so far stay, for `undo`).
    fn force_all(&mut self) -> Result<bool> {
        for &o in self.forced {
            match self.search.force(self.level, o)? {
                ForceOutcome::Entered => self.level += 1,
                ForceOutcome::Blocked => return Ok(false),
            }
        }
        Ok(true)
    }

    /// Back to the initial state: the pending cover, then every level.
    fn undo(&mut self) {
        if let Some(i) = self.pending.take() {
            self.search.mem.uncover(i);
        }
        self.search.unwind(self.level);
        self.level = 0;
        self.children.clear();
    }
}

impl<M: Memory> ProbeTree for Probe<'_, M> {
    fn restart(&mut self) {
        self.undo();
        // The options entered before the probes began, so they enter again
        // (the memory after the same commits is the same); were one refused,
        // `children` would find the levels short and see no children
        // rather than a wrong tree.
        let _ = self.force_all();
    }

    fn children(&mut self) -> u64 {
        if self.pending.is_some() {
            return self.children.len() as u64;
        }
        self.children.clear();
        self.complete = false;
        if self.level < self.forced.len() {
            return 0; // the forced options did not all enter
        }
        let mem = &mut self.search.mem;
        if !mem.any_active() {
            self.complete = true;
            return 0;
        }
        // C3 and C4, then the list C5 and C6 would walk.
        let i = mem.choose(self.search.choice);
        let mut c = mem.cover(i);
        self.pending = Some(i);
        while !mem.at_end(c, i) {
            self.children.push(c);
            c = mem.next(c);
        }
        self.children.len() as u64
    }

    fn descend(&mut self, k: u64) {
        let (Some(i), Some(&c)) = (self.pending, self.children.get(k as usize)) else {
            return;
        };
        self.pending = None;
        self.search.set_x(self.level, c, i);
        self.search.mem.commit_until_dead(c, i);
        self.level += 1;
    }

    fn complete(&self) -> bool {
        self.complete
    }
}

#[cfg(test)]
mod tests {
    use super::super::problem::Entry;
    use super::super::run::Quiet;
    use super::*;

    fn knuth_seven() -> Xcc {
        let names = "A B C D E F G".split(' ').map(String::from).collect();
        let mut x = Xcc::new(names, vec![]).unwrap();
        for opt in ["C E F", "A D G", "B C F", "A D", "B G", "D E G"] {
            let entries: Vec<Entry> = opt
                .split(' ')
                .map(|n| Entry {
                    item: (n.as_bytes()[0] - b'A') as u32,
                    colour: 0,
                })
                .collect();
            x.add_option(&entries).unwrap();
        }
        x
    }

    #[test]
    fn a_run_leaves_memory_as_it_found_it() {
        leaves_memory_as_it_found_it::<Narrow>();
        leaves_memory_as_it_found_it::<Wide>();
    }

    fn leaves_memory_as_it_found_it<W: Width>() {
        let xcc = knuth_seven();
        let mut solver = Search::with_choice(Links::<W>::new(&xcc), &xcc, Choice::Mrv);
        let before = solver.mem.snapshot();
        let fresh = Position::default();
        let r = solver
            .search(&fresh, &Limits::none(), None, usize::MAX, &mut Quiet)
            .unwrap();
        assert_eq!(r.solutions, 1);
        assert_eq!(solver.mem.snapshot(), before);
        let r = solver
            .search(&fresh, &Limits::nodes(2), None, usize::MAX, &mut Quiet)
            .unwrap();
        assert_eq!(r.end, RunEnd::BudgetSpent);
        assert_eq!(solver.mem.snapshot(), before);
    }

    /// The two layouts are one search: the same solutions, nodes, updates
    /// and first solution, under both step C3 rules, on an edge-matching
    /// board with colours (and on Knuth's example). Runs stopped by a node
    /// budget stop at the same place.
    #[test]
    fn narrow_and_wide_memories_search_alike() {
        use crate::generator::{generate, GenSpec};
        let puzzle = generate(&GenSpec::sized(5, 4, 5, 3, 3)).unwrap().puzzle;
        let board = super::super::E2Cover::new(&puzzle).unwrap().xcc().clone();
        assert!(Narrow::fits(&board));
        for xcc in [knuth_seven(), board] {
            for choice in [Choice::Mrv, Choice::Scan] {
                for limits in [Limits::none(), Limits::nodes(50)] {
                    let run = |mut s: AlgorithmC| {
                        s.run(&Position::default(), &limits, None, &mut Quiet)
                            .unwrap()
                    };
                    let narrow = run(AlgorithmC(Layout::Narrow(Search::with_choice(
                        Links::new(&xcc),
                        &xcc,
                        choice,
                    ))));
                    let wide = run(AlgorithmC(Layout::Wide(Search::with_choice(
                        Links::new(&xcc),
                        &xcc,
                        choice,
                    ))));
                    assert_eq!(narrow, wide, "{choice:?}");
                    assert!(narrow.nodes > 0);
                }
            }
        }
    }

    #[test]
    fn a_problem_too_big_for_16_bits_gets_the_wide_memory() {
        let names = (0..40_000).map(|i| format!("i{i}")).collect();
        let mut big = Xcc::new(names, vec![]).unwrap();
        big.add_option(&[Entry { item: 0, colour: 0 }]).unwrap();
        assert!(!AlgorithmC::new(&big).is_narrow());
        assert!(AlgorithmC::new(&knuth_seven()).is_narrow());
    }

    #[test]
    fn only_a_problem_small_enough_runs_on_bit_sets() {
        assert!(AlgorithmC::fastest(&knuth_seven(), Choice::Scan).is_bits());
        assert!(!AlgorithmC::with_choice(&knuth_seven(), Choice::Scan).is_bits());
        let mut many = Xcc::new(vec!["a".into(), "b".into()], vec![]).unwrap();
        // One option more than the bit sets hold: `a` alone, many times.
        for _ in 0..AlgorithmC::MAX_BITS_OPTIONS {
            many.add_option(&[Entry { item: 0, colour: 0 }]).unwrap();
        }
        many.add_option(&[Entry { item: 1, colour: 0 }]).unwrap();
        let solver = AlgorithmC::fastest(&many, Choice::Mrv);
        assert!(!solver.is_bits() && solver.is_narrow());
        assert!(AlgorithmC::on_bits(&many, Choice::Mrv).is_none());
        // The links count it: any one of the a-options beside the b-option.
        let mut solver = solver;
        let r = solver
            .run(&Position::default(), &Limits::none(), None, &mut Quiet)
            .unwrap();
        assert_eq!(r.solutions, u64::from(AlgorithmC::MAX_BITS_OPTIONS));
    }

    /// Knuth's probes walk the search's own tree: with one seed the three
    /// memories give the same estimate to the bit (they list the same
    /// children in the same order), within 10% of the nodes a run counts
    /// below its root, under both step C3 rules; the memory is left as the
    /// run found it (the same count after as before); conflicting forced
    /// options are an empty tree.
    #[test]
    fn probes_estimate_the_searchs_own_tree_on_every_memory() {
        use crate::generator::{generate, GenSpec};
        let puzzle = generate(&GenSpec::sized(5, 4, 5, 3, 3)).unwrap().puzzle;
        let xcc = super::super::E2Cover::new(&puzzle).unwrap().xcc().clone();
        assert!(Narrow::fits(&xcc) && Bits::suits(&xcc));
        let config = Probes {
            probes: 20_000,
            seed: 3,
        };
        for choice in [Choice::Mrv, Choice::Scan] {
            let memories = [
                AlgorithmC(Layout::Narrow(Search::with_choice(
                    Links::new(&xcc),
                    &xcc,
                    choice,
                ))),
                AlgorithmC(Layout::Wide(Search::with_choice(
                    Links::new(&xcc),
                    &xcc,
                    choice,
                ))),
                AlgorithmC(Layout::Bits(Box::new(Search::with_choice(
                    Bits::new(&xcc, choice),
                    &xcc,
                    choice,
                )))),
            ];
            let mut estimates = Vec::new();
            for mut solver in memories {
                let fresh = Position::default();
                let count = solver.run(&fresh, &Limits::none(), None, &mut Quiet);
                let count = count.unwrap();
                let e = solver.estimate(&[], &config).unwrap();
                let again = solver.run(&fresh, &Limits::none(), None, &mut Quiet);
                assert_eq!(
                    again.unwrap().nodes,
                    count.nodes,
                    "{choice:?}: memory changed"
                );
                let below_root = (count.nodes - 1) as f64;
                assert!(below_root > 500.0, "too small a tree: {below_root}");
                let off = (e.nodes - below_root).abs() / below_root;
                assert!(
                    off < 0.1,
                    "{choice:?}: estimated {} nodes, the run counted {below_root}",
                    e.nodes
                );
                estimates.push(e);
            }
            assert_eq!(estimates[0], estimates[1], "{choice:?}");
            assert_eq!(estimates[0], estimates[2], "{choice:?}");
        }
        // R2 {A,D,G} and R4 {A,D} share A.
        let mut solver = AlgorithmC::new(&knuth_seven());
        let e = solver.estimate(&[1, 3], &config).unwrap();
        assert_eq!((e.nodes, e.solutions), (0.0, 0.0));
        // Knuth's example has one solution, R1 R4 R5 ({C E F} {A D} {B G}).
        let e = solver.estimate(&[0, 3, 4], &config).unwrap();
        assert_eq!((e.nodes, e.solutions), (0.0, 1.0));
        assert!(solver.estimate(&[9], &config).is_err());
    }

    #[test]
    fn conflicting_forced_options_have_no_solutions() {
        let mut solver = AlgorithmC::new(&knuth_seven());
        // R2 {A,D,G} and R4 {A,D} share A.
        let from = Position {
            forced: vec![1, 3],
            ..Position::default()
        };
        let r = solver
            .run(&from, &Limits::none(), None, &mut Quiet)
            .unwrap();
        assert_eq!((r.solutions, r.end), (0, RunEnd::Finished));
        let bad = Position {
            forced: vec![9],
            ..Position::default()
        };
        assert!(solver.run(&bad, &Limits::none(), None, &mut Quiet).is_err());
    }
}
