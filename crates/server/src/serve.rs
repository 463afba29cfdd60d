//! `arbiter serve`: the gRPC server with health, reflection, limits and graceful shutdown.

use std::{
    future::Future,
    hash::{BuildHasher as _, RandomState},
    net::{Ipv4Addr, Ipv6Addr, SocketAddr},
    time::Duration,
};

use arbiter_proto::{SERVICE_NAME, v1::arbiter_service_server::ArbiterServiceServer};
use tokio::net::TcpListener;
use tonic::transport::{Certificate, Identity, Server, ServerTlsConfig, server::TcpIncoming};
use tonic_health::ServingStatus;
use tower::Layer as _;

use crate::{
    cli::ServeArgs,
    guard::GuardLayer,
    health::HealthReporter,
    metrics::{MetricsError, MetricsLayer},
    service::{Arbiter, Limits},
};

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
    /// A TLS file could not be read.
    #[error("cannot read {path}: {source}")]
    TlsFile {
        /// The file.
        path: std::path::PathBuf,
        /// The read error.
        source: std::io::Error,
    },
    /// The transport failed.
    #[error("gRPC transport failed: {0}")]
    Transport(#[from] tonic::transport::Error),
}

/// A bound, not yet serving, server: lets callers learn the actual port before serving.
#[derive(Debug)]
pub struct Bound {
    listener: TcpListener,
    metrics: Option<(TcpListener, metrics_exporter_prometheus::PrometheusHandle)>,
    args: ServeArgs,
}

impl Bound {
    /// Prepares the rules engine, opens the listening socket of `args.grpc_addr` (port 0
    /// picks a free port) and, unless metrics are off, installs the metrics recorder and opens
    /// the socket of `args.metrics_addr`.
    ///
    /// # Errors
    ///
    /// Returns [`ServeError::Bind`] when the address cannot be bound, [`ServeError::Metrics`]
    /// when the metrics address cannot be bound or a recorder is already installed.
    pub async fn bind(args: ServeArgs) -> Result<Self, ServeError> {
        // Build the move generator's attack tables now, not during the first call.
        let warm_up =
            tokio::task::spawn_blocking(|| arbiter_rules::Position::startpos().legal_moves().len());
        if let Err(error) = warm_up.await {
            tracing::warn!(%error, "move generator warm-up failed");
        }
        let listener = bind_with_ipv4_fallback(args.grpc_addr)
            .await
            .map_err(|(addr, source)| ServeError::Bind { addr, source })?;
        let metrics = match args.metrics_addr.0 {
            Some(addr) => {
                let metrics_listener = crate::metrics::bind(addr).await?;
                Some((metrics_listener, crate::metrics::install()?))
            }
            None => None,
        };
        Ok(Self {
            listener,
            metrics,
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
            metrics,
            args,
        } = self;
        // Stopped when serving ends, so that no task outlives the server.
        let metrics_task =
            metrics.map(|(listener, handle)| tokio::spawn(crate::metrics::serve(listener, handle)));

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
            max_moves: usize::try_from(args.max_moves).unwrap_or(usize::MAX),
            analysis: args.analysis.into(),
            max_pgn_bytes: usize::try_from(args.max_pgn_bytes).unwrap_or(usize::MAX),
            max_games_per_stream: usize::try_from(args.max_games_per_stream).unwrap_or(usize::MAX),
        };
        let max_bytes = usize::try_from(args.max_message_bytes).unwrap_or(usize::MAX);
        let arbiter = ArbiterServiceServer::new(Arbiter::new(limits))
            .max_decoding_message_size(max_bytes)
            .max_encoding_message_size(max_bytes);
        let guard = GuardLayer::new(
            usize::try_from(args.concurrency_limit).unwrap_or(usize::MAX),
            args.request_timeout,
        );

        let (signalled_tx, signalled_rx) = tokio::sync::oneshot::channel::<()>();
        let lame_duck = args.lame_duck.min(args.drain_timeout / 2);
        let drain_reporter = reporter.clone();
        let lame_duck_shutdown = async move {
            shutdown.await;
            let _ = signalled_tx.send(());
            tracing::info!(
                lame_duck_ms = lame_duck.as_millis(),
                "shutdown requested: health NOT_SERVING, draining"
            );
            set_draining(&drain_reporter);
            tokio::time::sleep(lame_duck).await;
            // Health Watch calls last until ended: end them, or the drain waits out its timeout.
            drain_reporter.end_watches();
            tracing::info!("lame-duck period over: no new connections");
        };

        let incoming = TcpIncoming::from(listener).with_nodelay(Some(true));
        let mut builder = Server::builder();
        if let Some(tls) = tls_config(&args)? {
            builder = builder.tls_config(tls)?;
        }
        let keepalive = Some(args.http2_keepalive_interval).filter(|every| !every.is_zero());
        let server = builder
            .http2_keepalive_interval(keepalive)
            .http2_keepalive_timeout(Some(args.http2_keepalive_timeout))
            .max_connection_age(jittered(args.max_connection_age))
            .max_connection_age_grace(args.max_connection_age_grace)
            // Outermost: sees every call, even those no service answers (UNIMPLEMENTED).
            .layer(MetricsLayer)
            .add_service(health_service)
            .add_service(reflection_v1)
            .add_service(reflection_v1alpha)
            .add_service(guard.layer(arbiter))
            .serve_with_incoming_shutdown(incoming, lame_duck_shutdown);

        let drain_timeout = args.drain_timeout;
        let deadline = async move {
            if signalled_rx.await.is_ok() {
                tokio::time::sleep(drain_timeout).await;
            } else {
                std::future::pending::<()>().await;
            }
        };

        let outcome = tokio::select! {
            result = server => {
                result.map(|()| tracing::info!("drained: all calls finished"))
            }
            () = deadline => {
                tracing::warn!(
                    drain_timeout_ms = drain_timeout.as_millis(),
                    "drain timeout reached: exiting with calls still open"
                );
                Ok(())
            }
        };
        if let Some(task) = metrics_task {
            task.abort();
        }
        Ok(outcome?)
    }
}

/// The server TLS settings of `--tls-cert`, `--tls-key` and `--tls-client-ca`; `None` for
/// plaintext.
fn tls_config(args: &ServeArgs) -> Result<Option<ServerTlsConfig>, ServeError> {
    let (Some(cert), Some(key)) = (&args.tls_cert, &args.tls_key) else {
        return Ok(None);
    };
    let mut tls = ServerTlsConfig::new().identity(Identity::from_pem(read(cert)?, read(key)?));
    if let Some(ca) = &args.tls_client_ca {
        // Client certificates are required, not optional.
        tls = tls.client_ca_root(Certificate::from_pem(read(ca)?));
    }
    Ok(Some(tls))
}

fn read(path: &std::path::Path) -> Result<Vec<u8>, ServeError> {
    std::fs::read(path).map_err(|source| ServeError::TlsFile {
        path: path.to_owned(),
        source,
    })
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

/// `age` plus or minus up to 10 %, chosen once per process, so that replicas started together
/// do not close their connections together. tonic applies one age to every connection.
#[must_use]
pub fn jittered(age: Duration) -> Duration {
    let random = RandomState::new().hash_one(std::process::id());
    // A factor from 0.9 to 1.1 in steps of 0.001.
    let permille = 900 + u32::try_from(random % 201).unwrap_or(100);
    age * permille / 1000
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
pub fn shutdown_signal() -> impl Future<Output = ()> + Send + 'static {
    #[cfg(unix)]
    {
        use tokio::signal::unix::{SignalKind, signal};
        let interrupt = signal(SignalKind::interrupt());
        let terminate = signal(SignalKind::terminate());
        async move {
            let wait = |stream: std::io::Result<tokio::signal::unix::Signal>,
                        name: &'static str| async move {
                match stream {
                    Ok(mut stream) => {
                        stream.recv().await;
                    }
                    Err(error) => {
                        tracing::error!(%error, "cannot listen for {name}");
                        std::future::pending::<()>().await;
                    }
                }
            };
            tokio::select! {
                () = wait(interrupt, "SIGINT") => tracing::info!("SIGINT received"),
                () = wait(terminate, "SIGTERM") => tracing::info!("SIGTERM received"),
            }
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
