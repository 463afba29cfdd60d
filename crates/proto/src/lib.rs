//! The `arbiter.v1` wire contract in Rust.
//!
//! This crate holds the code generated from `proto/arbiter/v1/arbiter.proto` (messages, the
//! client and the server trait) in [`v1`], the encoded descriptor set for server reflection in
//! [`FILE_DESCRIPTOR_SET`], and the conversions between wire messages and `arbiter-rules` types.
//! Every validation error made while converting names the offending field, and becomes an
//! `INVALID_ARGUMENT` status with `google.rpc.BadRequest` details.
//!
//! ```
//! use arbiter_proto::{convert, v1};
//! use arbiter_rules::SanLanguage;
//!
//! // A ListLegalMoves request as a client sends it, read into the rules' position at its field.
//! let request = v1::ListLegalMovesRequest {
//!     position: Some(v1::Position {
//!         kind: Some(v1::position::Kind::Fen("startpos".to_owned())),
//!         ..v1::Position::default()
//!     }),
//!     ..v1::ListLegalMovesRequest::default()
//! };
//! let position = convert::position_from_wire(request.position.as_ref(), "position").unwrap();
//! let moves = convert::legal_moves_to_wire_in(&position, SanLanguage::German);
//! assert_eq!(moves.len(), 20);
//! let knight = moves.iter().find(|mv| mv.uci == "g1f3").unwrap();
//! assert_eq!(knight.san, "Sf3");
//!
//! // A bad FEN names its field.
//! let bad = v1::Position {
//!     kind: Some(v1::position::Kind::Fen("8/8/8 w - - 0 1".to_owned())),
//!     ..v1::Position::default()
//! };
//! let error = convert::position_from_wire(Some(&bad), "position").unwrap_err();
//! assert_eq!(error.field, "position.fen");
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
