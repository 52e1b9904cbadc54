//! TLS for the wire: the coordinator's identity, and how clients and
//! workers dial `https://` addresses.
//!
//! The bearer token is only as secret as the channel it crosses, so an
//! `https://` URL always means TLS (rustls through tonic): with the CA the
//! user names (`--tls-ca`), or else the system's roots. A coordinator that
//! does not speak TLS is then a clear connection error, never a silent
//! fall-back to plaintext. `http://` stays plaintext, for loopback and
//! trusted networks; [`cleartext_to_remote`] tells callers when to warn.

use std::path::{Path, PathBuf};

use tonic::transport::{Certificate, ClientTlsConfig, Endpoint, Identity, ServerTlsConfig};

/// A TLS setting that cannot be used, naming the file or address.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct TlsError(pub String);

/// The coordinator's certificate chain and private key, PEM, as read.
#[derive(Clone)]
pub struct ServerIdentity {
    pub cert_pem: Vec<u8>,
    pub key_pem: Vec<u8>,
}

impl std::fmt::Debug for ServerIdentity {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("ServerIdentity(..)")
    }
}

fn read_pem(path: &Path, what: &str) -> Result<Vec<u8>, TlsError> {
    let bytes =
        std::fs::read(path).map_err(|e| TlsError(format!("{what} {}: {e}", path.display())))?;
    if !bytes.windows(11).any(|w| w == b"-----BEGIN ") {
        return Err(TlsError(format!(
            "{what} {}: not a PEM file (no -----BEGIN line)",
            path.display()
        )));
    }
    Ok(bytes)
}

impl ServerIdentity {
    /// Reads `--tls-cert` and `--tls-key`.
    pub fn read(cert: &Path, key: &Path) -> Result<Self, TlsError> {
        Ok(ServerIdentity {
            cert_pem: read_pem(cert, "--tls-cert")?,
            key_pem: read_pem(key, "--tls-key")?,
        })
    }

    pub fn server_config(&self) -> ServerTlsConfig {
        ServerTlsConfig::new().identity(Identity::from_pem(&self.cert_pem, &self.key_pem))
    }
}

/// How a client trusts an `https://` coordinator.
#[derive(Debug, Clone, Default)]
pub struct ClientTls {
    /// A CA certificate (PEM) to trust; `None`: the system's roots.
    pub ca: Option<PathBuf>,
}

/// The host of `scheme://host:port/...`, without brackets.
fn host_of(url: &str) -> &str {
    let rest = url.split_once("://").map_or(url, |(_, r)| r);
    let authority = rest.split('/').next().unwrap_or_default();
    let host = match authority.rsplit_once(':') {
        Some((h, _)) if !h.is_empty() => h,
        _ => authority,
    };
    host.trim_start_matches('[').trim_end_matches(']')
}

/// True when `url` is plaintext (`http://`) to anything but this machine:
/// the token would cross a network in the clear.
pub fn cleartext_to_remote(url: &str) -> bool {
    if !url.starts_with("http://") {
        return false;
    }
    let host = host_of(url);
    let loopback = host == "localhost"
        || host
            .parse::<std::net::IpAddr>()
            .is_ok_and(|ip| ip.is_loopback());
    !loopback
}

/// An endpoint for `url`: TLS for `https://` (with `tls`'s CA or the
/// system's roots), plaintext for `http://`.
pub fn endpoint(url: &str, tls: &ClientTls) -> Result<Endpoint, TlsError> {
    let endpoint = Endpoint::from_shared(url.to_string())
        .map_err(|e| TlsError(format!("coordinator address \"{url}\": {e}")))?;
    if !url.starts_with("https://") {
        if tls.ca.is_some() {
            return Err(TlsError(format!(
                "--tls-ca is set but \"{url}\" is not an https:// address"
            )));
        }
        return Ok(endpoint);
    }
    let mut config = ClientTlsConfig::new().domain_name(host_of(url).to_string());
    config = match &tls.ca {
        Some(path) => config.ca_certificate(Certificate::from_pem(read_pem(path, "--tls-ca")?)),
        None => config.with_native_roots(),
    };
    endpoint
        .tls_config(config)
        .map_err(|e| TlsError(format!("TLS for \"{url}\": {e}")))
}

/// A hint to add to a failed `https://` connection: what usually causes it.
pub fn handshake_hint(url: &str) -> Option<&'static str> {
    url.starts_with("https://").then_some(
        "the TLS handshake failed: check that the coordinator serves TLS \
         (--tls-cert/--tls-key) and that its certificate is signed by the CA \
         given with --tls-ca (or a system root)",
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_plaintext_off_this_machine_is_flagged() {
        assert!(cleartext_to_remote("http://10.0.0.5:7450"));
        assert!(cleartext_to_remote("http://coordinator:7450"));
        assert!(!cleartext_to_remote("http://127.0.0.1:7450"));
        assert!(!cleartext_to_remote("http://[::1]:7450"));
        assert!(!cleartext_to_remote("http://localhost:7450"));
        assert!(!cleartext_to_remote("https://10.0.0.5:7450"));
    }

    #[test]
    fn a_ca_without_https_and_a_file_that_is_not_pem_are_refused() {
        let tls = ClientTls {
            ca: Some("/nonexistent/ca.pem".into()),
        };
        let e = endpoint("http://127.0.0.1:1", &tls).unwrap_err();
        assert!(e.0.contains("not an https://"), "{e}");
        let e = endpoint("https://127.0.0.1:1", &tls).unwrap_err();
        assert!(e.0.contains("/nonexistent/ca.pem"), "{e}");
    }
}
