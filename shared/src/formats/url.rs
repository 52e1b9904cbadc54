//! Viewer links: the canonical eternity2.dev URL and Jef Bucas's
//! e2.bucas.name URL (docs/formats.md).
//!
//! Both carry a board as `board_edges` plus its size and name; the
//! canonical one also carries `hints`. Links from other tools may add a
//! `board_pieces` overlay and a `motifs_order` (a permuted alphabet), which
//! the reader translates back. Output always uses the default alphabet and
//! a sanitised name, so no value ever needs percent-encoding.
//!
//! The reader takes either URL or a bare parameter block
//! (`puzzle=...&board_w=...`), with parameters in the query or the
//! fragment. Parameters it does not know (`seed`, `board_types`, ...) are
//! metadata of other tools and are ignored.

use std::collections::HashMap;

use super::board_edges::{self, square_side};
use super::hints::{self, Pin};
use super::input::BoardInput;
use super::motifs::MotifsOrder;
use super::name::{sanitize, DEFAULT_NAME};
use super::{board_pieces, Strictness};
use crate::error::{Error, Result};
use crate::model::{Board, MAX_COLOUR, MAX_SIDE};

const FORMAT: &str = "URL";
pub const CANONICAL_HOST: &str = "eternity2.dev";
pub const BUCAS_HOST: &str = "e2.bucas.name";

/// The canonical link: `https://eternity2.dev/viewer?puzzle=NAME&puzzle_size=16&board_edges=…&hints=…`.
///
/// A non-square board uses `board_w`/`board_h`; `hints` is omitted when
/// there are none.
pub fn write(name: &str, board: &Board, pins: &[Pin]) -> String {
    let size = if board.width == board.height {
        format!("puzzle_size={}", board.width)
    } else {
        format!("board_w={}&board_h={}", board.width, board.height)
    };
    let mut url = format!(
        "https://{CANONICAL_HOST}/viewer?puzzle={}&{size}&board_edges={}",
        sanitize(name),
        board_edges::write(board)
    );
    if !pins.is_empty() {
        url.push_str("&hints=");
        url.push_str(&hints::write(pins));
    }
    url
}

/// The community link: `https://e2.bucas.name/#puzzle=NAME&board_w=16&board_h=16&board_edges=…`.
///
/// Edges only: bucas recovers pieces from the edges
/// of a distinct set.
pub fn write_bucas(name: &str, board: &Board) -> String {
    format!(
        "https://{BUCAS_HOST}/#puzzle={}&board_w={}&board_h={}&board_edges={}",
        sanitize(name),
        board.width,
        board.height,
        board_edges::write(board)
    )
}

/// True when `text` looks like a link to one of the two viewers (with or
/// without the scheme), as opposed to a bare parameter block.
pub fn is_link(text: &str) -> bool {
    let text = text.trim_start().to_ascii_lowercase();
    text.starts_with("http://")
        || text.starts_with("https://")
        || [CANONICAL_HOST, BUCAS_HOST]
            .iter()
            .any(|host| text.starts_with(host) || text.starts_with(&format!("www.{host}")))
}

/// Reads a link of either host or a bare parameter block. In lenient mode
/// undecodable cells become empty, and pins or overlay entries on them are
/// dropped; each is reported in the returned problems.
pub fn read(text: &str, strictness: Strictness) -> Result<(BoardInput, Vec<Error>)> {
    let params = parameters(text)?;
    let name = params
        .get("puzzle")
        .map(|n| percent_decode(n))
        .unwrap_or_else(|| DEFAULT_NAME.to_string());
    let size = size(&params)?;
    let raw_edges = *params
        .get("board_edges")
        .ok_or_else(|| Error::format(FORMAT, "parameter \"board_edges\"", "missing"))?;
    let letters = match params.get("motifs_order") {
        None => raw_edges.to_string(),
        Some(order) => {
            let width_for_errors = size
                .map(|(w, _)| w)
                .or_else(|| square_side(raw_edges.len()))
                .unwrap_or(0);
            order
                .parse::<MotifsOrder>()?
                .to_default(raw_edges, width_for_errors)?
        }
    };
    let (board, mut problems) = match strictness {
        Strictness::Strict => (board_edges::read(&letters, size, MAX_COLOUR)?, Vec::new()),
        Strictness::Lenient => board_edges::read_lenient(&letters, size, MAX_COLOUR)?,
    };
    let (width, height) = (board.width, board.height);
    let mut input = BoardInput::new(name, board);
    if let Some(text) = params.get("hints") {
        input.hints = hints::read(text, width, height)?;
    }
    if let Some(text) = params.get("board_pieces") {
        input.pieces_overlay = Some(board_pieces::read(text, width, height, None)?);
    }
    if strictness == Strictness::Lenient {
        problems.extend(drop_what_lost_its_cell(&mut input));
    }
    input.check()?;
    Ok((input, problems))
}

/// Lenient reading empties cells it cannot decode; pins and overlay
/// entries on those cells then point at nothing and are dropped.
fn drop_what_lost_its_cell(input: &mut BoardInput) -> Vec<Error> {
    let cells = &input.board.cells;
    let width = input.board.width;
    let mut problems = Vec::new();
    input.hints.retain(|pin| {
        let kept = cells.get(pin.pos).copied().flatten().is_some();
        if !kept {
            problems.push(Error::format(
                "hints",
                format!("\"{}.{}\"", pin.pos, pin.rot),
                "dropped: its cell was read as empty",
            ));
        }
        kept
    });
    if let Some(overlay) = &mut input.pieces_overlay {
        for (pos, piece) in overlay.iter_mut().enumerate() {
            if piece.is_some() && cells[pos].is_none() {
                problems.push(Error::format(
                    "board_pieces",
                    crate::error::cell_place(pos, width),
                    "dropped: the cell was read as empty",
                ));
                *piece = None;
            }
        }
    }
    problems
}

/// The `key=value` pairs of a link or block, refusing a key given twice
/// (two values would make the board ambiguous).
fn parameters(text: &str) -> Result<HashMap<&str, &str>> {
    let text = text.trim();
    let block = if is_link(text) {
        let after_scheme = text.find("://").map_or(text, |i| &text[i + 3..]);
        let host_end = after_scheme
            .find(['/', '?', '#'])
            .unwrap_or(after_scheme.len());
        let host = after_scheme[..host_end].to_ascii_lowercase();
        let host = host.strip_prefix("www.").unwrap_or(&host);
        if host != CANONICAL_HOST && host != BUCAS_HOST {
            return Err(Error::format(
                FORMAT,
                "host",
                format!("{host:?} is neither {CANONICAL_HOST} nor {BUCAS_HOST}"),
            ));
        }
        let rest = &after_scheme[host_end..];
        // Parameters may sit in the query (eternity2.dev), the fragment
        // (bucas) or both; '?' and '#' then just separate more of them.
        rest.find(['?', '#']).map_or("", |i| &rest[i + 1..])
    } else {
        text.trim_start_matches(['?', '#'])
    };
    let mut params = HashMap::new();
    for pair in block.split(['&', '?', '#']).filter(|p| !p.is_empty()) {
        let (key, value) = pair.split_once('=').ok_or_else(|| {
            Error::format(FORMAT, format!("parameter {pair:?}"), "expected key=value")
        })?;
        if params.insert(key, value).is_some() {
            return Err(Error::format(
                FORMAT,
                format!("parameter \"{key}\""),
                "given twice",
            ));
        }
    }
    Ok(params)
}

/// `(width, height)` from `puzzle_size` or `board_w`/`board_h`; `None`
/// when absent, leaving the size to the length of `board_edges`.
fn size(params: &HashMap<&str, &str>) -> Result<Option<(usize, usize)>> {
    let side = |key: &str| -> Result<Option<usize>> {
        params
            .get(key)
            .map(|v| {
                v.parse::<usize>()
                    .ok()
                    .filter(|s| (1..=MAX_SIDE).contains(s))
                    .ok_or_else(|| {
                        Error::format(
                            FORMAT,
                            format!("parameter \"{key}\""),
                            format!("{v:?} is not a side 1..={MAX_SIDE}"),
                        )
                    })
            })
            .transpose()
    };
    let square = side("puzzle_size")?.map(|s| (s, s));
    let given = match (side("board_w")?, side("board_h")?) {
        (Some(w), Some(h)) => Some((w, h)),
        (None, None) => None,
        (w, _) => {
            let missing = if w.is_none() { "board_w" } else { "board_h" };
            return Err(Error::format(
                FORMAT,
                format!("parameter \"{missing}\""),
                "missing: board_w and board_h come together",
            ));
        }
    };
    match (square, given) {
        (Some(a), Some(b)) if a != b => Err(Error::format(
            FORMAT,
            "parameter \"puzzle_size\"",
            format!(
                "says {}x{} but board_w/board_h say {}x{}",
                a.0, a.1, b.0, b.1
            ),
        )),
        (a, b) => Ok(a.or(b)),
    }
}

/// `%XX` escapes decoded; anything malformed is kept as written, since a
/// name is only ever sanitised afterwards.
fn percent_decode(text: &str) -> String {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let escaped = (bytes[i] == b'%')
            .then(|| bytes.get(i + 1..i + 3))
            .flatten()
            .and_then(|hex| u8::from_str_radix(std::str::from_utf8(hex).ok()?, 16).ok());
        match escaped {
            Some(byte) => {
                out.push(byte);
                i += 3;
            }
            None => {
                out.push(bytes[i]);
                i += 1;
            }
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn small_board() -> Board {
        Board::from_edges(2, 1, vec![Some([0, 3, 0, 0]), Some([0, 0, 0, 3])])
    }

    #[test]
    fn canonical_link_layout() {
        let board = small_board();
        assert_eq!(
            write("a b", &board, &[Pin { pos: 1, rot: 2 }]),
            "https://eternity2.dev/viewer?puzzle=a_b&board_w=2&board_h=1&board_edges=adaaaaad&hints=1.2"
        );
        let square = Board::from_edges(1, 1, vec![Some([1, 1, 1, 1])]);
        assert_eq!(
            write("x", &square, &[]),
            "https://eternity2.dev/viewer?puzzle=x&puzzle_size=1&board_edges=bbbb"
        );
    }

    #[test]
    fn bucas_link_layout_and_round_trip() {
        let board = small_board();
        let url = write_bucas("JBlackwood+PMcGavin_469", &board);
        assert_eq!(
            url,
            "https://e2.bucas.name/#puzzle=JBlackwood_PMcGavin_469&board_w=2&board_h=1&board_edges=adaaaaad"
        );
        let (input, problems) = read(&url, Strictness::Strict).unwrap();
        assert!(problems.is_empty());
        assert_eq!(input.board, board);
        assert_eq!(input.name, "JBlackwood_PMcGavin_469");
    }

    #[test]
    fn bare_block_with_motifs_order_translates() {
        // Under jef, 't' (index 19) is drawn as the default 's'.
        let (input, _) = read(
            "puzzle=x&board_edges=atat&motifs_order=jef",
            Strictness::Strict,
        )
        .unwrap();
        assert_eq!(input.board.cells, vec![Some([0, 18, 0, 18])]);
    }

    #[test]
    fn unknown_motifs_order_is_an_error() {
        let e = read(
            "puzzle=x&board_edges=abab&motifs_order=zigzag",
            Strictness::Strict,
        )
        .unwrap_err()
        .to_string();
        assert!(
            e.contains("motifs_order") && e.contains("\"zigzag\""),
            "{e}"
        );
    }

    #[test]
    fn link_faults_are_named() {
        let e = read("https://example.com/?board_edges=abab", Strictness::Strict)
            .unwrap_err()
            .to_string();
        assert!(e.contains("host") && e.contains("example.com"), "{e}");
        let e = read(
            "puzzle=x&puzzle_size=2&board_w=1&board_h=1&board_edges=abab",
            Strictness::Strict,
        )
        .unwrap_err()
        .to_string();
        assert!(e.contains("puzzle_size") && e.contains("2x2"), "{e}");
        let e = read(
            "puzzle=x&board_edges=abab&board_edges=abab",
            Strictness::Strict,
        )
        .unwrap_err()
        .to_string();
        assert!(e.contains("given twice"), "{e}");
        let e = read(
            "puzzle=x&board_edges=abab&hints=0.0-0.1",
            Strictness::Strict,
        )
        .unwrap_err()
        .to_string();
        assert!(e.contains("item 1") && e.contains("already pinned"), "{e}");
    }

    #[test]
    fn names_are_percent_decoded_on_input() {
        assert_eq!(percent_decode("a%20b%2"), "a b%2");
    }

    #[test]
    fn lenient_drops_pins_on_lost_cells() {
        let (input, problems) = read(
            "board_edges=abaaBaaa&board_w=2&board_h=1&hints=1.0",
            Strictness::Lenient,
        )
        .unwrap();
        assert_eq!(input.board.cells, vec![Some([0, 1, 0, 0]), None]);
        assert!(input.hints.is_empty());
        assert_eq!(problems.len(), 2, "{problems:?}");
    }
}
