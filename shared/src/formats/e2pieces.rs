//! `e2pieces.txt`: the oldest exchange format, from 2007 (docs/formats.md).
//!
//! One line per filled cell in reading order, four space-separated decimal
//! colours URDL as placed, border `0`. Empty cells are skipped, so a line
//! has no position: only a full board (one line per cell) can be put back
//! on the grid, and the reader refuses anything else rather than guess
//! where the gaps were.

use crate::error::{Error, Result};
use crate::model::{Board, Colour, Edges};

const FORMAT: &str = "e2pieces";

/// One line per filled cell, each ending in a newline.
pub fn write(board: &Board) -> String {
    let mut out = String::new();
    for edges in board.cells.iter().flatten() {
        let [u, r, d, l] = edges;
        out.push_str(&format!("{u} {r} {d} {l}\n"));
    }
    out
}

/// Reads a full board. Without `size` the line count must be a square.
/// Blank lines are ignored; every error names its 1-based line.
pub fn read(text: &str, size: Option<(usize, usize)>, max_colour: Colour) -> Result<Board> {
    let lines: Vec<(usize, &str)> = text
        .lines()
        .enumerate()
        .map(|(i, line)| (i + 1, line.trim()))
        .filter(|(_, line)| !line.is_empty())
        .collect();
    let (width, height) = match size {
        Some((w, h)) if lines.len() != w * h => {
            return Err(Error::format(
                FORMAT,
                "line count",
                format!(
                    "{} lines, expected {w}*{h} = {}: only a full board keeps its positions",
                    lines.len(),
                    w * h
                ),
            ))
        }
        Some(size) => size,
        None => {
            let side = (1..=lines.len())
                .find(|n| n * n >= lines.len())
                .filter(|n| n * n == lines.len())
                .ok_or_else(|| {
                    Error::format(
                        FORMAT,
                        "line count",
                        format!(
                            "{} lines is not n*n: without a size only a full square board keeps its positions",
                            lines.len()
                        ),
                    )
                })?;
            (side, side)
        }
    };
    let cells = lines
        .iter()
        .map(|&(number, line)| {
            decode_line(line, max_colour)
                .map(Some)
                .map_err(|reason| Error::format(FORMAT, format!("line {number}"), reason))
        })
        .collect::<Result<Vec<_>>>()?;
    Ok(Board::from_edges(width, height, cells))
}

fn decode_line(line: &str, max_colour: Colour) -> std::result::Result<Edges, String> {
    let fields: Vec<&str> = line.split_whitespace().collect();
    if fields.len() != 4 {
        return Err(format!(
            "{} fields, expected 4 colours up right down left",
            fields.len()
        ));
    }
    let mut edges: Edges = [0; 4];
    for (side, field) in fields.iter().enumerate() {
        edges[side] = field
            .parse::<Colour>()
            .ok()
            .filter(|c| *c <= max_colour)
            .ok_or_else(|| format!("{field:?} is not a colour 0..={max_colour}"))?;
    }
    if edges == [0; 4] {
        return Err("0 0 0 0 is an empty cell, which e2pieces.txt never lists".into());
    }
    Ok(edges)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spec_lines_round_trip_on_a_full_board() {
        let text = "0 3 2 0\n1 4 0 0\n2 5 0 0\n0 0 3 5\n";
        let board = read(text, None, 22).unwrap();
        assert_eq!((board.width, board.height), (2, 2));
        assert_eq!(board.cells[0], Some([0, 3, 2, 0]));
        assert_eq!(board.cells[1], Some([1, 4, 0, 0]));
        assert_eq!(write(&board), text);
    }

    #[test]
    fn partial_boards_are_written_but_not_positioned() {
        let board = Board::from_edges(2, 1, vec![None, Some([1, 0, 0, 0])]);
        assert_eq!(write(&board), "1 0 0 0\n");
        let e = read("1 0 0 0\n0 0 1 0\n", None, 22)
            .unwrap_err()
            .to_string();
        assert!(e.contains("2 lines is not n*n"), "{e}");
    }

    #[test]
    fn faults_name_the_line() {
        let e = read("0 3 2 0\n\n1 4 0\n2 5 0 0\n0 0 3 5\n", None, 22)
            .unwrap_err()
            .to_string();
        assert!(e.contains("line 3") && e.contains("3 fields"), "{e}");
        let e = read("0 3 2 0\n1 4 0 0\n2 x 0 0\n0 0 3 5", None, 22)
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("line 3") && e.contains("\"x\" is not a colour 0..=22"),
            "{e}"
        );
    }
}
