//! The study's outputs: per-run JSONL, Markdown tables and an SVG chart.
//!
//! Every number is printed with a fixed number of decimals and every table
//! in a fixed order, so the same results give the same bytes: two runs of a
//! study can be compared with `cmp`.

use std::collections::BTreeMap;
use std::fmt::Write;

use super::grid::RunResult;
use crate::layouts::{pinned_seam_floor, Layout};

/// One JSON object per line, in run order.
pub fn jsonl(results: &[RunResult]) -> String {
    results
        .iter()
        .map(|r| serde_json::to_string(r).expect("a result serialises") + "\n")
        .collect()
}

/// Results grouped by (size, order, layout), in first-seen order of each key.
fn group(results: &[RunResult]) -> BTreeMap<(usize, String, String), Vec<&RunResult>> {
    let mut groups: BTreeMap<(usize, String, String), Vec<&RunResult>> = BTreeMap::new();
    for r in results {
        groups
            .entry((
                r.run.size,
                r.run.order.to_string(),
                r.run.layout.to_string(),
            ))
            .or_default()
            .push(r);
    }
    groups
}

fn mean(values: impl Iterator<Item = f64>) -> f64 {
    let (sum, n) = values.fold((0.0, 0usize), |(s, n), v| (s + v, n + 1));
    if n == 0 {
        0.0
    } else {
        sum / n as f64
    }
}

/// Distinct values in first-seen order.
fn distinct<T: PartialEq + Clone>(items: impl Iterator<Item = T>) -> Vec<T> {
    let mut out: Vec<T> = vec![];
    for item in items {
        if !out.contains(&item) {
            out.push(item);
        }
    }
    out
}

/// The Markdown report.
pub fn markdown(results: &[RunResult]) -> String {
    let mut out = String::new();
    let sizes = distinct(results.iter().map(|r| r.run.size));
    let orders = distinct(results.iter().map(|r| r.run.order.to_string()));
    let layouts = distinct(results.iter().map(|r| r.run.layout.to_string()));
    let seeds = distinct(results.iter().map(|r| r.run.seed)).len();
    let budget = results.first().map_or(0, |r| r.run.budget_nodes);
    let groups = group(results);
    let _ = writeln!(out, "# Hint study\n");
    let _ = writeln!(
        out,
        "Strict DFS (no breaks, no propagation), {} runs: sizes {:?}, {seeds} seeds, {} orders, layouts {}, \
         node budget {budget} per run. Depth is the share of non-pinned cells placed on the deepest board; \
         raw score is compared only between runs sharing a layout (and so a pinned-seam floor).\n",
        results.len(),
        sizes,
        orders.len(),
        layouts.join(", ")
    );

    let _ = writeln!(out, "## Pinned-seam floor of each layout\n");
    let _ = writeln!(
        out,
        "| layout | {} |",
        sizes
            .iter()
            .map(|s| format!("{s}×{s} pins / floor"))
            .collect::<Vec<_>>()
            .join(" | ")
    );
    let _ = writeln!(out, "|---|{}", "---|".repeat(sizes.len()));
    for name in &layouts {
        let layout: Layout = name.parse().expect("a layout name we printed");
        let cells: Vec<String> = sizes
            .iter()
            .map(|&s| {
                let pins = layout.cells(s, s);
                format!("{} / {}", pins.len(), pinned_seam_floor(s, s, &pins))
            })
            .collect();
        let _ = writeln!(out, "| {name} | {} |", cells.join(" | "));
    }

    for &size in &sizes {
        let _ = writeln!(out, "\n## {size}×{size}\n");
        let _ = writeln!(
            out,
            "### Depth reached (mean share of searched cells) and solve rate\n"
        );
        let _ = writeln!(out, "| order | {} |", layouts.join(" | "));
        let _ = writeln!(out, "|---|{}", "---|".repeat(layouts.len()));
        for order in &orders {
            let cells: Vec<String> = layouts
                .iter()
                .map(
                    |layout| match groups.get(&(size, order.clone(), layout.clone())) {
                        Some(rs) => format!(
                            "{:.3} ({}/{})",
                            mean(rs.iter().map(|r| r.depth_fraction())),
                            rs.iter().filter(|r| r.solved).count(),
                            rs.len()
                        ),
                        None => "-".into(),
                    },
                )
                .collect();
            let _ = writeln!(out, "| {order} | {} |", cells.join(" | "));
        }

        let _ = writeln!(out, "\n### Raw score by order within each layout (mean; the floor is shared within a column)\n");
        let _ = writeln!(out, "| order | {} |", layouts.join(" | "));
        let _ = writeln!(out, "|---|{}", "---|".repeat(layouts.len()));
        for order in &orders {
            let cells: Vec<String> = layouts
                .iter()
                .map(
                    |layout| match groups.get(&(size, order.clone(), layout.clone())) {
                        Some(rs) => format!("{:.2}", mean(rs.iter().map(|r| r.score as f64))),
                        None => "-".into(),
                    },
                )
                .collect();
            let _ = writeln!(out, "| {order} | {} |", cells.join(" | "));
        }

        let hinted: Vec<&String> = layouts.iter().filter(|l| l.as_str() != "none").collect();
        let _ = writeln!(out, "\n### Paired difference, hints minus none on the same puzzle (mean score Δ / mean depth Δ)\n");
        let _ = writeln!(
            out,
            "| order | {} |",
            hinted
                .iter()
                .map(|s| s.as_str())
                .collect::<Vec<_>>()
                .join(" | ")
        );
        let _ = writeln!(out, "|---|{}", "---|".repeat(hinted.len()));
        for order in &orders {
            let base = groups.get(&(size, order.clone(), "none".to_string()));
            let cells: Vec<String> = hinted
                .iter()
                .map(|layout| {
                    let (Some(base), Some(rs)) =
                        (base, groups.get(&(size, order.clone(), (*layout).clone())))
                    else {
                        return "-".into();
                    };
                    let pairs: Vec<(&RunResult, &RunResult)> = rs
                        .iter()
                        .filter_map(|r| {
                            base.iter()
                                .find(|b| b.run.seed == r.run.seed)
                                .map(|b| (*r, *b))
                        })
                        .collect();
                    format!(
                        "{:+.2} / {:+.3}",
                        mean(pairs.iter().map(|(r, b)| r.score as f64 - b.score as f64)),
                        mean(
                            pairs
                                .iter()
                                .map(|(r, b)| r.depth_fraction() - b.depth_fraction())
                        )
                    )
                })
                .collect();
            let _ = writeln!(out, "| {order} | {} |", cells.join(" | "));
        }
    }
    out
}

/// A grouped bar chart: mean depth reached per order, one bar per layout,
/// for the largest size in the results.
pub fn chart_svg(results: &[RunResult]) -> String {
    const PALETTE: [&str; 6] = [
        "#4363d8", "#e6194b", "#3cb44b", "#f58231", "#911eb4", "#808080",
    ];
    let size = results.iter().map(|r| r.run.size).max().unwrap_or(0);
    let orders = distinct(results.iter().map(|r| r.run.order.to_string()));
    let layouts = distinct(results.iter().map(|r| r.run.layout.to_string()));
    let groups = group(results);
    let (bar, gap, height, left, top) = (10usize, 16usize, 200usize, 50usize, 30usize);
    let group_width = bar * layouts.len() + gap;
    let width = left + group_width * orders.len() + 160;
    let total_height = top + height + 110;
    let mut out = String::new();
    let _ = writeln!(
        out,
        r##"<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{total_height}" viewBox="0 0 {width} {total_height}" font-family="sans-serif" font-size="10">"##
    );
    let _ = writeln!(
        out,
        r##"<rect width="{width}" height="{total_height}" fill="#ffffff"/>"##
    );
    let _ = writeln!(
        out,
        r##"<text x="{left}" y="16" font-size="12">Depth reached by fill order and hint layout ({size}×{size})</text>"##
    );
    for tick in 0..=4 {
        let y = top + height - tick * height / 4;
        let _ = writeln!(
            out,
            r##"<line x1="{left}" y1="{y}" x2="{}" y2="{y}" stroke="#dddddd"/><text x="{}" y="{}" text-anchor="end">{:.2}</text>"##,
            left + group_width * orders.len(),
            left - 4,
            y + 3,
            tick as f64 / 4.0
        );
    }
    for (i, order) in orders.iter().enumerate() {
        let x0 = left + i * group_width + gap / 2;
        for (j, layout) in layouts.iter().enumerate() {
            let Some(rs) = groups.get(&(size, order.clone(), layout.clone())) else {
                continue;
            };
            let value = mean(rs.iter().map(|r| r.depth_fraction()));
            let h = (value * height as f64).round() as usize;
            let _ = writeln!(
                out,
                r##"<rect x="{}" y="{}" width="{bar}" height="{h}" fill="{}"><title>{order} / {layout}: {value:.3}</title></rect>"##,
                x0 + j * bar,
                top + height - h,
                PALETTE[j % PALETTE.len()]
            );
        }
        let lx = x0 + bar * layouts.len() / 2;
        let ly = top + height + 8;
        let _ = writeln!(
            out,
            r##"<text x="{lx}" y="{ly}" transform="rotate(45 {lx} {ly})">{order}</text>"##
        );
    }
    for (j, layout) in layouts.iter().enumerate() {
        let x = left + group_width * orders.len() + 20;
        let y = top + 14 * j;
        let _ = writeln!(
            out,
            r##"<rect x="{x}" y="{y}" width="10" height="10" fill="{}"/><text x="{}" y="{}">{layout}</text>"##,
            PALETTE[j % PALETTE.len()],
            x + 14,
            y + 9
        );
    }
    out.push_str("</svg>\n");
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::order::FillOrder;
    use crate::study::grid::RunSpec;

    /// A result that only names its cell of the grid: the floor table is
    /// a function of the sizes and layouts present.
    fn named(size: usize, layout: Layout) -> RunResult {
        RunResult {
            run: RunSpec {
                size,
                seed: 1,
                order: FillOrder::RowMajor,
                layout,
                budget_nodes: 1,
            },
            pinned: 0,
            floor: 0,
            depth: 0,
            searchable: size * size,
            solved: false,
            score: 0,
            max_score: crate::score::max_score(size, size),
            nodes: 0,
            board_hash: 0,
        }
    }

    fn floor_row<'a>(report: &'a str, layout: &str) -> &'a str {
        let start = format!("| {layout} |");
        report
            .lines()
            .find(|l| l.starts_with(&start))
            .unwrap_or_else(|| panic!("no floor row for {layout} in\n{report}"))
    }

    #[test]
    fn the_floor_table_shows_the_hand_counted_floors() {
        let results: Vec<RunResult> = [16, 8]
            .into_iter()
            .flat_map(|s| crate::layouts::ALL_LAYOUTS.map(|l| named(s, l)))
            .collect();
        let report = markdown(&results);
        // Hand counts at 16×16: five scattered clues touch
        // nothing; a 4×4 block has 4 rows of 3 and 4 columns of 3 seams,
        // 24; five disjoint blocks 5 × 24 = 120, a quarter of 480; the
        // lattice never touches itself. At 8×8 the block is 2×2: 4 seams.
        assert_eq!(floor_row(&report, "none"), "| none | 0 / 0 | 0 / 0 |");
        assert!(floor_row(&report, "official5").starts_with("| official5 | 5 / 0 |"));
        assert!(floor_row(&report, "block").starts_with("| block | 16 / 24 | 4 / 4 |"));
        assert!(floor_row(&report, "blocks5").starts_with("| blocks5 | 80 / 120 |"));
        assert!(floor_row(&report, "lattice").starts_with("| lattice | 16 / 0 |"));
    }
}
