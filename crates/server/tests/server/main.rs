//! The integration tests of arbiter-server's library, in one test binary: the gRPC service
//! in-process, PGN reading and the corpus adjudication. Run one part with
//! `cargo test -p arbiter-server --test server grpc::`.

mod adjudicate_corpus;
mod grpc;
mod pgn_reading;
