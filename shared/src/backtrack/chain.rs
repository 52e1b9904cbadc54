//! The chained walk: the plain walk with one copy of its code per level.
//!
//! The plain walk (`walk::walk_runs`) runs every level through the same few
//! instructions, so the branch predictor sees one "is this piece still in
//! stock?" and one "is the run over?" for the whole tree, although the
//! answers differ sharply from cell to cell (a corner has two candidates, a
//! border cell a dozen, an interior cell a few used ones among many). The
//! code-generated engines give every cell its own code, and with it its own
//! branch history. This walk gets the same effect without generating a
//! program per puzzle: the level loop is one generic function, instantiated
//! once per depth through a chain of types (`L<0>`, `L<1>`, ...), each
//! knowing its depth as a constant. Runs of [`GROUP`] levels are inlined
//! into one another as nested loops; every `GROUP`-th level is a real call,
//! which keeps the code per function small and the stack shallow.
//!
//! It reads the plan's strided tables (`strided`): a level's key lands
//! straight on its run, which ends at a sentinel, so a placement leads to
//! the next cell's first candidate with one load instead of two.
//!
//! What every level reads is held where the compiler can keep it in
//! registers: the countdown to the driver's next mark is a local of the walk
//! lent down the chain by `&mut` (a register inside a group, spilled only
//! at the group's call), and each level copies the stacks' pointers out of
//! the shared context. Kept in the context, both were reloaded after every
//! store to the board or the stock, which a store through a raw pointer
//! might have changed (2% of the strict row scan's node rate, README,
//! "Benchmarks").
//!
//! It walks the same tree as the plain walk in the same order, polls at the
//! same nodes and keeps the same per-level runs on the state's stack (in
//! strided positions while it runs, in flat ones whenever the driver reads
//! them), so checkpoints, splits and resumes are exact; a test holds the
//! walks to the same counts, nodes and checkpoints. Plans deeper than
//! [`CHAIN_LEVELS`] levels take the plain walk. Counts on x86-64 take the
//! same walk written as machine code for their plan (`jit`), which
//! carries each level's constants in the code itself.

use super::candidate::{class_of, Candidate};
use super::plan::{Level, Plan};
use super::poll::Polls;
use super::state::{Counters, Run, SearchState, Stacks};
use super::strided::{Positions, Strided, OPEN_END, SENTINEL};
use super::walk::{Entry, Visitor};
use crate::search::RunEnd;

/// The deepest plan the chain covers: the 16×16 board.
pub(crate) const CHAIN_LEVELS: usize = 256;

/// Levels inlined into one function.
const GROUP: usize = 4;

/// One depth of the chain.
pub(crate) struct L<const N: usize>;

/// A depth of the chain, and the depth below it. `L<CHAIN_LEVELS>` ends
/// the chain: it is below the last level, so no walk ever enters it.
pub(crate) trait Depth {
    const D: usize;
    type Next: Depth;
}

macro_rules! chain {
    ($a:literal $b:literal $($rest:literal)*) => {
        impl Depth for L<$a> {
            const D: usize = $a;
            type Next = L<$b>;
        }
        chain!($b $($rest)*);
    };
    ($last:literal) => {
        impl Depth for L<$last> {
            const D: usize = $last;
            type Next = L<$last>;
        }
    };
}

// Depths 0 to CHAIN_LEVELS, each followed by the next.
#[rustfmt::skip]
chain!(
    0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15
    16 17 18 19 20 21 22 23 24 25 26 27 28 29 30 31
    32 33 34 35 36 37 38 39 40 41 42 43 44 45 46 47
    48 49 50 51 52 53 54 55 56 57 58 59 60 61 62 63
    64 65 66 67 68 69 70 71 72 73 74 75 76 77 78 79
    80 81 82 83 84 85 86 87 88 89 90 91 92 93 94 95
    96 97 98 99 100 101 102 103 104 105 106 107 108 109 110 111
    112 113 114 115 116 117 118 119 120 121 122 123 124 125 126 127
    128 129 130 131 132 133 134 135 136 137 138 139 140 141 142 143
    144 145 146 147 148 149 150 151 152 153 154 155 156 157 158 159
    160 161 162 163 164 165 166 167 168 169 170 171 172 173 174 175
    176 177 178 179 180 181 182 183 184 185 186 187 188 189 190 191
    192 193 194 195 196 197 198 199 200 201 202 203 204 205 206 207
    208 209 210 211 212 213 214 215 216 217 218 219 220 221 222 223
    224 225 226 227 228 229 230 231 232 233 234 235 236 237 238 239
    240 241 242 243 244 245 246 247 248 249 250 251 252 253 254 255
    256
);
const _: () = assert!(<L<CHAIN_LEVELS> as Depth>::D == CHAIN_LEVELS);

/// What every level of one walk shares. The stacks are raw pointers into
/// `state`'s vectors, taken again after every call that takes `state`.
struct Cx<'a, V> {
    plan: &'a Plan,
    strided: &'a Strided,
    state: &'a mut SearchState,
    counters: &'a mut Counters,
    driver: &'a mut dyn Polls,
    visitor: &'a mut V,
    /// The strided levels and candidates.
    levels: *const Level,
    candidates: *const Candidate,
    s: Stacks,
    leaf: usize,
    /// Levels `0..replay` are placed already and resume their runs.
    replay: usize,
    mark: u64,
    /// How the walk stopped, when it did not finish.
    stopped: Option<(RunEnd, usize)>,
}

impl<V: Visitor> Cx<'_, V> {
    fn rebind(&mut self) {
        self.s = self.state.stacks();
    }

    /// The driver's poll at the mark, with level `d` just placed and its
    /// run stored. True when the walk stops.
    #[cold]
    #[inline(never)]
    fn poll(&mut self, d: usize, countdown: &mut u64) -> bool {
        self.counters.nodes = self.mark;
        let (levels, offsets) = (&self.plan.levels, self.plan.tables.offsets());
        self.strided
            .rewrite_runs(levels, offsets, self.state, d, Positions::Flat);
        let stop = self.driver.poll(self.plan, self.state, d, self.counters);
        self.strided
            .rewrite_runs(levels, offsets, self.state, d, Positions::Strided);
        self.rebind();
        if let Some(stop) = stop {
            self.stopped = Some((stop, d));
            return true;
        }
        self.mark = self
            .driver
            .next_mark(self.counters.nodes)
            .max(self.counters.nodes + 1);
        *countdown = self.mark - self.counters.nodes;
        false
    }

    /// The visitor at a leaf, level `d` placed. True when the walk stops.
    #[inline(always)]
    fn leaf(&mut self, d: usize, countdown: u64) -> bool {
        self.counters.nodes = self.mark - countdown;
        let stop = self.visitor.leaf(self.plan, self.state, self.counters);
        if stop {
            self.stopped = Some((RunEnd::FoundFirst, d));
        }
        stop
    }
}

/// Whether level `T` starts a group of inlined levels, so that entering it
/// is a real call.
pub(crate) const fn starts_group<T: Depth>() -> bool {
    T::D % GROUP == 0
}

/// Into level `T`: a real call at the start of each group, inlined inside one.
/// The choice is an inline `const` so that the branch not taken is never
/// compiled: as a plain `if`, an unoptimised build would inline the whole
/// rest of the chain into every group through the dead branch.
///
/// # Safety
/// As [`level`].
#[inline(always)]
unsafe fn descend<T: Depth, V: Visitor>(
    cx: &mut Cx<'_, V>,
    word: Candidate,
    countdown: &mut u64,
) -> bool {
    if const { starts_group::<T>() } {
        // SAFETY: passed on.
        unsafe { group::<T, V>(cx, word, countdown) }
    } else {
        // SAFETY: passed on.
        unsafe { level::<T, V>(cx, word, countdown) }
    }
}

/// # Safety
/// As [`level`].
#[inline(never)]
unsafe fn group<T: Depth, V: Visitor>(
    cx: &mut Cx<'_, V>,
    word: Candidate,
    countdown: &mut u64,
) -> bool {
    // SAFETY: passed on.
    unsafe { level::<T, V>(cx, word, countdown) }
}

/// Walks level `T::D`'s subtree, `previous` being the word placed on the
/// level above. Returns true when the walk stops (its state is then left
/// as a checkpoint reads it), false when the level's run is spent.
///
/// # Safety
/// `T::D < cx.leaf ≤ levels`, and the pointers are the plan's strided copy
/// and the state's stacks, whose bounds the plan guarantees as in the plain
/// walk.
#[inline(always)]
unsafe fn level<T: Depth, V: Visitor>(
    cx: &mut Cx<'_, V>,
    previous: Candidate,
    countdown: &mut u64,
) -> bool {
    let d = T::D;
    // SAFETY (the whole body): see the function's contract. Board and stock
    // indexes are the plain walk's, with its proof. A strided key is
    // `start + stride · key` with `key < keys` (every colour is at most
    // `num_colors`, as in the plain walk), so it lies in its table's slots,
    // and each key's slots end with a sentinel (the stride exceeds the
    // longest run), so the cursor stops inside them; a resumed cursor is a
    // flat one moved into the same run.
    unsafe {
        let here = &*cx.levels.add(d);
        let pos = here.pos as usize;
        let candidates = cx.candidates;
        // The stacks' pointers in registers: through `cx` they would be
        // reloaded after every store to the board or the stock.
        let mut s = cx.s;
        let (mut i, mut end);
        let mut word: Candidate = 0;
        let mut placed = false;
        if d < cx.replay {
            Run { next: i, end } = *s.runs.add(d);
            word = *s.board.add(pos);
            placed = true;
            if d + 1 == cx.replay {
                cx.replay = 0;
            }
        } else {
            let board = std::slice::from_raw_parts(s.board, s.board_len);
            // The strided level's key is its run's position.
            i = here.key_index_unchecked(board, previous) as u32;
            end = OPEN_END;
        }
        loop {
            if !placed {
                loop {
                    let w = *candidates.add(i as usize);
                    if w == SENTINEL {
                        return false;
                    }
                    i += 1;
                    let left = &mut *s.stock.add(class_of(w));
                    if *left == 0 {
                        continue;
                    }
                    *left -= 1;
                    *s.board.add(pos) = w;
                    word = w;
                    *countdown -= 1;
                    if *countdown == 0 {
                        *s.runs.add(d) = Run { next: i, end };
                        if cx.poll(d, countdown) {
                            return true;
                        }
                        s = cx.s;
                        end = (*s.runs.add(d)).end;
                    }
                    break;
                }
            }
            placed = false;
            if d + 1 == cx.leaf {
                if cx.leaf(d, *countdown) {
                    *cx.s.runs.add(d) = Run { next: i, end };
                    return true;
                }
                s = cx.s;
            } else {
                *s.runs.add(d) = Run { next: i, end };
                if descend::<T::Next, V>(cx, word, countdown) {
                    return true;
                }
                s = cx.s;
                // A split may have given the rest of this level's run away.
                end = (*s.runs.add(d)).end;
            }
            *s.stock.add(class_of(word)) += 1;
            // A run is either open (it ends at its sentinel) or cut where
            // its next candidate starts: a split gives all of the rest away.
            if end <= i {
                return false;
            }
        }
    }
}

/// Walks the subtree from `entry` down to `leaf` levels, as the plain walk
/// does. The caller checks `leaf ≤ CHAIN_LEVELS`.
pub(crate) fn walk<V: Visitor>(
    plan: &Plan,
    state: &mut SearchState,
    leaf: usize,
    entry: Entry,
    counters: &mut Counters,
    driver: &mut dyn Polls,
    visitor: &mut V,
) -> (RunEnd, Option<usize>) {
    assert!(leaf >= 1 && leaf <= plan.levels.len() && leaf <= CHAIN_LEVELS);
    assert!(state.runs.len() >= leaf);
    // A leaf that only counts: the same walk as machine code, where this
    // machine and plan have it (`jit`).
    if V::COUNTS_ONLY {
        if let Some(ended) = super::jit::count(plan, state, leaf, entry, counters, driver) {
            return ended;
        }
    }
    let mark = driver.next_mark(counters.nodes).max(counters.nodes + 1);
    let replay = match entry {
        Entry::Fresh => 0,
        Entry::Placed(top) => top + 1,
    };
    let strided = plan
        .strided
        .as_ref()
        .expect("the chained walk runs plans with strided tables");
    let (levels, offsets) = (&plan.levels, plan.tables.offsets());
    if replay > 0 {
        strided.rewrite_runs(levels, offsets, state, replay - 1, Positions::Strided);
    }
    let first = if replay > 0 {
        0
    } else {
        state.board[plan.levels[0].hot_cell as usize]
    };
    let mut countdown = mark - counters.nodes;
    let mut cx = Cx {
        plan,
        strided,
        levels: strided.levels.as_ptr(),
        candidates: strided.candidates.as_ptr(),
        s: state.stacks(),
        state,
        mark,
        counters,
        driver,
        visitor,
        leaf,
        replay,
        stopped: None,
    };
    // SAFETY: leaf ≤ levels and ≤ CHAIN_LEVELS (asserted), the pointers are
    // the plan's and the state's.
    let stop = unsafe { group::<L<0>, V>(&mut cx, first, &mut countdown) };
    if stop {
        let (end, top) = cx.stopped.expect("a stopped walk says why");
        strided.rewrite_runs(levels, offsets, cx.state, top, Positions::Flat);
        (end, Some(top))
    } else {
        cx.counters.nodes = cx.mark - countdown;
        (RunEnd::Finished, None)
    }
}
