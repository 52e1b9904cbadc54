//! Algorithm C on bit sets of options: the same search as the links engine,
//! node for node, without the dance.
//!
//! Dancing links keep, for every item, the list of the options still
//! compatible with the choices made, and every choice edits those lists
//! (and every backtrack edits them back): on an edge-matching board a
//! placement hides a hundred options of the piece's other places, each a
//! handful of scattered writes, and undoes them all on the way back. What
//! the search reads of those lists is small: which options are still
//! compatible, and how many of them each primary item still has.
//!
//! So this memory keeps exactly that. The compatible options are one bit
//! set `A` (one bit per option, in input order), each primary item has a
//! counter `LEN`, and the uncovered primary items are a second bit set.
//! Each item's options, and for each secondary item and colour the options
//! that show it another colour, are precomputed as sparse lists of
//! `(word, mask)`; covering an item or purifying a secondary item is then
//! `R = A & mask` word by word, `A -= R`, and `LEN` lowered for the
//! primary items of the options in `R`. Options are usually listed item by
//! item (an edge-matching board's by cell, then piece, then rotation), so
//! the options of one word share a few first items and, in short groups,
//! their second: `LEN` falls by a population count per group instead of
//! one decrement per option, which would each wait on the last. The
//! covered item's own `LEN` is not lowered (Knuth's cover does not touch
//! it either: nothing reads it until it is uncovered).
//!
//! Backtracking writes nothing back: a level saves the few hundred bytes
//! of state when it covers its item and restores them, which costs less
//! than undoing the removals one by one. Only copies that will be read are
//! made: a dead end (an item without options) saves nothing, and the state
//! after the cover is kept only for a level with a second option to try.
//! For the scan rule of step C3 a bit set `low` marks the items whose
//! `LEN` fell to 1 or 0, so the choice reads those few instead of every
//! `LEN`.
//!
//! A commit in step C5 stops as soon as a removal leaves an active primary
//! item without options (the node below is then a dead end, and the
//! `Memory` trait's reading rule lets that state go unfinished): the
//! seams of a placement go before its piece's cover, so the piece's
//! cover, the largest part, is spared whenever a seam leaves a
//! neighbouring cell without a piece.
//!
//! It is Knuth's search all the same, run by the same steps C1–C8
//! (`algorithm_c.rs` drives this memory and the links through one trait):
//! after the same choices the same options are compatible (an option
//! leaves `A` exactly when the links would hide it), so step C3 sees the
//! same `LEN`s and scans the primary items in the same order, and the
//! options of the chosen item are tried in input order. Nodes, solutions,
//! checkpoints and splits are therefore the links memory's (and dlx2's
//! under MRV); tests hold them to it. `updates` are not counted: there is
//! no dance to count.
//!
//! The state a level saves grows with the options (one bit each) and the
//! primary items, so this memory is for problems of a few thousand
//! options ([`Bits::suits`]): every edge-matching board up to 8×8 or so.

use super::algorithm_c::{Choice, Memory};
use super::problem::{Xcc, NO_COLOUR};

/// Most options a problem may have for this memory (256 words of `A`).
pub(crate) const MAX_OPTIONS: u32 = 1 << 14;
/// Most primary items.
const MAX_PRIMARY: usize = 1 << 12;
/// Ends a level's list of options in [`Bits::tries`].
const END: u32 = u32::MAX;

/// What committing one entry of an option does.
#[derive(Debug, Clone, Copy)]
enum Act {
    /// Cover a primary item (Knuth's number): its options leave `A` and
    /// it leaves the active items.
    Primary(u32),
    /// Cover a secondary item without a colour: its options leave `A`.
    Cover(u32),
    /// Purify a secondary item to one colour: the options of the purge
    /// list with this number leave `A`.
    Purge(u32),
}

/// The bit-set memory of one XCC problem (module doc).
#[derive(Debug, Clone)]
pub(crate) struct Bits {
    /// Every sparse set of options, `(word, mask)` pairs in ascending
    /// word order, one set after another.
    masks: Vec<(u32, u64)>,
    /// Item `i`'s options (Knuth's numbers; 0 unused):
    /// `masks[item_span[i]..item_span[i + 1]]`.
    item_span: Vec<u32>,
    /// Purge list `k`: `masks[purge_span[k]..purge_span[k + 1]]`.
    purge_span: Vec<u32>,
    /// Option `o`'s primary items: `prim[prim_span[o]..prim_span[o + 1]]`.
    prim: Vec<u32>,
    prim_span: Vec<u32>,
    /// The word-`w` options' first primary items, as runs of options that
    /// share it: `runs[run_span[w]..run_span[w + 1]]`, `(item, mask)`.
    runs: Vec<(u32, u64)>,
    run_span: Vec<u32>,
    /// Option `o`'s second primary item (0 when it has one only), and the
    /// options of its word with the same second item (bit set, `o`'s own
    /// included): a word's run of rotations of one piece.
    second: Vec<u32>,
    group: Vec<u64>,
    /// Option `o`'s primary items after the first:
    /// `rest[rest_span[o]..rest_span[o + 1]]`, read instead of `second`
    /// and `group` when some option has more than two (`many`).
    rest: Vec<u32>,
    rest_span: Vec<u32>,
    many: bool,
    /// Option `o`'s entries as actions: `acts[act_span[o]..act_span[o + 1]]`.
    acts: Vec<Act>,
    act_span: Vec<u32>,
    /// Whether `low` is kept (for the scan rule of step C3; MRV reads
    /// every `LEN` anyway).
    scan: bool,
    /// The live state.
    st: State,
    /// Two saved states per covered level: before and after its cover.
    saved: Saved,
    /// The options each covered level tries, each list ended by [`END`].
    tries: Vec<u32>,
    /// Where each covered level's list starts in `tries`.
    level_start: Vec<u32>,
}

/// The state a level saves: compatible options, `LEN`s, active items.
#[derive(Debug, Clone)]
struct State {
    /// `A`: bit `o` set while option `o` is compatible with the choices.
    a: Vec<u64>,
    /// `LEN` of each active primary item (index 0 unused); at most
    /// [`MAX_OPTIONS`], so 16 bits hold it. A covered item's `LEN` is
    /// left as it was, as Knuth's cover leaves it: nothing reads it.
    len: Vec<i16>,
    /// Bit `i` set while primary item `i` is still to be covered.
    active: Vec<u64>,
    /// Bit `i` set once `LEN` of item `i` is 0 or 1 (covered items
    /// included): the items the scan rule of step C3 must look at.
    low: Vec<u64>,
}

impl Bits {
    /// Whether `xcc` is small enough for this memory.
    pub fn suits(xcc: &Xcc) -> bool {
        xcc.options() <= MAX_OPTIONS && xcc.primary_items() <= MAX_PRIMARY
    }

    /// Step C1 for this memory: every option compatible, every primary
    /// item active; step C3 will follow `choice`.
    pub fn new(xcc: &Xcc, choice: Choice) -> Self {
        let n = xcc.items();
        let n1 = xcc.primary_items();
        let options = xcc.options();
        let words = (options as usize).div_ceil(64).max(1);
        // by_item[i]: the options of item i (Knuth's numbering), ascending.
        let mut by_item: Vec<Vec<u32>> = vec![Vec::new(); n + 1];
        for o in 0..options {
            for e in xcc.option(o) {
                by_item[e.item as usize + 1].push(o);
            }
        }
        /// A set of options (ascending) as `(word, mask)` pairs.
        fn push_set(set: &mut Vec<(u32, u64)>, opts: impl Iterator<Item = u32>) {
            for o in opts {
                let (w, b) = (o / 64, o % 64);
                match set.last_mut() {
                    Some((lw, m)) if *lw == w => *m |= 1u64 << b,
                    _ => set.push((w, 1u64 << b)),
                }
            }
        }
        let mut masks = Vec::new();
        let mut item_span = vec![0u32];
        for opts in &by_item {
            let mut set = Vec::new();
            push_set(&mut set, opts.iter().copied());
            masks.extend(set);
            item_span.push(masks.len() as u32);
        }
        let mut purge_span = vec![masks.len() as u32];
        let mut purge_of = std::collections::HashMap::new();
        let (mut prim, mut prim_span) = (Vec::new(), vec![0u32]);
        let (mut second, mut rest, mut rest_span) = (Vec::new(), Vec::new(), vec![0u32]);
        let mut many = false;
        let (mut acts, mut act_span) = (Vec::new(), vec![0u32]);
        for o in 0..options {
            for e in xcc.option(o) {
                let item = e.item + 1;
                if (e.item as usize) < n1 {
                    match prim.len() - prim_span[o as usize] as usize {
                        0 => {}
                        1 => {
                            second.push(item);
                            rest.push(item);
                        }
                        _ => {
                            many = true;
                            rest.push(item);
                        }
                    }
                    prim.push(item);
                    acts.push(Act::Primary(item));
                } else if e.colour == NO_COLOUR {
                    acts.push(Act::Cover(item));
                } else {
                    let k = *purge_of.entry((item, e.colour)).or_insert_with(|| {
                        // The options that give `item` another colour or none.
                        let others = by_item[item as usize].iter().copied().filter(|&p| {
                            xcc.option(p)
                                .iter()
                                .find(|f| f.item + 1 == item)
                                .is_some_and(|f| f.colour != e.colour)
                        });
                        let mut set = Vec::new();
                        push_set(&mut set, others);
                        masks.extend(set);
                        purge_span.push(masks.len() as u32);
                        (purge_span.len() - 2) as u32
                    });
                    acts.push(Act::Purge(k));
                }
            }
            if second.len() == o as usize {
                second.push(0);
            }
            prim_span.push(prim.len() as u32);
            rest_span.push(rest.len() as u32);
            act_span.push(acts.len() as u32);
        }
        // The options of each word that share their second primary item.
        let mut group = vec![0u64; options as usize];
        for (o, g) in group.iter_mut().enumerate() {
            let w = o / 64;
            for b in 0..64 {
                let p = w * 64 + b;
                if p < options as usize && second[p] == second[o] {
                    *g |= 1u64 << b;
                }
            }
        }
        // Runs of options sharing their first primary item, word by word.
        let (mut runs, mut run_span) = (Vec::new(), vec![0u32]);
        for w in 0..words {
            let mut word_runs: Vec<(u32, u64)> = Vec::new();
            for b in 0..64 {
                let o = w * 64 + b;
                if o >= options as usize {
                    break;
                }
                let first = prim[prim_span[o] as usize];
                match word_runs.last_mut() {
                    Some((item, m)) if *item == first => *m |= 1u64 << b,
                    _ => word_runs.push((first, 1u64 << b)),
                }
            }
            runs.extend(word_runs);
            run_span.push(runs.len() as u32);
        }
        let mut a = vec![0u64; words];
        for o in 0..options as usize {
            a[o / 64] |= 1 << (o % 64);
        }
        let len: Vec<i16> = (0..=n1)
            .map(|i| if i == 0 { 0 } else { by_item[i].len() as i16 })
            .collect();
        let mut active = vec![0u64; (n1 + 1).div_ceil(64)];
        let mut low = vec![0u64; active.len()];
        for i in 1..=n1 {
            active[i / 64] |= 1 << (i % 64);
            if len[i] <= 1 {
                low[i / 64] |= 1 << (i % 64);
            }
        }
        Bits {
            masks,
            item_span,
            purge_span,
            prim,
            prim_span,
            runs,
            run_span,
            second,
            group,
            rest,
            rest_span,
            many,
            acts,
            act_span,
            scan: choice == Choice::Scan,
            st: State {
                a,
                len,
                active,
                low,
            },
            saved: Saved::default(),
            tries: Vec::new(),
            level_start: Vec::new(),
        }
    }

    /// Takes the options of `masks[from..to]` out of `A`, lowering the
    /// `LEN` of each of their primary items but `skip` (the item being
    /// covered, whose `LEN` nobody reads again; 0 when none is).
    ///
    /// The first primary items are lowered a run at a time (options are
    /// usually listed item by item, so a word's options share a handful of
    /// them): one subtraction of a population count instead of a chain of
    /// decrements of the same counter, each waiting for the one before.
    ///
    /// Returns whether some `LEN` it lowered fell to 0.
    #[inline(always)]
    fn remove(&mut self, from: u32, to: u32, skip: u32) -> bool {
        if self.scan {
            self.remove_::<true>(from, to, skip)
        } else {
            self.remove_::<false>(from, to, skip)
        }
    }

    /// [`Bits::remove`], keeping `low` when `LOW`.
    #[inline(always)]
    fn remove_<const LOW: bool>(&mut self, from: u32, to: u32, skip: u32) -> bool {
        let st = &mut self.st;
        let (a, len, low) = (
            st.a.as_mut_slice(),
            st.len.as_mut_slice(),
            st.low.as_mut_slice(),
        );
        let mut dead = false;
        /// `LEN[k] -= n`, noting in `low` when it reaches 1 or 0, and in
        /// `dead` when it reaches 0.
        #[inline(always)]
        fn lower<const LOW: bool>(
            len: &mut [i16],
            low: &mut [u64],
            dead: &mut bool,
            k: u32,
            n: u32,
        ) {
            debug_assert!((k as usize) < len.len() && (k as usize) / 64 < low.len());
            // SAFETY: `k` is a primary item, `1..=N1`, or 0 (no item: its
            // counter is never read, and falls by at most the number of
            // options, below `i16::MAX`, before a restore); `len` has
            // `N1 + 1` entries and `low` `(N1 + 1) / 64` rounded up.
            unsafe {
                let l = len.get_unchecked_mut(k as usize);
                *l -= n as i16;
                if *l <= 1 {
                    if LOW {
                        *low.get_unchecked_mut(k as usize / 64) |= 1u64 << (k % 64);
                    }
                    // Item 0's counter starts at 0 and only falls until a
                    // restore: it is below 0 after any lowering, never 0.
                    *dead |= *l == 0;
                }
            }
        }
        for &(w, m) in &self.masks[from as usize..to as usize] {
            debug_assert!((w as usize) < a.len() && (w as usize) + 1 < self.run_span.len());
            // SAFETY: every mask word was made from an option number
            // `o < options`, so `w = o / 64` is below `a.len()`, and
            // `run_span` has one more entry than `a` has words.
            let (word, runs) = unsafe {
                let (s, e) = (
                    *self.run_span.get_unchecked(w as usize),
                    *self.run_span.get_unchecked(w as usize + 1),
                );
                (
                    a.get_unchecked_mut(w as usize),
                    self.runs.get_unchecked(s as usize..e as usize),
                )
            };
            let r = *word & m;
            if r == 0 {
                continue;
            }
            *word &= !r;
            for &(k, run) in runs {
                let x = r & run;
                if x != 0 && k != skip {
                    lower::<LOW>(len, low, &mut dead, k, x.count_ones());
                }
            }
            if self.many {
                // Options of three primary items or more (pentominoes):
                // the others one option at a time.
                let mut q = r;
                while q != 0 {
                    let o = (w * 64 + q.trailing_zeros()) as usize;
                    q &= q - 1;
                    debug_assert!(o + 1 < self.rest_span.len());
                    // SAFETY: the bits of a mask are options, `o < options`,
                    // and `rest_span` has `options + 1` entries, each at
                    // most `rest.len()`.
                    let items = unsafe {
                        let (s, e) = (
                            *self.rest_span.get_unchecked(o),
                            *self.rest_span.get_unchecked(o + 1),
                        );
                        self.rest.get_unchecked(s as usize..e as usize)
                    };
                    // The covered item's own counter falls too (nobody reads
                    // it): a test per item would cost more than the chain.
                    for &k in items {
                        lower::<LOW>(len, low, &mut dead, k, 1);
                    }
                }
                continue;
            }
            // The second primary items, a group of same-item options (the
            // rotations of one piece) at a time.
            let mut q = r;
            while q != 0 {
                let o = (w * 64 + q.trailing_zeros()) as usize;
                debug_assert!(o < self.second.len() && o < self.group.len());
                // SAFETY: the bits of a mask are options, `o < options`,
                // and `second` and `group` have `options` entries.
                let (k, x) = unsafe {
                    (
                        *self.second.get_unchecked(o),
                        q & *self.group.get_unchecked(o),
                    )
                };
                q &= !x;
                // Item 0 (no second item) is a counter nobody reads.
                if k != skip {
                    lower::<LOW>(len, low, &mut dead, k, x.count_ones());
                }
            }
        }
        dead
    }

    /// Covers item `i`, lowering no `LEN` of `skip` (nor of `i`); returns
    /// whether some `LEN` fell to 0.
    #[inline(always)]
    fn cover_item(&mut self, i: u32, skip: u32) -> bool {
        let (from, to) = (self.item_span[i as usize], self.item_span[i as usize + 1]);
        let dead = self.remove(from, to, if skip == 0 { i } else { skip });
        if let Some(word) = self.st.active.get_mut(i as usize / 64) {
            *word &= !(1u64 << (i % 64));
        }
        dead
    }

    /// Purge list `p`'s options leave `A`, lowering no `LEN` of `skip`;
    /// returns whether some `LEN` fell to 0.
    #[inline(always)]
    fn purge(&mut self, p: u32, skip: u32) -> bool {
        let (from, to) = (self.purge_span[p as usize], self.purge_span[p as usize + 1]);
        self.remove(from, to, skip)
    }
}

impl Memory for Bits {
    type Cursor = u32;

    #[inline(always)]
    fn any_active(&self) -> bool {
        self.st.active.iter().any(|&w| w != 0)
    }

    #[inline(always)]
    fn choose(&self, choice: Choice) -> u32 {
        let st = &self.st;
        if choice == Choice::Scan && self.scan {
            // Only an item of `LEN` 0 or 1 can be kept instead of the
            // first active one, and `low` holds every such item: the
            // first of length 0 among them, else the first of length 1.
            let mut one = 0;
            for (w, (&low, &act)) in st.low.iter().zip(&st.active).enumerate() {
                let mut bits = low & act;
                while bits != 0 {
                    let k = w as u32 * 64 + bits.trailing_zeros();
                    bits &= bits - 1;
                    if st.len[k as usize] == 0 {
                        return k;
                    }
                    if one == 0 {
                        one = k;
                    }
                }
            }
            if one != 0 {
                return one;
            }
            for (w, &act) in st.active.iter().enumerate() {
                if act != 0 {
                    return w as u32 * 64 + act.trailing_zeros();
                }
            }
            return 0;
        }
        let mut t = i16::MAX;
        let mut best = 0;
        for (w, &word) in st.active.iter().enumerate() {
            let mut bits = word;
            while bits != 0 {
                let k = w as u32 * 64 + bits.trailing_zeros();
                bits &= bits - 1;
                debug_assert!((k as usize) < st.len.len());
                // SAFETY: the active set holds primary items, `1..=N1`,
                // and `len` has `N1 + 1` entries.
                let len = unsafe { *st.len.get_unchecked(k as usize) };
                if len < t {
                    t = len;
                    best = k;
                    if t == 0 {
                        return best;
                    }
                }
            }
        }
        if choice == Choice::Scan && t > 1 {
            // Only when built for MRV and asked for the scan rule.
            return st
                .active
                .iter()
                .enumerate()
                .find(|(_, &w)| w != 0)
                .map_or(0, |(w, &a)| w as u32 * 64 + a.trailing_zeros());
        }
        best
    }

    fn is_active(&self, i: u32) -> bool {
        self.st
            .active
            .get(i as usize / 64)
            .is_some_and(|w| w & (1u64 << (i % 64)) != 0)
    }

    fn first_primary(&self, o: u32) -> u32 {
        self.prim[self.prim_span[o as usize] as usize]
    }

    /// Covers `i` and lists its options for the level. Only the copies of
    /// the state that are read again are made (the reading rule of
    /// [`Memory`]): the state after the cover, when the level has a second
    /// option to restore it for; the state before, at the first level
    /// only, to leave the memory as it was found. A deeper level's
    /// uncover leaves the state unfinished: the level below restores its
    /// own before anything reads it. An item without options (a dead end,
    /// most of the scan rule's leaves) only leaves the active items.
    #[inline(always)]
    fn cover(&mut self, i: u32) -> u32 {
        let d = self.level_start.len();
        let start = self.tries.len() as u32;
        self.level_start.push(start);
        if self.st.len[i as usize] == 0 {
            self.tries.push(END);
            self.st.active[i as usize / 64] &= !(1u64 << (i % 64));
            return start;
        }
        if d == 0 {
            self.saved.save(&self.st, 0);
        }
        let (from, to) = (self.item_span[i as usize], self.item_span[i as usize + 1]);
        for &(w, m) in &self.masks[from as usize..to as usize] {
            let mut r = self.st.a[w as usize] & m;
            while r != 0 {
                self.tries.push(w * 64 + r.trailing_zeros());
                r &= r - 1;
            }
        }
        let options = self.tries.len() - start as usize;
        self.tries.push(END);
        self.cover_item(i, 0);
        if options > 1 {
            self.saved.save(&self.st, 2 * d + 1);
        }
        start
    }

    #[inline(always)]
    fn uncover(&mut self, i: u32) {
        let start = self.level_start.pop().expect("uncover follows a cover");
        if self.tries[start as usize] == END {
            // The item had no options: only its active bit changed.
            self.st.active[i as usize / 64] |= 1u64 << (i % 64);
        } else if self.level_start.is_empty() {
            self.saved.restore(&mut self.st, 0);
        }
        self.tries.truncate(start as usize);
    }

    #[inline(always)]
    fn next(&self, c: u32) -> u32 {
        c + 1
    }

    #[inline(always)]
    fn at_end(&self, c: u32, _i: u32) -> bool {
        self.tries[c as usize] == END
    }

    fn option(&self, c: u32) -> u32 {
        self.tries[c as usize]
    }

    #[inline(always)]
    fn commit(&mut self, c: u32, i: u32) {
        let x = self.tries[c as usize] as usize;
        let (s, e) = (self.act_span[x] as usize, self.act_span[x + 1] as usize);
        for k in s..e {
            match self.acts[k] {
                Act::Primary(item) if item == i => {}
                Act::Primary(item) | Act::Cover(item) => {
                    self.cover_item(item, 0);
                }
                Act::Purge(p) => {
                    self.purge(p, 0);
                }
            }
        }
    }

    /// The commit, stopped at the first sign of a dead end below (the
    /// reading rule of [`Memory`]). With two primary items per option at
    /// most (a cell and a piece), the secondary items go first, lowering
    /// no `LEN` of the other primary item `j` (it is covered next, so its
    /// counter would only be read if it fell to 0 before its cover): a
    /// seam that leaves a neighbouring cell without a piece then spares
    /// the piece's cover, the largest of the commit. With more primary
    /// items the commit is whole: one of them could empty another before
    /// its own cover, so only the secondary items after them could stop
    /// it, and on such problems (polyominoes) there are few or none.
    #[inline(always)]
    fn commit_until_dead(&mut self, c: u32, i: u32) {
        let x = self.tries[c as usize] as usize;
        let (s, e) = (self.act_span[x] as usize, self.act_span[x + 1] as usize);
        if self.many {
            // Commits of many primary items are pentomino-like, with few
            // secondary items after their primary ones: a test per entry
            // costs more than it saves.
            self.commit(c, i);
            return;
        }
        // The option's primary item other than `i`, if any (at most two).
        let (p0, p1) = (self.prim_span[x] as usize, self.prim_span[x + 1] as usize);
        let j = self.prim[p0..p1]
            .iter()
            .copied()
            .find(|&k| k != i)
            .unwrap_or(0);
        for k in s..e {
            let dead = match self.acts[k] {
                Act::Primary(_) => false,
                Act::Cover(item) => self.cover_item(item, j),
                Act::Purge(p) => self.purge(p, j),
            };
            if dead {
                return;
            }
        }
        if j != 0 {
            self.cover_item(j, 0);
        }
    }

    #[inline(always)]
    fn uncommit(&mut self, c: u32, _i: u32) {
        // After the last option comes the level's uncover: nothing reads
        // the state in between (see `cover`).
        if self.tries[c as usize + 1] != END {
            let d = self.level_start.len() - 1;
            self.saved.restore(&mut self.st, 2 * d + 1);
        }
    }

    fn updates(&self) -> u64 {
        0
    }

    fn reset_updates(&mut self) {}
}

/// The saved states, two per covered level, in flat arrays.
#[derive(Debug, Clone, Default)]
struct Saved {
    a: Vec<u64>,
    len: Vec<i16>,
    active: Vec<u64>,
    low: Vec<u64>,
}

impl Saved {
    #[inline(always)]
    fn save(&mut self, st: &State, slot: usize) {
        fn put<T: Copy + Default>(to: &mut Vec<T>, from: &[T], slot: usize) {
            let n = from.len();
            if to.len() < (slot + 1) * n {
                to.resize((slot + 1) * n, T::default());
            }
            to[slot * n..(slot + 1) * n].copy_from_slice(from);
        }
        put(&mut self.a, &st.a, slot);
        put(&mut self.len, &st.len, slot);
        put(&mut self.active, &st.active, slot);
        put(&mut self.low, &st.low, slot);
    }

    #[inline(always)]
    fn restore(&self, st: &mut State, slot: usize) {
        let (n, m, k) = (st.a.len(), st.len.len(), st.active.len());
        st.a.copy_from_slice(&self.a[slot * n..(slot + 1) * n]);
        st.len.copy_from_slice(&self.len[slot * m..(slot + 1) * m]);
        st.active
            .copy_from_slice(&self.active[slot * k..(slot + 1) * k]);
        st.low.copy_from_slice(&self.low[slot * k..(slot + 1) * k]);
    }
}

#[cfg(test)]
mod tests {
    use super::super::{AlgorithmC, E2Cover, Limits, Position, Quiet, Report};
    use super::*;
    use crate::generator::{generate, GenSpec};
    use crate::order::FillOrder;

    fn run(solver: AlgorithmC, limits: &Limits) -> Report {
        let mut solver = solver;
        let mut r = solver
            .run(&Position::default(), limits, None, &mut Quiet)
            .unwrap();
        r.updates = 0;
        r
    }

    /// The bit sets walk the links' tree: the same solutions, nodes, first
    /// solution and stopping position, under both rules of step C3.
    #[test]
    fn bit_sets_walk_the_links_tree_on_generated_puzzles() {
        for (size, colours, seed) in [(3, 3, 1), (4, 4, 2), (4, 5, 3), (5, 6, 4), (5, 7, 5)] {
            let g = generate(&GenSpec {
                colours: Some(colours),
                ..GenSpec::square(size, seed)
            })
            .unwrap();
            let covers = [
                (
                    E2Cover::ordered(&g.puzzle, FillOrder::RowMajor).unwrap(),
                    Choice::Scan,
                ),
                (
                    E2Cover::ordered(&g.puzzle, FillOrder::SpiralIn).unwrap(),
                    Choice::Scan,
                ),
                (E2Cover::new(&g.puzzle).unwrap(), Choice::Mrv),
            ];
            for (cover, choice) in covers {
                let xcc = cover.xcc();
                assert!(Bits::suits(xcc));
                for limits in [Limits::none(), Limits::nodes(37)] {
                    let bits = run(AlgorithmC::fastest(xcc, choice), &limits);
                    let links = run(AlgorithmC::with_choice(xcc, choice), &limits);
                    assert_eq!(bits, links, "{size}x{size} seed {seed} {choice:?}");
                    assert!(bits.nodes > 0);
                }
                assert!(run(AlgorithmC::fastest(xcc, choice), &Limits::none()).solutions >= 1);
            }
        }
    }

    /// A generated 5×5 board of 6 colours, in row-major order.
    fn five_by_five(seed: u64) -> E2Cover {
        let g = generate(&GenSpec {
            colours: Some(6),
            ..GenSpec::square(5, seed)
        })
        .unwrap();
        E2Cover::ordered(&g.puzzle, FillOrder::RowMajor).unwrap()
    }

    /// A deeper level's uncover leaves the state unfinished (the reading
    /// rule of `Memory`), but a run still leaves the memory as it found
    /// it: one solver, run again and again (stopped by budgets, resumed,
    /// whole), reports the same as a fresh one every time.
    #[test]
    fn runs_leave_the_bit_sets_as_they_found_them() {
        let cover = five_by_five(9);
        let xcc = cover.xcc();
        for choice in [Choice::Scan, Choice::Mrv] {
            let mut solver = AlgorithmC::fastest(xcc, choice);
            let whole = run(AlgorithmC::fastest(xcc, choice), &Limits::none());
            assert!(whole.nodes > 100 && whole.solutions > 0);
            for budget in [1, 7, whole.nodes / 3, whole.nodes - 1] {
                let fresh = run(AlgorithmC::fastest(xcc, choice), &Limits::nodes(budget));
                let mut again = solver
                    .run(
                        &Position::default(),
                        &Limits::nodes(budget),
                        None,
                        &mut Quiet,
                    )
                    .unwrap();
                again.updates = 0;
                assert_eq!(again, fresh, "{choice:?} budget {budget}");
                let at = again.position.expect("a budget stop leaves a position");
                let rest = solver.run(&at, &Limits::none(), None, &mut Quiet).unwrap();
                assert_eq!(
                    (rest.solutions, rest.nodes),
                    (whole.solutions, whole.nodes),
                    "{choice:?} resumed after {budget}"
                );
            }
            let mut last = solver
                .run(&Position::default(), &Limits::none(), None, &mut Quiet)
                .unwrap();
            last.updates = 0;
            assert_eq!(last, whole, "{choice:?}");
        }
    }

    /// A position one memory stopped at resumes in the other to the same
    /// totals: a count already running on links can go on on bit sets.
    #[test]
    fn a_position_taken_on_links_resumes_on_bit_sets() {
        let cover = five_by_five(4);
        let xcc = cover.xcc();
        let whole = run(AlgorithmC::with_choice(xcc, Choice::Scan), &Limits::none());
        for budget in [1, 5, 50, whole.nodes / 2, whole.nodes - 1] {
            let stopped = run(
                AlgorithmC::with_choice(xcc, Choice::Scan),
                &Limits::nodes(budget),
            );
            let at = stopped.position.expect("a budget stop leaves a position");
            assert!(!at.path.is_empty() || budget == 1);
            let mut bits = AlgorithmC::fastest(xcc, Choice::Scan);
            let resumed = bits.run(&at, &Limits::none(), None, &mut Quiet).unwrap();
            assert_eq!(
                (resumed.solutions, resumed.nodes),
                (whole.solutions, whole.nodes),
                "budget {budget}"
            );
        }
    }
}
