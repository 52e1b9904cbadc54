//! A placement packed in one `u32`: piece class, rotation and placed edges.
//!
//! The inner loop reads a candidate, tests its class against the stock and
//! writes the word into the board as is; later cells read their neighbours'
//! colours straight out of that word with a shift and a mask. One word per
//! candidate keeps a whole candidate list in a few cache lines, and keeps the
//! board a flat `[u32]` that the key computation can index directly.
//!
//! Layout: bits 0..10 the piece class (≤ 961 classes on a 31×31 board),
//! bits 10..12 the rotation of the class's shape, then 5 bits per placed
//! colour in URDL order (colours ≤ 25 fit in 5 bits).

use crate::model::Edges;

pub(crate) type Candidate = u32;

pub(crate) const CLASS_MASK: u32 = (1 << 10) - 1;
const ROT_SHIFT: u32 = 10;
const EDGE_SHIFT: u32 = 12;
const COLOUR_BITS: u32 = 5;
pub(crate) const COLOUR_MASK: u32 = (1 << COLOUR_BITS) - 1;

/// The largest number of classes a candidate can name.
pub(crate) const MAX_CLASSES: usize = CLASS_MASK as usize + 1;

pub(crate) fn pack(class: usize, rot: u8, edges: Edges) -> Candidate {
    debug_assert!(class < MAX_CLASSES && rot < 4);
    debug_assert!(edges.iter().all(|&c| u32::from(c) <= COLOUR_MASK));
    let mut word = class as u32 | u32::from(rot) << ROT_SHIFT;
    for (side, &colour) in edges.iter().enumerate() {
        word |= u32::from(colour) << colour_shift(side);
    }
    word
}

/// Where the colour on `side` (URDL index) sits in the word.
#[inline(always)]
pub(crate) const fn colour_shift(side: usize) -> u32 {
    EDGE_SHIFT + COLOUR_BITS * side as u32
}

#[inline(always)]
pub(crate) fn class_of(c: Candidate) -> usize {
    (c & CLASS_MASK) as usize
}

#[inline(always)]
pub(crate) fn colour_of(c: Candidate, side: usize) -> u8 {
    ((c >> colour_shift(side)) & COLOUR_MASK) as u8
}

pub(crate) fn edges_of(c: Candidate) -> Edges {
    [
        colour_of(c, 0),
        colour_of(c, 1),
        colour_of(c, 2),
        colour_of(c, 3),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fields_round_trip() {
        let c = pack(961, 3, [25, 0, 7, 1]);
        assert_eq!(class_of(c), 961);
        assert_eq!((c >> ROT_SHIFT) & 3, 3);
        assert_eq!(edges_of(c), [25, 0, 7, 1]);
        assert_eq!(colour_of(c, 2), 7);
    }
}
