//! Knuth's memory for Algorithm C and its dance steps, word for word.
//!
//! TAOCP 7.2.2.1 lays the problem out in two flat arrays, and so do we:
//!
//! - items `1..=N` (primary `1..=N1`) with `LLINK`/`RLINK`, a doubly linked
//!   list headed by item `0` holding the primary items still to cover; the
//!   secondary items sit in a second list headed by `N + 1`;
//! - nodes: node `i` (`1 <= i <= N`) heads item `i`'s vertical list and its
//!   `TOP` field holds `LEN(i)`; then, for each option, a spacer followed by
//!   one node per item of the option, and a final spacer. A node has `TOP`
//!   (its item), `ULINK`/`DLINK` (its neighbours in the item's list) and
//!   `COLOR` (0, a colour, or `-1` once purified). A spacer has
//!   `TOP <= 0` (minus the number of the option before it), `ULINK` = first
//!   node of the option before it, `DLINK` = last node of the option after it.
//!
//! Links are array indices, not pointers, and the four fields of a node are
//! stored together because `hide'` reads all of them at once. Their width is
//! a type parameter ([`Width`]): a problem with fewer than 65 536 nodes (every
//! edge-matching board up to 8×8 or so) is laid out with 16-bit fields, so a
//! node is 8 bytes and eight share a cache line; a larger one with 32-bit
//! fields, 16 bytes a node. The dance is memory-bound, and on Brendan's 7×6
//! set 1 (scan rule, one thread) the narrow layout counts the same 47.2 M
//! nodes in about 0.8 of the time. The API speaks `u32` and `i32` either way.
//!
//! Names and step numbers follow the book: `cover'`, `hide'`, `uncover'`,
//! `unhide'`, `commit`, `uncommit`, `purify`, `unpurify` (Knuth's primes are
//! written `cover_`, `hide_`...). The only addition is the `updates` counter,
//! counted as Knuth's dlx2 counts it: one per item removed from the active
//! list and one per node removed from an item list.

use super::problem::{Xcc, NO_COLOUR};

/// The width of a node's fields: [`Narrow`] (16 bits) or [`Wide`] (32).
pub(crate) trait Width: Copy + std::fmt::Debug + Default + Eq + 'static {
    /// `ULINK` and `DLINK`.
    type Link: Copy + std::fmt::Debug + Default + Eq;
    /// `TOP` and `COLOR`.
    type Field: Copy + std::fmt::Debug + Default + Eq;
    fn link(v: u32) -> Self::Link;
    fn index(l: Self::Link) -> u32;
    fn field(v: i32) -> Self::Field;
    fn value(f: Self::Field) -> i32;
}

/// 16-bit fields, for problems that [`Narrow::fits`].
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct Narrow;

/// 32-bit fields, for every problem.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct Wide;

impl Width for Narrow {
    type Link = u16;
    type Field = i16;
    #[inline(always)]
    fn link(v: u32) -> u16 {
        v as u16
    }
    #[inline(always)]
    fn index(l: u16) -> u32 {
        u32::from(l)
    }
    #[inline(always)]
    fn field(v: i32) -> i16 {
        v as i16
    }
    #[inline(always)]
    fn value(f: i16) -> i32 {
        i32::from(f)
    }
}

impl Narrow {
    /// Whether every value the memory of `xcc` will hold fits 16 bits:
    /// node indices (`ULINK`, `DLINK`) in `u16`, and in `i16` the item
    /// numbers and lengths (`TOP`, at most the option count), minus the
    /// option numbers (spacers) and the colours.
    pub fn fits(xcc: &Xcc) -> bool {
        let nodes = xcc.items() + 1 + xcc.entries() + xcc.options() as usize + 1;
        let small = |v: usize| v <= i16::MAX as usize;
        nodes <= usize::from(u16::MAX)
            && small(xcc.items() + 1)
            && small(xcc.options() as usize + 1)
            && small(xcc.max_colour() as usize)
    }
}

impl Width for Wide {
    type Link = u32;
    type Field = i32;
    #[inline(always)]
    fn link(v: u32) -> u32 {
        v
    }
    #[inline(always)]
    fn index(l: u32) -> u32 {
        l
    }
    #[inline(always)]
    fn field(v: i32) -> i32 {
        v
    }
    #[inline(always)]
    fn value(f: i32) -> i32 {
        f
    }
}

/// One node of the matrix (or an item header, or a spacer).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
#[repr(C)]
pub(crate) struct Node<W: Width> {
    ulink: W::Link,
    dlink: W::Link,
    /// The item (`> 0`); `LEN` in a header node; `<= 0` in a spacer.
    top: W::Field,
    /// `0` = no colour, `> 0` a colour, `-1` = already satisfied (purified).
    color: W::Field,
}

impl<W: Width> Node<W> {
    fn new(ulink: u32, dlink: u32, top: i32, color: i32) -> Self {
        Node {
            ulink: W::link(ulink),
            dlink: W::link(dlink),
            top: W::field(top),
            color: W::field(color),
        }
    }

    #[inline(always)]
    fn u(&self) -> u32 {
        W::index(self.ulink)
    }
    #[inline(always)]
    fn d(&self) -> u32 {
        W::index(self.dlink)
    }
    #[inline(always)]
    fn t(&self) -> i32 {
        W::value(self.top)
    }
    #[inline(always)]
    fn c(&self) -> i32 {
        W::value(self.color)
    }
    #[inline(always)]
    fn set_u(&mut self, v: u32) {
        self.ulink = W::link(v);
    }
    #[inline(always)]
    fn set_d(&mut self, v: u32) {
        self.dlink = W::link(v);
    }
    #[inline(always)]
    fn set_t(&mut self, v: i32) {
        self.top = W::field(v);
    }
    #[inline(always)]
    fn set_c(&mut self, v: i32) {
        self.color = W::field(v);
    }
}

/// The dancing-links memory of one XCC problem.
///
/// Invariant that makes the unchecked accesses below sound: every `ULINK`,
/// `DLINK`, `LLINK` and `RLINK` value is an index into its array. `new`
/// stores only such indices, and every dance step only copies link values
/// from one field to another or stores an index it was given that came from
/// such a field, so the invariant is kept forever. `TOP` is used as an index
/// only when it is `> 0`, where it is an item number `<= N`.
#[derive(Debug, Clone)]
pub(crate) struct Links<W: Width> {
    nodes: Vec<Node<W>>,
    llink: Vec<u32>,
    rlink: Vec<u32>,
    /// First node of each option (the node after its spacer), then `Z + 1`.
    option_first: Vec<u32>,
    /// `N1`: the primary items are `1..=N1`.
    n1: u32,
    /// Knuth's "updates": item and node removals.
    pub updates: u64,
}

/// Node `q` of a node array, unchecked.
#[inline(always)]
fn node<W: Width>(nodes: &mut [Node<W>], q: u32) -> &mut Node<W> {
    debug_assert!((q as usize) < nodes.len());
    // SAFETY: `q` is a link value or an index derived from one inside an
    // option's contiguous run of nodes; see the invariant on `Links`.
    unsafe { nodes.get_unchecked_mut(q as usize) }
}

impl<W: Width> Links<W> {
    /// Step C1 of Algorithm C: set the problem up in memory (`xcc` must
    /// fit `W`: see [`Narrow::fits`]).
    pub fn new(xcc: &Xcc) -> Self {
        let n = xcc.items() as u32;
        let n1 = xcc.primary_items() as u32;
        // Items 0 (root) ..= N + 1 (head of the secondary list).
        let mut llink = vec![0u32; n as usize + 2];
        let mut rlink = vec![0u32; n as usize + 2];
        for i in 1..=n1 {
            llink[i as usize] = i - 1;
            rlink[(i - 1) as usize] = i;
        }
        llink[0] = n1;
        rlink[n1 as usize] = 0;
        let head2 = n + 1;
        llink[head2 as usize] = head2;
        rlink[head2 as usize] = head2;
        if n > n1 {
            for i in n1 + 1..=n {
                llink[i as usize] = if i == n1 + 1 { head2 } else { i - 1 };
                rlink[i as usize] = if i == n { head2 } else { i + 1 };
            }
            rlink[head2 as usize] = n1 + 1;
            llink[head2 as usize] = n;
        }

        let total = n as usize + 1 + xcc.entries() + xcc.options() as usize + 1;
        // Laid out with 32-bit fields, then narrowed to `W`.
        let mut nodes = vec![Node::<Wide>::default(); total];
        for i in 1..=n {
            nodes[i as usize] = Node {
                ulink: i,
                dlink: i,
                top: 0,
                color: 0,
            };
        }
        let mut option_first = Vec::with_capacity(xcc.options() as usize + 1);
        // The first spacer, node N + 1.
        let mut spacer = n + 1;
        nodes[spacer as usize].top = 0;
        let mut last_spacer_up = 0u32;
        for o in 0..xcc.options() {
            let first = spacer + 1;
            option_first.push(first);
            let mut q = first;
            for e in xcc.option(o) {
                let i = e.item + 1; // our items are 0-based, Knuth's 1-based
                let bottom = nodes[i as usize].ulink;
                nodes[q as usize] = Node {
                    ulink: bottom,
                    dlink: i,
                    top: i as i32,
                    color: if e.colour == NO_COLOUR {
                        0
                    } else {
                        e.colour as i32
                    },
                };
                nodes[bottom as usize].dlink = q;
                nodes[i as usize].ulink = q;
                nodes[i as usize].top += 1;
                q += 1;
            }
            // The spacer before this option points down to its last node;
            // the spacer after it points up to its first node.
            nodes[spacer as usize].ulink = last_spacer_up;
            nodes[spacer as usize].dlink = q - 1;
            last_spacer_up = first;
            spacer = q;
            nodes[spacer as usize].top = -((o + 1) as i32);
        }
        nodes[spacer as usize].ulink = last_spacer_up;
        nodes[spacer as usize].dlink = 0;
        option_first.push(spacer + 1);
        debug_assert_eq!(spacer as usize + 1, total);
        let nodes = nodes
            .iter()
            .map(|n| Node::new(n.ulink, n.dlink, n.top, n.color))
            .collect();
        Links {
            nodes,
            llink,
            rlink,
            option_first,
            n1,
            updates: 0,
        }
    }

    #[inline(always)]
    fn nd(&self, q: u32) -> &Node<W> {
        debug_assert!((q as usize) < self.nodes.len());
        // SAFETY: `q` is a link value or an index derived from one inside an
        // option's contiguous run of nodes; see the invariant on `Links`.
        unsafe { self.nodes.get_unchecked(q as usize) }
    }

    #[inline(always)]
    fn nd_mut(&mut self, q: u32) -> &mut Node<W> {
        node(&mut self.nodes, q)
    }

    #[inline(always)]
    pub fn top(&self, q: u32) -> i32 {
        self.nd(q).t()
    }

    #[inline(always)]
    pub fn dlink(&self, q: u32) -> u32 {
        self.nd(q).d()
    }

    #[inline(always)]
    pub fn ulink(&self, q: u32) -> u32 {
        self.nd(q).u()
    }

    #[inline(always)]
    pub fn color(&self, q: u32) -> i32 {
        self.nd(q).c()
    }

    /// `LEN(i)`: the number of options still in item `i`'s list.
    #[inline(always)]
    pub fn len(&self, i: u32) -> i32 {
        self.nd(i).t()
    }

    #[inline(always)]
    pub fn rlink(&self, i: u32) -> u32 {
        debug_assert!((i as usize) < self.rlink.len());
        // SAFETY: item links are item indices; see the invariant on `Links`.
        unsafe { *self.rlink.get_unchecked(i as usize) }
    }

    #[inline(always)]
    fn llink(&self, i: u32) -> u32 {
        debug_assert!((i as usize) < self.llink.len());
        // SAFETY: as in `rlink`.
        unsafe { *self.llink.get_unchecked(i as usize) }
    }

    #[inline(always)]
    fn set_rlink(&mut self, i: u32, v: u32) {
        debug_assert!((i as usize) < self.rlink.len());
        // SAFETY: as in `rlink`.
        unsafe { *self.rlink.get_unchecked_mut(i as usize) = v }
    }

    #[inline(always)]
    fn set_llink(&mut self, i: u32, v: u32) {
        debug_assert!((i as usize) < self.llink.len());
        // SAFETY: as in `rlink`.
        unsafe { *self.llink.get_unchecked_mut(i as usize) = v }
    }

    /// Is primary item `i` still to be covered (in the active list)?
    ///
    /// A removed item's neighbours never point back at it until it is
    /// restored, because removals are undone in LIFO order.
    pub fn is_active(&self, i: u32) -> bool {
        self.rlink(self.llink(i)) == i
    }

    /// `N1`, the number of primary items.
    pub fn primary_items(&self) -> u32 {
        self.n1
    }

    /// The node of option `o` (0-based) that lies in item `i`, if any.
    #[cfg(test)]
    pub fn node_of(&self, o: u32, i: u32) -> Option<u32> {
        let first = *self.option_first.get(o as usize)?;
        let end = self.option_first[o as usize + 1] - 1;
        (first..end).find(|&q| self.nodes[q as usize].t() == i as i32)
    }

    /// The first node of option `o` in a primary item (its first entry whose
    /// item is `<= n1`).
    pub fn first_primary_node(&self, o: u32, n1: u32) -> Option<u32> {
        let first = *self.option_first.get(o as usize)?;
        let end = self.option_first[o as usize + 1] - 1;
        (first..end).find(|&q| {
            let t = self.nodes[q as usize].t();
            t > 0 && t as u32 <= n1
        })
    }

    /// The option (0-based) that node `q` belongs to.
    pub fn option_of(&self, q: u32) -> u32 {
        // Options are laid out in order; the last start <= q is q's option.
        (self.option_first.partition_point(|&f| f <= q) - 1) as u32
    }

    /// `hide'(p)`: remove the other nodes of `p`'s option from their lists,
    /// leaving alone the nodes of purified items (`COLOR < 0`).
    ///
    /// Works on the node array as a plain slice: through `self` the
    /// compiler would reload the vector's pointer after every store.
    #[inline(always)]
    fn hide_(&mut self, p: u32) {
        let nodes = self.nodes.as_mut_slice();
        let mut q = p + 1;
        let mut removed = 0u64;
        while q != p {
            let n = *node(nodes, q);
            let (u, d, x) = (n.u(), n.d(), n.t());
            if x <= 0 {
                q = u; // a spacer: wrap to the option's first node
            } else {
                if n.c() >= 0 {
                    node(nodes, u).set_d(d);
                    node(nodes, d).set_u(u);
                    let header = node(nodes, x as u32);
                    header.set_t(header.t() - 1);
                    removed += 1;
                }
                q += 1;
            }
        }
        self.updates += removed;
    }

    /// `unhide'(p)`: the inverse of `hide'(p)`, walking the other way.
    #[inline(always)]
    fn unhide_(&mut self, p: u32) {
        let nodes = self.nodes.as_mut_slice();
        let mut q = p - 1;
        while q != p {
            let n = *node(nodes, q);
            let (u, d, x) = (n.u(), n.d(), n.t());
            if x <= 0 {
                q = d; // a spacer: wrap to the option's last node
            } else {
                if n.c() >= 0 {
                    node(nodes, u).set_d(q);
                    node(nodes, d).set_u(q);
                    let header = node(nodes, x as u32);
                    header.set_t(header.t() + 1);
                }
                q -= 1;
            }
        }
    }

    /// `cover'(i)`: hide every option of item `i`, then take `i` out of its
    /// item list.
    #[inline]
    pub fn cover_(&mut self, i: u32) {
        let mut p = self.dlink(i);
        while p != i {
            // hide'(p) never writes p's own list (an option has one node
            // per item), so DLINK(p) can be read first and its cache miss
            // overlap the hiding.
            let next = self.dlink(p);
            self.hide_(p);
            p = next;
        }
        let (l, r) = (self.llink(i), self.rlink(i));
        self.set_rlink(l, r);
        self.set_llink(r, l);
        self.updates += 1;
    }

    /// `uncover'(i)`: the inverse of `cover'(i)`.
    #[inline]
    pub fn uncover_(&mut self, i: u32) {
        let (l, r) = (self.llink(i), self.rlink(i));
        self.set_rlink(l, i);
        self.set_llink(r, i);
        let mut p = self.ulink(i);
        while p != i {
            let next = self.ulink(p); // as in cover_: unhide'(p) leaves p's list alone
            self.unhide_(p);
            p = next;
        }
    }

    /// `purify(p)`: node `p` gives its secondary item colour `c`; hide every
    /// option that gives the item another colour (or none), and mark those
    /// that agree with `COLOR = -1` so that later steps leave them in place.
    #[inline]
    fn purify(&mut self, p: u32) {
        let c = self.color(p);
        let i = self.top(p) as u32;
        let mut q = self.dlink(i);
        while q != i {
            let next = self.dlink(q); // as in cover_
            if self.color(q) == c {
                self.nd_mut(q).set_c(-1);
            } else {
                self.hide_(q);
            }
            q = next;
        }
    }

    /// `unpurify(p)`: the inverse of `purify(p)`, walking the list upwards.
    #[inline]
    fn unpurify(&mut self, p: u32) {
        let c = self.color(p);
        let i = self.top(p) as u32;
        let mut q = self.ulink(i);
        while q != i {
            let next = self.ulink(q); // as in cover_
            if self.color(q) < 0 {
                self.nd_mut(q).set_c(c);
            } else {
                self.unhide_(q);
            }
            q = next;
        }
    }

    /// `commit(p, j)`: an uncoloured entry covers its item; a coloured one
    /// purifies it; an entry already marked `-1` (its item was purified with
    /// this very colour at a shallower level) does nothing.
    #[inline(always)]
    fn commit(&mut self, p: u32, j: u32) {
        let c = self.color(p);
        if c == 0 {
            self.cover_(j);
        } else if c > 0 {
            self.purify(p);
        }
    }

    /// `uncommit(p, j)`: the inverse of `commit(p, j)`.
    #[inline(always)]
    fn uncommit(&mut self, p: u32, j: u32) {
        let c = self.color(p);
        if c == 0 {
            self.uncover_(j);
        } else if c > 0 {
            self.unpurify(p);
        }
    }

    /// The body of step C5 for `x_l`: commit every other item of its
    /// option, walking right (and wrapping at the spacer).
    #[inline]
    pub fn commit_others(&mut self, x_l: u32) {
        let mut p = x_l + 1;
        while p != x_l {
            let j = self.top(p);
            if j <= 0 {
                p = self.ulink(p);
            } else {
                self.commit(p, j as u32);
                p += 1;
            }
        }
    }

    /// The body of step C6 for `x_l`: uncommit the other items of its
    /// option in the reverse order, walking left.
    #[inline]
    pub fn uncommit_others(&mut self, x_l: u32) {
        let mut p = x_l - 1;
        while p != x_l {
            let j = self.top(p);
            if j <= 0 {
                p = self.dlink(p);
            } else {
                self.uncommit(p, j as u32);
                p -= 1;
            }
        }
    }

    /// A fingerprint of the whole memory, for tests that check a search
    /// leaves it exactly as it found it.
    #[cfg(test)]
    pub fn snapshot(&self) -> (Vec<Node<W>>, Vec<u32>, Vec<u32>) {
        (self.nodes.clone(), self.llink.clone(), self.rlink.clone())
    }
}

#[cfg(test)]
mod tests {
    use super::super::problem::Entry;
    use super::*;

    /// Knuth's table (TAOCP 7.2.2.1, the 7-item example) has LEN 2 2 2 3 2 2 3.
    #[test]
    fn layout_follows_knuth() {
        let names = |s: &str| s.split(' ').map(String::from).collect::<Vec<_>>();
        let mut x = Xcc::new(names("a b c d e f g"), vec![]).unwrap();
        for opt in ["c e", "a d g", "b c f", "a d f", "b g", "d e g"] {
            let entries: Vec<Entry> = opt
                .split(' ')
                .map(|n| Entry {
                    item: (n.as_bytes()[0] - b'a') as u32,
                    colour: 0,
                })
                .collect();
            x.add_option(&entries).unwrap();
        }
        layout_of::<Narrow>(&x);
        layout_of::<Wide>(&x);
    }

    fn layout_of<W: Width>(x: &Xcc) {
        let links = Links::<W>::new(x);
        let lens: Vec<i32> = (1..=7).map(|i| links.len(i)).collect();
        assert_eq!(lens, vec![2, 2, 2, 3, 2, 2, 3]);
        // Nodes 8 (spacer), 9 10 (c e), 11 (spacer), 12 13 14 (a d g) ...
        assert_eq!(links.top(8), 0);
        assert_eq!((links.top(9), links.top(10)), (3, 5));
        assert_eq!(links.top(11), -1);
        assert_eq!(links.ulink(11), 9);
        assert_eq!(links.dlink(11), 14);
        assert_eq!(links.option_of(13), 1);
        assert_eq!(links.node_of(1, 4), Some(13));
    }

    #[test]
    fn cover_then_uncover_restores_every_word() {
        let names = |s: &str| s.split(' ').map(String::from).collect::<Vec<_>>();
        let mut x = Xcc::new(names("A B C"), names("X Y")).unwrap();
        let e = |item, colour| Entry { item, colour };
        x.add_option(&[e(0, 0), e(1, 0), e(3, 1), e(4, 1)]).unwrap();
        x.add_option(&[e(0, 0), e(2, 0), e(3, 2), e(4, 2)]).unwrap();
        x.add_option(&[e(1, 0), e(3, 2)]).unwrap();
        x.add_option(&[e(2, 0), e(4, 2)]).unwrap();
        restores_every_word::<Narrow>(&x);
        restores_every_word::<Wide>(&x);
    }

    fn restores_every_word<W: Width>(x: &Xcc) {
        let mut links = Links::<W>::new(x);
        let before = links.snapshot();
        links.cover_(1);
        let x_l = links.dlink(1);
        links.commit_others(x_l);
        assert_ne!(links.snapshot(), before);
        links.uncommit_others(x_l);
        links.uncover_(1);
        assert_eq!(links.snapshot(), before);
    }
}
