//! Starting and stopping a coordinator.
//!
//! [`start`] opens the data directory (resuming whatever it holds), binds
//! the listener, and serves the worker service, the client service and the
//! standard gRPC health service; the e2 services sit behind the bearer-token
//! check (health answers probes without it), all with bounded message sizes. A sweeper re-queues lapsed leases. The caller
//! owns shutdown through a [`CancellationToken`] (the CLI cancels it on
//! SIGTERM or Ctrl-C); the server then drains, and the store is flushed.
//! The optional operator listeners (metrics, status page; see [`crate::http`])
//! are bound with the gRPC one and stop with it.

use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::{Duration, Instant};

use e2_proto::auth::RequireToken;
use e2_proto::pb::client_service_server::ClientServiceServer;
use e2_proto::pb::worker_service_server::WorkerServiceServer;
use tokio::net::TcpListener;
use tokio::task::JoinHandle;
use tokio_util::sync::CancellationToken;
use tonic::service::interceptor::InterceptedService;
use tonic::transport::server::TcpIncoming;
use tonic::transport::Server;

use crate::http;
use crate::ledger::{Ledger, LedgerConfig};
use crate::service::{Clients, Shared, Workers};
use crate::store::{Store, StoreError};

#[derive(Debug, Clone)]
pub struct CoordinatorConfig {
    /// The sled directory: created if absent, resumed if not.
    pub data_dir: PathBuf,
    /// When set, every RPC must carry `authorization: Bearer <token>`.
    pub token: Option<String>,
    pub ledger: LedgerConfig,
    pub ops: OpsListeners,
    /// Serve gRPC over TLS with this identity (plaintext when `None`).
    pub tls: Option<e2_proto::tls::ServerIdentity>,
    /// Write a backup of the store this often, while serving.
    pub backup: Option<crate::backup::Schedule>,
}

/// Where the operator endpoints listen; each is off when `None`.
#[derive(Debug, Clone, Copy, Default)]
pub struct OpsListeners {
    /// Prometheus metrics at `GET /metrics`.
    pub metrics: Option<SocketAddr>,
    /// The HTML status page at `GET /`.
    pub status_page: Option<SocketAddr>,
}

#[derive(Debug, thiserror::Error)]
pub enum CoordinatorError {
    #[error(transparent)]
    Store(#[from] StoreError),
    #[error("cannot listen on {addr}: {source}")]
    Bind {
        addr: SocketAddr,
        source: std::io::Error,
    },
    #[error("gRPC server: {0}")]
    Transport(#[from] tonic::transport::Error),
    #[error("TLS: the certificate or key does not load: {0}")]
    Tls(String),
    #[error(
        "the coordinator stopped after a failed write ({reason}); what was written before is \
         kept: fix the disk (or free space) and start again on the same --data to resume"
    )]
    StorageFailed { reason: String },
}

/// How long [`Running::wait`] waits for the last holders of the store.
const RELEASE_WAIT: Duration = Duration::from_secs(5);

/// A coordinator serving in the background.
pub struct Running {
    pub addr: SocketAddr,
    /// Where the metrics are served, when they are.
    pub metrics_addr: Option<SocketAddr>,
    /// Where the status page is served, when it is.
    pub status_page_addr: Option<SocketAddr>,
    pub shared: Arc<Shared>,
    server: JoinHandle<Result<(), CoordinatorError>>,
    stopped: CancellationToken,
}

impl Running {
    /// `http://addr`, what workers and clients dial.
    pub fn url(&self) -> String {
        format!("http://{}", self.addr)
    }

    /// Cancelled once the coordinator stops serving, whether its caller
    /// stopped it or a storage failure did ([`Running::wait`] says which).
    pub fn stopped(&self) -> CancellationToken {
        self.stopped.clone()
    }

    /// Waits until the server has stopped and the store is flushed, then
    /// (for up to [`RELEASE_WAIT`]) until no connection task still holds the
    /// store, so that the data directory can be opened again at once, as a
    /// resumed embedded count does in the same process. Callers should drop
    /// their own clones of `shared` first.
    pub async fn wait(self) -> Result<(), CoordinatorError> {
        let served = match self.server.await {
            Ok(r) => r,
            Err(join) => panic!("coordinator task panicked: {join}"),
        };
        let deadline = Instant::now() + RELEASE_WAIT;
        while Arc::strong_count(&self.shared) > 1 && Instant::now() < deadline {
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
        served
    }
}

/// Opens the store, binds `listen` and starts serving. Returns once the
/// listener is bound, so `addr` is known (useful with port 0).
pub async fn start(
    config: CoordinatorConfig,
    listen: SocketAddr,
    shutdown: CancellationToken,
) -> Result<Running, CoordinatorError> {
    let listener = TcpListener::bind(listen)
        .await
        .map_err(|source| CoordinatorError::Bind {
            addr: listen,
            source,
        })?;
    start_on(config, listener, shutdown).await
}

pub async fn start_on(
    config: CoordinatorConfig,
    listener: TcpListener,
    shutdown: CancellationToken,
) -> Result<Running, CoordinatorError> {
    let addr = listener
        .local_addr()
        .map_err(|source| CoordinatorError::Bind {
            addr: "0.0.0.0:0".parse().expect("literal address"),
            source,
        })?;
    let metrics_listener = match config.ops.metrics {
        Some(a) => Some(http::bind(a).await?),
        None => None,
    };
    let status_page_listener = match config.ops.status_page {
        Some(a) => Some(http::bind(a).await?),
        None => None,
    };
    let local = |l: &Option<TcpListener>| l.as_ref().and_then(|l| l.local_addr().ok());
    let (metrics_addr, status_page_addr) = (local(&metrics_listener), local(&status_page_listener));
    let data_dir = config.data_dir.clone();
    let (store, loaded) = tokio::task::spawn_blocking(move || {
        let store = Store::open(&data_dir)?;
        let loaded = store.load()?;
        Ok::<_, StoreError>((store, loaded))
    })
    .await
    .map_err(|e| StoreError::Sled(format!("opening the store: {e}")))??;
    tracing::info!(
        jobs = loaded.jobs.len(),
        tasks = loaded.tasks.len(),
        incarnation = loaded.incarnation,
        "data directory {} opened",
        config.data_dir.display()
    );
    // Internal failures stop this coordinator without touching the caller's token.
    let stop = shutdown.child_token();
    let sweep_every =
        (config.ledger.lease_ttl / 4).clamp(Duration::from_millis(20), Duration::from_millis(500));
    let shared = Shared::new(
        Ledger::new(config.ledger.clone(), loaded),
        store,
        stop.clone(),
    );

    let auth = RequireToken::new(config.token.as_deref());
    let limit = e2_proto::MAX_MESSAGE_BYTES;
    let workers = WorkerServiceServer::new(Workers(Arc::clone(&shared)))
        .max_decoding_message_size(limit)
        .max_encoding_message_size(limit);
    let clients = ClientServiceServer::new(Clients(Arc::clone(&shared)))
        .max_decoding_message_size(limit)
        .max_encoding_message_size(limit);
    let (health, health_service) = tonic_health::server::health_reporter();
    health.set_serving::<WorkerServiceServer<Workers>>().await;
    health.set_serving::<ClientServiceServer<Clients>>().await;

    let sweeper = {
        let (shared, stop) = (Arc::clone(&shared), stop.clone());
        tokio::spawn(async move {
            loop {
                tokio::select! {
                    _ = tokio::time::sleep(sweep_every) => {}
                    _ = stop.cancelled() => return,
                }
                // A storage failure cancels `stop` itself.
                let _ = shared.sweep().await;
            }
        })
    };

    let estimating = tokio::spawn(estimate_old_counts(Arc::clone(&shared), stop.clone()));

    let backups = config
        .backup
        .clone()
        .map(|schedule| tokio::spawn(write_backups(schedule, Arc::clone(&shared), stop.clone())));

    let mut ops = Vec::new();
    if let Some(l) = metrics_listener {
        ops.push(http::serve_metrics(l, Arc::clone(&shared), stop.clone()));
        tracing::info!("metrics at http://{}/metrics", metrics_addr.expect("bound"));
    }
    if let Some(l) = status_page_listener {
        ops.push(http::serve_status_page(
            l,
            Arc::clone(&shared),
            stop.clone(),
        ));
        tracing::info!(
            "status page at http://{}/",
            status_page_addr.expect("bound")
        );
    }

    let mut builder = Server::builder();
    if let Some(identity) = &config.tls {
        builder = builder
            .tls_config(identity.server_config())
            .map_err(|e| CoordinatorError::Tls(e.to_string()))?;
    }
    let router = builder
        // Health answers without the token: Kubernetes' gRPC probes send no
        // headers, and "serving or not" reveals nothing a port scan would not.
        .add_service(health_service)
        .add_service(InterceptedService::new(workers, auth.clone()))
        .add_service(InterceptedService::new(clients, auth));
    let ended = stop.clone();
    let server = {
        let shared = Arc::clone(&shared);
        let outer = shutdown.clone();
        tokio::spawn(async move {
            let stopped = stop.clone();
            let served = router
                .serve_with_incoming_shutdown(incoming(listener), async move {
                    stopped.cancelled().await
                })
                .await;
            health
                .set_not_serving::<WorkerServiceServer<Workers>>()
                .await;
            health
                .set_not_serving::<ClientServiceServer<Clients>>()
                .await;
            stop.cancel();
            let _ = sweeper.await;
            let _ = estimating.await;
            if let Some(backups) = backups {
                let _ = backups.await;
            }
            for listener in ops {
                let _ = listener.await;
            }
            let store = shared.store().clone();
            let flushed = match tokio::task::spawn_blocking(move || store.close()).await {
                Ok(closed) => closed,
                Err(e) => Err(StoreError::Sled(format!("closing the store: {e}"))),
            };
            tracing::info!("coordinator stopped");
            served?;
            if !outer.is_cancelled() {
                // The failure is the news; the last flush fails with it.
                if let Err(e) = flushed {
                    tracing::warn!("the last flush after the failure: {e}");
                }
                let reason = shared.failure().unwrap_or("unknown").to_string();
                return Err(CoordinatorError::StorageFailed { reason });
            }
            // The last flush of a clean stop failed: the same news.
            flushed.map_err(|e| CoordinatorError::StorageFailed {
                reason: e.to_string(),
            })?;
            Ok(())
        })
    };
    Ok(Running {
        addr,
        metrics_addr,
        status_page_addr,
        shared,
        server,
        stopped: ended,
    })
}

/// Gives the planned tasks of large unfinished counts that lack them (counts
/// planned by an e2 from before tasks had estimates) their own estimates,
/// once, in the background while the coordinator serves, so that their
/// time left follows the estimates from then on (docs/cluster.md, "The
/// time left"). The probes run on one blocking thread; a stop abandons
/// what is left, and the next start tries again.
async fn estimate_old_counts(shared: Arc<Shared>, stop: CancellationToken) {
    for count in shared.read(|l, _| l.unestimated_counts()) {
        let (job, tasks) = (count.job, count.tasks.len());
        let work = tokio::task::spawn_blocking(move || {
            let nodes = e2_shared::count_plan::estimate_tasks(
                count.engine,
                &count.parts,
                count.order,
                &count.tasks,
                1,
            );
            count.ids.into_iter().zip(nodes).collect::<Vec<_>>()
        });
        let estimates = tokio::select! {
            done = work => match done {
                Ok(estimates) => estimates,
                Err(_) => continue,
            },
            _ = stop.cancelled() => return,
        };
        if estimates.len() != tasks {
            tracing::warn!(
                job,
                "the tasks of this count could not be estimated; its ETA keeps the mean task size"
            );
            continue;
        }
        if shared
            .apply(|l, _| Ok(((), l.set_estimates(job, &estimates))))
            .await
            .is_err()
        {
            return;
        }
        tracing::info!(
            job,
            tasks,
            "estimated the planned tasks of a count planned without them"
        );
    }
}

/// Writes a backup of the store every `schedule.every` until `stop`, and
/// once more then, after the last change was served (the server awaits
/// this task before it closes the store), so that a clean stop leaves the
/// file as current as the directory; not after a storage failure, whose
/// store holds changes the disk did not take. A backup that fails is
/// logged and tried again at the next turn: the count goes on, and the
/// last good file stays in place.
async fn write_backups(
    schedule: crate::backup::Schedule,
    shared: Arc<Shared>,
    stop: CancellationToken,
) {
    loop {
        let last = tokio::select! {
            _ = tokio::time::sleep(schedule.every) => false,
            _ = stop.cancelled() => true,
        };
        if last && shared.failure().is_some() {
            return;
        }
        let (snapshot_of, path) = (Arc::clone(&shared), schedule.path.clone());
        let written = tokio::task::spawn_blocking(move || {
            let loaded = snapshot_of.snapshot()?;
            crate::backup::write_file(&loaded, &path)
        })
        .await;
        match written {
            Ok(Ok(s)) => tracing::info!(
                jobs = s.jobs,
                tasks = s.tasks,
                best = s.best,
                "backup written to {}",
                schedule.path.display()
            ),
            Ok(Err(e)) => tracing::warn!("backup to {} failed: {e}", schedule.path.display()),
            Err(e) => tracing::warn!("backup to {} failed: {e}", schedule.path.display()),
        }
        if last {
            return;
        }
    }
}

/// The connections the gRPC server accepts, with Nagle's algorithm off, as
/// tonic sets it on listeners it binds itself (this one is bound by
/// [`start`] so that its address is known first). With Nagle on, each small
/// answer waited for the worker's delayed ACK, about 40 ms: every task's
/// completion and next lease cost a slot 40 ms of idling, a fifth of an
/// embedded count whose tasks last 0.2 s.
fn incoming(listener: TcpListener) -> TcpIncoming {
    TcpIncoming::from(listener).with_nodelay(Some(true))
}

#[cfg(test)]
mod tests {
    use tokio_stream::StreamExt;

    use super::*;

    #[tokio::test]
    async fn accepted_connections_have_nagle_off() {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        let mut accepted = incoming(listener);
        let _client = tokio::net::TcpStream::connect(addr).await.unwrap();
        let stream = accepted.next().await.unwrap().unwrap();
        assert!(
            stream.nodelay().unwrap(),
            "an accepted connection delays small answers"
        );
    }
}
