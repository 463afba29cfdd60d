//! The end-to-end tests of arbiter: the real binary, started as a process, driven over the
//! network (gRPC, gRPC health and reflection, `/metrics`, `buf curl`) and from its command line.
//! One test binary for the whole suite (each module was a binary of its own: linking each cost
//! more than running it); run one part with `cargo test -p arbiter-e2e --test e2e bounds::`.

mod adjudicate_cli;
mod answers;
mod board;
mod bounds;
mod buf_curl;
mod chess960;
mod compressed;
mod conformance;
mod docs;
mod event_rules_cli;
mod follow;
mod games;
mod grpc_web;
mod health;
mod languages;
mod limits;
mod metrics;
mod pgn_output;
mod pipes;
mod reflection;
mod report;
mod resync;
mod rpc;
mod serve_cli;
mod tls;
mod web_example;
