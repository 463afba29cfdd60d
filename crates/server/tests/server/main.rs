//! The integration tests of arbiter-server's library, in one test binary: the gRPC service
//! in-process, PGN reading, the corpus adjudication and the crate's module structure. Run one part
//! with `cargo test -p arbiter-server --test server grpc::`.

mod adjudicate_corpus;
mod architecture;
mod event_rules;
mod follow;
mod grpc;
mod pgn_reading;
