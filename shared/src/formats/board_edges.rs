//! `board_edges`: the community's lingua franca (docs/formats.md).
//!
//! Four lowercase letters per cell, row-major, URDL as placed, with
//! `letter = 'a' + colour`; `aaaa` is an empty cell (no legal tile is all
//! border, so the ambiguity is harmless). The letters are the whole board:
//! they render and score it, and matching each quadruple against a piece
//! set recovers identity and rotation.
//!
//! Reading is strict by default. The lenient reader exists because boards
//! are pasted from chats and forums: it keeps every cell it can decode and
//! lists the rest, so a user sees how much of a damaged board survived.

use crate::error::{cell_place, Error, Result};
use crate::model::{Board, Colour, Edges};

const FORMAT: &str = "board_edges";
const EDGE_NAMES: [&str; 4] = ["up", "right", "down", "left"];

/// The letters of `board`, empty cells as `aaaa`.
pub fn write(board: &Board) -> String {
    let mut out = String::with_capacity(board.cells.len() * 4);
    for cell in &board.cells {
        for colour in cell.unwrap_or([0; 4]) {
            out.push((b'a' + colour) as char);
        }
    }
    out
}

/// Reads a `board_edges` string whose colours are at most `max_colour`.
///
/// `size` is `(width, height)` when the surrounding notation gives it;
/// without it the string must describe a square board (`4*n*n` letters).
pub fn read(text: &str, size: Option<(usize, usize)>, max_colour: Colour) -> Result<Board> {
    let letters: Vec<char> = text.trim().chars().collect();
    let (width, height) = match size {
        Some((w, h)) if letters.len() != 4 * w * h => {
            return Err(Error::format(
                FORMAT,
                "length",
                format!(
                    "{} letters, expected 4*{w}*{h} = {} for a {w}x{h} board",
                    letters.len(),
                    4 * w * h
                ),
            ))
        }
        Some(size) => size,
        None => {
            let side = square_side(letters.len()).ok_or_else(|| {
                Error::format(FORMAT, "length", format!("{} letters is not 4*n*n for any side n; a string without a size must describe a square board", letters.len()))
            })?;
            (side, side)
        }
    };
    let mut cells = Vec::with_capacity(width * height);
    for (pos, quad) in letters.chunks(4).enumerate() {
        let cell = decode_cell(quad, max_colour)
            .map_err(|reason| Error::format(FORMAT, cell_place(pos, width), reason))?;
        cells.push(cell);
    }
    Ok(Board::from_edges(width, height, cells))
}

/// Reads what can be read: cells that do not decode become empty and each
/// is reported; a wrong length is read as the nearest board that holds the
/// letters (or as `size` when given), padded with empty cells.
///
/// Only input with no letters at all is an error, since there is no board
/// to return.
pub fn read_lenient(
    text: &str,
    size: Option<(usize, usize)>,
    max_colour: Colour,
) -> Result<(Board, Vec<Error>)> {
    let letters: Vec<char> = text.trim().chars().collect();
    if letters.is_empty() && size.is_none() {
        return Err(Error::format(FORMAT, "length", "no letters at all"));
    }
    let mut problems = Vec::new();
    let (width, height) = match size {
        Some(size) => size,
        None => {
            let cells = letters.len().div_ceil(4);
            let side = (1..).find(|n| n * n >= cells).expect("some side fits");
            (side, side)
        }
    };
    if letters.len() != 4 * width * height {
        problems.push(Error::format(
            FORMAT,
            "length",
            format!(
                "{} letters, expected 4*{width}*{height} = {}; read as {width}x{height}, missing cells empty{}",
                letters.len(),
                4 * width * height,
                if letters.len() > 4 * width * height { ", extra letters ignored" } else { "" }
            ),
        ));
    }
    let mut cells = vec![None; width * height];
    for (pos, quad) in letters.chunks(4).take(width * height).enumerate() {
        let decoded = if quad.len() < 4 {
            Err(format!("only {} of 4 letters", quad.len()))
        } else {
            decode_cell(quad, max_colour)
        };
        match decoded {
            Ok(cell) => cells[pos] = cell,
            Err(reason) => problems.push(Error::format(
                FORMAT,
                cell_place(pos, width),
                format!("{reason}; read as empty"),
            )),
        }
    }
    Ok((Board::from_edges(width, height, cells), problems))
}

/// `n` when `len == 4*n*n`.
pub fn square_side(len: usize) -> Option<usize> {
    (1..=len / 4)
        .take_while(|n| 4 * n * n <= len)
        .find(|n| 4 * n * n == len)
}

/// One cell's four letters; `None` for `aaaa`, the reason on failure.
fn decode_cell(quad: &[char], max_colour: Colour) -> std::result::Result<Option<Edges>, String> {
    let expected = format!("a..={}", (b'a' + max_colour) as char);
    let mut edges: Edges = [0; 4];
    for (side, &ch) in quad.iter().enumerate() {
        let edge = EDGE_NAMES[side];
        if ch.is_ascii_uppercase() {
            return Err(format!(
                "letter '{ch}' ({edge} edge) is uppercase; expected a lowercase letter {expected}"
            ));
        }
        if !ch.is_ascii_lowercase() {
            return Err(format!(
                "character {ch:?} ({edge} edge) is not a letter; expected a lowercase letter {expected}"
            ));
        }
        let colour = ch as u8 - b'a';
        if colour > max_colour {
            return Err(format!(
                "letter '{ch}' ({edge} edge) is colour {colour}, above the {max_colour} colours allowed; expected {expected}"
            ));
        }
        edges[side] = colour;
    }
    Ok((edges != [0; 4]).then_some(edges))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::MAX_COLOUR;

    #[test]
    fn spec_example_decodes() {
        let mut text = String::from("adcabeaa");
        text.push_str(&"a".repeat(8));
        let board = read(&text, None, 22).unwrap();
        assert_eq!((board.width, board.height), (2, 2));
        assert_eq!(board.cells[0], Some([0, 3, 2, 0]));
        assert_eq!(board.cells[1], Some([1, 4, 0, 0]));
        assert_eq!(board.cells[2], None);
        assert_eq!(write(&board), text);
    }

    #[test]
    fn square_side_only_for_exact_lengths() {
        assert_eq!(square_side(1024), Some(16));
        assert_eq!(square_side(4), Some(1));
        assert_eq!(square_side(1020), None);
        assert_eq!(square_side(0), None);
    }

    #[test]
    fn wrong_length_says_what_was_expected() {
        let e = read(&"a".repeat(1023), None, 22).unwrap_err().to_string();
        assert!(e.contains("length") && e.contains("1023 letters"), "{e}");
        let e = read(&"a".repeat(28), Some((4, 2)), 22)
            .unwrap_err()
            .to_string();
        assert!(e.contains("28 letters, expected 4*4*2 = 32"), "{e}");
    }

    #[test]
    fn uppercase_letter_names_the_cell() {
        // 4x4 board: cell 5 is row 1, col 1.
        let mut text: Vec<u8> = b"a".repeat(64);
        text[5 * 4 + 1] = b'B';
        let e = read(std::str::from_utf8(&text).unwrap(), None, 22)
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("cell 5 (row 1, col 1)") && e.contains("'B'") && e.contains("uppercase"),
            "{e}"
        );
    }

    #[test]
    fn colour_above_the_range_names_the_cell_and_range() {
        let mut text: Vec<u8> = b"a".repeat(16);
        text[3 * 4 + 2] = b'x';
        let e = read(std::str::from_utf8(&text).unwrap(), None, 22)
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("cell 3 (row 1, col 1)") && e.contains("colour 23") && e.contains("a..=w"),
            "{e}"
        );
        // Without a set, every letter up to 'z' is a colour.
        read(std::str::from_utf8(&text).unwrap(), None, MAX_COLOUR).unwrap();
    }

    #[test]
    fn lenient_reading_keeps_what_decodes() {
        let mut text = "bbbb".repeat(4);
        text.replace_range(4..5, "#");
        text.truncate(14);
        let (board, problems) = read_lenient(&text, None, 22).unwrap();
        assert_eq!((board.width, board.height), (2, 2));
        assert_eq!(board.cells, vec![Some([1; 4]), None, Some([1; 4]), None]);
        assert_eq!(problems.len(), 3, "{problems:?}");
        assert!(problems[0].to_string().contains("14 letters"));
        assert!(problems[1].to_string().contains("cell 1 (row 0, col 1)"));
        assert!(problems[2].to_string().contains("only 2 of 4 letters"));
    }
}
