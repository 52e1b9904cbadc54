//! The coordinator's two operator endpoints over plain HTTP: Prometheus
//! metrics ([`metrics`]) and a status page for people ([`status_page`]).
//!
//! Both only answer `GET` with a page computed from one read of the ledger,
//! so a minimal HTTP/1.1 server on tokio is enough: read the request head,
//! answer, close the connection. No keep-alive, no request bodies, no web
//! framework, and nothing here can change the coordinator's state. Each
//! listener is bound before the coordinator reports itself started (so a
//! busy port is an error at once) and stops with the coordinator's
//! cancellation token.

pub mod metrics;
pub mod status_page;

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};
use tokio::task::JoinHandle;
use tokio_util::sync::CancellationToken;

use crate::ledger::{Clock, JobFigures};
use crate::service::Shared;

/// A request head larger than this is refused: every valid request to
/// these endpoints is one short line plus a few headers.
const MAX_HEAD_BYTES: usize = 8 * 1024;

/// A client that sends no complete request head within this time is dropped.
const READ_TIMEOUT: Duration = Duration::from_secs(5);

/// What a page handler answers.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Page {
    pub status: u16,
    pub content_type: &'static str,
    pub body: String,
}

impl Page {
    pub fn ok(content_type: &'static str, body: String) -> Self {
        Page {
            status: 200,
            content_type,
            body,
        }
    }

    fn error(status: u16, message: &str) -> Self {
        Page {
            status,
            content_type: "text/plain; charset=utf-8",
            body: format!("{message}\n"),
        }
    }
}

/// What both endpoints show, read under one ledger lock.
#[derive(Debug, Clone)]
pub struct Snapshot {
    pub jobs: Vec<JobFigures>,
    /// Workers registered and seen recently (the figure `e2 status` gives).
    pub workers: usize,
}

pub fn snapshot(shared: &Shared) -> Snapshot {
    shared.read(|ledger, clock: Clock| Snapshot {
        jobs: ledger.figures(clock),
        workers: ledger.workers_seen(),
    })
}

/// Serves `GET /metrics` on `listener` until `stop` is cancelled.
pub fn serve_metrics(
    listener: TcpListener,
    shared: Arc<Shared>,
    stop: CancellationToken,
) -> JoinHandle<()> {
    serve(listener, stop, move |path| match path {
        "/metrics" => Page::ok(metrics::CONTENT_TYPE, metrics::render(&snapshot(&shared))),
        _ => Page::error(404, "not found: the metrics are at /metrics"),
    })
}

/// Serves the status page (`GET /`) on `listener` until `stop` is cancelled.
pub fn serve_status_page(
    listener: TcpListener,
    shared: Arc<Shared>,
    stop: CancellationToken,
) -> JoinHandle<()> {
    serve(listener, stop, move |path| match path {
        "/" | "/index.html" => Page::ok(
            "text/html; charset=utf-8",
            status_page::render(&snapshot(&shared)),
        ),
        _ => Page::error(404, "not found: the status page is at /"),
    })
}

/// Accepts connections until `stop`; each is answered by `handler` (given
/// the request path without its query) on a task of its own.
fn serve(
    listener: TcpListener,
    stop: CancellationToken,
    handler: impl Fn(&str) -> Page + Send + Sync + 'static,
) -> JoinHandle<()> {
    let handler = Arc::new(handler);
    tokio::spawn(async move {
        let addr = listener
            .local_addr()
            .map_or_else(|_| "?".to_string(), |a| a.to_string());
        loop {
            let stream = tokio::select! {
                accepted = listener.accept() => accepted,
                _ = stop.cancelled() => break,
            };
            match stream {
                Ok((stream, peer)) => {
                    let (handler, stop) = (Arc::clone(&handler), stop.clone());
                    tokio::spawn(async move {
                        tokio::select! {
                            r = answer(stream, handler.as_ref()) => {
                                if let Err(e) = r {
                                    tracing::debug!(%peer, "http connection: {e}");
                                }
                            }
                            _ = stop.cancelled() => {}
                        }
                    });
                }
                // Out of file descriptors and the like: pause rather than spin.
                Err(e) => {
                    tracing::warn!("http listener {addr}: {e}");
                    tokio::time::sleep(Duration::from_millis(100)).await;
                }
            }
        }
        tracing::info!("http listener {addr} stopped");
    })
}

/// Reads one request head, writes one response, closes.
async fn answer(
    mut stream: TcpStream,
    handler: &(impl Fn(&str) -> Page + ?Sized),
) -> std::io::Result<()> {
    let head = match tokio::time::timeout(READ_TIMEOUT, read_head(&mut stream)).await {
        Ok(head) => head?,
        Err(_) => return Ok(()),
    };
    let (page, with_body) = match head.as_deref().map(parse_request_line) {
        None => (Page::error(431, "request head too large"), true),
        Some(Err(page)) => (page, true),
        Some(Ok((method, path))) => (handler(path), method == "GET"),
    };
    stream.write_all(&response_bytes(&page, with_body)).await?;
    stream.shutdown().await
}

/// The request head up to its blank line; `None` when it is too large.
async fn read_head(stream: &mut TcpStream) -> std::io::Result<Option<String>> {
    let mut head = Vec::with_capacity(1024);
    let mut chunk = [0u8; 1024];
    loop {
        let n = stream.read(&mut chunk).await?;
        if n == 0 {
            break;
        }
        head.extend_from_slice(&chunk[..n]);
        if head.windows(4).any(|w| w == b"\r\n\r\n") {
            break;
        }
        if head.len() > MAX_HEAD_BYTES {
            return Ok(None);
        }
    }
    Ok(Some(String::from_utf8_lossy(&head).into_owned()))
}

/// `(method, path without query)` from the request line, or the error page.
fn parse_request_line(head: &str) -> Result<(&str, &str), Page> {
    let line = head.lines().next().unwrap_or_default();
    let mut parts = line.split_whitespace();
    let (Some(method), Some(target), Some(version)) = (parts.next(), parts.next(), parts.next())
    else {
        return Err(Page::error(400, "bad request line"));
    };
    if !version.starts_with("HTTP/1.") {
        return Err(Page::error(505, "only HTTP/1.x is spoken here"));
    }
    if method != "GET" && method != "HEAD" {
        return Err(Page::error(405, "only GET and HEAD are answered"));
    }
    let path = target.split(['?', '#']).next().unwrap_or(target);
    Ok((method, path))
}

fn response_bytes(page: &Page, with_body: bool) -> Vec<u8> {
    let reason = match page.status {
        200 => "OK",
        400 => "Bad Request",
        404 => "Not Found",
        405 => "Method Not Allowed",
        431 => "Request Header Fields Too Large",
        505 => "HTTP Version Not Supported",
        _ => "",
    };
    let mut out = format!(
        "HTTP/1.1 {} {reason}\r\nContent-Type: {}\r\nContent-Length: {}\r\nCache-Control: no-store\r\nConnection: close\r\n{}\r\n",
        page.status,
        page.content_type,
        page.body.len(),
        if page.status == 405 { "Allow: GET, HEAD\r\n" } else { "" },
    )
    .into_bytes();
    if with_body {
        out.extend_from_slice(page.body.as_bytes());
    }
    out
}

/// Binds `addr` for one of the endpoints, naming it in the error.
pub async fn bind(addr: SocketAddr) -> Result<TcpListener, crate::CoordinatorError> {
    TcpListener::bind(addr)
        .await
        .map_err(|source| crate::CoordinatorError::Bind { addr, source })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn request_lines_are_parsed_or_refused() {
        assert_eq!(
            parse_request_line("GET /metrics?x=1 HTTP/1.1\r\nHost: a\r\n\r\n"),
            Ok(("GET", "/metrics"))
        );
        assert_eq!(
            parse_request_line("POST / HTTP/1.1\r\n")
                .unwrap_err()
                .status,
            405
        );
        assert_eq!(parse_request_line("GET /\r\n").unwrap_err().status, 400);
        assert_eq!(
            parse_request_line("GET / SPDY/3\r\n").unwrap_err().status,
            505
        );
    }

    #[test]
    fn responses_state_their_length_and_head_omits_the_body() {
        let page = Page::ok("text/plain", "hello".into());
        let full = String::from_utf8(response_bytes(&page, true)).unwrap();
        assert!(full.starts_with("HTTP/1.1 200 OK\r\n"), "{full}");
        assert!(full.contains("Content-Length: 5\r\n"), "{full}");
        assert!(full.ends_with("\r\n\r\nhello"), "{full}");
        let head = String::from_utf8(response_bytes(&page, false)).unwrap();
        assert!(head.ends_with("\r\n\r\n"), "{head}");
    }
}
