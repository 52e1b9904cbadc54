//! Algorithm C on generic problems: Knuth's own examples, n-queens, and
//! random XCC instances against brute force (the guard against the
//! purify/cover bugs home-grown versions are prone to).

mod common;

use e2_shared::dlx::{
    count_text, count_text_with, Algorithm, Dlx, Entry, Limits, Listener, Position, Quiet, SparseC,
    Xcc, NO_COLOUR,
};
use e2_shared::rng::Rng;
use e2_shared::search::RunEnd;

fn sorted(mut options: Vec<u32>) -> Vec<u32> {
    options.sort_unstable();
    options
}

fn all_solutions(dlx: &Dlx) -> Vec<Vec<u32>> {
    let mut all: Vec<Vec<u32>> = dlx.solutions(None).into_iter().map(sorted).collect();
    all.sort();
    all
}

/// Every solution the sparse-set engine finds, each sorted, all sorted.
fn sparse_solutions(xcc: &Xcc) -> Vec<Vec<u32>> {
    struct Collect(Vec<Vec<u32>>);
    impl Listener for Collect {
        const WANTS_SOLUTIONS: bool = true;
        fn solution(&mut self, options: &[u32]) {
            self.0.push(sorted(options.to_vec()));
        }
    }
    let mut all = Collect(Vec::new());
    let report = SparseC::new(xcc).run(&Limits::none(), None, &mut all);
    assert_eq!(report.end, RunEnd::Finished);
    assert_eq!(report.solutions, all.0.len() as u64);
    all.0.sort();
    all.0
}

/// Knuth's example from "Dancing Links" (2000): exactly one solution.
#[test]
fn knuths_seven_item_example_has_only_r1_r4_r5() {
    let text = "| R1..R6 of Knuth's paper\nA B C D E F G\nC E F\nA D G\nB C F\nA D\nB G\nD E G\n";
    let dlx = Dlx::from_text(text).unwrap();
    let solutions = all_solutions(&dlx);
    // Options are numbered from 0: R1 = 0, R4 = 3, R5 = 4.
    assert_eq!(solutions, vec![vec![0, 3, 4]]);
    assert_eq!(sparse_solutions(dlx.xcc()), solutions);
    let names: Vec<String> = solutions[0]
        .iter()
        .map(|&o| dlx.xcc().option_text(o))
        .collect();
    assert_eq!(names, vec!["C E F", "A D", "B G"]);
}

/// The colour example at the head of Knuth's dlx2.
#[test]
fn knuths_colour_example_has_its_published_solution() {
    let text = "| A simple example of color controls\nA B C | X Y\nA B X:0 Y:0\nA C X:1 Y:1\nX:0 Y:1\nB X:1\nC Y:1\n";
    let dlx = Dlx::from_text(text).unwrap();
    assert_eq!(dlx.warnings().len(), 1, "X:0 Y:1 has no primary item");
    let solutions = all_solutions(&dlx);
    assert_eq!(solutions.len(), 1);
    assert_eq!(sparse_solutions(dlx.xcc()), solutions);
    let mut names: Vec<String> = solutions[0]
        .iter()
        .map(|&o| dlx.xcc().option_text(o))
        .collect();
    names.sort();
    assert_eq!(names, vec!["A C X:1 Y:1", "B X:1"]);
}

/// Knuth's n-queens encoding: rows and columns primary, the diagonals
/// `a(i+j)` and `b(n-1+i-j)` secondary (the layout of `queens10.dlx`).
fn queens_text(n: usize) -> String {
    let mut text = format!("| {n}-queens\n");
    let rows: Vec<String> = (0..n).map(|i| format!("r{i}")).collect();
    let cols: Vec<String> = (0..n).map(|j| format!("c{j}")).collect();
    let a: Vec<String> = (0..2 * n - 1).map(|d| format!("a{d}")).collect();
    let b: Vec<String> = (0..2 * n - 1).map(|d| format!("b{d}")).collect();
    text.push_str(&format!(
        "{} {} | {} {}\n",
        rows.join(" "),
        cols.join(" "),
        a.join(" "),
        b.join(" ")
    ));
    for i in 0..n {
        for j in 0..n {
            text.push_str(&format!("r{i} c{j} a{} b{}\n", i + j, n - 1 + i - j));
        }
    }
    text
}

#[test]
fn n_queens_counts_are_the_published_ones() {
    let published = [1, 0, 0, 2, 10, 4, 40, 92, 352, 724];
    for (n, &expected) in (1..=10).zip(published.iter()) {
        let dlx = Dlx::from_text(&queens_text(n)).unwrap();
        let report = dlx.count(&Limits::none(), None);
        assert_eq!(report.solutions, expected, "{n}-queens");
        assert_eq!(report.end, RunEnd::Finished);
        let sparse = SparseC::new(dlx.xcc()).run(&Limits::none(), None, &mut Quiet);
        assert_eq!(sparse.solutions, expected, "{n}-queens, sparse sets");
        assert_eq!(sparse.end, RunEnd::Finished);
    }
}

#[test]
#[cfg_attr(
    e2_no_data,
    ignore = "needs ../shared/data (community files), absent on this clone"
)]
fn queens10_data_file_has_724_solutions() {
    let text = common::data_file("dlx/queens10.dlx");
    assert_eq!(text, queens_text(10), "the data file is Knuth's encoding");
    let counted = count_text(&text, true, &Limits::none(), None).unwrap();
    assert_eq!(counted.solutions, 724);
    // The first solution is a placement of ten queens, one per row.
    let first = counted.first.unwrap();
    assert_eq!(first.len(), 10);
    let mut rows: Vec<&str> = first.iter().map(|o| o.split(' ').next().unwrap()).collect();
    rows.sort();
    rows.dedup();
    assert_eq!(rows.len(), 10);

    let sparse = count_text_with(Algorithm::Sparse, &text, true, &Limits::none(), None).unwrap();
    assert_eq!(sparse.solutions, 724);
    assert_eq!(sparse.end, RunEnd::Finished);
    let first = sparse.first.unwrap();
    let mut rows: Vec<&str> = first.iter().map(|o| o.split(' ').next().unwrap()).collect();
    rows.sort();
    rows.dedup();
    assert_eq!(rows.len(), 10);
}

/// The sparse-set engine honours its limits: a node budget, a solution
/// limit, a stop request, and a problem with an item no option covers.
#[test]
fn sparse_runs_stop_where_they_are_told() {
    let xcc = Dlx::from_text(&queens_text(8)).unwrap().xcc().clone();
    let solver = SparseC::new(&xcc);
    let whole = solver.run(&Limits::none(), None, &mut Quiet);
    assert_eq!((whole.solutions, whole.end), (92, RunEnd::Finished));
    assert!(whole.updates > whole.nodes, "{whole:?}");
    // The solver is a template: a second run counts the same.
    assert_eq!(solver.run(&Limits::none(), None, &mut Quiet), whole);
    let part = solver.run(&Limits::nodes(whole.nodes / 2), None, &mut Quiet);
    assert_eq!(part.end, RunEnd::BudgetSpent);
    assert_eq!(part.nodes, whole.nodes / 2);
    assert!(part.solutions < 92);
    let three = solver.run(&Limits::solutions(3), None, &mut Quiet);
    assert_eq!((three.solutions, three.end), (3, RunEnd::FoundFirst));
    assert_eq!(three.first.as_ref().map(Vec::len), Some(8));
    let control = e2_shared::search::Control::new();
    control.stop();
    let limits = Limits {
        poll_interval: 1,
        ..Limits::none()
    };
    let stopped = solver.run(&limits, Some(&control), &mut Quiet);
    assert_eq!(stopped.end, RunEnd::Stopped);
    assert!(stopped.nodes <= 1);
    let none = count_text_with(Algorithm::Sparse, "A B\nA\n", false, &Limits::none(), None);
    let none = none.unwrap();
    assert_eq!((none.solutions, none.end), (0, RunEnd::Finished));
}

fn count(text: &str) -> u64 {
    let dlx = Dlx::from_text(text).unwrap();
    let links = dlx.count(&Limits::none(), None).solutions;
    let sparse = SparseC::new(dlx.xcc())
        .run(&Limits::none(), None, &mut Quiet)
        .solutions;
    assert_eq!(links, sparse, "links and sparse sets disagree on:\n{text}");
    links
}

/// Secondary items shared by options: equal colours may share, different
/// colours or no colour may not.
#[test]
fn colours_decide_who_may_share_a_secondary_item() {
    assert_eq!(count("A B | X\nA X:1\nB X:1\n"), 1);
    assert_eq!(count("A B | X\nA X:1\nB X:2\n"), 0);
    assert_eq!(count("A B | X\nA X\nB X:1\n"), 0);
    assert_eq!(count("A B | X\nA X:1\nB X\n"), 0);
    assert_eq!(count("A B | X\nA X\nB X\n"), 0);
    assert_eq!(count("A B | X\nA X\nB\n"), 1);
    // A colour chosen at level 0 must prune deep options and come back
    // intact after backtracking: both colour classes are complete.
    assert_eq!(
        count("A B C | X\nA X:1\nB X:1\nC X:1\nC X:2\nB X:2\nA X:2\n"),
        2
    );
    // The second option meets X and Y already purified with its colours
    // (its nodes are marked -1), so committing it must change nothing.
    assert_eq!(
        count("A B | X Y\nA X:1 Y:1\nB X:1 Y:2\nB X:1 Y:1\nB Y:1\n"),
        2
    );
}

/// All exact covers with colours, by trying every subset of options.
fn brute_force(xcc: &Xcc) -> Vec<Vec<u32>> {
    let m = xcc.options();
    let mut found = Vec::new();
    for mask in 0u32..(1 << m) {
        let mut covered = vec![0u32; xcc.primary_items()];
        // Secondary: None = untouched, Some(colour) = used (0 = exclusively).
        let mut used: Vec<Option<u32>> = vec![None; xcc.items()];
        let mut ok = true;
        'options: for o in (0..m).filter(|o| mask >> o & 1 == 1) {
            for e in xcc.option(o) {
                if xcc.is_primary(e.item) {
                    covered[e.item as usize] += 1;
                } else {
                    match used[e.item as usize] {
                        None => used[e.item as usize] = Some(e.colour),
                        Some(c) if c != NO_COLOUR && c == e.colour => {}
                        Some(_) => {
                            ok = false;
                            break 'options;
                        }
                    }
                }
            }
        }
        if ok && covered.iter().all(|&c| c == 1) {
            found.push((0..m).filter(|o| mask >> o & 1 == 1).collect());
        }
    }
    found.sort();
    found
}

/// The bit sets count what the links count, node for node (both under
/// Knuth's MRV), on a problem given as text.
fn assert_bits_agree_with_links(xcc: &Xcc, what: &str) {
    let text = xcc.to_text(Some("random"));
    let count = |algorithm| {
        let c = count_text_with(algorithm, &text, false, &Limits::none(), None).unwrap();
        (c.solutions, c.nodes, c.end)
    };
    assert_eq!(
        count(Algorithm::Bits),
        count(Algorithm::Links),
        "{what}, bit sets:\n{text}"
    );
}

fn random_xcc(rng: &mut Rng) -> Xcc {
    let primary = 1 + rng.below(5) as usize;
    let secondary = rng.below(5) as usize;
    let names = |prefix: &str, n: usize| (0..n).map(|k| format!("{prefix}{k}")).collect();
    let mut xcc = Xcc::new(names("P", primary), names("S", secondary)).unwrap();
    let options = 1 + rng.below(13);
    for _ in 0..options {
        let mut entries = Vec::new();
        while entries.is_empty() {
            for item in 0..primary as u32 {
                if rng.below(3) == 0 {
                    entries.push(Entry {
                        item,
                        colour: NO_COLOUR,
                    });
                }
            }
        }
        for s in 0..secondary as u32 {
            if rng.below(2) == 0 {
                entries.push(Entry {
                    item: primary as u32 + s,
                    // Mostly coloured, sometimes exclusive.
                    colour: rng.below(3) as u32,
                });
            }
        }
        // Knuth's options list their items in any order.
        rng.shuffle(&mut entries);
        xcc.add_option(&entries).unwrap();
    }
    xcc
}

#[test]
fn random_instances_agree_with_brute_force() {
    let mut rng = Rng::new(0xD1_2024);
    let mut with_solutions = 0;
    for case in 0..600 {
        let xcc = random_xcc(&mut rng);
        let expected = brute_force(&xcc);
        let dlx = Dlx::new(xcc.clone());
        assert_eq!(
            all_solutions(&dlx),
            expected,
            "case {case}:\n{}",
            xcc.to_text(None)
        );
        assert_eq!(
            sparse_solutions(&xcc),
            expected,
            "case {case}, sparse sets:\n{}",
            xcc.to_text(None)
        );
        // The same problem through the text reader.
        let reread = Dlx::from_text(&xcc.to_text(Some("random"))).unwrap();
        assert_eq!(all_solutions(&reread), expected, "case {case} reread");
        assert_bits_agree_with_links(&xcc, &format!("case {case}"));
        with_solutions += !expected.is_empty() as u32;
    }
    // The generator must exercise both outcomes to mean anything.
    assert!(
        with_solutions > 100,
        "only {with_solutions} cases had solutions"
    );
}

/// Larger random problems, beyond brute force: the two engines must count
/// the same (forced moves, deep colour purification, long undo chains).
#[test]
fn sparse_sets_count_what_the_links_count() {
    let mut rng = Rng::new(0x55_2026);
    let mut nonzero = 0;
    for case in 0..150 {
        let primary = 4 + rng.below(7) as usize;
        let secondary = rng.below(6) as usize;
        let names = |prefix: &str, n: usize| (0..n).map(|k| format!("{prefix}{k}")).collect();
        let mut xcc = Xcc::new(names("P", primary), names("S", secondary)).unwrap();
        for _ in 0..20 + rng.below(40) {
            let mut entries = Vec::new();
            while entries.is_empty() {
                for item in 0..primary as u32 {
                    if rng.below(4) == 0 {
                        entries.push(Entry {
                            item,
                            colour: NO_COLOUR,
                        });
                    }
                }
            }
            for s in 0..secondary as u32 {
                if rng.below(3) == 0 {
                    entries.push(Entry {
                        item: primary as u32 + s,
                        colour: rng.below(3) as u32,
                    });
                }
            }
            rng.shuffle(&mut entries);
            xcc.add_option(&entries).unwrap();
        }
        let links = all_solutions(&Dlx::new(xcc.clone()));
        assert_eq!(
            sparse_solutions(&xcc),
            links,
            "case {case}:\n{}",
            xcc.to_text(None)
        );
        assert_bits_agree_with_links(&xcc, &format!("case {case}"));
        nonzero += !links.is_empty() as u32;
    }
    assert!(nonzero > 30, "only {nonzero} cases had solutions");
}

/// The generic engine stops and resumes in option numbers.
#[test]
fn generic_positions_resume_to_the_same_count() {
    let dlx = Dlx::from_text(&queens_text(8)).unwrap();
    let whole = dlx.count(&Limits::none(), None);
    let mut rng = Rng::new(8);
    for _ in 0..5 {
        let budget = 1 + rng.below(whole.nodes - 1);
        let part = dlx.count(&Limits::nodes(budget), None);
        assert_eq!(part.end, RunEnd::BudgetSpent);
        let json = serde_json::to_string(&part.position.unwrap()).unwrap();
        let position: Position = serde_json::from_str(&json).unwrap();
        let rest = dlx
            .run(&position, &Limits::none(), None, &mut Quiet)
            .unwrap();
        assert_eq!((rest.solutions, rest.nodes), (whole.solutions, whole.nodes));
    }
    // Prefixes partition the search.
    for depth in 1..=3 {
        let total: u64 = dlx
            .prefixes(&[], depth)
            .unwrap()
            .iter()
            .map(|forced| {
                let from = Position {
                    forced: forced.clone(),
                    ..Position::default()
                };
                dlx.run(&from, &Limits::none(), None, &mut Quiet)
                    .unwrap()
                    .solutions
            })
            .sum();
        assert_eq!(total, 92, "depth {depth}");
    }
}
