//! An exact-cover-with-colours problem as plain data: items and options.
//!
//! This is the input of Algorithm C, kept apart from the dancing-links
//! memory so that one problem can be read once (from text, from a puzzle,
//! from a test) and searched many times, each search on its own copy of the
//! links. Items are numbered `0..items()`, the primary ones first, exactly as
//! Knuth lays them out; an option is a list of entries, each an item and, for
//! a secondary item, an optional colour. Colours are small positive numbers
//! (`0` means "no colour"); a problem read from text keeps their names for
//! printing.

use crate::error::{Error, Result};

/// "No colour": the item is covered exclusively, as in plain exact cover.
pub const NO_COLOUR: u32 = 0;

/// One entry of an option: an item and the colour it asks for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Entry {
    pub item: u32,
    /// [`NO_COLOUR`] or a colour number `>= 1` (secondary items only).
    pub colour: u32,
}

/// An XCC problem: primary items (covered exactly once), secondary items
/// (covered at most once, or by any number of options that agree on its
/// colour) and options.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Xcc {
    item_names: Vec<String>,
    primary: usize,
    colour_names: Vec<String>,
    /// Option `o` is `entries[option_start[o]..option_start[o + 1]]`.
    option_start: Vec<u32>,
    entries: Vec<Entry>,
}

impl Xcc {
    /// A problem with the given items and no options yet. Item `k` is
    /// `primary[k]` for `k < primary.len()`, then the secondary items.
    pub fn new(primary: Vec<String>, secondary: Vec<String>) -> Result<Self> {
        if primary.is_empty() {
            return Err(Error::Invalid(
                "an exact cover problem needs at least one primary item".into(),
            ));
        }
        let count = primary.len();
        let mut item_names = primary;
        item_names.extend(secondary);
        if item_names.len() >= i32::MAX as usize / 2 {
            return Err(Error::Invalid(format!(
                "{} items are more than the engine's 32-bit links can hold",
                item_names.len()
            )));
        }
        Ok(Xcc {
            item_names,
            primary: count,
            colour_names: Vec::new(),
            option_start: vec![0],
            entries: Vec::new(),
        })
    }

    /// Names colour `k` (`k >= 1`) as `names[k - 1]` when printing options.
    pub fn set_colour_names(&mut self, names: Vec<String>) {
        self.colour_names = names;
    }

    /// Adds an option and returns its number.
    ///
    /// Refuses an empty option, an unknown item, an item named twice, a
    /// colour on a primary item, and an option with no primary item (Knuth's
    /// programs drop such options with a warning; a caller that wants that
    /// behaviour checks [`Xcc::is_primary`] first).
    pub fn add_option(&mut self, entries: &[Entry]) -> Result<u32> {
        let number = self.options();
        let place = || format!("option {number}");
        if entries.is_empty() {
            return Err(Error::Invalid(format!("{}: is empty", place())));
        }
        for (k, e) in entries.iter().enumerate() {
            let Some(name) = self.item_names.get(e.item as usize) else {
                return Err(Error::Invalid(format!(
                    "{}: item {} does not exist (the problem has {} items)",
                    place(),
                    e.item,
                    self.items()
                )));
            };
            if e.colour != NO_COLOUR && self.is_primary(e.item) {
                return Err(Error::Invalid(format!(
                    "{}: item \"{name}\" is primary and cannot take a colour",
                    place()
                )));
            }
            if e.colour > i32::MAX as u32 {
                return Err(Error::Invalid(format!(
                    "{}: colour {} of item \"{name}\" is too large",
                    place(),
                    e.colour
                )));
            }
            if entries[..k].iter().any(|f| f.item == e.item) {
                return Err(Error::Invalid(format!(
                    "{}: item \"{name}\" appears twice",
                    place()
                )));
            }
        }
        if !entries.iter().any(|e| self.is_primary(e.item)) {
            return Err(Error::Invalid(format!(
                "{}: has no primary item, so no solution could ever need it",
                place()
            )));
        }
        if self.entries.len() + entries.len() + self.options() as usize + self.items() + 2
            >= i32::MAX as usize
        {
            return Err(Error::Invalid(
                "the problem has more nodes than the engine's 32-bit links can hold".into(),
            ));
        }
        self.entries.extend_from_slice(entries);
        self.option_start.push(self.entries.len() as u32);
        Ok(number)
    }

    /// Number of items, primary and secondary.
    pub fn items(&self) -> usize {
        self.item_names.len()
    }

    /// Number of primary items; they are items `0..primary_items()`.
    pub fn primary_items(&self) -> usize {
        self.primary
    }

    pub fn is_primary(&self, item: u32) -> bool {
        (item as usize) < self.primary
    }

    pub fn item_name(&self, item: u32) -> &str {
        &self.item_names[item as usize]
    }

    /// Number of options.
    pub fn options(&self) -> u32 {
        (self.option_start.len() - 1) as u32
    }

    /// The entries of option `o`.
    pub fn option(&self, o: u32) -> &[Entry] {
        let o = o as usize;
        &self.entries[self.option_start[o] as usize..self.option_start[o + 1] as usize]
    }

    /// Total number of entries (the "nodes" of the matrix, spacers excluded).
    pub fn entries(&self) -> usize {
        self.entries.len()
    }

    /// The largest colour any entry asks for ([`NO_COLOUR`] if none).
    pub fn max_colour(&self) -> u32 {
        self.entries
            .iter()
            .map(|e| e.colour)
            .max()
            .unwrap_or(NO_COLOUR)
    }

    /// A colour as the text format writes it.
    pub fn colour_name(&self, colour: u32) -> String {
        match self.colour_names.get((colour as usize).wrapping_sub(1)) {
            Some(name) => name.clone(),
            None => colour.to_string(),
        }
    }

    /// Option `o` in the text format of Knuth's programs: `a b x:col`.
    pub fn option_text(&self, o: u32) -> String {
        let mut line = String::new();
        for e in self.option(o) {
            if !line.is_empty() {
                line.push(' ');
            }
            line.push_str(self.item_name(e.item));
            if e.colour != NO_COLOUR {
                line.push(':');
                line.push_str(&self.colour_name(e.colour));
            }
        }
        line
    }

    /// The whole problem in the text format of Knuth's dlx1/dlx2, with
    /// `comment` (if any) as a `|` line on top.
    pub fn to_text(&self, comment: Option<&str>) -> String {
        let mut out = String::new();
        if let Some(c) = comment {
            out.push_str("| ");
            out.push_str(c);
            out.push('\n');
        }
        out.push_str(&self.item_names[..self.primary].join(" "));
        if self.items() > self.primary {
            out.push_str(" | ");
            out.push_str(&self.item_names[self.primary..].join(" "));
        }
        out.push('\n');
        for o in 0..self.options() {
            out.push_str(&self.option_text(o));
            out.push('\n');
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(list: &[&str]) -> Vec<String> {
        list.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn bad_options_are_refused_with_a_reason() {
        let mut x = Xcc::new(names(&["A", "B"]), names(&["X"])).unwrap();
        let e = |item, colour| Entry { item, colour };
        assert_eq!(x.add_option(&[e(0, 0), e(2, 1)]).unwrap(), 0);
        let msg = |r: Result<u32>| r.unwrap_err().to_string();
        assert!(msg(x.add_option(&[])).contains("is empty"));
        assert!(msg(x.add_option(&[e(0, 3)])).contains("\"A\" is primary"));
        assert!(msg(x.add_option(&[e(1, 0), e(1, 0)])).contains("\"B\" appears twice"));
        assert!(msg(x.add_option(&[e(7, 0)])).contains("item 7 does not exist"));
        assert!(msg(x.add_option(&[e(2, 1)])).contains("no primary item"));
        assert_eq!(x.options(), 1);
        assert_eq!(x.to_text(None), "A B | X\nA X:1\n");
    }
}
