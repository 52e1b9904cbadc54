//! The coordinator's figures in the Prometheus text exposition format
//! (version 0.0.4), served at `GET /metrics`.
//!
//! Every figure is derived from one [`Snapshot`] of the ledger, so a scrape
//! is consistent with itself and costs one lock. Counters are figures that
//! only grow while the process lives (nodes reported since start) or for
//! the life of a job (solutions, which sled keeps across restarts);
//! everything else is a gauge. Per-job series carry a `job` label (the job
//! id); what a job is (mode, engine, puzzle, state) sits in `e2_job_info`,
//! so that a state change does not start a new series of every figure.

use std::fmt::Write;

use e2_proto::pb;

use super::Snapshot;
use crate::client::state_name;
use crate::ledger::JobFigures;

pub const CONTENT_TYPE: &str = "text/plain; version=0.0.4; charset=utf-8";

/// Job states as `e2 status` names them, in lifecycle order.
const JOB_STATES: [(pb::JobState, &str); 5] = [
    (pb::JobState::Queued, "queued"),
    (pb::JobState::Running, "running"),
    (pb::JobState::Done, "done"),
    (pb::JobState::Cancelled, "cancelled"),
    (pb::JobState::Failed, "failed"),
];

/// The whole exposition.
pub fn render(snapshot: &Snapshot) -> String {
    let mut out = Exposition::default();
    let jobs = &snapshot.jobs;

    out.family(
        "e2_nodes_searched_total",
        "counter",
        "Search nodes workers reported to this coordinator since it started, all jobs.",
    );
    out.sample(
        "e2_nodes_searched_total",
        &[],
        jobs.iter().map(|j| j.nodes_reported).sum::<u64>(),
    );

    out.family(
        "e2_workers_connected",
        "gauge",
        "Workers registered and seen within the last ten lease TTLs.",
    );
    out.sample("e2_workers_connected", &[], snapshot.workers as u64);

    out.family("e2_jobs", "gauge", "Jobs by state.");
    for (state, name) in JOB_STATES {
        let n = jobs
            .iter()
            .filter(|j| j.status.state == state as i32)
            .count();
        out.sample("e2_jobs", &[("state", name)], n as u64);
    }

    out.family(
        "e2_job_info",
        "gauge",
        "Always 1; the labels say what the job is and its state.",
    );
    for j in jobs {
        let s = &j.status;
        out.sample(
            "e2_job_info",
            &[
                ("job", &s.job_id.to_string()),
                ("mode", mode_name(s.mode)),
                ("engine", engine_name(s.engine)),
                ("puzzle", &s.puzzle_name),
                ("state", state_name(s)),
            ],
            1,
        );
    }

    per_job(
        &mut out,
        jobs,
        "e2_job_nodes_searched_total",
        "counter",
        "Search nodes workers reported for the job since this coordinator started.",
        |j| Some(j.nodes_reported),
    );
    per_job(
        &mut out,
        jobs,
        "e2_job_nodes",
        "gauge",
        "Search nodes of the job over its whole life: finished tasks plus leases in flight (as `e2 status`).",
        |j| Some(j.status.nodes),
    );

    out.family(
        "e2_tasks",
        "gauge",
        "Tasks by state: queued (waiting for a lease), leased, done (finished for good; best-job tasks go round again and never are).",
    );
    for j in jobs {
        let job = j.status.job_id.to_string();
        for (state, n) in [
            ("queued", j.tasks_queued),
            ("leased", j.tasks_leased),
            ("done", j.tasks_done),
        ] {
            out.sample("e2_tasks", &[("job", &job), ("state", state)], n);
        }
    }

    per_job(
        &mut out,
        jobs,
        "e2_job_tasks_created",
        "gauge",
        "Tasks the job has had: its first cut plus every split.",
        |j| Some(j.status.tasks_total),
    );
    per_job(
        &mut out,
        jobs,
        "e2_job_completions_total",
        "counter",
        "Completions the job accepted: finished tasks (count jobs) or finished rounds (best jobs).",
        |j| Some(j.status.tasks_done + j.status.rounds_done),
    );
    per_job(
        &mut out,
        jobs,
        "e2_job_solutions_total",
        "counter",
        "Count jobs: solutions counted so far, from finished tasks, each task added once.",
        |j| (j.status.mode == pb::Mode::Count as i32).then_some(j.status.solutions),
    );
    per_job(
        &mut out,
        jobs,
        "e2_job_best_score",
        "gauge",
        "Best jobs: the score of the best board kept (matched interior seams).",
        |j| j.status.best_score.map(u64::from),
    );
    per_job(
        &mut out,
        jobs,
        "e2_job_max_score",
        "gauge",
        "The highest score a board of the job's size can have.",
        |j| Some(u64::from(j.status.max_score)),
    );
    out.text
}

/// One family with a `job`-labelled sample per job that has the figure.
fn per_job(
    out: &mut Exposition,
    jobs: &[JobFigures],
    name: &str,
    kind: &str,
    help: &str,
    figure: impl Fn(&JobFigures) -> Option<u64>,
) {
    out.family(name, kind, help);
    for j in jobs {
        if let Some(value) = figure(j) {
            out.sample(name, &[("job", &j.status.job_id.to_string())], value);
        }
    }
}

#[derive(Default)]
struct Exposition {
    text: String,
}

impl Exposition {
    fn family(&mut self, name: &str, kind: &str, help: &str) {
        let _ = writeln!(self.text, "# HELP {name} {}", escape_help(help));
        let _ = writeln!(self.text, "# TYPE {name} {kind}");
    }

    fn sample(&mut self, name: &str, labels: &[(&str, &str)], value: u64) {
        self.text.push_str(name);
        if !labels.is_empty() {
            let pairs: Vec<String> = labels
                .iter()
                .map(|(k, v)| format!("{k}=\"{}\"", escape_label(v)))
                .collect();
            let _ = write!(self.text, "{{{}}}", pairs.join(","));
        }
        let _ = writeln!(self.text, " {value}");
    }
}

/// Label values escape backslash, double quote and line feed.
fn escape_label(value: &str) -> String {
    value
        .replace('\\', "\\\\")
        .replace('"', "\\\"")
        .replace('\n', "\\n")
}

/// Help text escapes backslash and line feed.
fn escape_help(text: &str) -> String {
    text.replace('\\', "\\\\").replace('\n', "\\n")
}

fn mode_name(mode: i32) -> &'static str {
    match pb::Mode::try_from(mode) {
        Ok(pb::Mode::Count) => "count",
        Ok(pb::Mode::Best) => "best",
        _ => "unknown",
    }
}

fn engine_name(engine: i32) -> &'static str {
    e2_proto::engine_from_wire(engine).map_or("unknown", |e| e.name())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn job(id: u64, mode: pb::Mode, best: Option<u32>) -> JobFigures {
        JobFigures {
            status: pb::JobStatus {
                job_id: id,
                state: pb::JobState::Running as i32,
                mode: mode as i32,
                puzzle_name: "a \"quoted\" name".into(),
                tasks_total: 7,
                tasks_done: 3,
                solutions: 12,
                best_score: best,
                max_score: 40,
                nodes: 900,
                ..Default::default()
            },
            tasks_queued: 2,
            tasks_leased: 2,
            tasks_done: 3,
            nodes_reported: 500,
            best_doc: None,
        }
    }

    fn value(text: &str, series: &str) -> Option<u64> {
        text.lines()
            .find_map(|l| l.strip_prefix(series)?.strip_prefix(' ')?.parse().ok())
    }

    #[test]
    fn every_figure_appears_with_its_labels() {
        let snapshot = Snapshot {
            jobs: vec![
                job(1, pb::Mode::Count, None),
                job(2, pb::Mode::Best, Some(31)),
            ],
            workers: 3,
        };
        let text = render(&snapshot);
        assert_eq!(value(&text, "e2_nodes_searched_total"), Some(1000));
        assert_eq!(value(&text, "e2_workers_connected"), Some(3));
        assert_eq!(value(&text, "e2_jobs{state=\"running\"}"), Some(2));
        assert_eq!(value(&text, "e2_jobs{state=\"done\"}"), Some(0));
        assert_eq!(
            value(&text, "e2_tasks{job=\"1\",state=\"leased\"}"),
            Some(2)
        );
        assert_eq!(value(&text, "e2_job_solutions_total{job=\"1\"}"), Some(12));
        assert_eq!(value(&text, "e2_job_solutions_total{job=\"2\"}"), None);
        assert_eq!(value(&text, "e2_job_best_score{job=\"2\"}"), Some(31));
        assert_eq!(value(&text, "e2_job_best_score{job=\"1\"}"), None);
        assert!(
            text.contains(r#"puzzle="a \"quoted\" name""#),
            "label values are escaped:\n{text}"
        );
        // Every sample belongs to a family declared just before it.
        let mut declared = std::collections::HashSet::new();
        for line in text.lines() {
            if let Some(rest) = line.strip_prefix("# TYPE ") {
                declared.insert(rest.split(' ').next().unwrap().to_string());
            } else if !line.starts_with('#') {
                let name = line.split(['{', ' ']).next().unwrap();
                assert!(declared.contains(name), "{name} has no TYPE line");
            }
        }
    }
}
