//! Colours, edge quadruples and the rotation convention (docs/formats.md).

/// A colour: `0` is the grey outer border, interior colours are `1..`.
pub type Colour = u8;

/// The four colours of a cell as placed, in URDL order.
pub type Edges = [Colour; 4];

pub const UP: usize = 0;
pub const RIGHT: usize = 1;
pub const DOWN: usize = 2;
pub const LEFT: usize = 3;

/// Turns catalogue edges `rot` quarter turns clockwise.
///
/// Turning clockwise moves the left edge to the top, so
/// `placed[i] = catalogue[(i - rot) mod 4]`: `[1,2,3,4]` at rot 1 is `[4,1,2,3]`.
#[inline]
pub fn rotate(catalogue: Edges, rot: u8) -> Edges {
    let r = (rot & 3) as usize;
    [
        catalogue[(4 - r) & 3],
        catalogue[(5 - r) & 3],
        catalogue[(6 - r) & 3],
        catalogue[(7 - r) & 3],
    ]
}

/// The smallest rotation that turns `catalogue` into `placed`, if any.
///
/// Taking the smallest is e2's rule for rotation-symmetric pieces,
/// whose several rotations give the same placed quadruple.
pub fn rotation_to(catalogue: Edges, placed: Edges) -> Option<u8> {
    (0..4u8).find(|&r| rotate(catalogue, r) == placed)
}

/// The lexicographically smallest rotation of a quadruple: two pieces are
/// equal up to rotation exactly when their canonical forms are equal.
pub fn canonical_form(edges: Edges) -> Edges {
    (0..4u8)
        .map(|r| rotate(edges, r))
        .min()
        .expect("four rotations")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rotation_follows_the_spec_example() {
        assert_eq!(rotate([1, 2, 3, 4], 0), [1, 2, 3, 4]);
        assert_eq!(rotate([1, 2, 3, 4], 1), [4, 1, 2, 3]);
        assert_eq!(rotate([1, 2, 3, 4], 2), [3, 4, 1, 2]);
        assert_eq!(rotate([1, 2, 3, 4], 3), [2, 3, 4, 1]);
    }

    #[test]
    fn rotation_to_takes_the_smallest_turn() {
        assert_eq!(rotation_to([1, 2, 3, 4], [2, 3, 4, 1]), Some(3));
        assert_eq!(rotation_to([1, 1, 1, 1], [1, 1, 1, 1]), Some(0));
        assert_eq!(rotation_to([1, 2, 1, 2], [2, 1, 2, 1]), Some(1));
        assert_eq!(rotation_to([1, 2, 3, 4], [1, 3, 2, 4]), None);
    }

    #[test]
    fn canonical_form_identifies_rotations() {
        assert_eq!(canonical_form([3, 1, 2, 0]), [0, 3, 1, 2]);
        assert_eq!(canonical_form([0, 3, 1, 2]), canonical_form([1, 2, 0, 3]));
    }
}
