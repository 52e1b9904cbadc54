//! `motifs_order`: viewers that draw letters with other glyphs (docs/formats.md).
//!
//! Some community links write `board_edges` in a permuted alphabet and say
//! so with `motifs_order=jef` or `motifs_order=jblackwood` (alias `marie`).
//! Reading such a link means translating every letter back to the default
//! alphabet before decoding colours; an order we do not know is an error,
//! never a guess, because a wrong guess still decodes to a plausible board
//! with the wrong score. Output never carries a `motifs_order`.

use std::fmt;
use std::str::FromStr;

use crate::error::{cell_place, Error, Result};

/// A known glyph permutation. For a letter with index `i` (`'a'` = 0), the
/// default-alphabet letter is `table()[i]`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MotifsOrder {
    Jef,
    /// Also spelled `marie`: the two orders are identical.
    JBlackwood,
}

impl MotifsOrder {
    pub fn table(self) -> &'static [u8; 23] {
        match self {
            MotifsOrder::Jef => b"atojeqlgbupkfrmhcwvsnid",
            MotifsOrder::JBlackwood => b"abglqejotchmrfkpudinsvw",
        }
    }

    /// Translates `letters` (a `board_edges` string of a board `width`
    /// cells wide) into the default alphabet.
    ///
    /// Characters that are not lowercase letters pass through untouched so
    /// that the `board_edges` reader reports them with its own reason; a
    /// lowercase letter beyond the table has no glyph and is an error here.
    pub fn to_default(self, letters: &str, width: usize) -> Result<String> {
        let table = self.table();
        letters
            .chars()
            .enumerate()
            .map(|(i, ch)| {
                if !ch.is_ascii_lowercase() {
                    return Ok(ch);
                }
                let index = (ch as u8 - b'a') as usize;
                table.get(index).map(|&c| c as char).ok_or_else(|| {
                    Error::format(
                        "board_edges",
                        cell_place(i / 4, width),
                        format!(
                            "letter '{ch}' has no glyph in motifs_order {self}, which maps only a..=w"
                        ),
                    )
                })
            })
            .collect()
    }
}

impl fmt::Display for MotifsOrder {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            MotifsOrder::Jef => "jef",
            MotifsOrder::JBlackwood => "jblackwood",
        })
    }
}

impl FromStr for MotifsOrder {
    type Err = Error;

    fn from_str(s: &str) -> Result<Self> {
        match s {
            "jef" => Ok(MotifsOrder::Jef),
            "jblackwood" | "marie" => Ok(MotifsOrder::JBlackwood),
            other => Err(Error::format(
                "URL",
                "parameter \"motifs_order\"",
                format!("unknown order {other:?}; expected jef, marie or jblackwood"),
            )),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tables_are_permutations_of_the_default_alphabet() {
        for order in [MotifsOrder::Jef, MotifsOrder::JBlackwood] {
            let mut letters = order.table().to_vec();
            letters.sort_unstable();
            assert_eq!(letters, b"abcdefghijklmnopqrstuvw", "{order}");
            // The border glyph is never permuted.
            assert_eq!(order.table()[0], b'a');
        }
    }

    #[test]
    fn marie_is_jblackwood() {
        assert_eq!(
            "marie".parse::<MotifsOrder>().unwrap(),
            MotifsOrder::JBlackwood
        );
    }

    #[test]
    fn translation_uses_the_table_by_letter_index() {
        assert_eq!(MotifsOrder::Jef.to_default("abcw", 16).unwrap(), "atod");
    }

    #[test]
    fn unknown_order_is_refused() {
        let e = "alphabetical"
            .parse::<MotifsOrder>()
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("motifs_order") && e.contains("\"alphabetical\""),
            "{e}"
        );
    }

    #[test]
    fn letter_beyond_the_table_names_the_cell() {
        let e = MotifsOrder::Jef
            .to_default("aaaaaaxa", 2)
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("cell 1 (row 0, col 1)") && e.contains("'x'"),
            "{e}"
        );
    }
}
