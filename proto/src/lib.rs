//! # e2-proto: the wire protocol between coordinator, workers and clients
//!
//! The generated gRPC code lives in [`pb`]; this crate adds the protocol
//! version every worker must match at registration and the conversions
//! between wire messages and the `e2_shared` model, so neither end writes
//! them twice. Engine values (prefixes, checkpoints) cross the wire as serde
//! JSON bytes: the coordinator stores them without knowing what they mean.

pub mod auth;
pub mod convert;
pub mod tls;

/// The generated messages, clients and servers of `proto/e2.proto`.
pub mod pb {
    #![allow(clippy::all, missing_docs)]
    tonic::include_proto!("e2.v1");
}

/// The protocol spoken by this build. A worker whose version differs is
/// refused at registration: the message layouts or their meaning changed.
/// (2: best jobs carry `SearchSettings`, which a version-1 worker would
/// silently ignore; 3: an `Assignment` carries its job kind as a `oneof`.)
pub const PROTOCOL_VERSION: u32 = 3;

/// The largest message either end accepts (a 16×16 BoardDoc batch is far
/// smaller; this bounds what a misbehaving peer can make us allocate).
pub const MAX_MESSAGE_BYTES: usize = 16 * 1024 * 1024;

/// How a coordinator's NOT_FOUND message for a worker id it does not know
/// (say, after a restart) begins; the worker then registers again.
pub const UNKNOWN_WORKER: &str = "unknown worker";

pub use convert::{
    decode_assignment, decode_checkpoint, decode_prefix, encode_checkpoint, encode_prefix,
    engine_from_wire, engine_to_wire, parse_mode, puzzle_from_wire, puzzle_to_wire,
    search_from_wire, search_to_wire, TaskKind, WireError, Work,
};
