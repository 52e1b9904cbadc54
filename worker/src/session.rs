//! The worker's connection to its coordinator: registration, and calls that
//! survive the coordinator going away.
//!
//! A coordinator may restart at any time (it resumes from disk), so every
//! call is retried with exponential backoff while the failure is transient,
//! and the worker registers again when the coordinator no longer knows it.
//! Only a refusal (wrong protocol version, wrong token) is final.

use std::future::Future;
use std::sync::RwLock;
use std::time::Duration;

use e2_proto::auth::BearerToken;
use e2_proto::pb::worker_service_client::WorkerServiceClient;
use e2_proto::pb::RegisterRequest;
use tokio_util::sync::CancellationToken;
use tonic::codegen::InterceptedService;
use tonic::transport::Channel;
use tonic::{Code, Response, Status};

use crate::WorkerConfig;

pub type WorkerClient = WorkerServiceClient<InterceptedService<Channel, BearerToken>>;

/// The longest a worker waits for one answer before retrying.
const CALL_TIMEOUT: Duration = Duration::from_secs(20);

/// Why a worker stopped for good.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum WorkerError {
    /// The coordinator will never accept this worker as it is.
    #[error("the coordinator refused this worker: {0}")]
    Refused(String),
    #[error("coordinator address \"{address}\": {reason}")]
    Address { address: String, reason: String },
    #[error("worker: {0}")]
    Internal(String),
}

/// Why a retried call gave up.
#[derive(Debug)]
pub enum CallError {
    Refused(String),
    /// The stop token was cancelled before an answer came.
    GaveUp,
}

impl From<CallError> for WorkerError {
    fn from(e: CallError) -> Self {
        match e {
            CallError::Refused(m) => WorkerError::Refused(m),
            CallError::GaveUp => {
                WorkerError::Internal("stopped before the coordinator answered".into())
            }
        }
    }
}

/// Intervals the coordinator asks this worker to keep.
#[derive(Debug, Clone, Copy)]
pub struct Timings {
    pub heartbeat: Duration,
    pub checkpoint: Duration,
}

pub struct Session {
    client: WorkerClient,
    config: WorkerConfig,
    worker_id: RwLock<String>,
    timings: RwLock<Timings>,
}

impl Session {
    /// Prepares a lazy channel: nothing is dialled until the first call, and
    /// the channel redials by itself after the coordinator comes back.
    pub fn connect(config: &WorkerConfig) -> Result<Self, WorkerError> {
        let address_error = |reason: String| WorkerError::Address {
            address: config.coordinator.clone(),
            reason,
        };
        // Every call is bounded: a coordinator that accepts and never
        // answers is retried like one that is down, never waited on forever.
        let endpoint = e2_proto::tls::endpoint(&config.coordinator, &config.tls)
            .map_err(|e| address_error(e.0))?
            .connect_timeout(Duration::from_secs(5))
            .timeout(CALL_TIMEOUT)
            .tcp_nodelay(true);
        let token = BearerToken::new(config.token.as_deref())
            .map_err(|s| address_error(s.message().to_string()))?;
        let client = WorkerServiceClient::with_interceptor(endpoint.connect_lazy(), token)
            .max_decoding_message_size(e2_proto::MAX_MESSAGE_BYTES)
            .max_encoding_message_size(e2_proto::MAX_MESSAGE_BYTES);
        Ok(Session {
            client,
            config: config.clone(),
            worker_id: RwLock::new(String::new()),
            timings: RwLock::new(Timings {
                heartbeat: Duration::from_secs(5),
                checkpoint: Duration::from_secs(30),
            }),
        })
    }

    pub fn client(&self) -> WorkerClient {
        self.client.clone()
    }

    pub fn worker_id(&self) -> String {
        self.worker_id.read().expect("worker id lock").clone()
    }

    pub fn timings(&self) -> Timings {
        *self.timings.read().expect("timings lock")
    }

    /// Registers, retrying while the coordinator is unreachable.
    pub async fn register(&self, stop: &CancellationToken) -> Result<(), CallError> {
        let mut backoff = Backoff::new();
        loop {
            let request = RegisterRequest {
                protocol_version: self.config.protocol_version,
                name: self.config.name.clone(),
                threads: self.config.threads as u32,
            };
            let mut client = self.client.clone();
            let attempt = client.register(request);
            let outcome = tokio::select! {
                r = attempt => r,
                _ = stop.cancelled() => return Err(CallError::GaveUp),
            };
            match outcome {
                Ok(reply) => {
                    let reply = reply.into_inner();
                    *self.worker_id.write().expect("worker id lock") = reply.worker_id;
                    *self.timings.write().expect("timings lock") = Timings {
                        heartbeat: Duration::from_millis(reply.heartbeat_interval_ms.max(10)),
                        checkpoint: Duration::from_millis(reply.checkpoint_interval_ms.max(10)),
                    };
                    return Ok(());
                }
                Err(s) if is_refusal(&s) => {
                    return Err(CallError::Refused(s.message().to_string()))
                }
                Err(s) => {
                    tracing::warn!(code = ?s.code(), "register: {}; retrying", s.message());
                    if !backoff.sleep(stop).await {
                        return Err(CallError::GaveUp);
                    }
                }
            }
        }
    }

    /// Makes `call` until it is answered, re-registering when the
    /// coordinator has forgotten this worker, backing off while it is away,
    /// and giving up when `stop` is cancelled.
    pub async fn call<T, F, Fut>(
        &self,
        stop: &CancellationToken,
        what: &str,
        mut call: F,
    ) -> Result<T, CallError>
    where
        F: FnMut(WorkerClient, String) -> Fut,
        Fut: Future<Output = Result<Response<T>, Status>>,
    {
        let mut backoff = Backoff::new();
        loop {
            let attempt = call(self.client.clone(), self.worker_id());
            let outcome = tokio::select! {
                r = attempt => r,
                _ = stop.cancelled() => return Err(CallError::GaveUp),
            };
            match outcome {
                Ok(reply) => return Ok(reply.into_inner()),
                Err(s)
                    if s.code() == Code::NotFound
                        && s.message().starts_with(e2_proto::UNKNOWN_WORKER) =>
                {
                    tracing::info!("{what}: the coordinator forgot this worker; registering again");
                    self.register(stop).await?;
                }
                Err(s) if is_refusal(&s) => {
                    return Err(CallError::Refused(s.message().to_string()))
                }
                Err(s) => {
                    tracing::warn!(code = ?s.code(), "{what}: {}; retrying", s.message());
                    if !backoff.sleep(stop).await {
                        return Err(CallError::GaveUp);
                    }
                }
            }
        }
    }
}

fn is_refusal(s: &Status) -> bool {
    matches!(
        s.code(),
        Code::Unauthenticated | Code::PermissionDenied | Code::FailedPrecondition
    )
}

/// 100 ms doubling to 5 s: quick to notice a restarted coordinator, gentle on
/// one that stays down.
struct Backoff {
    next: Duration,
}

impl Backoff {
    fn new() -> Self {
        Backoff {
            next: Duration::from_millis(100),
        }
    }

    /// Sleeps; false when `stop` was cancelled meanwhile.
    async fn sleep(&mut self, stop: &CancellationToken) -> bool {
        let wait = self.next;
        self.next = (self.next * 2).min(Duration::from_secs(5));
        tokio::select! {
            _ = tokio::time::sleep(wait) => true,
            _ = stop.cancelled() => false,
        }
    }
}
