//! The status page: one server-rendered HTML page at `GET /` listing every
//! job with its progress and, for best jobs, the best board drawn as SVG
//! with its eternity2.dev link.
//!
//! The page is for a person glancing at a cluster, so it needs no script
//! and no assets: the boards are the inline SVG `e2 render` writes
//! (`e2_shared::render::svg`), the link is the `url` field of the kept
//! BoardDoc, and a refresh meta tag keeps it current. Everything taken from
//! a job (puzzle names, errors, links) is HTML-escaped.

use std::fmt::Write;

use e2_proto::pb;
use e2_shared::formats::boarddoc::BoardDoc;

use super::Snapshot;
use crate::client::state_name;
use crate::ledger::JobFigures;

/// Seconds between the page's automatic reloads.
const REFRESH_SECS: u32 = 5;

const STYLE: &str = "body{font-family:system-ui,sans-serif;margin:1.5em;color:#222}\
table{border-collapse:collapse}td,th{padding:.3em .8em;border-bottom:1px solid #ddd;text-align:left}\
td.n{text-align:right;font-variant-numeric:tabular-nums}\
section.board{margin:1.5em 0}section.board svg{max-width:100%;height:auto}\
.failed{color:#b00020}";

/// The whole page.
pub fn render(snapshot: &Snapshot) -> String {
    let mut html = String::new();
    let _ = write!(
        html,
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\
         <meta http-equiv=\"refresh\" content=\"{REFRESH_SECS}\">\
         <title>e2 coordinator</title><style>{STYLE}</style></head><body>\n\
         <h1>e2 coordinator</h1>\n<p>{} job(s), {} worker(s) connected.</p>\n",
        snapshot.jobs.len(),
        snapshot.workers
    );
    if snapshot.jobs.is_empty() {
        html.push_str("<p>No jobs yet: submit one with <code>e2 submit</code>.</p>\n");
    } else {
        jobs_table(&mut html, &snapshot.jobs);
        for job in snapshot.jobs.iter().rev() {
            if let Some(doc) = &job.best_doc {
                best_board(&mut html, job, doc);
            }
        }
    }
    html.push_str("</body></html>\n");
    html
}

fn jobs_table(html: &mut String, jobs: &[JobFigures]) {
    html.push_str(
        "<table class=\"jobs\"><thead><tr><th>job</th><th>puzzle</th><th>mode</th>\
         <th>state</th><th>tasks done / total</th><th>running</th><th>solutions</th>\
         <th>best score</th><th>nodes</th><th>elapsed</th></tr></thead><tbody>\n",
    );
    for j in jobs {
        let s = &j.status;
        let count = s.mode == pb::Mode::Count as i32;
        let best = s
            .best_score
            .map_or("–".to_string(), |b| format!("{b} / {}", s.max_score));
        let state = state_name(s);
        let _ = writeln!(
            html,
            "<tr id=\"job-{id}\"><td class=\"n\">{id}</td><td>{puzzle}</td><td>{mode}</td>\
             <td class=\"{state}\">{state}{error}</td><td class=\"n\">{progress}</td>\
             <td class=\"n\">{running}</td><td class=\"n\">{solutions}</td><td class=\"n\">{best}</td>\
             <td class=\"n\">{nodes}</td><td class=\"n\">{elapsed:.0} s</td></tr>",
            id = s.job_id,
            puzzle = escape(&s.puzzle_name),
            mode = if count { "count" } else { "best" },
            error = if s.error.is_empty() {
                String::new()
            } else {
                format!(": {}", escape(&s.error))
            },
            progress = if count {
                format!("{} / {}", s.tasks_done, s.tasks_total)
            } else {
                // A best job's tasks go round again: what is done is rounds.
                format!("{} rounds on {} tasks", s.rounds_done, s.tasks_total)
            },
            running = s.tasks_running,
            solutions = if count {
                s.solutions.to_string()
            } else {
                "–".to_string()
            },
            nodes = s.nodes,
            elapsed = s.elapsed_secs,
        );
    }
    html.push_str("</tbody></table>\n");
}

/// The job's best board as inline SVG with its link; a board that does not
/// parse is reported in its place rather than hiding the rest of the page.
fn best_board(html: &mut String, job: &JobFigures, doc: &str) {
    let id = job.status.job_id;
    let drawn = BoardDoc::parse(doc).and_then(|d| {
        let input = d.to_input()?;
        let pins: Vec<usize> = input.hints.iter().map(|p| p.pos).collect();
        let svg = e2_shared::render::svg(&input.board, &pins, &input.name);
        Ok((d, svg))
    });
    let _ = write!(html, "<section class=\"board\" id=\"best-{id}\">");
    match drawn {
        Ok((d, svg)) => {
            let _ = write!(
                html,
                "<h2>Job {id}: best board, score {} / {} ({} breaks)</h2>\n{svg}\n\
                 <p><a class=\"e2-link\" href=\"{url}\">open on eternity2.dev</a></p>",
                d.score,
                job.status.max_score,
                d.breaks,
                url = escape(&d.url),
            );
        }
        Err(e) => {
            let _ = write!(
                html,
                "<h2>Job {id}</h2><p class=\"failed\">the best board cannot be shown: {}</p>",
                escape(&e.to_string())
            );
        }
    }
    html.push_str("</section>\n");
}

/// Escapes text for HTML content and double-quoted attributes.
fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            _ => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use e2_shared::{Board, Puzzle};

    fn figures(mode: pb::Mode, best_doc: Option<String>) -> JobFigures {
        JobFigures {
            status: pb::JobStatus {
                job_id: 4,
                state: pb::JobState::Running as i32,
                mode: mode as i32,
                puzzle_name: "<tiny>".into(),
                tasks_total: 9,
                tasks_done: 5,
                solutions: 2,
                best_score: best_doc.as_ref().map(|_| 1),
                max_score: 1,
                ..Default::default()
            },
            tasks_queued: 2,
            tasks_leased: 2,
            tasks_done: 5,
            nodes_reported: 10,
            best_doc,
        }
    }

    #[test]
    fn jobs_are_listed_and_names_escaped() {
        let page = render(&Snapshot {
            jobs: vec![figures(pb::Mode::Count, None)],
            workers: 1,
        });
        assert!(page.contains("<tr id=\"job-4\">"), "{page}");
        assert!(page.contains("&lt;tiny&gt;") && !page.contains("<tiny>"));
        assert!(page.contains("5 / 9"), "tasks done / total:\n{page}");
        assert!(!page.contains("e2-board"), "a count job has no board");
    }

    #[test]
    fn a_best_board_is_drawn_with_its_link() {
        let puzzle = Puzzle {
            name: "pair".into(),
            width: 2,
            height: 1,
            num_colors: 1,
            pieces: vec![[0, 1, 0, 0], [0, 0, 0, 1]],
            hints: vec![],
        };
        let board = Board::from_codes(&puzzle, &[0, 4]).unwrap();
        let doc = e2_shared::formats::boarddoc::write("pair", &board, &[]).unwrap();
        let url = BoardDoc::parse(&doc).unwrap().url;
        let page = render(&Snapshot {
            jobs: vec![figures(pb::Mode::Best, Some(doc))],
            workers: 0,
        });
        assert!(page.contains("<svg") && page.contains("class=\"e2-board\""));
        assert!(page.contains(&escape(&url)), "{page}");
        assert!(url.contains("eternity2.dev"), "{url}");
    }
}
