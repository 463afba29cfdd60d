//! `arbiter serve`: the gRPC server (and gRPC-Web, on the same port) with health, reflection,
//! limits and graceful shutdown.

use std::{
    future::Future,
    net::{Ipv4Addr, Ipv6Addr, SocketAddr},
    sync::Arc,
    time::Duration,
};

use arbiter_proto::{SERVICE_NAME, v1::arbiter_service_server::ArbiterServiceServer};
use tokio::net::TcpListener;
use tonic::service::Routes;
use tonic_health::ServingStatus;
use tower::Layer as _;

use crate::{
    cli::ServeArgs,
    grpc_web::{AllowedOrigins, GrpcWebLayer},
    guard::{AnswerBytes, GuardLayer, RequestBytes},
    health::HealthReporter,
    limits::{Limits, usize_of},
    metrics::{MetricsError, MetricsLayer},
    service::{Arbiter, StreamTimes},
    tls::{ReloadingTls, TlsFiles},
    transport::{ConnectionLimits, Listener, TlsSource, WhenFull},
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

/// Health name that reports whether the process is alive; it stays SERVING while draining, so
/// that a liveness probe never kills a process that is shutting down cleanly.
pub const LIVENESS: &str = "liveness";

/// Health name that reports whether the process accepts new calls; NOT_SERVING while draining.
pub const READINESS: &str = "readiness";

/// The health names that turn NOT_SERVING when draining: the whole server (""), the arbiter
/// service and readiness.
pub const DRAINED_NAMES: [&str; 3] = ["", SERVICE_NAME, READINESS];

/// Why the server could not run.
#[derive(Debug, thiserror::Error)]
pub enum ServeError {
    /// Flags contradict each other.
    #[error(transparent)]
    Args(#[from] crate::cli::ServeArgsError),
    /// The listening socket could not be opened.
    #[error("cannot listen on {addr}: {source}")]
    Bind {
        /// The address asked for.
        addr: SocketAddr,
        /// The socket error.
        source: std::io::Error,
    },
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

/// A bound, not yet serving, server: lets callers learn the actual port before serving.
#[derive(Debug)]
pub struct Bound {
    listener: TcpListener,
    health: Option<TcpListener>,
    metrics: Option<(TcpListener, metrics_exporter_prometheus::PrometheusHandle)>,
    tls: Option<Arc<ReloadingTls>>,
    args: ServeArgs,
}

impl Bound {
    /// Prepares the rules engine, reads the TLS files if any, opens the listening socket of
    /// `args.grpc_addr` (port 0 picks a free port) and, unless they are off, the health port of
    /// `args.health_addr`, and installs the metrics recorder and opens the socket of
    /// `args.metrics_addr`.
    ///
    /// # Errors
    ///
    /// Returns [`ServeError::Args`] when flags contradict each other ([`ServeArgs::check`]),
    /// [`ServeError::Tls`] when a TLS file is unreadable or broken,
    /// [`ServeError::Bind`] when an address cannot be bound, [`ServeError::Metrics`] when the
    /// metrics address cannot be bound or a recorder is already installed.
    pub async fn bind(args: ServeArgs) -> Result<Self, ServeError> {
        args.check()?;
        // Build the move generator's attack tables now, not during the first call.
        let warm_up =
            tokio::task::spawn_blocking(|| arbiter_rules::Position::startpos().legal_moves().len());
        if let Err(error) = warm_up.await {
            tracing::warn!(%error, "move generator warm-up failed");
        }
        let tls = match (&args.tls_cert, &args.tls_key) {
            (Some(cert), Some(key)) => Some(Arc::new(ReloadingTls::load(TlsFiles {
                cert: cert.clone(),
                key: key.clone(),
                client_ca: args.tls_client_ca.clone(),
            })?)),
            _ => None,
        };
        let listener = bind_with_ipv4_fallback(args.grpc_addr)
            .await
            .map_err(|(addr, source)| ServeError::Bind { addr, source })?;
        let health = match args.health_addr.0 {
            Some(addr) => Some(
                bind_with_ipv4_fallback(addr)
                    .await
                    .map_err(|(addr, source)| ServeError::Bind { addr, source })?,
            ),
            None => None,
        };
        let metrics = match args.metrics_addr.0 {
            Some(addr) => {
                let metrics_listener = crate::metrics::bind(addr).await?;
                let handle = crate::metrics::install()?;
                // The series that count events exist at 0 before the first scrape can come.
                crate::workers::describe_shed();
                crate::delivery::describe();
                crate::transport::describe_listener("grpc");
                if health.is_some() {
                    crate::transport::describe_listener("health");
                }
                Some((metrics_listener, handle))
            }
            None => None,
        };
        Ok(Self {
            listener,
            health,
            metrics,
            tls,
            args,
        })
    }

    /// The address actually bound.
    ///
    /// # Errors
    ///
    /// Returns the socket error if the address cannot be read.
    pub fn local_addr(&self) -> std::io::Result<SocketAddr> {
        self.listener.local_addr()
    }

    /// The address the plaintext health listener actually bound, `None` when it is off.
    ///
    /// # Errors
    ///
    /// Returns the socket error if the address cannot be read.
    pub fn health_addr(&self) -> std::io::Result<Option<SocketAddr>> {
        self.health
            .as_ref()
            .map(TcpListener::local_addr)
            .transpose()
    }

    /// The address the `/metrics` endpoint actually bound, `None` when metrics are off.
    ///
    /// # Errors
    ///
    /// Returns the socket error if the address cannot be read.
    pub fn metrics_addr(&self) -> std::io::Result<Option<SocketAddr>> {
        self.metrics
            .as_ref()
            .map(|(listener, _)| listener.local_addr())
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
            args,
        } = self;
        // Stopped when serving ends, so that no task outlives the server.
        let metrics_task = metrics.map(|(listener, handle)| {
            let cap = usize_of(args.metrics_max_connections);
            tokio::spawn(crate::metrics::serve(listener, handle, cap))
        });
        let tls_task = tls
            .as_ref()
            .filter(|_| !args.tls_reload_interval.is_zero())
            .map(|tls| tokio::spawn(Arc::clone(tls).watch(args.tls_reload_interval)));

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

        let limits = Limits {
            max_moves: usize_of(args.max_moves),
            max_pgn_bytes: usize_of(args.max_pgn_bytes),
            analysis: args.analysis.into(),
            max_games_per_stream: usize_of(args.max_games_per_stream),
            max_tags: usize_of(args.max_tags),
            max_tag_value_bytes: usize_of(args.max_tag_value_bytes),
            max_variation_depth: usize_of(args.max_variation_depth),
        };
        arbiter_rules::interrupt::set_max_concurrent_analyses(usize_of(args.max_analyses));
        // A call whose analysis would wait longer for a slot than it may wait for a worker is
        // refused (RESOURCE_EXHAUSTED, reason analysis_queue), not left to reach its deadline.
        arbiter_rules::interrupt::set_max_analysis_wait(Some(args.max_queue_wait));
        let workers = Workers::new(
            args.worker_threads(),
            args.max_queue_wait,
            args.max_seatless(),
        )
        .with_stream_workers(args.stream_worker_threads());
        let stream_times = StreamTimes {
            idle: args.stream_idle_timeout,
            message: args.request_timeout,
        };
        let max_bytes = usize_of(args.max_message_bytes);
        // Turns true when the lame-duck period is over: no new connections, a GOAWAY on open
        // ones, and open streams end between messages.
        let (stop_tx, stop) = tokio::sync::watch::channel(false);
        let (health_stop_tx, health_stop) = tokio::sync::watch::channel(false);
        let arbiter = ArbiterServiceServer::new(
            Arbiter::new(limits, workers, stream_times)
                .with_max_inline_bytes(usize_of(args.max_inline_bytes))
                .with_drain(stop.clone()),
        )
        .max_decoding_message_size(max_bytes)
        .max_encoding_message_size(max_bytes);
        let answers = AnswerBytes::new(args.max_answer_bytes_in_flight, args.max_queue_wait);
        let guard = GuardLayer::new(
            usize_of(args.concurrency_limit),
            usize_of(args.max_streams),
            vec![format!("/{SERVICE_NAME}/AdjudicateGames")],
            args.request_timeout,
        )
        .with_request_bytes(
            RequestBytes::new(args.max_request_bytes_in_flight, args.max_queue_wait)
                .with_max_message(max_bytes)
                .with_arrival_bound(args.request_timeout),
        )
        .with_answer_bytes(answers.clone());
        // Reflection streams answer with file descriptors (tens of KiB each; two wait per stream
        // for a client that does not read), so they are bounded as streams too, in a pool of
        // their own of `--max-streams`: tools keep getting through while games fill theirs, and
        // a client that opens reflection streams and never reads holds at most that many.
        let reflection_guard = GuardLayer::new(
            1,
            usize_of(args.max_streams),
            REFLECTION_METHODS
                .iter()
                .map(|path| (*path).to_owned())
                .collect(),
            args.request_timeout,
        )
        .with_answer_bytes(answers)
        .streams_held_by_answers();
        crate::logging::set_access_log(args.access_log());
        let overload_task = tokio::spawn(crate::overload::summarise(OVERLOAD_LOG_INTERVAL));

        // gRPC-Web is translated to gRPC (and CORS answered) in front of the metrics layer, so
        // that everything inside sees a gRPC-Web call as the gRPC call it is. The metrics layer
        // then sees every call, even those no service answers (UNIMPLEMENTED).
        let origins = &args.cors_allowed_origins;
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
        let limits = connection_limits(&args, args.max_connections);
        let grpc = Listener::new(
            listener,
            "grpc",
            limits.clone(),
            tls.map(|tls| -> TlsSource { Arc::new(move || tls.acceptor()) }),
        )
        .serve(routes, stop.clone());
        let health = health.map(|listener| {
            let limits = ConnectionLimits {
                max_connections: usize_of(args.health_max_connections),
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

        let lame_duck = args.lame_duck.min(args.drain_timeout / 2);
        if lame_duck < args.lame_duck {
            tracing::warn!(
                lame_duck_ms = lame_duck.as_millis(),
                asked_ms = args.lame_duck.as_millis(),
                "--lame-duck is capped at half of --drain-timeout, so that calls have time to finish"
            );
        }
        let drain_timeout = args.drain_timeout;
        let drain_reporter = reporter.clone();
        let stopping = async move {
            shutdown.await;
            tracing::info!(
                lame_duck_ms = lame_duck.as_millis(),
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
                    drain_timeout_ms = drain_timeout.as_millis(),
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

/// The connection bounds of `args` for a listener of at most `max_connections` connections,
/// refusing connections beyond them (the gRPC port's way).
fn connection_limits(args: &ServeArgs, max_connections: u32) -> ConnectionLimits {
    ConnectionLimits {
        max_connections: usize_of(max_connections),
        when_full: WhenFull::Refuse,
        handshake_timeout: args.handshake_timeout,
        idle_timeout: args.connection_idle_timeout,
        max_concurrent_streams: args.max_concurrent_streams,
        max_age: Some(args.max_connection_age).filter(|age| !age.is_zero()),
        max_age_grace: args.max_connection_age_grace,
        keepalive_interval: Some(args.http2_keepalive_interval).filter(|every| !every.is_zero()),
        keepalive_timeout: args.http2_keepalive_timeout,
        stream_window: args.http2_stream_window_bytes,
        connection_window: args.http2_connection_window_bytes,
        max_header_list_bytes: MAX_HEADER_LIST_BYTES,
        http1: true,
        slow_reader_timeout: args.slow_reader_timeout,
        socket_send_buffer: (args.socket_send_buffer_bytes > 0)
            .then(|| usize_of(args.socket_send_buffer_bytes)),
    }
}

/// Binds `addr`; when it is the IPv6 wildcard and the host has no IPv6, binds every IPv4
/// address instead. On failure returns the address tried last and the error.
///
/// # Errors
///
/// Returns the address and socket error when nothing can be bound.
pub async fn bind_with_ipv4_fallback(
    addr: SocketAddr,
) -> Result<TcpListener, (SocketAddr, std::io::Error)> {
    match TcpListener::bind(addr).await {
        Ok(listener) => Ok(listener),
        Err(error) if addr == SocketAddr::from((Ipv6Addr::UNSPECIFIED, addr.port())) => {
            let fallback = SocketAddr::from((Ipv4Addr::UNSPECIFIED, addr.port()));
            tracing::warn!(%error, %fallback, "cannot bind the IPv6 wildcard address, using IPv4");
            TcpListener::bind(fallback)
                .await
                .map_err(|source| (fallback, source))
        }
        Err(source) => Err((addr, source)),
    }
}

/// Turns every drained health name NOT_SERVING; liveness stays SERVING.
pub fn set_draining(reporter: &HealthReporter) {
    for name in DRAINED_NAMES {
        reporter.set_status(name, ServingStatus::NotServing);
    }
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
