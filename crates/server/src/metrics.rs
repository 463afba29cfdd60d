//! Prometheus metrics: the process-wide recorder, the `/metrics` HTTP endpoint and
//! [`MetricsLayer`], the outermost tower layer that counts every gRPC call the way the gRPC
//! Prometheus conventions name them. The same layer opens the call's log span (method, peer
//! address, request id), logs its status and duration when it ends, and echoes the request id
//! in the `x-request-id` response header (taken from the request's, or made up).
//!
//! | metric | type | labels |
//! |---|---|---|
//! | `grpc_server_started_total` | counter | `grpc_type`, `grpc_service`, `grpc_method` |
//! | `grpc_server_handled_total` | counter | the same and `grpc_code` (e.g. `OK`, `InvalidArgument`) |
//! | `grpc_server_handling_seconds` | histogram (seconds) | `grpc_type`, `grpc_service`, `grpc_method` |
//! | `grpc_server_msg_received_total` | counter | `grpc_type`, `grpc_service`, `grpc_method` |
//! | `grpc_server_msg_sent_total` | counter | `grpc_type`, `grpc_service`, `grpc_method` |
//! | `arbiter_games_adjudicated_total` | counter | `result` (`1-0`, `0-1`, `1/2-1/2`, `*`), `termination` |
//! | `arbiter_ruling_consequences_total` | counter | `consequence` (`position_reinstated`, `time_added`, `move_required`, `illegal_move_stands`, `claim_upheld`, `claim_rejected`, `recorded`, `game_ended`): what the incidents of AdjudicateGame's games caused ([`record_rulings`]) |
//! | `arbiter_moves_rejected_total` | counter | `reason` (`syntax`, `illegal`, `ambiguous`, `not_strict`, `game_over`: a move after the game's end) |
//! | `arbiter_positions_validated_total` | counter | `valid` (`true`, `false`) |
//! | `arbiter_tls_reloads_total` | counter | `result` (`ok`, `error`): certificate rotations by [`crate::tls::ReloadingTls::watch`] |
//! | `arbiter_answer_bytes_in_flight` | gauge (bytes) | none: answers built and not yet taken ([`crate::guard::answer_bytes`]) |
//! | `arbiter_answers_abandoned_total` | counter | `reason` (`deadline`, `evicted`, `slow_reader`; [`crate::delivery`]) |
//! | `arbiter_cors_preflights_total` | counter | `outcome` (`allowed`, `refused`): CORS preflights of gRPC-Web, answered before this layer ([`crate::grpc_web::PREFLIGHTS_COUNTER`]) |
//! | `arbiter_calls_shed_total` | counter | `reason` (see [`crate::overload::ShedReason`]) |
//! | `arbiter_request_bytes_in_flight` | gauge (bytes) | none: requests held ([`crate::guard::request_bytes`]) |
//! | `arbiter_analyses_running` | gauge | none: analyzer runs under way |
//! | `arbiter_analysis_calls_away` | gauge | none: calls away from their worker for an analysis |
//! | `arbiter_connections_open` | gauge | `listener` (`grpc`, `health`, `metrics`) |
//! | `arbiter_connections_accepted_total` | counter | `listener` |
//! | `arbiter_connections_closed_total` | counter | `listener`, `reason` ([`crate::transport`]) |
//! | `arbiter_build_info` | gauge, always 1 | `version` |
//! | `process_*` | the Prometheus conventions' process metrics | none ([`process_families`]) |
//!
//! Every family has a HELP line (the recorder's from `describe_*`, the process families' from
//! [`process_families`]).
//!
//! `grpc_code` values are grpc-go's names of the status codes ([`code_name`]: `OK`, `Canceled`,
//! `Unknown`, `InvalidArgument`, `DeadlineExceeded`, `NotFound`, `AlreadyExists`,
//! `PermissionDenied`, `ResourceExhausted`, `FailedPrecondition`, `Aborted`, `OutOfRange`,
//! `Unimplemented`, `Internal`, `Unavailable`, `DataLoss`, `Unauthenticated`), as
//! go-grpc-prometheus writes them. `grpc_service` and `grpc_method` name only the methods served
//! ([`KNOWN_METHODS`]); a call to any other path is counted as `grpc_service="unknown"`,
//! `grpc_method="unknown"`, `grpc_type="unary"` ([`UNKNOWN`]), so that clients cannot create
//! series.
//!
//! The status of a call is read from the `grpc-status` response header (trailers-only answers:
//! errors, load shedding, deadlines) or from the trailers, so calls that never reach a handler
//! (`Unimplemented`, `ResourceExhausted`, `DeadlineExceeded`) are counted too. A call whose
//! response body is dropped before its trailers (the client went away), a call dropped before
//! its answer (the client reset the stream), and a call whose request body broke on the client's
//! side (a reset or a closed connection, which tonic reports as `Internal` or `Unknown`) count as
//! `Canceled`: a client going away is never a server error, and every started call is handled.
//! A call whose answer the server cut short after building it (see [`crate::delivery`]) counts
//! as `DeadlineExceeded` (its deadline passed before the client read it) or `ResourceExhausted`
//! (its room in the answer budget went to another answer, or its connection was closed as a
//! slow reader).
//!
//! A process has a single global recorder ([`install`]); the end-to-end tests scrape a real
//! server process.

use crate::{
    delivery::{Abandoned, Delivery},
    guard::request_bytes::Framing,
    transport::{Admitted, BindError, ConnectionSlots, Sockets, WhenFull},
};
use std::{
    convert::Infallible,
    future::Future,
    net::SocketAddr,
    pin::Pin,
    sync::{
        Arc,
        atomic::{AtomicBool, Ordering},
    },
    task::{Context, Poll},
    time::{Duration, Instant},
};

use bytes::Bytes;
use http::{HeaderMap, Request, Response};
use http_body::Frame;
use metrics_exporter_prometheus::{Matcher, PrometheusBuilder, PrometheusHandle};
use tonic::{Code, Status, body::Body, server::NamedService};
use tower::{Layer, Service};

/// Upper bounds, in seconds, of the `grpc_server_handling_seconds` buckets: 50 µs to 10 s, dense
/// below a millisecond where most calls finish.
pub const HANDLING_SECONDS_BUCKETS: [f64; 18] = [
    0.000_05, 0.000_1, 0.000_25, 0.000_5, 0.001, 0.002_5, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5,
    1.0, 2.5, 5.0, 10.0, 30.0,
];

/// Why metrics could not be set up.
#[derive(Debug, thiserror::Error)]
pub enum MetricsError {
    /// The recorder could not be built or installed (a second install in one process).
    #[error("cannot install the metrics recorder: {0}")]
    Install(#[from] metrics_exporter_prometheus::BuildError),
    /// The metrics listening socket could not be opened.
    #[error("cannot listen for /metrics: {0}")]
    Bind(#[source] BindError),
}

/// The gauge of analyzer runs under way, read from the rules crate at each scrape.
pub const ANALYSES_RUNNING_GAUGE: &str = "arbiter_analyses_running";

/// Installs the process-wide Prometheus recorder (with explicit histogram buckets, so that
/// histograms render as histograms), sets `arbiter_build_info{version}` to 1, and describes the
/// metrics recorded outside a call (the gauges of analyses, the CORS preflights at 0).
///
/// # Errors
///
/// Returns [`MetricsError::Install`] when a recorder is already installed.
pub fn install() -> Result<PrometheusHandle, MetricsError> {
    let handle = PrometheusBuilder::new()
        .set_buckets_for_metric(
            Matcher::Full("grpc_server_handling_seconds".to_owned()),
            &HANDLING_SECONDS_BUCKETS,
        )?
        .install_recorder()?;
    describe();
    metrics::gauge!("arbiter_build_info", "version" => env!("CARGO_PKG_VERSION")).set(1.0);
    metrics::describe_gauge!(
        ANALYSES_RUNNING_GAUGE,
        "Analyzer runs (\"can this side still checkmate?\") under way now; at most --max-analyses"
    );
    metrics::gauge!(ANALYSES_RUNNING_GAUGE).set(0.0);
    metrics::describe_gauge!(
        crate::workers::ANALYSIS_CALLS_GAUGE,
        "Calls away from their worker for an analysis (waiting for a slot, running, or waiting \
         for a worker again); beyond --max-analyses + 16 x --workers calls are refused"
    );
    metrics::gauge!(crate::workers::ANALYSIS_CALLS_GAUGE).set(0.0);
    metrics::describe_counter!(
        crate::grpc_web::PREFLIGHTS_COUNTER,
        "CORS preflights (OPTIONS) of gRPC-Web answered, by outcome: allowed (the answer carries \
         Access-Control-Allow-Origin) or refused (an origin not in --cors-allowed-origins, or no \
         Origin); preflights are not gRPC calls and are in no grpc_server_* series"
    );
    for outcome in crate::grpc_web::PREFLIGHT_OUTCOMES {
        metrics::counter!(crate::grpc_web::PREFLIGHTS_COUNTER, "outcome" => outcome).increment(0);
    }
    Ok(handle)
}

/// The HELP text (and unit) of every family this module and [`crate::tls`] record; the other
/// modules describe their own where they create their series (connections in
/// [`crate::transport::describe_listener`], shed calls in [`crate::overload::describe_shed`],
/// the byte budgets in [`crate::guard`], abandoned answers in [`crate::delivery::describe`],
/// followed games in [`crate::follow::describe_metrics`]).
/// The process families are rendered apart ([`process_families`]).
fn describe() {
    use metrics::{Unit, describe_counter, describe_gauge, describe_histogram};
    describe_counter!(
        "grpc_server_started_total",
        "RPCs started on the server, by grpc_type, grpc_service and grpc_method."
    );
    describe_counter!(
        "grpc_server_handled_total",
        "RPCs completed on the server, by grpc_type, grpc_service, grpc_method and grpc_code (a \
         client that went away is Canceled)."
    );
    describe_histogram!(
        "grpc_server_handling_seconds",
        Unit::Seconds,
        "Time from an RPC's start until its status was sent, by grpc_type, grpc_service and \
         grpc_method: for a stream, how long it stayed open (alert on unary calls only)."
    );
    describe_counter!(
        "grpc_server_msg_received_total",
        "Request messages received, by grpc_type, grpc_service and grpc_method."
    );
    describe_counter!(
        "grpc_server_msg_sent_total",
        "Answer messages sent, by grpc_type, grpc_service and grpc_method."
    );
    describe_counter!(
        "arbiter_games_adjudicated_total",
        "Games adjudicated (AdjudicateGame, and each game of AdjudicateGames), by result and \
         termination."
    );
    describe_counter!(
        "arbiter_ruling_consequences_total",
        "What the incidents of AdjudicateGame's games caused under the event's rules, one per \
         consequence of each ruling, by consequence (FIDE Laws 7.5, 9.5, A.5.2)."
    );
    describe_counter!(
        "arbiter_moves_rejected_total",
        "Moves refused by the rules, by reason (syntax, illegal, ambiguous, not_strict)."
    );
    describe_counter!(
        "arbiter_positions_validated_total",
        "Positions checked by ValidatePosition, by valid (true, false)."
    );
    describe_counter!(
        crate::tls::RELOADS_COUNTER,
        "Reloads of the TLS files by result: ok (a changed certificate now served to new \
         connections) or error (unreadable or broken files, the previous certificate kept)."
    );
    describe_gauge!(
        "arbiter_build_info",
        "Always 1: the version label is the running binary's version."
    );
}

/// The process metrics of the Prometheus conventions (client_golang's names and HELP texts),
/// from a snapshot of `/proc/self` read by metrics-process, as exposition text. They are written
/// here rather than through the recorder because the `metrics` crate's counters are whole
/// numbers: recorded there, `process_cpu_seconds_total` moved in whole seconds (0 after 0.19 s
/// of CPU, issue 27); here it has the kernel's resolution (a clock tick, 10 ms).
#[must_use]
pub fn process_families(snapshot: &metrics_process::collector::Metrics) -> String {
    #[allow(clippy::cast_precision_loss)] // byte and descriptor counts far below 2^53
    let families: [(&str, &str, &str, Option<f64>); 8] = [
        (
            "process_cpu_seconds_total",
            "counter",
            "Total user and system CPU time spent in seconds.",
            snapshot.cpu_seconds_total,
        ),
        (
            "process_open_fds",
            "gauge",
            "Number of open file descriptors.",
            snapshot.open_fds.map(|n| n as f64),
        ),
        (
            "process_max_fds",
            "gauge",
            "Maximum number of open file descriptors (0: unlimited).",
            snapshot.max_fds.map(|n| n as f64),
        ),
        (
            "process_virtual_memory_bytes",
            "gauge",
            "Virtual memory size in bytes.",
            snapshot.virtual_memory_bytes.map(|n| n as f64),
        ),
        (
            "process_virtual_memory_max_bytes",
            "gauge",
            "Maximum amount of virtual memory available in bytes (0: unlimited).",
            snapshot.virtual_memory_max_bytes.map(|n| n as f64),
        ),
        (
            "process_resident_memory_bytes",
            "gauge",
            "Resident memory size in bytes.",
            snapshot.resident_memory_bytes.map(|n| n as f64),
        ),
        (
            "process_start_time_seconds",
            "gauge",
            "Start time of the process since unix epoch in seconds.",
            snapshot.start_time_seconds.map(|n| n as f64),
        ),
        (
            "process_threads",
            "gauge",
            "Number of OS threads in the process.",
            snapshot.threads.map(|n| n as f64),
        ),
    ];
    families
        .into_iter()
        .filter_map(|(name, kind, help, value)| {
            let value = value?;
            Some(format!(
                "# HELP {name} {help}\n# TYPE {name} {kind}\n{name} {value}\n"
            ))
        })
        .collect()
}

/// Opens the `/metrics` listening sockets, one per address (port 0 picks a free port; see
/// [`Sockets::bind`]).
///
/// # Errors
///
/// Returns [`MetricsError::Bind`] when an address cannot be bound.
pub async fn bind(addrs: &[SocketAddr]) -> Result<Sockets, MetricsError> {
    Sockets::bind(addrs).await.map_err(MetricsError::Bind)
}

/// Answers `GET /metrics` (anything else: 404) on `listener` with the text rendering of
/// `handle`, HTTP/1.1, until the task is dropped. Runs the upkeep of the recorder as well.
///
/// At most `max_connections` connections are open at once. A full listener does not refuse the
/// newest connection, which let 16 kept-alive or slow connections, reopened as soon as they were
/// closed, refuse every scrape: it closes the oldest connection of the source address holding
/// the most ([`WhenFull::EvictFromBusiestSource`], see [`ConnectionSlots`]), so a scraper from
/// any other address always gets in. A connection must send each request's headers within
/// [`METRICS_HEADER_TIMEOUT`] (a client trickling headers is closed) and take each answer within
/// [`METRICS_ANSWER_TIMEOUT`] of its request (a client that does not read it is closed, and
/// the rendered text with it). Counted like the other listeners' (`listener="metrics"`):
/// `arbiter_connections_open`, `arbiter_connections_accepted_total` and
/// `arbiter_connections_closed_total{reason}` with reason `evicted`, `handshake_timeout` (no
/// complete request in time), `idle` (no next request in time), `slow_reader` (an answer not
/// taken in time) or `client`; `limit` stays at 0 (kept for the dashboards that read it).
///
/// Each scrape also reads the process metrics of the Prometheus conventions from `/proc`
/// (metrics-process; see [`process_families`]): `process_cpu_seconds_total` (fractional),
/// `process_resident_memory_bytes`, `process_virtual_memory_bytes`,
/// `process_virtual_memory_max_bytes`, `process_open_fds`, `process_max_fds`,
/// `process_threads`, `process_start_time_seconds`.
pub async fn serve(listener: Sockets, handle: PrometheusHandle, max_connections: usize) {
    let upkeep_handle = handle.clone();
    let upkeep = async move {
        let mut every = tokio::time::interval(Duration::from_secs(5));
        loop {
            every.tick().await;
            upkeep_handle.run_upkeep();
        }
    };
    let slots = ConnectionSlots::new(max_connections, WhenFull::EvictFromBusiestSource);
    let open = metrics::gauge!("arbiter_connections_open", "listener" => "metrics");
    // Every series of this listener exists from the start, at 0 (see `transport`).
    open.increment(0.0);
    metrics::counter!("arbiter_connections_accepted_total", "listener" => "metrics").increment(0);
    for reason in METRICS_CLOSE_REASONS {
        count_metrics_closed(reason, 0);
    }
    let accept = async move {
        loop {
            let (stream, peer) = match listener.accept().await {
                Ok(accepted) => accepted,
                Err(error) => {
                    // A connection reset before it was accepted, or out of file descriptors:
                    // the client's doing as often as not, so no log line of its own.
                    tracing::debug!(%error, "metrics: accept failed");
                    tokio::time::sleep(Duration::from_millis(10)).await;
                    continue;
                }
            };
            let Some(mut admitted) = slots.admit(peer).await else {
                drop(stream);
                count_metrics_closed("limit", 1);
                continue;
            };
            metrics::counter!("arbiter_connections_accepted_total", "listener" => "metrics")
                .increment(1);
            open.increment(1.0);
            let (handle, open) = (handle.clone(), open.clone());
            tokio::spawn(async move {
                let reason = serve_scrapes(stream, handle, &mut admitted).await;
                // The gauge and the counter first, then the place: a connection admitted in
                // its place (after an eviction) then sees them without this one.
                open.decrement(1.0);
                count_metrics_closed(reason, 1);
                drop(admitted);
            });
        }
    };
    tokio::join!(upkeep, accept);
}

/// The `reason` labels of the metrics listener's closed connections (see [`serve`]).
const METRICS_CLOSE_REASONS: [&str; 6] = [
    "limit",
    "evicted",
    "handshake_timeout",
    "idle",
    "slow_reader",
    "client",
];

fn count_metrics_closed(reason: &'static str, count: u64) {
    metrics::counter!(
        "arbiter_connections_closed_total",
        "listener" => "metrics",
        "reason" => reason
    )
    .increment(count);
}

/// Longest wait for a request's headers on the metrics port (from the connection's start, or
/// from the end of the previous response on a kept-alive connection).
pub const METRICS_HEADER_TIMEOUT: Duration = Duration::from_secs(10);

/// Longest time from a request's headers on the metrics port to its answer handed to the
/// socket in whole: a client that reads nothing (or next to nothing) is closed then, instead of
/// holding its connection and the rendered text while its socket buffers are full.
pub const METRICS_ANSWER_TIMEOUT: Duration = Duration::from_secs(10);

/// Serves the requests of one metrics connection until it closes, is evicted, or does not take
/// an answer in time; returns the `reason` label of its close, the socket closed. The caller
/// gives the connection's place back (drops `admitted`) once it has counted the close.
async fn serve_scrapes(
    stream: tokio::net::TcpStream,
    handle: PrometheusHandle,
    admitted: &mut Admitted,
) -> &'static str {
    let answer = Arc::new(AnswerInProgress::default());
    let answer_here = Arc::clone(&answer);
    let service = hyper::service::service_fn(move |request: Request<_>| {
        let handle = handle.clone();
        let answer = Arc::clone(&answer_here);
        answer.start();
        async move {
            let response = metrics_response(&request, &handle);
            Ok::<_, Infallible>(response.map(|body| AnswerBody {
                inner: body,
                answer,
            }))
        }
    });
    let io = WatchWrites {
        inner: stream,
        answer: Arc::clone(&answer),
    };
    let connection = hyper::server::conn::http1::Builder::new()
        .timer(hyper_util::rt::TokioTimer::new())
        .header_read_timeout(METRICS_HEADER_TIMEOUT)
        .serve_connection(hyper_util::rt::TokioIo::new(io), service);
    let mut connection = std::pin::pin!(connection);
    let mut ticks = tokio::time::interval(METRICS_ANSWER_TIMEOUT / 10);
    ticks.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    loop {
        tokio::select! {
            result = connection.as_mut() => break match result {
                Ok(()) => "client",
                // A connection that timed out after an answer is idle, not a failed handshake.
                Err(error) if error.is_timeout() && answer.ever_started() => "idle",
                Err(error) if error.is_timeout() => "handshake_timeout",
                Err(error) => {
                    tracing::debug!(%error, "metrics: connection failed");
                    "client"
                }
            },
            () = admitted.evicted() => break "evicted",
            _ = ticks.tick() => {
                if answer.overdue(METRICS_ANSWER_TIMEOUT) {
                    break "slow_reader";
                }
            }
        }
    }
}

/// The answer in progress on a metrics connection: since when (from its request), and whether
/// its body has been taken whole by hyper (what is left is then in hyper's write buffer).
#[derive(Debug, Default)]
struct AnswerInProgress {
    since: std::sync::Mutex<Option<Instant>>,
    body_taken: AtomicBool,
    ever_started: AtomicBool,
}

impl AnswerInProgress {
    fn since(&self) -> std::sync::MutexGuard<'_, Option<Instant>> {
        self.since
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    fn start(&self) {
        self.body_taken.store(false, Ordering::Relaxed);
        self.ever_started.store(true, Ordering::Relaxed);
        *self.since() = Some(Instant::now());
    }

    fn ever_started(&self) -> bool {
        self.ever_started.load(Ordering::Relaxed)
    }

    /// A flush succeeded: once the body was taken, the whole answer is in the socket.
    fn flushed(&self) {
        if self.body_taken.load(Ordering::Relaxed) {
            *self.since() = None;
        }
    }

    fn overdue(&self, timeout: Duration) -> bool {
        self.since().is_some_and(|since| since.elapsed() >= timeout)
    }
}

/// A metrics answer's body, which tells its connection when hyper has taken it whole (dropped).
struct AnswerBody {
    inner: http_body_util::Full<Bytes>,
    answer: Arc<AnswerInProgress>,
}

impl http_body::Body for AnswerBody {
    type Data = Bytes;
    type Error = Infallible;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, Infallible>>> {
        Pin::new(&mut self.inner).poll_frame(cx)
    }

    fn is_end_stream(&self) -> bool {
        self.inner.is_end_stream()
    }

    fn size_hint(&self) -> http_body::SizeHint {
        self.inner.size_hint()
    }
}

impl Drop for AnswerBody {
    fn drop(&mut self) {
        self.answer.body_taken.store(true, Ordering::Relaxed);
    }
}

/// A metrics connection's socket, which notes every successful flush: hyper flushes the socket
/// once its write buffer is empty, so a flush after the body was taken means the answer is out.
struct WatchWrites {
    inner: tokio::net::TcpStream,
    answer: Arc<AnswerInProgress>,
}

impl tokio::io::AsyncRead for WatchWrites {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut tokio::io::ReadBuf<'_>,
    ) -> Poll<std::io::Result<()>> {
        Pin::new(&mut self.inner).poll_read(cx, buf)
    }
}

impl tokio::io::AsyncWrite for WatchWrites {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<std::io::Result<usize>> {
        Pin::new(&mut self.inner).poll_write(cx, buf)
    }

    fn poll_write_vectored(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[std::io::IoSlice<'_>],
    ) -> Poll<std::io::Result<usize>> {
        Pin::new(&mut self.inner).poll_write_vectored(cx, bufs)
    }

    fn is_write_vectored(&self) -> bool {
        self.inner.is_write_vectored()
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        let flushed = Pin::new(&mut self.inner).poll_flush(cx);
        if matches!(flushed, Poll::Ready(Ok(()))) {
            self.answer.flushed();
        }
        flushed
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        Pin::new(&mut self.inner).poll_shutdown(cx)
    }
}

fn metrics_response<B>(
    request: &Request<B>,
    handle: &PrometheusHandle,
) -> Response<http_body_util::Full<Bytes>> {
    let (status, content_type, body) =
        if request.uri().path() == "/metrics" && request.method() == http::Method::GET {
            #[allow(clippy::cast_precision_loss)] // a handful of runs
            let analyses = arbiter_rules::interrupt::analyses_running() as f64;
            metrics::gauge!(ANALYSES_RUNNING_GAUGE).set(analyses);
            let mut text = handle.render();
            if !text.is_empty() && !text.ends_with('\n') {
                text.push('\n');
            }
            text.push_str(&process_families(&metrics_process::collector::collect()));
            (200, "text/plain; version=0.0.4; charset=utf-8", text)
        } else {
            (
                404,
                "text/plain; charset=utf-8",
                "not found: try /metrics\n".to_owned(),
            )
        };
    let mut response = Response::new(http_body_util::Full::new(Bytes::from(body)));
    *response.status_mut() = http::StatusCode::from_u16(status).unwrap_or_default();
    response.headers_mut().insert(
        http::header::CONTENT_TYPE,
        http::HeaderValue::from_static(content_type),
    );
    response
}

/// Counts a move the rules rejected (`arbiter_moves_rejected_total{reason}`), when `status`
/// carries the `move_error` metadata of its `ErrorInfo` detail.
pub fn record_rejection(status: &Status) {
    use tonic_types::StatusExt as _;
    if let Some(info) = status.get_details_error_info()
        && let Some(reason) = info.metadata.get("move_error")
    {
        metrics::counter!("arbiter_moves_rejected_total", "reason" => reason.clone()).increment(1);
    }
}

/// Counts an adjudicated game (`arbiter_games_adjudicated_total{result,termination}`): result as
/// in PGN (`1-0`, `0-1`, `1/2-1/2`, `*`), termination as the rules name it
/// ([`arbiter_rules::Termination::name`], e.g. `checkmate`; insufficient material is a
/// `dead_position` on the wire), `unspecified` while the game goes on.
pub fn record_adjudication(response: &arbiter_proto::v1::AdjudicateGameResponse) {
    let (result, termination) = response.outcome.as_ref().map_or_else(
        || ("*".to_owned(), "unspecified"),
        |outcome| {
            let termination = arbiter_proto::convert::termination_from_wire(outcome.termination());
            (
                outcome.result_text.clone(),
                termination.map_or("unspecified", arbiter_rules::Termination::name),
            )
        },
    );
    metrics::counter!(
        "arbiter_games_adjudicated_total",
        "result" => result,
        "termination" => termination
    )
    .increment(1);
    record_rulings(&response.rulings);
}

/// Counts what the incidents of adjudicated games caused
/// (`arbiter_ruling_consequences_total{consequence}`): one per consequence of each ruling, by
/// kind (`position_reinstated`, `time_added`, `move_required`, `illegal_move_stands`,
/// `claim_upheld`, `claim_rejected`, `recorded`, `game_ended`; FIDE Laws 7.5, 9.5, A.5.2).
pub fn record_rulings(rulings: &[arbiter_proto::v1::Ruling]) {
    use arbiter_proto::v1::ConsequenceKind as Kind;
    for consequence in rulings.iter().flat_map(|r| &r.consequences) {
        let kind = match consequence.kind() {
            Kind::PositionReinstated => "position_reinstated",
            Kind::TimeAdded => "time_added",
            Kind::MoveRequired => "move_required",
            Kind::IllegalMoveStands => "illegal_move_stands",
            Kind::ClaimUpheld => "claim_upheld",
            Kind::ClaimRejected => "claim_rejected",
            Kind::Recorded => "recorded",
            Kind::GameEnded => "game_ended",
            Kind::Unspecified => "unspecified",
        };
        metrics::counter!("arbiter_ruling_consequences_total", "consequence" => kind).increment(1);
    }
}

/// Counts a validated position (`arbiter_positions_validated_total{valid}`).
pub fn record_validation(valid: bool) {
    let valid = if valid { "true" } else { "false" };
    metrics::counter!("arbiter_positions_validated_total", "valid" => valid).increment(1);
}

/// The label value of `grpc_service` and `grpc_method` for a call to a method this server does not
/// serve (an unknown service, an unknown method of a known service, or a path that is not
/// `/<service>/<method>` at all). Clients choose paths: one fixed value keeps them from creating
/// series without bound. Such calls are `grpc_type="unary"` and end `Unimplemented`.
pub const UNKNOWN: &str = "unknown";

/// Every method this server serves, as `(grpc_service, grpc_method, grpc_type)` label values:
/// `arbiter.v1.ArbiterService`, `grpc.health.v1.Health` and both versions of server reflection.
/// The unit tests compare it with the services' file descriptor sets, so an RPC added to
/// `arbiter.proto` without a line here fails them.
pub const KNOWN_METHODS: [(&str, &str, &str); 11] = [
    ("arbiter.v1.ArbiterService", "ListLegalMoves", "unary"),
    ("arbiter.v1.ArbiterService", "ApplyMove", "unary"),
    ("arbiter.v1.ArbiterService", "ApplyMoves", "unary"),
    ("arbiter.v1.ArbiterService", "AdjudicateGame", "unary"),
    ("arbiter.v1.ArbiterService", "ValidatePosition", "unary"),
    (
        "arbiter.v1.ArbiterService",
        "AdjudicateGames",
        "bidi_stream",
    ),
    ("arbiter.v1.ArbiterService", "FollowGame", "bidi_stream"),
    ("grpc.health.v1.Health", "Check", "unary"),
    ("grpc.health.v1.Health", "Watch", "server_stream"),
    (
        "grpc.reflection.v1.ServerReflection",
        "ServerReflectionInfo",
        "bidi_stream",
    ),
    (
        "grpc.reflection.v1alpha.ServerReflection",
        "ServerReflectionInfo",
        "bidi_stream",
    ),
];

/// The outermost layer: counts every call and times it, whatever answers it.
#[derive(Debug, Clone, Copy, Default)]
pub struct MetricsLayer;

impl<S> Layer<S> for MetricsLayer {
    type Service = Metered<S>;

    fn layer(&self, inner: S) -> Self::Service {
        Metered { inner }
    }
}

/// The service made by [`MetricsLayer`].
#[derive(Debug, Clone)]
pub struct Metered<S> {
    inner: S,
}

impl<S: NamedService> NamedService for Metered<S> {
    const NAME: &'static str = S::NAME;
}

/// The labels of one call, and what its log line tells.
#[derive(Debug, Clone)]
struct CallLabels {
    grpc_type: &'static str,
    service: &'static str,
    method: &'static str,
    span: tracing::Span,
    /// Set when the request body failed on the client's side (reset stream, closed connection).
    client_gone: Arc<AtomicBool>,
}

impl CallLabels {
    /// The labels of a call to `path` (`/<service>/<method>`): those of a [`KNOWN_METHODS`]
    /// entry, or [`UNKNOWN`] for anything else. No allocation.
    fn from_path(path: &str) -> Self {
        let (grpc_type, service, method) = path
            .strip_prefix('/')
            .and_then(|rest| rest.split_once('/'))
            .and_then(|(service, method)| {
                KNOWN_METHODS
                    .iter()
                    .find(|known| known.0 == service && known.1 == method)
            })
            .map_or(
                ("unary", UNKNOWN, UNKNOWN),
                |&(service, method, grpc_type)| (grpc_type, service, method),
            );
        Self {
            grpc_type,
            service,
            method,
            span: tracing::Span::none(),
            client_gone: Arc::new(AtomicBool::new(false)),
        }
    }

    fn labels(&self) -> [(&'static str, &'static str); 3] {
        [
            ("grpc_type", self.grpc_type),
            ("grpc_service", self.service),
            ("grpc_method", self.method),
        ]
    }

    fn finish(&self, code: Code, started: Instant, messages_sent: u64) {
        // tonic reports a request body broken by the client as INTERNAL or UNKNOWN, which the
        // guard turns into INVALID_ARGUMENT when it reads as a truncated message.
        let code = if matches!(code, Code::Internal | Code::Unknown | Code::InvalidArgument)
            && self.client_gone.load(Ordering::Relaxed)
        {
            Code::Cancelled
        } else {
            code
        };
        let labels = self.labels();
        metrics::counter!("grpc_server_msg_sent_total", &labels).increment(messages_sent);
        metrics::histogram!("grpc_server_handling_seconds", &labels)
            .record(started.elapsed().as_secs_f64());
        let code = code_name(code);
        let [grpc_type, grpc_service, grpc_method] = labels;
        let handled = [grpc_type, grpc_service, grpc_method, ("grpc_code", code)];
        metrics::counter!("grpc_server_handled_total", &handled).increment(1);
        if crate::logging::log_this_call() {
            let elapsed_us = u64::try_from(started.elapsed().as_micros()).unwrap_or(u64::MAX);
            self.span.in_scope(|| {
                tracing::info!(grpc_status = code, elapsed_us, "call finished");
            });
        }
    }
}

/// The name of a gRPC status code as grpc-go's `codes.Code.String()` writes it, which is the
/// `grpc_code` label value of the go-grpc-prometheus conventions (`OK`, `Canceled`,
/// `InvalidArgument`, `ResourceExhausted`, ...): dashboards and alerts written for other gRPC
/// servers work unchanged. The `grpc_status` field of the call's log line uses the same names,
/// so that a value seen on a dashboard can be searched for in the logs as it is.
#[must_use]
pub fn code_name(code: Code) -> &'static str {
    match code {
        Code::Ok => "OK",
        Code::Cancelled => "Canceled",
        Code::Unknown => "Unknown",
        Code::InvalidArgument => "InvalidArgument",
        Code::DeadlineExceeded => "DeadlineExceeded",
        Code::NotFound => "NotFound",
        Code::AlreadyExists => "AlreadyExists",
        Code::PermissionDenied => "PermissionDenied",
        Code::ResourceExhausted => "ResourceExhausted",
        Code::FailedPrecondition => "FailedPrecondition",
        Code::Aborted => "Aborted",
        Code::OutOfRange => "OutOfRange",
        Code::Unimplemented => "Unimplemented",
        Code::Internal => "Internal",
        Code::Unavailable => "Unavailable",
        Code::DataLoss => "DataLoss",
        Code::Unauthenticated => "Unauthenticated",
    }
}

/// The status code in `grpc-status`, if the headers carry one.
#[must_use]
pub fn status_in(headers: &HeaderMap) -> Option<Code> {
    let value = headers.get("grpc-status")?.to_str().ok()?;
    value.parse::<i32>().ok().map(Code::from_i32)
}

type BoxFuture<T> = Pin<Box<dyn Future<Output = T> + Send + 'static>>;

impl<S> Service<Request<Body>> for Metered<S>
where
    S: Service<Request<Body>, Response = Response<Body>, Error = Infallible>
        + Clone
        + Send
        + 'static,
    S::Future: Send + 'static,
{
    type Response = Response<Body>;
    type Error = Infallible;
    type Future = BoxFuture<Result<Response<Body>, Infallible>>;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), Self::Error>> {
        self.inner.poll_ready(cx)
    }

    fn call(&mut self, request: Request<Body>) -> Self::Future {
        let started = Instant::now();
        let mut call = CallLabels::from_path(request.uri().path());
        metrics::counter!("grpc_server_started_total", &call.labels()).increment(1);
        let request_id = crate::logging::request_id(request.headers());
        let peer = crate::logging::peer(&request);
        call.span = tracing::info_span!(
            "call",
            method = %request.uri().path(),
            peer = %peer,
            request_id = %request_id,
        );
        let span = call.span.clone();
        let delivery = request.extensions().get::<Arc<Delivery>>().cloned();
        let (parts, body) = request.into_parts();
        let request = Request::from_parts(
            parts,
            Body::new(CountMessages {
                inner: body,
                call: call.clone(),
                framing: Framing::START,
            }),
        );
        // Take the service that was driven ready, leaving a fresh clone in its place.
        let clone = self.inner.clone();
        let mut inner = std::mem::replace(&mut self.inner, clone);
        let future = tracing::Instrument::instrument(inner.call(request), span);
        Box::pin(async move {
            // Dropped before the answer (the client reset the stream): counted as Canceled.
            let mut unanswered = Unanswered(Some(Pending {
                call,
                started,
                sent: 0,
                framing: Framing::START,
                delivery: delivery.clone(),
            }));
            let Ok(mut response) = future.await;
            let Some(Pending { call, .. }) = unanswered.0.take() else {
                return Ok(response); // taken only here
            };
            if let Ok(value) = http::HeaderValue::from_str(&request_id) {
                response
                    .headers_mut()
                    .insert(crate::logging::REQUEST_ID_HEADER, value);
            }
            if let Some(code) = status_in(response.headers()) {
                // A trailers-only answer: the call is over.
                call.finish(code, started, 0);
                return Ok(response);
            }
            let (parts, body) = response.into_parts();
            Ok(Response::from_parts(
                parts,
                Body::new(Finish {
                    inner: body,
                    pending: Some(Pending {
                        call,
                        started,
                        sent: 0,
                        framing: Framing::START,
                        delivery,
                    }),
                }),
            ))
        })
    }
}

/// A call in progress until its answer exists: dropped before that, it is counted as `Canceled`.
struct Unanswered(Option<Pending>);

impl Drop for Unanswered {
    fn drop(&mut self) {
        if let Some(pending) = self.0.take() {
            pending.cancel();
        }
    }
}

/// Counts the gRPC messages of a request body as they arrive, from their length-prefixed
/// framing: a message counts when its last byte has arrived, however the DATA frames cut or
/// pack messages.
struct CountMessages {
    inner: Body,
    call: CallLabels,
    framing: Framing,
}

impl http_body::Body for CountMessages {
    type Data = Bytes;
    type Error = Status;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, Status>>> {
        let polled = Pin::new(&mut self.inner).poll_frame(cx);
        match &polled {
            Poll::Ready(Some(Ok(frame))) if frame.data_ref().is_some() => {
                let data = frame.data_ref().map_or(&[][..], |data| &data[..]);
                let ended = self.framing.messages_ended(data);
                if ended > 0 {
                    metrics::counter!("grpc_server_msg_received_total", &self.call.labels())
                        .increment(ended);
                }
            }
            // The transport's body fails only on the client's side: a reset or a closed
            // connection.
            Poll::Ready(Some(Err(_))) => self.call.client_gone.store(true, Ordering::Relaxed),
            _ => {}
        }
        polled
    }

    fn is_end_stream(&self) -> bool {
        self.inner.is_end_stream()
    }

    fn size_hint(&self) -> http_body::SizeHint {
        self.inner.size_hint()
    }
}

/// What is still to be recorded when the response body ends.
struct Pending {
    call: CallLabels,
    started: Instant,
    /// Response messages sent so far, counted from their framing (tonic packs several
    /// messages of a stream into one frame).
    sent: u64,
    framing: Framing,
    /// The delivery of the call's answer (see [`crate::delivery`]), when the transport keeps
    /// one: it says why a call dropped before its status was cut short.
    delivery: Option<Arc<Delivery>>,
}

impl Pending {
    /// Records a call dropped before its status: `DeadlineExceeded` when its deadline passed
    /// before its answer was delivered (its stream was reset), `ResourceExhausted` when the
    /// server gave its answer's room to others or closed its connection as a slow reader, else
    /// `Canceled` (the client went away).
    fn cancel(self) {
        let code = match self
            .delivery
            .as_ref()
            .and_then(|delivery| delivery.cancelled())
        {
            Some(Abandoned::Deadline) => Code::DeadlineExceeded,
            Some(Abandoned::Evicted | Abandoned::SlowReader) => Code::ResourceExhausted,
            None => Code::Cancelled,
        };
        self.call.finish(code, self.started, self.sent);
    }
}

/// A response body that records the call when its trailers pass (or when it is dropped early).
struct Finish {
    inner: Body,
    pending: Option<Pending>,
}

impl http_body::Body for Finish {
    type Data = Bytes;
    type Error = Status;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, Status>>> {
        let polled = Pin::new(&mut self.inner).poll_frame(cx);
        match &polled {
            Poll::Ready(Some(Ok(frame))) => {
                if let Some(trailers) = frame.trailers_ref() {
                    let code = status_in(trailers).unwrap_or(Code::Unknown);
                    if let Some(pending) = self.pending.take() {
                        pending.call.finish(code, pending.started, pending.sent);
                    }
                } else if let Some(data) = frame.data_ref()
                    && let Some(pending) = self.pending.as_mut()
                {
                    pending.sent += pending.framing.messages_ended(data);
                }
            }
            Poll::Ready(Some(Err(status))) => {
                if let Some(pending) = self.pending.take() {
                    pending
                        .call
                        .finish(status.code(), pending.started, pending.sent);
                }
            }
            Poll::Ready(None) => {
                // A body without trailers: gRPC always sends them, so this is an error.
                if let Some(pending) = self.pending.take() {
                    pending
                        .call
                        .finish(Code::Unknown, pending.started, pending.sent);
                }
            }
            Poll::Pending => {}
        }
        polled
    }

    fn is_end_stream(&self) -> bool {
        self.inner.is_end_stream()
    }

    fn size_hint(&self) -> http_body::SizeHint {
        self.inner.size_hint()
    }
}

impl Drop for Finish {
    fn drop(&mut self) {
        if let Some(pending) = self.pending.take() {
            pending.cancel();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn served_methods_keep_their_own_labels() {
        let call = CallLabels::from_path("/arbiter.v1.ArbiterService/ListLegalMoves");
        assert_eq!(
            call.labels(),
            [
                ("grpc_type", "unary"),
                ("grpc_service", "arbiter.v1.ArbiterService"),
                ("grpc_method", "ListLegalMoves"),
            ]
        );
        assert_eq!(
            CallLabels::from_path("/grpc.health.v1.Health/Watch").grpc_type,
            "server_stream"
        );
        assert_eq!(
            CallLabels::from_path("/arbiter.v1.ArbiterService/AdjudicateGames").grpc_type,
            "bidi_stream"
        );
        for (service, method, grpc_type) in KNOWN_METHODS {
            let call = CallLabels::from_path(&format!("/{service}/{method}"));
            assert_eq!(
                (call.service, call.method, call.grpc_type),
                (service, method, grpc_type)
            );
        }
    }

    /// Clients choose the path: any path that is not a served method must land in the one
    /// `unknown` series, or each made-up name would create series without bound.
    #[test]
    fn client_chosen_paths_cannot_create_series() {
        for path in [
            "/evil.Svc1/Method1",
            "/arbiter.v1.ArbiterService/NoSuchMethod",
            "/arbiter.v1.ArbiterService/ListLegalMoves/extra",
            "/arbiter.v1.ArbiterService/listlegalmoves",
            "//arbiter.v1.ArbiterService/ListLegalMoves",
            "/arbiter.v1.ArbiterService/",
            "/arbiter.v1.ArbiterService",
            "/grpc.health.v1.Health/ServerReflectionInfo",
            "arbiter.v1.ArbiterService/ListLegalMoves",
            "/",
            "",
            "/%00/\u{1F600}",
        ] {
            assert_eq!(
                CallLabels::from_path(path).labels(),
                [
                    ("grpc_type", "unary"),
                    ("grpc_service", UNKNOWN),
                    ("grpc_method", UNKNOWN),
                ],
                "{path:?}"
            );
        }
    }

    /// The `(grpc_service, grpc_method, grpc_type)` of every method in encoded file descriptor
    /// sets, for the services named.
    fn described_methods(
        file_descriptor_set: &[u8],
        services: &[&str],
    ) -> Vec<(String, String, &'static str)> {
        use prost::Message as _;
        let set = prost_types::FileDescriptorSet::decode(file_descriptor_set).expect("decodes");
        let mut methods = Vec::new();
        for file in &set.file {
            for service in &file.service {
                let name = format!("{}.{}", file.package(), service.name());
                if !services.contains(&name.as_str()) {
                    continue;
                }
                for method in &service.method {
                    let grpc_type = match (method.client_streaming(), method.server_streaming()) {
                        (false, false) => "unary",
                        (true, false) => "client_stream",
                        (false, true) => "server_stream",
                        (true, true) => "bidi_stream",
                    };
                    methods.push((name.clone(), method.name().to_owned(), grpc_type));
                }
            }
        }
        methods
    }

    /// An RPC added to arbiter.proto (or a service added to the server) without a
    /// [`KNOWN_METHODS`] line would be counted as `unknown`: the list must be exactly what the
    /// served services' descriptors declare, with the call type they declare.
    #[test]
    fn known_methods_are_exactly_the_served_descriptors() {
        let mut described = Vec::new();
        described.extend(described_methods(
            arbiter_proto::FILE_DESCRIPTOR_SET,
            &[arbiter_proto::SERVICE_NAME],
        ));
        described.extend(described_methods(
            tonic_health::pb::FILE_DESCRIPTOR_SET,
            &[tonic_health::pb::health_server::SERVICE_NAME],
        ));
        described.extend(described_methods(
            tonic_reflection::pb::v1::FILE_DESCRIPTOR_SET,
            &["grpc.reflection.v1.ServerReflection"],
        ));
        described.extend(described_methods(
            tonic_reflection::pb::v1alpha::FILE_DESCRIPTOR_SET,
            &["grpc.reflection.v1alpha.ServerReflection"],
        ));
        let mut described: Vec<(String, String, &str)> = described;
        described.sort();
        let mut known: Vec<(String, String, &str)> = KNOWN_METHODS
            .iter()
            .map(|&(service, method, grpc_type)| (service.to_owned(), method.to_owned(), grpc_type))
            .collect();
        known.sort();
        assert_eq!(known, described);
        assert!(described.iter().any(|m| m.0 == arbiter_proto::SERVICE_NAME));
    }

    /// go-grpc-prometheus writes grpc-go's `codes.Code.String()`; dashboards and alerts match
    /// those exact strings (one `l` in `Canceled`), in the order of the code numbers.
    #[test]
    fn code_labels_are_grpc_go_code_names() {
        let grpc_go = [
            "OK",
            "Canceled",
            "Unknown",
            "InvalidArgument",
            "DeadlineExceeded",
            "NotFound",
            "AlreadyExists",
            "PermissionDenied",
            "ResourceExhausted",
            "FailedPrecondition",
            "Aborted",
            "OutOfRange",
            "Unimplemented",
            "Internal",
            "Unavailable",
            "DataLoss",
            "Unauthenticated",
        ];
        for (number, name) in (0..).zip(grpc_go) {
            assert_eq!(code_name(Code::from_i32(number)), name, "code {number}");
        }
    }

    /// The `grpc_code` values that a PromQL text (or a JSON file holding PromQL) matches on,
    /// `|`-separated alternatives split.
    fn grpc_code_values(text: &str) -> Vec<String> {
        let mut values = Vec::new();
        for (at, _) in text.match_indices("grpc_code") {
            let rest = text[at + "grpc_code".len()..].trim_start_matches([' ', '=', '!', '~']);
            let Some(rest) = rest.strip_prefix("\\\"").or_else(|| rest.strip_prefix('"')) else {
                continue; // `by (grpc_code)`, a legend, ...
            };
            let value = rest.split(['"', '\\']).next().unwrap_or_default();
            values.extend(value.split('|').map(str::to_owned));
        }
        values
    }

    /// An alert or panel matching a code name the server never writes (`RESOURCE_EXHAUSTED`,
    /// `Cancelled`) would silently never fire or always show zero.
    #[test]
    fn alerts_and_dashboards_match_only_emitted_code_names() {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
        let emitted: Vec<&str> = (0..17).map(|n| code_name(Code::from_i32(n))).collect();
        let mut seen = 0;
        for file in [
            "deploy/prometheus/arbiter.rules.yaml",
            "deploy/kustomize/components/monitoring/prometheusrule.yaml",
            "helm/arbiter/templates/prometheusrule.yaml",
            "deploy/grafana/arbiter-dashboard.json",
            "helm/arbiter/dashboards/arbiter-dashboard.json",
        ] {
            let text = std::fs::read_to_string(root.join(file)).expect(file);
            let values = grpc_code_values(&text);
            assert!(!values.is_empty(), "{file} matches no grpc_code");
            for value in values {
                assert!(
                    emitted.contains(&value.as_str()),
                    "{file}: grpc_code {value:?} is never emitted"
                );
                seen += 1;
            }
        }
        assert!(seen > 0);
        assert_eq!(
            grpc_code_values(r#"rate(x{grpc_code=~"Internal|Unknown"}[5m]) by (grpc_code)"#),
            ["Internal", "Unknown"]
        );
    }

    #[test]
    fn status_codes_are_read() {
        let mut headers = HeaderMap::new();
        assert_eq!(status_in(&headers), None);
        headers.insert("grpc-status", http::HeaderValue::from_static("8"));
        assert_eq!(status_in(&headers), Some(Code::ResourceExhausted));
        assert_eq!(code_name(Code::ResourceExhausted), "ResourceExhausted");
    }
}
