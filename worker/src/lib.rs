//! # e2-worker: runs engines for a coordinator
//!
//! A worker registers with a coordinator, then runs one *slot* per thread.
//! Each slot leases a task, runs it on a blocking thread through the
//! engine contract (`e2_shared::engine`), and meanwhile keeps its lease alive with heartbeats, ships
//! checkpoints at an interval, and gives work away when the coordinator asks
//! for a split. The worker owns no durable state: everything it must not
//! lose travels to the coordinator, which acknowledges only after writing it
//! to disk, so a killed worker costs at most one checkpoint interval of work.
//!
//! While the coordinator is unreachable every call is retried with
//! exponential backoff; on shutdown (SIGTERM, Ctrl-C: the caller cancels the
//! token) every running task is stopped and handed back with its checkpoint.
//!
//! Each task's protocol (heartbeats, slices, splits, release, completion)
//! is a pure state machine in `machine`, tested on a logical clock; `task`
//! drives it with the real clock, engine threads and RPCs.

mod machine;
mod session;
mod task;

use std::sync::Arc;

use tokio_util::sync::CancellationToken;

pub use session::WorkerError;

/// How to reach the coordinator and how much work to take.
#[derive(Debug, Clone)]
pub struct WorkerConfig {
    /// `http://host:port` of the coordinator.
    pub coordinator: String,
    pub token: Option<String>,
    /// Engine threads (slots); each runs one task at a time.
    pub threads: usize,
    /// Shown in the coordinator's log.
    pub name: String,
    /// How to trust an `https://` coordinator (plaintext for `http://`).
    pub tls: e2_proto::tls::ClientTls,
    /// The protocol version announced at registration. Always
    /// [`e2_proto::PROTOCOL_VERSION`] except in tests of the refusal.
    pub protocol_version: u32,
}

impl WorkerConfig {
    pub fn new(coordinator: impl Into<String>, threads: usize) -> Self {
        WorkerConfig {
            coordinator: coordinator.into(),
            token: None,
            threads: threads.max(1),
            name: default_name(),
            tls: Default::default(),
            protocol_version: e2_proto::PROTOCOL_VERSION,
        }
    }
}

/// `hostname-pid`, or `worker-pid` when the host has no name to give.
pub fn default_name() -> String {
    let host = std::fs::read_to_string("/proc/sys/kernel/hostname")
        .map(|h| h.trim().to_string())
        .unwrap_or_default();
    let host = if host.is_empty() {
        "worker".to_string()
    } else {
        host
    };
    format!("{host}-{}", std::process::id())
}

/// What a worker did before it stopped.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct WorkerSummary {
    /// Completions the coordinator counted.
    pub tasks_completed: u64,
    /// Tasks handed back on shutdown.
    pub tasks_released: u64,
    /// Tasks dropped because their lease was gone.
    pub tasks_abandoned: u64,
}

/// Runs until `shutdown` is cancelled, or fails at once when the
/// coordinator refuses the registration (wrong protocol version or token).
pub async fn run(
    config: WorkerConfig,
    shutdown: CancellationToken,
) -> Result<WorkerSummary, WorkerError> {
    let session = Arc::new(session::Session::connect(&config)?);
    tracing::info!(coordinator = %config.coordinator, "registering");
    match session.register(&shutdown).await {
        Ok(()) => {}
        // Stopped before the coordinator ever answered: a clean stop.
        Err(session::CallError::GaveUp) => return Ok(WorkerSummary::default()),
        Err(e) => return Err(e.into()),
    }
    tracing::info!(name = %config.name, threads = config.threads, "worker registered");
    let mut slots = Vec::new();
    for slot in 0..config.threads {
        let session = Arc::clone(&session);
        let shutdown = shutdown.clone();
        slots.push(tokio::spawn(async move {
            task::slot_loop(slot, session, shutdown).await
        }));
    }
    let mut summary = WorkerSummary::default();
    let mut failure = None;
    for slot in slots {
        match slot.await {
            Ok(Ok(s)) => {
                summary.tasks_completed += s.tasks_completed;
                summary.tasks_released += s.tasks_released;
                summary.tasks_abandoned += s.tasks_abandoned;
            }
            Ok(Err(e)) => {
                // One slot refused means all are: stop the others too.
                shutdown.cancel();
                failure.get_or_insert(e);
            }
            Err(join) => {
                shutdown.cancel();
                failure.get_or_insert(WorkerError::Internal(join.to_string()));
            }
        }
    }
    match failure {
        Some(e) => Err(e),
        None => Ok(summary),
    }
}
