//! `arbiter serve`: the gRPC server (and gRPC-Web, on the same port) with health, reflection,
//! limits and graceful shutdown.

use std::{future::Future, net::SocketAddr, sync::Arc, time::Duration};

use arbiter_proto::{SERVICE_NAME, v1::arbiter_service_server::ArbiterServiceServer};
use tonic::service::Routes;
use tonic_health::ServingStatus;
use tower::Layer as _;

use crate::{
    grpc_web::{AllowedOrigins, GrpcWebLayer},
    guard::{AnswerBytes, GuardLayer, RequestBytes},
    health::{DRAINED_NAMES, LIVENESS, set_draining},
    limits::Limits,
    logging::AccessLog,
    metrics::{MetricsError, MetricsLayer},
    service::{Arbiter, StreamTimes},
    tls::{ReloadingTls, TlsFiles},
    transport::{BindError, ConnectionLimits, Listener, Sockets, TlsSource, WhenFull},
    workers::Workers,
};

/// Largest header list accepted from a client (16 KiB, as grpc-go's default).
pub const MAX_HEADER_LIST_BYTES: u32 = 16 * 1024;

/// The gRPC answer of a call whose handler panicked: without it, hyper resets the stream
/// (the client sees a transport error, the metrics `Canceled`, and no alert fires).
const PANIC_MESSAGE: &str = "internal error: the server failed while handling this call";

/// Wraps `routes` so that a panic in a handler (a bug) answers the call with INTERNAL, logged
/// at ERROR, counted by the metrics layer outside it, instead of resetting the stream.
/// Work on the workers already turns its panics into INTERNAL (see [`Workers::run`]); this
/// covers the rest of each call (decoding, admission, encoding).
fn catch_panics<S>(
    routes: S,
) -> impl tower::Service<
    http::Request<tonic::body::Body>,
    Response = http::Response<tonic::body::Body>,
    Error = std::convert::Infallible,
    Future = impl Future + Send + 'static,
> + Clone
+ Send
+ 'static
where
    S: tower::Service<
            http::Request<tonic::body::Body>,
            Response = http::Response<tonic::body::Body>,
            Error = std::convert::Infallible,
        > + Clone
        + Send
        + 'static,
    S::Future: Send + 'static,
{
    tower::ServiceBuilder::new()
        .map_response(|response: http::Response<_>| response.map(tonic::body::Body::new))
        .layer(tower_http::catch_panic::CatchPanicLayer::custom(
            |panic: Box<dyn std::any::Any + Send>| {
                let detail = panic
                    .downcast_ref::<&str>()
                    .map(|text| (*text).to_owned())
                    .or_else(|| panic.downcast_ref::<String>().cloned())
                    .unwrap_or_default();
                tracing::error!(panic = %detail, "a call's handler panicked: answered INTERNAL");
                tonic::Status::internal(PANIC_MESSAGE).into_http::<tonic::body::Body>()
            },
        ))
        .service(routes)
}

/// How often what was shed is summarised in the log (one line at most per interval).
pub const OVERLOAD_LOG_INTERVAL: Duration = Duration::from_secs(1);

/// Why the server could not run.
#[derive(Debug, thiserror::Error)]
pub enum ServeError {
    /// A listening socket could not be opened.
    #[error(transparent)]
    Bind(#[from] BindError),
    /// The reflection service could not be built from the descriptors.
    #[error("cannot build the reflection service: {0}")]
    Reflection(#[from] tonic_reflection::server::Error),
    /// Metrics could not be set up.
    #[error(transparent)]
    Metrics(#[from] MetricsError),
    /// A TLS file could not be read or is broken.
    #[error(transparent)]
    Tls(#[from] crate::tls::TlsError),
}

/// What `arbiter serve` runs with: plain values, made from the command line (flags, their
/// `ARBITER_*` variables and defaults) by `cli::ServeArgs::config`, or by a program that embeds
/// the server. Counts are `usize`, byte budgets `u64`; a zero count or duration is taken as
/// given (the command line refuses those that make no sense).
#[derive(Debug, Clone)]
pub struct ServeConfig {
    /// The addresses of the gRPC port (`--grpc-addr`, its host name resolved): each is bound
    /// (see [`Sockets::bind`]).
    pub grpc_addrs: Vec<SocketAddr>,
    /// The addresses of the plaintext health port (`--health-addr`); empty: no health port.
    pub health_addrs: Vec<SocketAddr>,
    /// The addresses of `GET /metrics` (`--metrics-addr`); empty: no metrics.
    pub metrics_addrs: Vec<SocketAddr>,
    /// The bounds of one call's chess work (`--max-moves`, `--max-pgn-bytes`, `--analysis`,
    /// `--max-games-per-stream`).
    pub limits: Limits,
    /// Largest request or answer message, in bytes (`--max-message-bytes`).
    pub max_message_bytes: usize,
    /// Threads that do chess work (`--workers`, 0 already turned into the number of cores).
    pub workers: usize,
    /// Workers that stream messages may use at once, at most `workers` (`--stream-workers`, 0
    /// already turned into all workers but one).
    pub stream_workers: usize,
    /// Analyzer runs at once in the process (`--max-analyses`).
    pub max_analyses: usize,
    /// Unary calls admitted at once (`--concurrency-limit`).
    pub concurrency_limit: usize,
    /// AdjudicateGames streams open at once, and reflection streams in a pool of their own
    /// (`--max-streams`).
    pub max_streams: usize,
    /// FollowGame streams open at once, in a pool of their own (`--max-follow-streams`).
    pub max_follow_streams: usize,
    /// The bounds of a FollowGame stream: its idle time and its incidents
    /// (`--follow-idle-timeout`, `--max-follow-incidents`; its plies are `limits.max_moves`).
    pub follow: crate::follow::FollowBounds,
    /// Largest unary request, in bytes, answered on the network thread that read it
    /// (`--max-inline-bytes`; 0: none).
    pub max_inline_bytes: usize,
    /// Longest wait for a worker, an analysis slot or room in a byte budget (`--max-queue-wait`).
    pub max_queue_wait: Duration,
    /// Longest time of a call, or of one stream message (`--request-timeout`).
    pub request_timeout: Duration,
    /// Longest time a stream may go without progress (`--stream-idle-timeout`).
    pub stream_idle_timeout: Duration,
    /// Bytes of request messages held at once, gRPC headers included
    /// (`--max-request-bytes-in-flight`).
    pub max_request_bytes_in_flight: u64,
    /// Bytes of answers built and not yet taken, plus 1 KiB per such call
    /// (`--max-answer-bytes-in-flight`).
    pub max_answer_bytes_in_flight: u64,
    /// The gRPC port's connection bounds (`--max-connections`, the handshake, idle and age
    /// timeouts, HTTP/2 windows and keepalive, `--slow-reader-timeout`,
    /// `--socket-send-buffer-bytes`); the health port takes them too, with its own cap.
    pub connections: ConnectionLimits,
    /// Connections open at once on the health port (`--health-max-connections`).
    pub health_max_connections: usize,
    /// Connections open at once on the metrics port (`--metrics-max-connections`).
    pub metrics_max_connections: usize,
    /// The certificate, key and client CA files (`--tls-cert`, `--tls-key`, `--tls-client-ca`);
    /// `None`: plaintext.
    pub tls: Option<TlsFiles>,
    /// How often the TLS files are read again (`--tls-reload-interval`); `None`: never.
    pub tls_reload_interval: Option<Duration>,
    /// Browser origins allowed to call over gRPC-Web (`--cors-allowed-origins`).
    pub cors_allowed_origins: AllowedOrigins,
    /// Which calls get an access log line (`--access-log`, `--access-log-sample`).
    pub access_log: AccessLog,
    /// How long calls are still accepted after a shutdown signal while health says NOT_SERVING
    /// (`--lame-duck`); at most half of `drain_timeout` is used.
    pub lame_duck: Duration,
    /// Longest time of a graceful shutdown, lame duck included (`--drain-timeout`).
    pub drain_timeout: Duration,
}

impl ServeConfig {
    /// Most calls away from their worker for analyzer runs at once (see
    /// [`Workers::max_seatless`]).
    #[must_use]
    pub fn max_seatless(&self) -> usize {
        Workers::max_seatless(self.workers, self.max_analyses)
    }

    /// Threads of the blocking pool: one per worker, one per call that may be away from its
    /// worker for an analyzer run, and one for housekeeping (reading reloaded TLS files). The
    /// pool never grows with the number of calls.
    #[must_use]
    pub fn blocking_threads(&self) -> usize {
        self.workers
            .saturating_add(self.max_seatless())
            .saturating_add(1)
    }
}

/// A bound, not yet serving, server: lets callers learn the actual port before serving.
#[derive(Debug)]
pub struct Bound {
    listener: Sockets,
    health: Option<Sockets>,
    metrics: Option<(Sockets, metrics_exporter_prometheus::PrometheusHandle)>,
    tls: Option<Arc<ReloadingTls>>,
    config: ServeConfig,
}

impl Bound {
    /// Prepares the rules engine, reads the TLS files if any, opens the listening sockets of
    /// `config.grpc_addrs` (port 0 picks a free port) and, unless they are off, of the health
    /// port, and installs the metrics recorder and opens the sockets of `/metrics`.
    ///
    /// # Errors
    ///
    /// [`ServeError::Tls`] when a TLS file is unreadable or broken, [`ServeError::Bind`] when
    /// an address cannot be bound, [`ServeError::Metrics`] when the metrics address cannot be
    /// bound or a recorder is already installed.
    pub async fn bind(config: ServeConfig) -> Result<Self, ServeError> {
        // Build the move generator's attack tables now, not during the first call.
        let warm_up =
            tokio::task::spawn_blocking(|| arbiter_rules::Position::startpos().legal_moves().len());
        if let Err(error) = warm_up.await {
            tracing::warn!(%error, "move generator warm-up failed");
        }
        let tls = match &config.tls {
            Some(files) => Some(Arc::new(ReloadingTls::load(files.clone())?)),
            None => None,
        };
        let listener = Sockets::bind(&config.grpc_addrs).await?;
        let health = if config.health_addrs.is_empty() {
            None
        } else {
            Some(Sockets::bind(&config.health_addrs).await?)
        };
        let metrics = if config.metrics_addrs.is_empty() {
            None
        } else {
            let metrics_listener = crate::metrics::bind(&config.metrics_addrs).await?;
            let handle = crate::metrics::install()?;
            // The series that count events exist at 0 before the first scrape can come.
            crate::overload::describe_shed();
            crate::delivery::describe();
            crate::follow::describe_metrics();
            crate::transport::describe_listener("grpc");
            if health.is_some() {
                crate::transport::describe_listener("health");
            }
            Some((metrics_listener, handle))
        };
        Ok(Self {
            listener,
            health,
            metrics,
            tls,
            config,
        })
    }

    /// The first address the gRPC port bound (see [`Bound::local_addrs`]).
    ///
    /// # Errors
    ///
    /// Returns the socket error if the address cannot be read.
    pub fn local_addr(&self) -> std::io::Result<SocketAddr> {
        first(self.listener.local_addrs()?)
    }

    /// Every address the gRPC port bound, in the order of [`ServeConfig::grpc_addrs`].
    ///
    /// # Errors
    ///
    /// Returns the socket error if an address cannot be read.
    pub fn local_addrs(&self) -> std::io::Result<Vec<SocketAddr>> {
        self.listener.local_addrs()
    }

    /// The addresses the plaintext health listener bound, `None` when it is off.
    ///
    /// # Errors
    ///
    /// Returns the socket error if an address cannot be read.
    pub fn health_addrs(&self) -> std::io::Result<Option<Vec<SocketAddr>>> {
        self.health.as_ref().map(Sockets::local_addrs).transpose()
    }

    /// The addresses the `/metrics` endpoint bound, `None` when metrics are off.
    ///
    /// # Errors
    ///
    /// Returns the socket error if an address cannot be read.
    pub fn metrics_addrs(&self) -> std::io::Result<Option<Vec<SocketAddr>>> {
        self.metrics
            .as_ref()
            .map(|(listener, _)| listener.local_addrs())
            .transpose()
    }

    /// Serves until `shutdown` completes, then drains: health turns NOT_SERVING, new calls are
    /// still accepted during the lame-duck period, then the server stops accepting connections
    /// and waits for calls in flight. The drain as a whole takes at most `drain_timeout`.
    ///
    /// # Errors
    ///
    /// Returns a [`ServeError`] when the reflection service cannot be built or the transport
    /// fails.
    pub async fn serve(
        self,
        shutdown: impl Future<Output = ()> + Send + 'static,
    ) -> Result<(), ServeError> {
        let Self {
            listener,
            health,
            metrics,
            tls,
            config,
        } = self;
        // Stopped when serving ends, so that no task outlives the server.
        let metrics_task = metrics.map(|(listener, handle)| {
            tokio::spawn(crate::metrics::serve(
                listener,
                handle,
                config.metrics_max_connections,
            ))
        });
        let tls_task = tls
            .as_ref()
            .zip(config.tls_reload_interval)
            .map(|(tls, every)| tokio::spawn(Arc::clone(tls).watch(every)));

        let (reporter, health_service) = crate::health::reporter();
        for name in DRAINED_NAMES.into_iter().chain([LIVENESS]) {
            reporter.set_status(name, ServingStatus::Serving);
        }

        // google.rpc's error details (BadRequest, ErrorInfo) are served too, so that grpcurl and
        // buf curl can decode the details of an error instead of printing them as base64.
        let reflection_v1 = tonic_reflection::server::Builder::configure()
            .register_encoded_file_descriptor_set(arbiter_proto::FILE_DESCRIPTOR_SET)
            .register_encoded_file_descriptor_set(tonic_health::pb::FILE_DESCRIPTOR_SET)
            .register_encoded_file_descriptor_set(tonic_types::pb::FILE_DESCRIPTOR_SET)
            .build_v1()?;
        let reflection_v1alpha = tonic_reflection::server::Builder::configure()
            .register_encoded_file_descriptor_set(arbiter_proto::FILE_DESCRIPTOR_SET)
            .register_encoded_file_descriptor_set(tonic_health::pb::FILE_DESCRIPTOR_SET)
            .register_encoded_file_descriptor_set(tonic_types::pb::FILE_DESCRIPTOR_SET)
            .build_v1alpha()?;

        let limits = config.limits;
        arbiter_rules::interrupt::set_max_concurrent_analyses(config.max_analyses);
        // A call whose analysis would wait longer for a slot than it may wait for a worker is
        // refused (RESOURCE_EXHAUSTED, reason analysis_queue), not left to reach its deadline.
        arbiter_rules::interrupt::set_max_analysis_wait(Some(config.max_queue_wait));
        let workers = Workers::new(config.workers, config.max_queue_wait, config.max_seatless())
            .with_stream_workers(config.stream_workers);
        let stream_times = StreamTimes {
            idle: config.stream_idle_timeout,
            message: config.request_timeout,
        };
        let max_bytes = config.max_message_bytes;
        // Turns true when the lame-duck period is over: no new connections, a GOAWAY on open
        // ones, and open streams end between messages.
        let (stop_tx, stop) = tokio::sync::watch::channel(false);
        let (health_stop_tx, health_stop) = tokio::sync::watch::channel(false);
        let arbiter = ArbiterServiceServer::new(
            Arbiter::new(limits, workers, stream_times)
                .with_max_inline_bytes(config.max_inline_bytes)
                .with_follow(config.follow)
                .with_drain(stop.clone()),
        )
        .max_decoding_message_size(max_bytes)
        .max_encoding_message_size(max_bytes);
        let answers = AnswerBytes::new(config.max_answer_bytes_in_flight, config.max_queue_wait);
        let guard = GuardLayer::new(
            config.concurrency_limit,
            config.max_streams,
            vec![format!("/{SERVICE_NAME}/AdjudicateGames")],
            config.request_timeout,
        )
        .with_stream_pool(
            config.max_follow_streams,
            vec![format!("/{SERVICE_NAME}/FollowGame")],
            "FollowGame streams",
        )
        .with_request_bytes(
            RequestBytes::new(config.max_request_bytes_in_flight, config.max_queue_wait)
                .with_max_message(max_bytes)
                .with_arrival_bound(config.request_timeout),
        )
        .with_answer_bytes(answers.clone());
        // Reflection streams answer with file descriptors (tens of KiB each; two wait per stream
        // for a client that does not read), so they are bounded as streams too, in a pool of
        // their own of `--max-streams`: tools keep getting through while games fill theirs, and
        // a client that opens reflection streams and never reads holds at most that many.
        let reflection_guard = GuardLayer::new(
            1,
            config.max_streams,
            REFLECTION_METHODS
                .iter()
                .map(|path| (*path).to_owned())
                .collect(),
            config.request_timeout,
        )
        .with_answer_bytes(answers)
        .streams_held_by_answers();
        crate::logging::set_access_log(config.access_log);
        let overload_task = tokio::spawn(crate::overload::summarise(OVERLOAD_LOG_INTERVAL));

        // gRPC-Web is translated to gRPC (and CORS answered) in front of the metrics layer, so
        // that everything inside sees a gRPC-Web call as the gRPC call it is. The metrics layer
        // then sees every call, even those no service answers (UNIMPLEMENTED).
        let origins = &config.cors_allowed_origins;
        match origins {
            AllowedOrigins::None => {}
            AllowedOrigins::Any => tracing::warn!(
                "gRPC-Web: CORS allows any origin (--cors-allowed-origins \"*\"): any page a \
                 browser loads can call this server"
            ),
            AllowedOrigins::List(_) => {
                tracing::info!(origins = %origins, "gRPC-Web: CORS allows these origins");
            }
        }
        let routes = GrpcWebLayer::new(origins).layer(
            MetricsLayer.layer(catch_panics(
                Routes::new(health_service.clone())
                    .add_service(reflection_guard.layer(reflection_v1))
                    .add_service(reflection_guard.layer(reflection_v1alpha))
                    .add_service(guard.layer(arbiter))
                    .prepare(),
            )),
        );
        let limits = config.connections.clone();
        let grpc = Listener::new(
            listener,
            "grpc",
            limits.clone(),
            tls.map(|tls| -> TlsSource { Arc::new(move || tls.acceptor()) }),
        )
        .serve(routes, stop.clone());
        let health = health.map(|listener| {
            let limits = ConnectionLimits {
                max_connections: config.health_max_connections,
                // A probe always gets a place: the busiest source gives one up (see
                // `WhenFull`), so no client can hold the probes out.
                when_full: WhenFull::EvictFromBusiestSource,
                // Probes speak gRPC: the health port stays HTTP/2 only.
                http1: false,
                idle_timeout: limits.idle_timeout.min(HEALTH_CONNECTION_IDLE_TIMEOUT),
                ..limits
            };
            let routes = MetricsLayer.layer(catch_panics(Routes::new(health_service).prepare()));
            Listener::new(listener, "health", limits, None).serve(routes, health_stop.clone())
        });
        // The probes' listener answers until the gRPC port has drained (liveness stays SERVING
        // while the process works), then closes too.
        let server = async move {
            match health {
                Some(health) => {
                    let grpc_then_health = async move {
                        grpc.await;
                        let _ = health_stop_tx.send(true);
                    };
                    tokio::join!(grpc_then_health, health);
                }
                None => grpc.await,
            }
        };

        let lame_duck = config.lame_duck.min(config.drain_timeout / 2);
        if lame_duck < config.lame_duck {
            tracing::warn!(
                lame_duck_ms = crate::logging::millis(lame_duck),
                asked_ms = crate::logging::millis(config.lame_duck),
                "--lame-duck is capped at half of --drain-timeout, so that calls have time to finish"
            );
        }
        let drain_timeout = config.drain_timeout;
        let drain_reporter = reporter.clone();
        let stopping = async move {
            shutdown.await;
            tracing::info!(
                lame_duck_ms = crate::logging::millis(lame_duck),
                "shutdown requested: health NOT_SERVING, draining"
            );
            set_draining(&drain_reporter);
            tokio::time::sleep(lame_duck).await;
            // Health Watch calls last until ended: end them, or the drain waits out its timeout.
            drain_reporter.end_watches();
            tracing::info!("lame-duck period over: no new connections, GOAWAY on open ones");
            // Also ends the AdjudicateGames streams between messages, for the same reason.
            let _ = stop_tx.send(true);
            // The drain as a whole, lame duck included, ends here at the latest.
            tokio::time::sleep(drain_timeout.saturating_sub(lame_duck)).await;
        };

        tokio::select! {
            () = server => tracing::info!("drained: all calls finished"),
            () = stopping => {
                tracing::warn!(
                    drain_timeout_ms = crate::logging::millis(drain_timeout),
                    "drain timeout reached: exiting with calls still open"
                );
            }
        }
        for task in [metrics_task, tls_task, Some(overload_task)]
            .into_iter()
            .flatten()
        {
            task.abort();
        }
        Ok(())
    }
}

/// Longest time a connection to the health port may stay open without a call. Probes (the
/// kubelet's gRPC probes, `arbiter health-check`) open a connection for each probe, so a
/// connection without a call is either finished or someone holding one of the port's
/// `--health-max-connections` places: with the gRPC port's 5 minutes, 32 idle connections
/// locked the probes out long enough for liveness to fail and the pod to restart. The timeout
/// alone does not keep the probes in (connections reopened as soon as they are closed, or
/// holding a Watch, still could): a full health port evicts instead of refusing
/// ([`WhenFull::EvictFromBusiestSource`]).
pub const HEALTH_CONNECTION_IDLE_TIMEOUT: Duration = Duration::from_secs(10);

/// The methods of gRPC server reflection (v1 and v1alpha): bidirectional streams.
const REFLECTION_METHODS: [&str; 2] = [
    "/grpc.reflection.v1.ServerReflection/ServerReflectionInfo",
    "/grpc.reflection.v1alpha.ServerReflection/ServerReflectionInfo",
];

/// The first of the addresses a port bound (there is at least one).
fn first(addrs: Vec<SocketAddr>) -> std::io::Result<SocketAddr> {
    addrs
        .into_iter()
        .next()
        .ok_or_else(|| std::io::Error::other("no address bound"))
}

/// Listens for SIGTERM and SIGINT (Ctrl-C) from the moment it is called (inside a tokio
/// runtime), and returns a future that completes on the first of them. Call it before binding,
/// so that a signal sent as soon as the listening line is printed is not lost.
///
/// A second signal while the server drains ends the process at once, without waiting for the
/// calls in progress (logged; exit status 128 + the signal's number, as a shell reports a
/// process killed by it): an operator pressing Ctrl-C twice means it.
pub fn shutdown_signal() -> impl Future<Output = ()> + Send + 'static {
    #[cfg(unix)]
    {
        use tokio::signal::unix::{Signal, SignalKind, signal};
        let interrupt = signal(SignalKind::interrupt());
        let terminate = signal(SignalKind::terminate());
        async move {
            let (mut interrupt, mut terminate) = match (interrupt, terminate) {
                (Ok(interrupt), Ok(terminate)) => (interrupt, terminate),
                (Err(error), _) | (_, Err(error)) => {
                    tracing::error!(%error, "cannot listen for SIGINT and SIGTERM");
                    return std::future::pending::<()>().await;
                }
            };
            /// The next of the two signals: its name and number.
            async fn next(interrupt: &mut Signal, terminate: &mut Signal) -> (&'static str, i32) {
                tokio::select! {
                    _ = interrupt.recv() => ("SIGINT", 2),
                    _ = terminate.recv() => ("SIGTERM", 15),
                }
            }
            let (name, _) = next(&mut interrupt, &mut terminate).await;
            tracing::info!("{name} received");
            tokio::spawn(async move {
                let (name, number) = next(&mut interrupt, &mut terminate).await;
                tracing::warn!("second signal ({name}) during the drain: exiting now");
                std::process::exit(128 + number);
            });
        }
    }
    #[cfg(not(unix))]
    {
        async {
            if let Err(error) = tokio::signal::ctrl_c().await {
                tracing::error!(%error, "cannot listen for Ctrl-C");
                std::future::pending::<()>().await;
            }
            tracing::info!("Ctrl-C received");
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tower::ServiceExt as _;

    /// A panic in a handler (a bug) reset the HTTP/2 stream: the client saw a transport error
    /// and the metrics counted the call as `Canceled`, which no alert watches (found while a
    /// new shed reason overran a table in issue 10). It is now answered INTERNAL.
    #[tokio::test]
    async fn a_handler_that_panics_answers_internal_not_a_reset() {
        let panicking = tower::service_fn(|_: http::Request<tonic::body::Body>| async {
            if std::hint::black_box(true) {
                panic!("index out of bounds");
            }
            Ok::<_, std::convert::Infallible>(http::Response::new(tonic::body::Body::empty()))
        });
        let response = catch_panics(panicking)
            .oneshot(http::Request::new(tonic::body::Body::empty()))
            .await
            .expect("infallible");
        let status = tonic::Status::from_header_map(response.headers()).expect("a gRPC status");
        assert_eq!(status.code(), tonic::Code::Internal);
        assert_eq!(status.message(), PANIC_MESSAGE);
    }
}
