//! What a user-facing command needs to talk to a coordinator.
//!
//! [`Client`] wraps the generated client with the bearer token and message
//! limits and turns gRPC statuses into errors that read well on a terminal.
//! [`status_json`], [`ledger_json`] and [`progress_line`] render answers the
//! way `e2 status`, `e2 status --ledger` and `e2 watch` print them, so the
//! CLI stays a thin layer and the embedded runner prints the same lines.

use std::time::Duration;

use anyhow::{anyhow, Result};
use e2_proto::auth::BearerToken;
use e2_proto::pb::client_service_client::ClientServiceClient;
use e2_proto::pb::{self, JobStatus};
use e2_proto::tls::ClientTls;
use e2_shared::engine::Engine;
use serde_json::{json, Value};
use tonic::codegen::InterceptedService;
use tonic::transport::Channel;
use tonic::Streaming;

/// Options of `e2 submit`.
#[derive(Debug, Clone)]
pub struct SubmitOptions {
    pub mode: pb::Mode,
    pub engine: Engine,
    /// Best jobs: stop after this long.
    pub time_limit: Option<Duration>,
    /// Best jobs: stop at this score (default: the maximum).
    pub target_score: Option<u32>,
    /// Best jobs: boards to keep.
    pub top_k: Option<u32>,
    /// Best jobs: fill order, breaks, whole-tree run (`None`: the defaults).
    pub search: Option<pb::SearchSettings>,
    /// Count jobs: the share of finished tasks recounted on another worker.
    pub verify: Option<f64>,
    /// Count jobs: count the whole tree, without the rotation reduction ...
    pub no_symmetry: bool,
    /// ... and walk this fill order (`None`: the smallest estimated tree).
    pub count_order: Option<String>,
}

impl SubmitOptions {
    pub fn count(engine: Engine) -> Self {
        SubmitOptions {
            mode: pb::Mode::Count,
            engine,
            time_limit: None,
            target_score: None,
            top_k: None,
            search: None,
            verify: None,
            no_symmetry: false,
            count_order: None,
        }
    }

    pub fn best(engine: Engine) -> Self {
        SubmitOptions {
            mode: pb::Mode::Best,
            ..SubmitOptions::count(engine)
        }
    }
}

#[derive(Clone)]
pub struct Client {
    inner: ClientServiceClient<InterceptedService<Channel, BearerToken>>,
}

/// An error and its sources on one line, each said once.
fn error_chain(e: &(dyn std::error::Error + 'static)) -> String {
    let mut parts: Vec<String> = Vec::new();
    let mut next = Some(e);
    while let Some(err) = next {
        let text = err.to_string();
        if !parts.iter().any(|p| p.contains(&text)) {
            parts.push(text);
        }
        next = err.source();
    }
    parts.join(": ")
}

/// A gRPC status as a one-line error: the coordinator's own words.
fn rpc_error(s: tonic::Status) -> anyhow::Error {
    match s.code() {
        tonic::Code::Unavailable => anyhow!("coordinator unavailable: {}", s.message()),
        tonic::Code::Unauthenticated => anyhow!("refused by the coordinator: {}", s.message()),
        tonic::Code::Cancelled | tonic::Code::DeadlineExceeded => {
            anyhow!(
                "the coordinator did not answer in time (--timeout): {}",
                s.message()
            )
        }
        _ => anyhow!("{}", s.message()),
    }
}

/// How long a client waits: for the connection (TCP and the HTTP/2
/// handshake), and for each answer. A coordinator that accepts and never
/// answers is an error after these, never a hang.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Timeouts {
    pub connect: Duration,
    pub request: Duration,
}

impl Default for Timeouts {
    fn default() -> Self {
        Timeouts {
            connect: Duration::from_secs(5),
            request: Duration::from_secs(30),
        }
    }
}

/// Checks a coordinator URL before dialling it, so that a typo is named as
/// one (`port 99999 is out of range`) rather than reported as a refused
/// connection.
pub fn check_url(url: &str) -> Result<()> {
    let rest = url
        .strip_prefix("http://")
        .or_else(|| url.strip_prefix("https://"))
        .ok_or_else(|| anyhow!("coordinator address \"{url}\": expected http://HOST:PORT"))?;
    let authority = rest.split('/').next().unwrap_or_default();
    let Some((host, port)) = authority.rsplit_once(':') else {
        anyhow::bail!("coordinator address \"{url}\": no port (expected HOST:PORT)");
    };
    if host.is_empty() {
        anyhow::bail!("coordinator address \"{url}\": no host");
    }
    match port.parse::<u32>() {
        Ok(p) if (1..=65535).contains(&p) => Ok(()),
        Ok(p) => anyhow::bail!("coordinator address \"{url}\": port {p} is out of range 1..=65535"),
        Err(_) => anyhow::bail!("coordinator address \"{url}\": port \"{port}\" is not a number"),
    }
}

impl Client {
    /// Connects to `url` (`http://host:port`) with the default timeouts,
    /// failing if nobody answers.
    pub async fn connect(url: &str, token: Option<&str>) -> Result<Self> {
        Self::connect_with(url, token, Timeouts::default()).await
    }

    /// [`Client::connect`] with explicit timeouts.
    pub async fn connect_with(url: &str, token: Option<&str>, timeouts: Timeouts) -> Result<Self> {
        Self::connect_tls(url, token, timeouts, &ClientTls::default()).await
    }

    /// [`Client::connect_with`], trusting an `https://` coordinator as
    /// `tls` says.
    pub async fn connect_tls(
        url: &str,
        token: Option<&str>,
        timeouts: Timeouts,
        tls: &ClientTls,
    ) -> Result<Self> {
        check_url(url)?;
        let endpoint = e2_proto::tls::endpoint(url, tls)?
            .connect_timeout(timeouts.connect)
            .timeout(timeouts.request);
        let channel = match tokio::time::timeout(timeouts.connect, endpoint.connect()).await {
            Ok(Ok(channel)) => channel,
            Ok(Err(e)) => {
                let hint = e2_proto::tls::handshake_hint(url)
                    .map(|h| format!(" ({h})"))
                    .unwrap_or_default();
                anyhow::bail!(
                    "cannot reach the coordinator at {url}: {}{hint}",
                    error_chain(&e)
                )
            }
            Err(_) => anyhow::bail!(
                "cannot reach the coordinator at {url}: no answer within {:.1} s (--timeout)",
                timeouts.connect.as_secs_f64()
            ),
        };
        let token = BearerToken::new(token).map_err(rpc_error)?;
        let inner = ClientServiceClient::with_interceptor(channel, token)
            .max_decoding_message_size(e2_proto::MAX_MESSAGE_BYTES)
            .max_encoding_message_size(e2_proto::MAX_MESSAGE_BYTES);
        Ok(Client { inner })
    }

    /// Submits Puzzle JSON text; the job id. A puzzle the coordinator
    /// refuses creates no job, and the error says why.
    pub async fn submit(&mut self, puzzle_json: &str, options: &SubmitOptions) -> Result<u64> {
        let request = pb::SubmitRequest {
            puzzle_json: puzzle_json.to_string(),
            mode: options.mode as i32,
            engine: e2_proto::engine_to_wire(options.engine) as i32,
            time_limit_secs: options.time_limit.map_or(0, |t| t.as_secs().max(1)),
            target_score: options.target_score,
            top_k: options.top_k.unwrap_or(0),
            search: options.search.clone(),
            verify_fraction: options.verify.unwrap_or(0.0),
            no_symmetry: options.no_symmetry,
            count_order: options.count_order.clone().unwrap_or_default(),
        };
        Ok(self
            .inner
            .submit(request)
            .await
            .map_err(rpc_error)?
            .into_inner()
            .job_id)
    }

    pub async fn status(&mut self, job_id: u64) -> Result<JobStatus> {
        Ok(self
            .inner
            .status(pb::StatusRequest { job_id })
            .await
            .map_err(rpc_error)?
            .into_inner())
    }

    pub async fn list(&mut self) -> Result<Vec<JobStatus>> {
        Ok(self
            .inner
            .list_jobs(pb::ListJobsRequest {})
            .await
            .map_err(rpc_error)?
            .into_inner()
            .jobs)
    }

    /// The best `top` boards as BoardDoc JSON, best first.
    pub async fn best(&mut self, job_id: u64, top: u32) -> Result<Vec<String>> {
        Ok(self
            .inner
            .best(pb::BestRequest { job_id, top })
            .await
            .map_err(rpc_error)?
            .into_inner()
            .board_docs)
    }

    pub async fn cancel(&mut self, job_id: u64) -> Result<JobStatus> {
        Ok(self
            .inner
            .cancel(pb::CancelRequest { job_id })
            .await
            .map_err(rpc_error)?
            .into_inner())
    }

    pub async fn watch(&mut self, job_id: u64) -> Result<Streaming<JobStatus>> {
        Ok(self
            .inner
            .watch(pb::WatchRequest { job_id })
            .await
            .map_err(rpc_error)?
            .into_inner())
    }

    /// Every task of a job, as durable on the coordinator's disk.
    pub async fn ledger(&mut self, job_id: u64) -> Result<Vec<pb::TaskEntry>> {
        Ok(self
            .inner
            .ledger(pb::LedgerRequest { job_id })
            .await
            .map_err(rpc_error)?
            .into_inner()
            .tasks)
    }
}

pub fn state_name(s: &JobStatus) -> &'static str {
    match pb::JobState::try_from(s.state) {
        Ok(pb::JobState::Queued) => "queued",
        Ok(pb::JobState::Running) => "running",
        Ok(pb::JobState::Done) => "done",
        Ok(pb::JobState::Cancelled) => "cancelled",
        Ok(pb::JobState::Failed) => "failed",
        _ => "unknown",
    }
}

pub fn is_over(s: &JobStatus) -> bool {
    matches!(state_name(s), "done" | "cancelled" | "failed")
}

fn mode_name(s: &JobStatus) -> &'static str {
    match pb::Mode::try_from(s.mode) {
        Ok(pb::Mode::Best) => "best",
        _ => "count",
    }
}

/// The JSON `e2 status JOB` prints.
pub fn status_json(s: &JobStatus) -> Value {
    let mut v = json!({
        "job": s.job_id,
        "state": state_name(s),
        "mode": mode_name(s),
        "engine": e2_proto::engine_from_wire(s.engine).map_or("unknown", |e| e.name()),
        "puzzle": s.puzzle_name,
        "tasks_done": s.tasks_done,
        "rounds_done": s.rounds_done,
        "tasks_total": s.tasks_total,
        "tasks_running": s.tasks_running,
        "nodes": s.nodes,
        "nodes_per_sec": s.nodes_per_sec.round(),
        "elapsed_secs": (s.elapsed_secs * 10.0).round() / 10.0,
        "workers": s.workers,
    });
    let map = v.as_object_mut().expect("object");
    match mode_name(s) {
        "count" => {
            map.insert("solutions".into(), json!(s.solutions));
            if !s.labelled_solutions.is_empty() {
                map.insert("labelled_solutions".into(), labelled(&s.labelled_solutions));
            }
            if !s.symmetry.is_empty() {
                map.insert("symmetry".into(), json!(s.symmetry));
                map.insert("symmetry_factor".into(), json!(s.symmetry_factor));
            }
            if !s.count_order.is_empty() {
                map.insert("order".into(), json!(s.count_order));
                map.insert("order_chosen".into(), json!(s.count_order_chosen));
            }
            if s.estimated_nodes > 0 {
                map.insert("estimated_nodes".into(), json!(s.estimated_nodes));
            }
            if let Some(eta) = s.eta_secs {
                map.insert("eta_secs".into(), json!(eta.round()));
            }
            if let Some(v) = &s.verify {
                map.insert("verify".into(), verify_json(v));
            }
        }
        _ => {
            map.insert("best_score".into(), json!(s.best_score));
            map.insert("max_score".into(), json!(s.max_score));
        }
    }
    if !s.error.is_empty() {
        map.insert("error".into(), json!(s.error));
    }
    v
}

/// A labelled count as JSON: a number while it fits in a `u64`, else the
/// decimal string.
pub fn labelled(decimal: &str) -> Value {
    decimal
        .parse::<u64>()
        .map_or_else(|_| json!(decimal), |n| json!(n))
}

/// How a verified count's checks stand, as `e2 status` prints them.
fn verify_json(v: &pb::VerifyStatus) -> Value {
    let wrong: Vec<Value> = v
        .wrong
        .iter()
        .map(|w| {
            json!({
                "worker": w.worker_id,
                "name": w.name,
                "task": w.task_id,
                "said": w.said,
                "found": w.found,
            })
        })
        .collect();
    let mut out = json!({
        "fraction": v.fraction,
        "sampled": v.sampled,
        "agreed": v.agreed,
        "corrected": v.corrected,
        "pending": v.pending,
        "recounts": v.recounts,
        "recount_nodes": v.recount_nodes,
        "wrong_workers": wrong,
    });
    if !v.waiting.is_empty() {
        out["waiting"] = json!(v.waiting);
    }
    out
}

/// The JSON `e2 status JOB --ledger` prints: one entry per task.
pub fn ledger_json(tasks: &[pb::TaskEntry]) -> Value {
    Value::Array(
        tasks
            .iter()
            .map(|t| {
                json!({
                    "task": t.task_id,
                    "parent": t.parent,
                    "state": t.state,
                    "leases": t.leases,
                    "completions": t.completions,
                    "ignored_completions": t.ignored_completions,
                    "solutions": t.solutions,
                    "nodes": t.nodes,
                    "splits": t.split_seq,
                    "prefix": serde_json::from_str::<Value>(&t.prefix_json).unwrap_or(Value::Null),
                    "has_checkpoint": t.has_checkpoint,
                    "recount_of": t.recount_of,
                    "done_by": t.done_by,
                    "check": t.check,
                    "engine": t.engine,
                })
            })
            .collect(),
    )
}

/// One line of `e2 watch`: tasks, rate, best score or count, ETA.
pub fn progress_line(s: &JobStatus) -> String {
    let tasks = if s.rounds_done > 0 || (mode_name(s) == "best" && s.tasks_done == 0) {
        format!("{} tasks, {} rounds done", s.tasks_total, s.rounds_done)
    } else {
        format!("tasks {}/{}", s.tasks_done, s.tasks_total)
    };
    let mut line = format!(
        "job {} {}: {tasks} ({} running), {}/s",
        s.job_id,
        state_name(s),
        s.tasks_running,
        human(s.nodes_per_sec)
    );
    if mode_name(s) == "count" {
        line += &format!(", {} solutions so far", s.solutions);
        if let Some(v) = &s.verify {
            line += &format!(
                ", checked {}/{} ({} pending)",
                v.agreed + v.corrected,
                v.sampled,
                v.pending
            );
            for w in &v.wrong {
                line += &format!(", WRONG: worker {} ({})", w.worker_id, w.name);
            }
        }
        match s.eta_secs {
            Some(eta) if !is_over(s) => line += &format!(", ETA {}", human_duration(eta)),
            _ => {}
        }
    } else {
        match s.best_score {
            Some(b) => line += &format!(", best {b}/{}", s.max_score),
            None => line += ", no board yet",
        }
    }
    line += &format!(", {} elapsed", human_duration(s.elapsed_secs));
    if !s.error.is_empty() {
        line += &format!(": {}", s.error);
    }
    line
}

fn human(rate: f64) -> String {
    match rate {
        r if r >= 1e9 => format!("{:.2}G nodes", r / 1e9),
        r if r >= 1e6 => format!("{:.2}M nodes", r / 1e6),
        r if r >= 1e3 => format!("{:.1}k nodes", r / 1e3),
        r => format!("{r:.0} nodes"),
    }
}

fn human_duration(secs: f64) -> String {
    let s = secs.max(0.0).round() as u64;
    match s {
        s if s >= 3600 => format!("{}h{:02}m", s / 3600, s % 3600 / 60),
        s if s >= 60 => format!("{}m{:02}s", s / 60, s % 60),
        s => format!("{s}s"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn status_json_has_the_promised_fields() {
        let s = JobStatus {
            job_id: 3,
            state: pb::JobState::Running as i32,
            mode: pb::Mode::Count as i32,
            tasks_done: 2,
            tasks_total: 5,
            solutions: 7,
            ..Default::default()
        };
        let v = status_json(&s);
        assert_eq!(v["state"], "running");
        assert_eq!(v["mode"], "count");
        assert_eq!(
            (v["tasks_done"].as_u64(), v["tasks_total"].as_u64()),
            (Some(2), Some(5))
        );
        assert_eq!(v["solutions"], 7);
        let best = JobStatus {
            mode: pb::Mode::Best as i32,
            best_score: Some(12),
            ..s
        };
        assert_eq!(status_json(&best)["best_score"], 12);
        assert!(progress_line(&best).contains("best 12/"));
    }
}
