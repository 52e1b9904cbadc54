//! Bearer-token authentication, both sides of it.
//!
//! A coordinator started with `--token T` refuses every RPC whose
//! `authorization` metadata is not exactly `Bearer T`. Clients and workers
//! attach the header with [`BearerToken`]. The check compares in constant
//! time so response timing does not reveal how much of a guess was right.

use tonic::metadata::{Ascii, MetadataValue};
use tonic::service::Interceptor;
use tonic::{Request, Status};

const HEADER: &str = "authorization";

/// Client side: adds `authorization: Bearer <token>` to every request
/// (nothing when there is no token).
#[derive(Clone, Default)]
pub struct BearerToken {
    header: Option<MetadataValue<Ascii>>,
}

impl BearerToken {
    /// Fails when the token holds characters a header cannot carry.
    pub fn new(token: Option<&str>) -> Result<Self, Status> {
        let header = match token {
            None | Some("") => None,
            Some(t) => Some(
                format!("Bearer {t}")
                    .parse()
                    .map_err(|_| Status::invalid_argument("the token must be printable ASCII"))?,
            ),
        };
        Ok(BearerToken { header })
    }
}

impl Interceptor for BearerToken {
    fn call(&mut self, mut request: Request<()>) -> Result<Request<()>, Status> {
        if let Some(h) = &self.header {
            request.metadata_mut().insert(HEADER, h.clone());
        }
        Ok(request)
    }
}

/// Server side: lets a request through only with the right token (or
/// always, when the server has none).
#[derive(Clone, Default)]
pub struct RequireToken {
    expected: Option<Vec<u8>>,
}

impl RequireToken {
    pub fn new(token: Option<&str>) -> Self {
        RequireToken {
            expected: token
                .filter(|t| !t.is_empty())
                .map(|t| format!("Bearer {t}").into_bytes()),
        }
    }
}

impl Interceptor for RequireToken {
    fn call(&mut self, request: Request<()>) -> Result<Request<()>, Status> {
        let Some(expected) = &self.expected else {
            return Ok(request);
        };
        match request.metadata().get(HEADER) {
            Some(given) if constant_time_eq(given.as_bytes(), expected) => Ok(request),
            Some(_) => Err(Status::unauthenticated("wrong bearer token")),
            None => Err(Status::unauthenticated(
                "missing bearer token (this coordinator was started with --token)",
            )),
        }
    }
}

fn constant_time_eq(a: &[u8], b: &[u8]) -> bool {
    a.len() == b.len() && a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_the_exact_token_passes() {
        let mut server = RequireToken::new(Some("s3cret"));
        let mut good = BearerToken::new(Some("s3cret")).unwrap();
        let mut bad = BearerToken::new(Some("s3cres")).unwrap();
        let mut none = BearerToken::new(None).unwrap();
        assert!(server.call(good.call(Request::new(())).unwrap()).is_ok());
        let e = server
            .call(bad.call(Request::new(())).unwrap())
            .unwrap_err();
        assert_eq!(e.code(), tonic::Code::Unauthenticated);
        let e = server
            .call(none.call(Request::new(())).unwrap())
            .unwrap_err();
        assert_eq!(e.code(), tonic::Code::Unauthenticated);
        assert!(RequireToken::new(None).call(Request::new(())).is_ok());
    }
}
