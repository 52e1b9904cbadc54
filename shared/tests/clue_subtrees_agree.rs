//! The official clue puzzles repeat pieces and have millions of boards, so
//! their full counts (README) come from the backtracker alone. This checks
//! the two independent engines against each other on real subtrees of
//! clue puzzle 3: every 12th prefix of depth 6 in the row scan, counted
//! with the backtracker and with DLX under the same forced placements.

mod common;

use e2_shared::engine::{Engine, Limits, Subtree};
use e2_shared::order::FillOrder;

#[test]
#[cfg_attr(
    e2_no_data,
    ignore = "needs ../shared/data (community files), absent on this clone"
)]
fn both_engines_count_the_same_subtrees_of_clue_puzzle_3() {
    let puzzle = common::puzzle("clue_puzzles/clue3.json");
    let prefixes = Engine::Backtrack
        .prefixes(&puzzle, FillOrder::RowMajor, 6)
        .unwrap();
    assert!(prefixes.len() > 100, "{} prefixes", prefixes.len());
    let (mut checked, mut boards) = (0, 0);
    for prefix in prefixes.iter().step_by(12) {
        let subtree = Subtree::new(&puzzle, prefix);
        let count = |engine: Engine| {
            engine
                .count(&subtree, None, &Limits::none(), |_| {})
                .unwrap()
                .solutions
        };
        let (by_backtrack, by_dlx) = (count(Engine::Backtrack), count(Engine::Dlx));
        assert_eq!(by_backtrack, by_dlx, "prefix {prefix:?}");
        checked += 1;
        boards += by_dlx;
    }
    eprintln!(
        "{checked} of {} subtrees, {boards} boards, engines agree",
        prefixes.len()
    );
    assert!(boards > 0, "the sample must contain boards to be a check");
}
