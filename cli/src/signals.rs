//! The signals that end a coordinator or worker gracefully.
//!
//! Ctrl-C (SIGINT) from a terminal and SIGTERM from a service manager or
//! `kill` mean the same thing here: stop taking work, hand back or flush
//! what is in flight, and exit.

/// Resolves on the first SIGINT or SIGTERM.
pub async fn terminated() {
    #[cfg(unix)]
    {
        use tokio::signal::unix::{signal, SignalKind};
        let mut term = match signal(SignalKind::terminate()) {
            Ok(s) => s,
            Err(e) => {
                tracing::warn!("cannot listen for SIGTERM: {e}");
                let _ = tokio::signal::ctrl_c().await;
                return;
            }
        };
        tokio::select! {
            _ = tokio::signal::ctrl_c() => {}
            _ = term.recv() => {}
        }
    }
    #[cfg(not(unix))]
    {
        let _ = tokio::signal::ctrl_c().await;
    }
}
