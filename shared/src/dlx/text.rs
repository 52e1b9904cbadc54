//! The text input of Knuth's dlx1/dlx2 programs.
//!
//! ```text
//! | a comment: any line whose first non-blank character is `|`
//! A B C | X Y          <- the items: primary, then `|`, then secondary
//! A B X:0 Y:0          <- one option per line: `item` or `item:colour`
//! ```
//!
//! Blank lines are skipped. As in Knuth's programs an option with no primary
//! item is dropped (it could never be part of a solution) and reported as a
//! warning. Two deliberate widenings: names are not limited to 8 bytes, and
//! a colour may be any non-empty word (dlx2 takes one character), so that
//! puzzles with more than ten colours can be written with decimal colours.
//! Everything else that dlx2 rejects is an error naming the line and the
//! token.

use std::collections::HashMap;

use super::problem::{Entry, Xcc, NO_COLOUR};
use crate::error::{Error, Result};

const FORMAT: &str = "dlx";

/// A problem read from text, with where each option came from.
#[derive(Debug, Clone)]
pub struct ParsedText {
    pub xcc: Xcc,
    /// The 1-based line of each option.
    pub option_lines: Vec<usize>,
    /// Options dropped because they name no primary item, as
    /// `line N: ...` warnings.
    pub warnings: Vec<String>,
}

/// Reads the text format of Knuth's dlx1/dlx2.
pub fn parse(text: &str) -> Result<ParsedText> {
    let mut lines = text
        .lines()
        .enumerate()
        .map(|(k, line)| (k + 1, line.trim()))
        .filter(|(_, line)| !line.is_empty() && !line.starts_with('|'));
    let Some((item_line, items)) = lines.next() else {
        return Err(Error::format(
            FORMAT,
            "line 1",
            "no item line: the first line that is not a comment must name the items",
        ));
    };
    let place = |line: usize| format!("line {line}");

    let mut primary = Vec::new();
    let mut secondary = Vec::new();
    let mut seen_bar = false;
    let mut index: HashMap<&str, u32> = HashMap::new();
    // `|` may touch the names around it, as Knuth's reader allows.
    for word in items.split_whitespace() {
        let mut rest = word;
        while !rest.is_empty() {
            if let Some(after) = rest.strip_prefix('|') {
                if seen_bar {
                    return Err(Error::format(
                        FORMAT,
                        place(item_line),
                        "the item line contains `|` twice",
                    ));
                }
                seen_bar = true;
                rest = after;
                continue;
            }
            let end = rest.find('|').unwrap_or(rest.len());
            let name = &rest[..end];
            rest = &rest[end..];
            if name.contains(':') {
                return Err(Error::format(
                    FORMAT,
                    place(item_line),
                    format!("item name \"{name}\" contains `:`, which separates colours"),
                ));
            }
            let number = (primary.len() + secondary.len()) as u32;
            if index.insert(name, number).is_some() {
                return Err(Error::format(
                    FORMAT,
                    place(item_line),
                    format!("item \"{name}\" is named twice"),
                ));
            }
            if seen_bar {
                secondary.push(name.to_string());
            } else {
                primary.push(name.to_string());
            }
        }
    }
    // (An item line cannot start with `|`: that line would be a comment.)
    let primary_count = primary.len() as u32;
    let mut xcc = Xcc::new(primary, secondary)
        .map_err(|e| Error::format(FORMAT, place(item_line), e.to_string()))?;

    let mut colours: HashMap<&str, u32> = HashMap::new();
    let mut colour_names: Vec<String> = Vec::new();
    let mut option_lines = Vec::new();
    let mut warnings = Vec::new();
    let mut entries: Vec<Entry> = Vec::new();
    for (line, text) in lines {
        entries.clear();
        for token in text.split_whitespace() {
            let (name, colour) = match token.split_once(':') {
                None => (token, None),
                Some((name, colour)) => (name, Some(colour)),
            };
            let fail = |reason: String| Err(Error::format(FORMAT, place(line), reason));
            if name.is_empty() {
                return fail(format!("\"{token}\" has an empty item name"));
            }
            let Some(&item) = index.get(name) else {
                return fail(format!(
                    "item \"{name}\" is not on the item line (line {item_line})"
                ));
            };
            if entries.iter().any(|e| e.item == item) {
                return fail(format!("item \"{name}\" appears twice in this option"));
            }
            let colour = match colour {
                None => NO_COLOUR,
                Some(_) if item < primary_count => {
                    return fail(format!(
                        "\"{token}\": item \"{name}\" is primary and cannot take a colour"
                    ));
                }
                Some("") => return fail(format!("\"{token}\" has an empty colour")),
                Some(c) if c.contains(':') => {
                    return fail(format!("\"{token}\" has more than one `:`"));
                }
                Some(c) => *colours.entry(c).or_insert_with(|| {
                    colour_names.push(c.to_string());
                    colour_names.len() as u32
                }),
            };
            entries.push(Entry { item, colour });
        }
        if !entries.iter().any(|e| e.item < primary_count) {
            warnings.push(format!(
                "line {line}: option ignored (no primary items): {text}"
            ));
            continue;
        }
        xcc.add_option(&entries)
            .map_err(|e| Error::format(FORMAT, place(line), e.to_string()))?;
        option_lines.push(line);
    }
    xcc.set_colour_names(colour_names);
    Ok(ParsedText {
        xcc,
        option_lines,
        warnings,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn error(text: &str) -> String {
        parse(text).unwrap_err().to_string()
    }

    #[test]
    fn knuth_colour_example_reads_back_verbatim() {
        let text = "| A simple example of color controls\nA B C | X Y\nA B X:0 Y:0\nA C X:1 Y:1\nX:0 Y:1\nB X:1\nC Y:1\n";
        let parsed = parse(text).unwrap();
        assert_eq!(parsed.xcc.options(), 4);
        assert_eq!(parsed.option_lines, vec![3, 4, 6, 7]);
        assert_eq!(parsed.warnings.len(), 1);
        assert!(parsed.warnings[0].starts_with("line 5:"));
        assert_eq!(parsed.xcc.option_text(1), "A C X:1 Y:1");
        assert_eq!(
            parsed.xcc.to_text(None),
            "A B C | X Y\nA B X:0 Y:0\nA C X:1 Y:1\nB X:1\nC Y:1\n"
        );
    }

    #[test]
    fn bar_may_touch_names() {
        let parsed = parse("A B|X\nA X:red\nB\n").unwrap();
        assert_eq!(parsed.xcc.primary_items(), 2);
        assert_eq!(parsed.xcc.items(), 3);
        assert_eq!(parsed.xcc.option_text(0), "A X:red");
    }

    #[test]
    fn errors_name_the_line_and_the_token() {
        assert_eq!(
            error("| only a comment\n"),
            "dlx: line 1: no item line: the first line that is not a comment must name the items"
        );
        assert_eq!(
            error("A | X | Y\n"),
            "dlx: line 1: the item line contains `|` twice"
        );
        assert_eq!(error("A A\n"), "dlx: line 1: item \"A\" is named twice");
        assert_eq!(
            error("A:1 B\n"),
            "dlx: line 1: item name \"A:1\" contains `:`, which separates colours"
        );
        assert_eq!(
            error("A B | X\n\nA Q\n"),
            "dlx: line 3: item \"Q\" is not on the item line (line 1)"
        );
        assert_eq!(
            error("A B | X\nA:2 B\n"),
            "dlx: line 2: \"A:2\": item \"A\" is primary and cannot take a colour"
        );
        assert_eq!(
            error("A B | X\nA X:\n"),
            "dlx: line 2: \"X:\" has an empty colour"
        );
        assert_eq!(
            error("A B | X\nA :1\n"),
            "dlx: line 2: \":1\" has an empty item name"
        );
        assert_eq!(
            error("A B | X\nA B A\n"),
            "dlx: line 2: item \"A\" appears twice in this option"
        );
        assert_eq!(
            error("A B | X\nA X:1:2\n"),
            "dlx: line 2: \"X:1:2\" has more than one `:`"
        );
    }
}
