//! # arbiter-e2e
//!
//! End-to-end tests of the `arbiter` binary: each test starts the real binary with
//! `arbiter serve --grpc-addr 127.0.0.1:0`, reads the addresses its `arbiter listening` log
//! line names (`grpc_addr`, `metrics_addr`, `health_addr`), talks to it over a real socket
//! (tonic clients, `arbiter health-check`, `buf curl` through server reflection) and stops it by
//! PID. Every wait
//! is bounded by a timeout, and a server still running when its [`server::Server`] handle is
//! dropped (a failed assertion included) is killed.
//!
//! This library is the harness; the tests are the modules of one test binary, `tests/e2e/`
//! (`cargo test -p arbiter-e2e --test e2e bounds::` runs one module):
//!
//! | file | what |
//! |---|---|
//! | `tests/e2e/rpc.rs` | every RPC through a tonic client, exact values, error details |
//! | `tests/e2e/health.rs` | gRPC health, `arbiter health-check`, SIGTERM drain and exit code |
//! | `tests/e2e/buf_curl.rs` | proto3 JSON through `buf curl` and reflection, one call per RPC |
//! | `tests/e2e/games.rs` | real lichess games (CC0) replayed through ApplyMove and ApplyMoves |
//! | `tests/e2e/chess960.rs` | Chess960 by number, X-FEN and Shredder-FEN; king-takes-rook castling; the shared corpus's Chess960 games (`ARBITER_CORPUS_DIR`, default `../shared/data/games`, skipped when absent); `perft --chess960`; `buf curl` |
//! | `tests/e2e/languages.rs` | SAN read and written in Spanish, German, French, Italian, Dutch, figurine |
//! | `tests/e2e/metrics.rs` | exact `/metrics` counters and labels after known calls, request ids, one `unknown` series for made-up paths, the alert tests' input series as the server writes them, a HELP line for every family, fractional `process_cpu_seconds_total` |
//! | `tests/e2e/limits.rs` | concurrency limit (RESOURCE_EXHAUSTED), request timeout, drain on SIGTERM |
//! | `tests/e2e/bounds.rs` | issue 10 under load and attack: abandoned work frees its worker, expired deadlines are DEADLINE_EXCEEDED, connection limit, handshake and idle timeouts, per-connection stream limit, stream limit and idle/stalled streams, SIGTERM under load, quiet overload (exact shed counts, summary log lines), the budget of request bytes in flight (refused with RESOURCE_EXHAUSTED, bytes given back, streams release per message, refused at startup below the message size) |
//! | `tests/e2e/conformance.rs` | issue 26: requests that break the gRPC protocol, over raw HTTP/2, answered as grpc-go and grpc-java answer them (a deadline already passed, a malformed `grpc-timeout`, two messages in a unary body; `application/grpc+json` read as protobuf) |
//! | `tests/e2e/grpc_web.rs` | gRPC-Web on the gRPC port: every unary RPC through `buf curl --protocol grpcweb` (HTTP/1.1 and HTTP/2) as over gRPC, error details included; CORS origins and preflights counted by outcome; metrics of gRPC-Web calls; the protocol checks of gRPC calls; the connection bounds over HTTP/1.1 (cap, slow headers, idle, age, drain, message size) |
//! | `tests/e2e/serve_cli.rs` | issue 27: `serve -h` under headings, host names in address flags (localhost listens on 127.0.0.1 and `[::1]`), compound durations (`1m30s`) in flags and variables, refused values named by flag or variable, numbers in JSON log lines as numbers |
//! | `tests/e2e/tls.rs` | TLS and mutual TLS with certificates made by `rcgen`, health-check over TLS, certificate rotation without a restart |
//! | `tests/e2e/web_example.rs` | the example web page (`examples/web/dist/`) in headless Chromium against `arbiter serve` over gRPC-Web: the start position's 20 moves, a fixture game's verdict, INVALID_ARGUMENT with its field, refused without CORS |
//!
//! [`unended`] holds the workload of the tests that need long ApplyMoves calls answered in full:
//! a legal game of 4,500 plies that no rule ends (ApplyMoves refuses a move after the game's end,
//! so knights shuffled out and back stop at ply 16).
//!
//! ## Which binary is tested
//!
//! Cargo builds another package's binaries for no integration test (`CARGO_BIN_EXE_<name>` only
//! exists inside the package that owns the binary), so [`binary::arbiter`] does it itself:
//!
//! 1. `ARBITER_BIN=/path/to/arbiter` wins: that file is tested as is (also the way to test a
//!    cross-compiled or installed binary).
//! 2. Otherwise, when run by cargo (`CARGO` is set), it runs
//!    `cargo build -p arbiter-server --bin arbiter --profile P --target-dir T` once, where `T/P` is where the running test executable lives (`T/<profile dir>/deps/`).
//!    So `cargo test --workspace --release` tests `T/release/arbiter` built from the same tree, and
//!    a stale binary is never tested. When the binary is up to date this takes well under a
//!    second; the first time it compiles the server's `main.rs` and links.
//! 3. Run by hand without `CARGO`, the binary next to the test executable's profile directory is
//!    used if it exists.
//!
//! ## Headless Chromium
//!
//! The `browser_*` tests (the HTML report, examples/web) run Debian's `chromium`, found in
//! `ARBITER_CHROMIUM` ([`browser::chromium`]); `make test` installs and sets it (mk/browser.mk),
//! or says that they did not run. They are `#[ignore]`d, and fail when run without a browser.
//! [`static_files::StaticFiles`] serves the pages they load from the test process itself, on an
//! ephemeral loopback port; [`dom`] reads the DOM Chromium serialized. The print tests
//! (`browser_print_*`) print a page to PDF ([`browser::print_to_pdf`]) and read it back with
//! poppler-utils ([`pdf`]), which `make test` installs too, or skips them and says why.

//! ## `buf curl`
//!
//! `tests/e2e/buf_curl.rs` needs the pinned `buf` that `make tools` installs into
//! `node_modules/.bin/buf` (or `ARBITER_BUF=/path/to/buf`). Without it those tests fail and say
//! to run `make tools`; `ARBITER_SKIP_BUF=1` skips them, printing that they were skipped.

pub mod binary;
pub mod browser;
pub mod buf;
pub mod command;
pub mod dom;
pub mod pdf;
pub mod pgn;
pub mod requests;
pub mod server;
pub mod static_files;
pub mod unended;

use std::{future::Future, path::PathBuf, time::Duration};

/// Returns the value of the sample `name{labels}` in a Prometheus text rendering `text`
/// (`labels` exactly as rendered, e.g. `grpc_code="OK"` pairs joined by commas), if present.
#[must_use]
pub fn sample(text: &str, name_and_labels: &str) -> Option<f64> {
    text.lines()
        .filter_map(|line| line.strip_prefix(name_and_labels))
        .find_map(|rest| rest.strip_prefix(' '))
        .and_then(|value| value.trim().parse().ok())
}

/// Longest wait for any single RPC made by a test.
pub const CALL_TIMEOUT: Duration = Duration::from_secs(30);

/// The workspace root (the parent of this crate's directory).
#[must_use]
pub fn workspace_root() -> PathBuf {
    let manifest_dir = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    manifest_dir
        .parent()
        .map_or_else(|| manifest_dir.clone(), PathBuf::from)
}

/// The directory of this crate's test fixtures (`tests/data`).
#[must_use]
pub fn data_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("data")
}

/// Awaits `future` for at most [`CALL_TIMEOUT`].
///
/// # Panics
///
/// Panics, naming `what`, when the future does not complete in time.
pub async fn within<F: Future>(what: &str, future: F) -> F::Output {
    match tokio::time::timeout(CALL_TIMEOUT, future).await {
        Ok(output) => output,
        Err(_) => panic!("{what}: no answer within {CALL_TIMEOUT:?}"),
    }
}

/// Reads an HTTP/1.1 answer with a chunked body from `stream` to its last chunk (`0\r\n\r\n`),
/// as text.
///
/// # Panics
///
/// When the stream fails or closes before the last chunk, or a read takes longer than
/// [`CALL_TIMEOUT`].
pub async fn read_chunked_answer<S: tokio::io::AsyncRead + Unpin>(stream: &mut S) -> String {
    use tokio::io::AsyncReadExt as _;
    let mut answer = Vec::new();
    let mut chunk = [0; 4096];
    while !answer.ends_with(b"0\r\n\r\n") {
        let read = within("the answer", stream.read(&mut chunk))
            .await
            .expect("read");
        assert_ne!(read, 0, "closed before the answer: {answer:?}");
        answer.extend_from_slice(&chunk[..read]);
    }
    String::from_utf8_lossy(&answer).into_owned()
}
