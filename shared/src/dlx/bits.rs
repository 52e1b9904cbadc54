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
//! `R = A & mask` word by word, `A -= R`, and one decrement of `LEN` per
//! primary item of each option in `R`. Backtracking writes nothing back:
//! each level saves the few hundred bytes of state when it starts and
//! restores them, which costs less than undoing the removals one by one.
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
    /// Cover an item (Knuth's number): its options leave `A` and, when it
    /// is primary, it leaves the active items.
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
    /// Option `o`'s entries as actions: `acts[act_span[o]..act_span[o + 1]]`.
    acts: Vec<Act>,
    act_span: Vec<u32>,
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
    /// `LEN` of each primary item (index 0 unused).
    len: Vec<i32>,
    /// Bit `i` set while primary item `i` is still to be covered.
    active: Vec<u64>,
}

impl Bits {
    /// Whether `xcc` is small enough for this memory.
    pub fn suits(xcc: &Xcc) -> bool {
        xcc.options() <= MAX_OPTIONS && xcc.primary_items() <= MAX_PRIMARY
    }

    /// Step C1 for this memory: every option compatible, every primary
    /// item active.
    pub fn new(xcc: &Xcc) -> Self {
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
        let (mut acts, mut act_span) = (Vec::new(), vec![0u32]);
        for o in 0..options {
            for e in xcc.option(o) {
                let item = e.item + 1;
                if (e.item as usize) < n1 {
                    prim.push(item);
                    acts.push(Act::Cover(item));
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
            prim_span.push(prim.len() as u32);
            act_span.push(acts.len() as u32);
        }
        let mut a = vec![0u64; words];
        for o in 0..options as usize {
            a[o / 64] |= 1 << (o % 64);
        }
        let len = (0..=n1)
            .map(|i| if i == 0 { 0 } else { by_item[i].len() as i32 })
            .collect();
        let mut active = vec![0u64; (n1 + 1).div_ceil(64)];
        for i in 1..=n1 {
            active[i / 64] |= 1 << (i % 64);
        }
        Bits {
            masks,
            item_span,
            purge_span,
            prim,
            prim_span,
            acts,
            act_span,
            st: State { a, len, active },
            saved: Saved::default(),
            tries: Vec::new(),
            level_start: Vec::new(),
        }
    }

    /// Takes the options of `masks[from..to]` out of `A`, lowering the
    /// `LEN` of each of their primary items.
    #[inline(always)]
    fn remove(&mut self, from: u32, to: u32) {
        let st = &mut self.st;
        let (a, len) = (st.a.as_mut_slice(), st.len.as_mut_slice());
        for &(w, m) in &self.masks[from as usize..to as usize] {
            debug_assert!((w as usize) < a.len());
            // SAFETY: every mask word was made from an option number
            // `o < options`, so `w = o / 64` is below `a.len()`.
            let word = unsafe { a.get_unchecked_mut(w as usize) };
            let mut r = *word & m;
            if r == 0 {
                continue;
            }
            *word &= !r;
            while r != 0 {
                let o = (w * 64 + r.trailing_zeros()) as usize;
                r &= r - 1;
                debug_assert!(o + 1 < self.prim_span.len());
                // SAFETY: the bits of a mask are options, `o < options`,
                // and `prim_span` has `options + 1` entries, each at most
                // `prim.len()`.
                let items = unsafe {
                    let (s, e) = (
                        *self.prim_span.get_unchecked(o),
                        *self.prim_span.get_unchecked(o + 1),
                    );
                    self.prim.get_unchecked(s as usize..e as usize)
                };
                for &k in items {
                    debug_assert!((k as usize) < len.len());
                    // SAFETY: `prim` holds primary items, `1..=N1`, and
                    // `len` has `N1 + 1` entries.
                    unsafe { *len.get_unchecked_mut(k as usize) -= 1 };
                }
            }
        }
    }

    #[inline(always)]
    fn cover_item(&mut self, i: u32) {
        let (from, to) = (self.item_span[i as usize], self.item_span[i as usize + 1]);
        self.remove(from, to);
        if let Some(word) = self.st.active.get_mut(i as usize / 64) {
            *word &= !(1u64 << (i % 64));
        }
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
        let mut t = i32::MAX;
        let mut best = 0;
        let mut first = 0;
        for (w, &word) in st.active.iter().enumerate() {
            let mut bits = word;
            while bits != 0 {
                let k = w as u32 * 64 + bits.trailing_zeros();
                bits &= bits - 1;
                if first == 0 {
                    first = k;
                }
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
            return first;
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

    #[inline(always)]
    fn cover(&mut self, i: u32) -> u32 {
        let d = self.level_start.len();
        self.saved.save(&self.st, 2 * d);
        let start = self.tries.len() as u32;
        let (from, to) = (self.item_span[i as usize], self.item_span[i as usize + 1]);
        for &(w, m) in &self.masks[from as usize..to as usize] {
            let mut r = self.st.a[w as usize] & m;
            while r != 0 {
                self.tries.push(w * 64 + r.trailing_zeros());
                r &= r - 1;
            }
        }
        self.tries.push(END);
        self.level_start.push(start);
        self.cover_item(i);
        self.saved.save(&self.st, 2 * d + 1);
        start
    }

    #[inline(always)]
    fn uncover(&mut self, _i: u32) {
        let start = self.level_start.pop().expect("uncover follows a cover");
        self.saved.restore(&mut self.st, 2 * self.level_start.len());
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
                Act::Cover(item) if item == i => {}
                Act::Cover(item) => self.cover_item(item),
                Act::Purge(p) => {
                    let (from, to) = (self.purge_span[p as usize], self.purge_span[p as usize + 1]);
                    self.remove(from, to);
                }
            }
        }
    }

    #[inline(always)]
    fn uncommit(&mut self, _c: u32, _i: u32) {
        let d = self.level_start.len() - 1;
        self.saved.restore(&mut self.st, 2 * d + 1);
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
    len: Vec<i32>,
    active: Vec<u64>,
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
    }

    #[inline(always)]
    fn restore(&self, st: &mut State, slot: usize) {
        let (n, m, k) = (st.a.len(), st.len.len(), st.active.len());
        st.a.copy_from_slice(&self.a[slot * n..(slot + 1) * n]);
        st.len.copy_from_slice(&self.len[slot * m..(slot + 1) * m]);
        st.active
            .copy_from_slice(&self.active[slot * k..(slot + 1) * k]);
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

    /// A position one memory stopped at resumes in the other to the same
    /// totals: a count already running on links can go on on bit sets.
    #[test]
    fn a_position_taken_on_links_resumes_on_bit_sets() {
        let g = generate(&GenSpec {
            colours: Some(6),
            ..GenSpec::square(5, 4)
        })
        .unwrap();
        let cover = E2Cover::ordered(&g.puzzle, FillOrder::RowMajor).unwrap();
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
