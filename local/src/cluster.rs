//! A coordinator and workers serving on 127.0.0.1 inside this process.
//!
//! What a command that speaks to a cluster through
//! [`e2_coordinator::Client`] uses when it has no cluster (`e2 experiment
//! --embedded`), and what the embedded runner starts under the hood.

use std::path::PathBuf;

use anyhow::{Context, Result};
use e2_coordinator::ledger::LedgerConfig;
use e2_coordinator::server::{CoordinatorConfig, Running};
use e2_worker::WorkerConfig;
use tokio_util::sync::CancellationToken;

/// A coordinator and one worker serving on 127.0.0.1 inside this process,
/// over a temporary data directory: what a command that speaks to a
/// cluster through [`e2_coordinator::Client`] uses when it has no cluster.
pub struct LocalCluster {
    running: Running,
    stop_server: CancellationToken,
    stop_worker: CancellationToken,
    worker: tokio::task::JoinHandle<Result<e2_worker::WorkerSummary, e2_worker::WorkerError>>,
    _data: tempfile::TempDir,
}

impl LocalCluster {
    /// Starts the coordinator on an ephemeral port and a worker with
    /// `threads` engine threads dialling it.
    pub async fn start(threads: usize) -> Result<Self> {
        let data = tempfile::tempdir().context("cannot create a temporary data directory")?;
        let (running, stop_server) =
            start_loopback(data.path().to_path_buf(), LedgerConfig::default(), None).await?;
        let stop_worker = CancellationToken::new();
        let worker = tokio::spawn(e2_worker::run(
            WorkerConfig::new(running.url(), threads.max(1)),
            stop_worker.clone(),
        ));
        Ok(LocalCluster {
            running,
            stop_server,
            stop_worker,
            worker,
            _data: data,
        })
    }

    /// `http://127.0.0.1:port`, for [`e2_coordinator::Client::connect`].
    pub fn url(&self) -> String {
        self.running.url()
    }

    /// Stops the worker, then the coordinator, and removes the data.
    pub async fn shutdown(self) -> Result<()> {
        self.stop_worker.cancel();
        let worked = self.worker.await.context("worker task")?;
        self.stop_server.cancel();
        self.running.wait().await?;
        worked?;
        Ok(())
    }
}

/// Starts a coordinator without a token on an ephemeral 127.0.0.1 port;
/// cancelling the returned token stops it.
pub(crate) async fn start_loopback(
    data_dir: PathBuf,
    ledger: LedgerConfig,
    backup: Option<e2_coordinator::backup::Schedule>,
) -> Result<(Running, CancellationToken)> {
    let config = CoordinatorConfig {
        data_dir,
        token: None,
        ledger,
        ops: Default::default(),
        tls: None,
        backup,
    };
    let stop = CancellationToken::new();
    let running = e2_coordinator::server::start(
        config,
        "127.0.0.1:0".parse().expect("literal"),
        stop.clone(),
    )
    .await?;
    Ok((running, stop))
}
