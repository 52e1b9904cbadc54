//! Puzzle CSV: the piece set as McGavin's C and Blackwood's C# read it
//! (docs/formats.md).
//!
//! A first line with the side, then one line per piece in catalogue order:
//! `top,right,bottom,left` as 16-digit binary words, optionally followed by
//! `,x,y,rotation` for a pinned hint. The border is the all-ones word
//! `1111111111111111`, the one format where it is the high value; interior
//! colour `c` is `c` in binary. A trailing `0,0,0` means "not pinned", so a
//! hint on cell 0 at rotation 0 cannot be written and the writer says so.
//!
//! The CSV carries neither a name nor a colour count: the reader takes the
//! name from its caller (usually the file stem) and counts the colours used.
//! The published files end every line, the last included, with `\n`, and
//! the writer reproduces them byte for byte.

use super::Duplicates;
use crate::error::{Error, Result};
use crate::model::{Colour, Edges, Hint, Puzzle, MAX_COLOUR, MAX_SIDE};

const FORMAT: &str = "Puzzle CSV";
const BORDER_WORD: &str = "1111111111111111";
const SIDE_NAMES: [&str; 4] = ["top", "right", "bottom", "left"];

/// Reads and validates a puzzle whose pieces are distinct up to rotation.
pub fn read(text: &str, name: &str) -> Result<Puzzle> {
    read_with(text, name, Duplicates::Refuse)
}

/// Reads a puzzle, allowing or refusing pieces that repeat up to rotation.
pub fn read_with(text: &str, name: &str, duplicates: Duplicates) -> Result<Puzzle> {
    let mut lines = text
        .lines()
        .enumerate()
        .map(|(i, line)| (i + 1, line.trim()))
        .filter(|(_, line)| !line.is_empty());
    let (header_line, header) = lines
        .next()
        .ok_or_else(|| Error::format(FORMAT, "line 1", "empty input, expected the board side"))?;
    let side = header
        .parse::<usize>()
        .ok()
        .filter(|s| (1..=MAX_SIDE).contains(s))
        .ok_or_else(|| {
            Error::format(
                FORMAT,
                format!("line {header_line}"),
                format!("{header:?} is not a board side 1..={MAX_SIDE}"),
            )
        })?;
    let mut pieces = Vec::with_capacity(side * side);
    let mut hints = Vec::new();
    for (number, line) in lines {
        let piece = pieces.len();
        let (edges, pin) = read_piece_line(line, side).map_err(|(field, reason)| {
            let place = match field {
                Some(field) => format!("line {number}, field {field}"),
                None => format!("line {number}"),
            };
            Error::format(FORMAT, place, reason)
        })?;
        pieces.push(edges);
        if let Some((pos, rot)) = pin {
            hints.push(Hint { pos, piece, rot });
        }
    }
    if pieces.len() != side * side {
        return Err(Error::format(
            FORMAT,
            "piece lines",
            format!(
                "{} pieces, expected {side}*{side} = {} for the side on the first line",
                pieces.len(),
                side * side
            ),
        ));
    }
    let puzzle = Puzzle {
        name: name.to_string(),
        width: side,
        height: side,
        num_colors: pieces.iter().flatten().copied().max().unwrap_or(0),
        pieces,
        hints,
    };
    duplicates.validate(&puzzle)?;
    Ok(puzzle)
}

/// A field label and reason on failure, e.g. `2 (right)`.
type LineFault = (Option<String>, String);

/// One piece line: its edges and, when pinned, `(pos, rot)`.
fn read_piece_line(
    line: &str,
    side: usize,
) -> std::result::Result<(Edges, Option<(usize, u8)>), LineFault> {
    let fields: Vec<&str> = line.split(',').map(str::trim).collect();
    if fields.len() != 4 && fields.len() != 7 {
        return Err((
            None,
            format!(
                "{} fields, expected top,right,bottom,left optionally followed by x,y,rotation",
                fields.len()
            ),
        ));
    }
    let mut edges: Edges = [0; 4];
    for (i, word) in fields[..4].iter().enumerate() {
        let label = Some(format!("{} ({})", i + 1, SIDE_NAMES[i]));
        edges[i] = decode_word(word).map_err(|reason| (label, reason))?;
    }
    if fields.len() == 4 {
        return Ok((edges, None));
    }
    let mut pin = [0usize; 3];
    for (k, (field, (label, limit))) in fields[4..]
        .iter()
        .zip([("x", side), ("y", side), ("rotation", 4)])
        .enumerate()
    {
        pin[k] = field
            .parse::<usize>()
            .ok()
            .filter(|&v| v < limit)
            .ok_or_else(|| {
                (
                    Some(format!("{} ({label})", k + 5)),
                    format!("{field:?} is not a {label} 0..={}", limit - 1),
                )
            })?;
    }
    let [x, y, rot] = pin;
    let pinned = (x, y, rot) != (0, 0, 0);
    Ok((edges, pinned.then_some((y * side + x, rot as u8))))
}

fn decode_word(word: &str) -> std::result::Result<Colour, String> {
    if word.len() != 16 || !word.bytes().all(|b| b == b'0' || b == b'1') {
        return Err(format!("{word:?} is not a 16-digit binary word"));
    }
    if word == BORDER_WORD {
        return Ok(0);
    }
    let value = u16::from_str_radix(word, 2).expect("16 binary digits");
    match value {
        0 => Err(format!(
            "{word} is no colour: the border is {BORDER_WORD} and interior colours start at 1"
        )),
        v if v > MAX_COLOUR as u16 => Err(format!(
            "{word} is colour {v}, above the {MAX_COLOUR} colours the formats carry"
        )),
        v => Ok(v as Colour),
    }
}

fn encode_word(colour: Colour) -> String {
    if colour == 0 {
        BORDER_WORD.to_string()
    } else {
        format!("{colour:016b}")
    }
}

/// The CSV of a square puzzle. Fails for a non-square puzzle (the header
/// holds one side) and for a hint on cell 0 at rotation 0, which the format
/// would read back as "not pinned".
pub fn write(puzzle: &Puzzle) -> Result<String> {
    if puzzle.width != puzzle.height {
        return Err(Error::format(
            FORMAT,
            "line 1",
            format!(
                "the header holds one side, so a {}x{} puzzle cannot be written",
                puzzle.width, puzzle.height
            ),
        ));
    }
    let side = puzzle.width;
    let mut pin_of_piece: Vec<Option<&Hint>> = vec![None; puzzle.pieces.len()];
    for hint in &puzzle.hints {
        if (hint.pos, hint.rot) == (0, 0) {
            return Err(Error::format(
                FORMAT,
                format!("line {}", hint.piece + 2),
                "a hint on cell 0 at rotation 0 would be written 0,0,0, which means \"not pinned\"",
            ));
        }
        if let Some(slot) = pin_of_piece.get_mut(hint.piece) {
            *slot = Some(hint);
        }
    }
    let mut out = format!("{side}\n");
    for (edges, pin) in puzzle.pieces.iter().zip(&pin_of_piece) {
        let words: Vec<String> = edges.iter().map(|&c| encode_word(c)).collect();
        let (x, y, rot) = pin.map_or((0, 0, 0), |h| (h.pos % side, h.pos / side, h.rot));
        out.push_str(&format!("{},{x},{y},{rot}\n", words.join(",")));
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    const TWO_BY_TWO: &str = "2\n\
        1111111111111111,0000000000000001,0000000000000010,1111111111111111,0,0,0\n\
        1111111111111111,1111111111111111,0000000000000001,0000000000000001,0,0,0\n\
        0000000000000010,0000000000000010,1111111111111111,1111111111111111,1,1,2\n\
        0000000000000001,1111111111111111,1111111111111111,0000000000000010,0,0,0\n";

    #[test]
    fn border_is_all_ones_and_pins_are_x_y_rotation() {
        let puzzle = read(TWO_BY_TWO, "t").unwrap();
        assert_eq!(puzzle.pieces[0], [0, 1, 2, 0]);
        assert_eq!(puzzle.num_colors, 2);
        assert_eq!(
            puzzle.hints,
            vec![Hint {
                pos: 3,
                piece: 2,
                rot: 2
            }]
        );
        assert_eq!(write(&puzzle).unwrap(), TWO_BY_TWO);
    }

    #[test]
    fn a_word_that_is_not_16_binary_digits_names_line_and_field() {
        let text = TWO_BY_TWO.replace(
            "0000000000000010,0000000000000010,",
            "0000000000000010,000000000000002,",
        );
        let e = read(&text, "t").unwrap_err().to_string();
        assert!(
            e.contains("line 4, field 2 (right)")
                && e.contains("\"000000000000002\" is not a 16-digit binary word"),
            "{e}"
        );
    }

    #[test]
    fn other_faults_name_the_line() {
        let e = read(&TWO_BY_TWO.replace(",1,1,2", ",1,2,2"), "t")
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("line 4, field 6 (y)") && e.contains("0..=1"),
            "{e}"
        );
        let e = read(&TWO_BY_TWO.replace(",1,1,2", ",1,1"), "t")
            .unwrap_err()
            .to_string();
        assert!(e.contains("line 4") && e.contains("6 fields"), "{e}");
        let e = read("2\n", "t").unwrap_err().to_string();
        assert!(e.contains("0 pieces, expected 2*2 = 4"), "{e}");
    }

    #[test]
    fn unrepresentable_puzzles_are_refused_by_the_writer() {
        let mut puzzle = read(TWO_BY_TWO, "t").unwrap();
        puzzle.hints = vec![Hint {
            pos: 0,
            piece: 0,
            rot: 0,
        }];
        let e = write(&puzzle).unwrap_err().to_string();
        assert!(e.contains("line 2") && e.contains("not pinned"), "{e}");
    }
}
