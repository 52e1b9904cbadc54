//! `hints`: the pinned cells of a board as `pos.rot` items joined by `-`
//! (docs/formats.md), e.g. `34.1-45.2-135.0-210.3-221.0`.
//!
//! A hint names a cell and a rotation, never a piece: the piece is whatever
//! the board (or the puzzle) has on that cell. That is why [`Pin`] is not a
//! [`Hint`](crate::Hint), which needs a piece index; the two meet when a
//! board is matched against its piece set.

use std::collections::HashMap;

use crate::error::{cell_place, Error, Result};

const FORMAT: &str = "hints";

/// A pinned cell as the `hints` string carries it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Pin {
    /// Row-major cell index.
    pub pos: usize,
    /// Clockwise quarter turns, `0..=3`.
    pub rot: u8,
}

/// The `hints` string; empty when there are no pins (absent means none).
pub fn write(pins: &[Pin]) -> String {
    pins.iter()
        .map(|p| format!("{}.{}", p.pos, p.rot))
        .collect::<Vec<_>>()
        .join("-")
}

/// Reads a `hints` string for a `width`×`height` board.
///
/// Errors name the item by its 0-based index and its text.
pub fn read(text: &str, width: usize, height: usize) -> Result<Vec<Pin>> {
    let text = text.trim();
    if text.is_empty() {
        return Ok(Vec::new());
    }
    let cells = width * height;
    let mut pinned_by: HashMap<usize, usize> = HashMap::new();
    let mut pins = Vec::new();
    for (index, item) in text.split('-').enumerate() {
        let fail = |reason: String| Error::format(FORMAT, format!("item {index} {item:?}"), reason);
        let (pos, rot) = item
            .split_once('.')
            .and_then(|(pos, rot)| Some((parse_decimal(pos)?, parse_decimal(rot)?)))
            .ok_or_else(|| fail("expected pos.rot, two decimal numbers".into()))?;
        if pos >= cells {
            return Err(fail(format!(
                "position {pos} is outside the {width}x{height} board, expected 0..={}",
                cells.saturating_sub(1)
            )));
        }
        if rot >= 4 {
            return Err(fail(format!("rotation {rot} is not a quarter turn 0..=3")));
        }
        if let Some(first) = pinned_by.insert(pos, index) {
            return Err(fail(format!(
                "{} is already pinned by item {first}",
                cell_place(pos, width)
            )));
        }
        pins.push(Pin {
            pos,
            rot: rot as u8,
        });
    }
    Ok(pins)
}

/// A plain decimal number: digits only, no sign, no spaces.
fn parse_decimal(text: &str) -> Option<usize> {
    if text.is_empty() || !text.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    text.parse().ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn official_clues_round_trip() {
        let text = "34.1-45.2-135.0-210.3-221.0";
        let pins = read(text, 16, 16).unwrap();
        assert_eq!(pins.len(), 5);
        assert_eq!(pins[2], Pin { pos: 135, rot: 0 });
        assert_eq!(write(&pins), text);
    }

    #[test]
    fn empty_means_no_hints() {
        assert_eq!(read("", 16, 16).unwrap(), vec![]);
        assert_eq!(write(&[]), "");
    }

    #[test]
    fn position_out_of_range_names_the_item() {
        let e = read("34.1-256.0", 16, 16).unwrap_err().to_string();
        assert!(
            e.contains("item 1 \"256.0\"") && e.contains("position 256 is outside the 16x16 board"),
            "{e}"
        );
    }

    #[test]
    fn rotation_of_four_is_refused() {
        let e = read("34.4", 16, 16).unwrap_err().to_string();
        assert!(
            e.contains("item 0 \"34.4\"") && e.contains("rotation 4"),
            "{e}"
        );
    }

    #[test]
    fn repeated_cell_names_both_items() {
        let e = read("34.1-45.2-34.3", 16, 16).unwrap_err().to_string();
        assert!(
            e.contains("item 2 \"34.3\"")
                && e.contains("cell 34 (row 2, col 2) is already pinned by item 0"),
            "{e}"
        );
    }

    #[test]
    fn malformed_items_are_named() {
        for (text, item) in [
            ("34", "item 0 \"34\""),
            ("34.1--1.2", "item 1 \"\""),
            ("3a.1", "item 0"),
        ] {
            let e = read(text, 16, 16).unwrap_err().to_string();
            assert!(e.contains(item) && e.contains("expected pos.rot"), "{e}");
        }
    }
}
