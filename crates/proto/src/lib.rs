//! The `arbiter.v1` wire contract in Rust.
//!
//! This crate holds the code generated from `proto/arbiter/v1/arbiter.proto` (messages, the
//! client and the server trait) in [`v1`], the encoded descriptor set for server reflection in
//! [`FILE_DESCRIPTOR_SET`], and the conversions between wire messages and `arbiter-rules` types.
//! Every validation error made while converting names the offending field, and becomes an
//! `INVALID_ARGUMENT` status with `google.rpc.BadRequest` details.
//!
//! ```
//! use arbiter_proto::v1::{position, ListLegalMovesRequest, Position};
//!
//! let request = ListLegalMovesRequest {
//!     position: Some(Position {
//!         kind: Some(position::Kind::Fen("startpos".to_owned())),
//!         ..Position::default()
//!     }),
//!     ..ListLegalMovesRequest::default()
//! };
//! assert!(request.position.is_some());
//! assert!(!arbiter_proto::FILE_DESCRIPTOR_SET.is_empty());
//! ```

pub mod convert;

/// Generated code of the protobuf package `arbiter.v1`: messages, enums, the
/// `arbiter_service_client` and the `arbiter_service_server` modules, and for every message and
/// enum the `serde` implementations of its proto3 JSON form (pbjson): proto field names
/// (snake_case), every field written, defaults included, enums by name; both field spellings
/// and enum names or numbers are read.
pub mod v1 {
    #![allow(missing_docs, clippy::all, clippy::pedantic)]
    tonic::include_proto!("arbiter.v1");
    include!(concat!(env!("OUT_DIR"), "/arbiter.v1.serde.rs"));
}

/// The encoded `google.protobuf.FileDescriptorSet` of `arbiter/v1/arbiter.proto`, for gRPC
/// server reflection.
pub const FILE_DESCRIPTOR_SET: &[u8] =
    include_bytes!(concat!(env!("OUT_DIR"), "/arbiter_descriptor.bin"));

/// The fully qualified name of the arbiter gRPC service, as used by health checks.
pub const SERVICE_NAME: &str = "arbiter.v1.ArbiterService";
