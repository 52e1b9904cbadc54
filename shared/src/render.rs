//! An SVG picture of a board, for people who would rather look than read.
//!
//! Each cell is split by its diagonals into four triangles, one per edge,
//! filled with that edge's colour (the border grey). Hint cells get a thick
//! outline; seams whose two filled sides disagree are drawn as red bars.
//! The output is deterministic text, so a rendering can be compared byte for
//! byte and served as-is by the coordinator's status page.

use std::fmt::Write;

use crate::model::{Board, DOWN, LEFT, RIGHT, UP};

/// Pixel side of one cell.
const CELL: usize = 40;

/// Fill colours by colour index: 0 is the grey border, then 25 distinct hues.
const PALETTE: [&str; 26] = [
    "#808080", "#e6194b", "#3cb44b", "#ffe119", "#4363d8", "#f58231", "#911eb4", "#46f0f0",
    "#f032e6", "#bcf60c", "#fabebe", "#008080", "#e6beff", "#9a6324", "#fffac8", "#800000",
    "#aaffc3", "#808000", "#ffd8b1", "#000075", "#a9a9a9", "#ff69b4", "#2f4f4f", "#00ced1",
    "#b8860b", "#7b68ee",
];

/// Renders `board`; `hints` are the pinned cell positions; `title` names it.
pub fn svg(board: &Board, hints: &[usize], title: &str) -> String {
    let (w, h) = (board.width, board.height);
    let (pw, ph) = (w * CELL, h * CELL);
    let mut out = String::new();
    let _ = writeln!(
        out,
        r##"<svg xmlns="http://www.w3.org/2000/svg" width="{pw}" height="{ph}" viewBox="0 0 {pw} {ph}" class="e2-board">"##
    );
    let _ = writeln!(out, "<title>{}</title>", escape(title));
    let _ = writeln!(
        out,
        r##"<rect width="{pw}" height="{ph}" fill="#ffffff"/>"##
    );
    for (pos, cell) in board.cells.iter().enumerate() {
        let (x, y) = ((pos % w) * CELL, (pos / w) * CELL);
        let Some(edges) = cell else {
            let _ = writeln!(
                out,
                r##"<rect x="{x}" y="{y}" width="{CELL}" height="{CELL}" fill="#ffffff" stroke="#dddddd"/>"##
            );
            continue;
        };
        let (cx, cy) = (x + CELL / 2, y + CELL / 2);
        let (x1, y1) = (x + CELL, y + CELL);
        let corners = [
            ((x, y), (x1, y)),
            ((x1, y), (x1, y1)),
            ((x1, y1), (x, y1)),
            ((x, y1), (x, y)),
        ];
        for (side, ((ax, ay), (bx, by))) in corners.into_iter().enumerate() {
            let fill = PALETTE
                .get(edges[side] as usize)
                .copied()
                .unwrap_or("#000000");
            let _ = writeln!(
                out,
                r##"<polygon points="{ax},{ay} {bx},{by} {cx},{cy}" fill="{fill}" stroke="#333333" stroke-width="0.5"/>"##
            );
        }
    }
    // Unmatched seams between two filled cells.
    for r in 0..h {
        for c in 0..w {
            let Some(here) = board.cells[r * w + c] else {
                continue;
            };
            if c + 1 < w {
                if let Some(right) = board.cells[r * w + c + 1] {
                    if here[RIGHT] != right[LEFT] || here[RIGHT] == 0 {
                        let x = (c + 1) * CELL;
                        let (y0, y1) = (r * CELL + 4, (r + 1) * CELL - 4);
                        let _ = writeln!(
                            out,
                            r##"<line class="break" x1="{x}" y1="{y0}" x2="{x}" y2="{y1}" stroke="#ff0000" stroke-width="4"/>"##
                        );
                    }
                }
            }
            if r + 1 < h {
                if let Some(below) = board.cells[(r + 1) * w + c] {
                    if here[DOWN] != below[UP] || here[DOWN] == 0 {
                        let y = (r + 1) * CELL;
                        let (x0, x1) = (c * CELL + 4, (c + 1) * CELL - 4);
                        let _ = writeln!(
                            out,
                            r##"<line class="break" x1="{x0}" y1="{y}" x2="{x1}" y2="{y}" stroke="#ff0000" stroke-width="4"/>"##
                        );
                    }
                }
            }
        }
    }
    for &pos in hints {
        let (x, y) = ((pos % w) * CELL + 2, (pos / w) * CELL + 2);
        let side = CELL - 4;
        let _ = writeln!(
            out,
            r##"<rect class="hint" x="{x}" y="{y}" width="{side}" height="{side}" fill="none" stroke="#000000" stroke-width="3"/>"##
        );
    }
    out.push_str("</svg>\n");
    out
}

fn escape(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn draws_triangles_breaks_and_hints() {
        let b = Board::from_edges(2, 1, vec![Some([0, 3, 0, 0]), Some([0, 0, 0, 4])]);
        let s = svg(&b, &[1], "t<1>");
        assert_eq!(s.matches("<polygon").count(), 8);
        assert_eq!(s.matches(r#"class="break""#).count(), 1);
        assert_eq!(s.matches(r#"class="hint""#).count(), 1);
        assert!(s.contains("<title>t&lt;1&gt;</title>"));
        let matched = Board::from_edges(2, 1, vec![Some([0, 3, 0, 0]), Some([0, 0, 0, 3])]);
        assert_eq!(
            svg(&matched, &[], "").matches(r#"class="break""#).count(),
            0
        );
    }
}
