//! Puzzle names as URLs and BoardDocs carry them (docs/formats.md).
//!
//! Community names contain `+`, spaces and dashes
//! (`JBlackwood+PMcGavin_469`). Keeping only `[A-Za-z0-9_]` lets a name go
//! into a URL without percent-encoding and into a file name unchanged;
//! collapsing runs into one `_` keeps the result readable.

/// The name of a board whose input carried none (or nothing printable).
pub const DEFAULT_NAME: &str = "eternity2_board";

/// `name` with every character outside `[A-Za-z0-9_]` turned into `_`,
/// never writing two `_` in a row for a replaced character.
pub fn sanitize(name: &str) -> String {
    let mut out = String::with_capacity(name.len());
    for ch in name.chars() {
        if ch.is_ascii_alphanumeric() || ch == '_' {
            out.push(ch);
        } else if !out.ends_with('_') {
            out.push('_');
        }
    }
    if out.is_empty() {
        DEFAULT_NAME.to_string()
    } else {
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn follows_the_spec_examples() {
        assert_eq!(
            sanitize("JBlackwood+PMcGavin_469"),
            "JBlackwood_PMcGavin_469"
        );
        assert_eq!(sanitize("a_-b"), "a_b");
        assert_eq!(sanitize(""), DEFAULT_NAME);
    }

    #[test]
    fn replaced_runs_collapse_but_kept_characters_stay() {
        assert_eq!(sanitize("a  b"), "a_b");
        assert_eq!(sanitize("a__b"), "a__b");
        assert_eq!(sanitize("é"), "_");
        assert_eq!(sanitize("Louis_Verhaard_467"), "Louis_Verhaard_467");
    }
}
