//! `board_pieces`: piece identities as an overlay on the edges (docs/formats.md).
//!
//! Three decimal digits per cell, the 1-based piece number, `000` for an
//! empty cell. On a real set the edges already name every piece, so this
//! channel only matters for artificial sets whose pieces repeat up to
//! rotation; it is read when present (bucas links carry it) and handed to
//! [`Board::identify`](crate::Board::identify) as the overlay. In memory the
//! overlay is 0-based, like every other piece index in e2.

use std::collections::HashMap;

use crate::error::{cell_place, Error, Result};
use crate::model::Board;

const FORMAT: &str = "board_pieces";

/// A 0-based piece per cell, `None` for empty: the form
/// [`Board::identify`](crate::Board::identify) takes.
pub type Overlay = Vec<Option<usize>>;

/// The digits of an overlay.
pub fn write(overlay: &[Option<usize>]) -> String {
    overlay
        .iter()
        .map(|piece| format!("{:03}", piece.map_or(0, |p| p + 1)))
        .collect()
}

/// The overlay of a board whose identities are known.
pub fn of_board(board: &Board) -> Option<Overlay> {
    let placements = board.placements.as_ref()?;
    Some(placements.iter().map(|p| p.map(|p| p.piece)).collect())
}

/// Reads the overlay of a `width`×`height` board. With `piece_count`
/// (the size of the set), numbers beyond the set are refused here, naming
/// the cell, rather than later as a failed match.
pub fn read(
    text: &str,
    width: usize,
    height: usize,
    piece_count: Option<usize>,
) -> Result<Overlay> {
    let digits = text.trim().as_bytes();
    let cells = width * height;
    if digits.len() != 3 * cells {
        return Err(Error::format(
            FORMAT,
            "length",
            format!(
                "{} digits, expected 3*{width}*{height} = {} for a {width}x{height} board",
                digits.len(),
                3 * cells
            ),
        ));
    }
    let mut cell_of_piece: HashMap<usize, usize> = HashMap::new();
    let mut overlay = Vec::with_capacity(cells);
    for (pos, group) in digits.chunks(3).enumerate() {
        let fail = |reason: String| Error::format(FORMAT, cell_place(pos, width), reason);
        if !group.iter().all(u8::is_ascii_digit) {
            return Err(fail(format!(
                "{:?} is not three decimal digits (a 1-based piece number, 000 for empty)",
                String::from_utf8_lossy(group)
            )));
        }
        let number = group.iter().fold(0, |n, d| n * 10 + (d - b'0') as usize);
        if number == 0 {
            overlay.push(None);
            continue;
        }
        if let Some(count) = piece_count.filter(|&count| number > count) {
            return Err(fail(format!(
                "piece {number} does not exist, the set has pieces 1..={count}"
            )));
        }
        let piece = number - 1;
        if let Some(first) = cell_of_piece.insert(piece, pos) {
            return Err(fail(format!(
                "piece {number} is already placed at {}",
                cell_place(first, width)
            )));
        }
        overlay.push(Some(piece));
    }
    Ok(overlay)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trips_and_is_one_based() {
        let overlay = vec![Some(0), Some(4), None, Some(255)];
        let text = write(&overlay);
        assert_eq!(text, "001005000256");
        assert_eq!(read(&text, 2, 2, Some(256)).unwrap(), overlay);
    }

    #[test]
    fn faults_name_the_cell() {
        let e = read("001x05000002", 2, 2, None).unwrap_err().to_string();
        assert!(
            e.contains("cell 1 (row 0, col 1)") && e.contains("\"x05\""),
            "{e}"
        );
        let e = read("001005000002", 2, 2, Some(4)).unwrap_err().to_string();
        assert!(
            e.contains("cell 1 (row 0, col 1)") && e.contains("piece 5 does not exist"),
            "{e}"
        );
        let e = read("001002000001", 2, 2, None).unwrap_err().to_string();
        assert!(
            e.contains("cell 3 (row 1, col 1)") && e.contains("already placed at cell 0"),
            "{e}"
        );
        let e = read("00100", 2, 2, None).unwrap_err().to_string();
        assert!(e.contains("5 digits, expected 3*2*2 = 12"), "{e}");
    }
}
