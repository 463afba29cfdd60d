//! The server's own accept loop: HTTP/2 connections, and HTTP/1.1 ones for gRPC-Web from
//! browsers, with every resource bounded.
//!
//! tonic's `Server` runs an accept loop of its own, but it has no cap on open connections, no
//! handshake or idle timeout, one maximum connection age for every connection (no per-connection
//! jitter, and with a grace period it closes the connection without a GOAWAY first), and a TLS
//! configuration read once. So the routes tonic builds are served here, on hyper's server
//! (hyper-util's auto builder: a connection whose first bytes are the HTTP/2 preface is served
//! as HTTP/2, any other as HTTP/1.1, unless the listener is HTTP/2 only; with TLS, ALPN offers
//! `h2` and `http/1.1`), with:
//!
//! - a cap on open connections (`--max-connections`), HTTP/1.1 ones included: on the gRPC port
//!   a connection beyond it is closed at once and counted
//!   (`arbiter_connections_closed_total{reason="limit"}`); on the probe port a full listener
//!   makes room instead, by closing the oldest connection of the source address that holds the
//!   most (`reason="evicted"`, see [`WhenFull`] and [`ConnectionSlots`]);
//! - a handshake timeout (`--handshake-timeout`): the TLS handshake, if any, and the HTTP/2
//!   connection preface must arrive within it, or the connection is closed. On HTTP/1.1, the
//!   first request's headers must have arrived in whole within it, and each later request's
//!   headers within it of their first byte (a client that trickles headers, "slowloris", is
//!   closed; an idle keep-alive connection waits under the idle timeout instead);
//! - an idle timeout (`--connection-idle-timeout`): a connection with no call in progress for
//!   that long gets a GOAWAY (HTTP/1.1: is closed) and is closed;
//! - a per-connection stream limit (`--max-concurrent-streams`, HTTP/2 SETTINGS; an HTTP/1.1
//!   connection carries one call at a time);
//! - a maximum connection age (`--max-connection-age`) jittered by up to ±10 % per connection,
//!   then a GOAWAY (HTTP/1.1: `connection: close` on the answer in progress, or closed at once
//!   when there is none), then a grace period (`--max-connection-age-grace`) for calls in
//!   progress before the connection is closed; the GOAWAY also turns the connection's
//!   [`ConnectionAged`] true, which ends its FollowGame streams between messages (a followed
//!   game outlasts any grace: its client resumes on a new connection);
//! - HTTP/2 keepalive pings (HTTP/1.1 has none: a dead HTTP/1.1 peer is closed by the idle
//!   timeout);
//! - request headers of at most `max_header_list_bytes` (HTTP/2's header list; HTTP/1.1's
//!   request line and headers must fit a read buffer of that size, at least 8 KiB: `431`
//!   otherwise);
//! - the TLS certificate of the moment for each new connection ([`crate::tls`] reloads it);
//! - a graceful drain: on shutdown, no new connections, a GOAWAY on each open one (HTTP/1.1: as
//!   for the age limit), and [`Listener::serve`] returns once every connection has closed.
//!
//! Metrics, by `listener` (`grpc` or `health`): `arbiter_connections_open` (gauge),
//! `arbiter_connections_accepted_total` and `arbiter_connections_closed_total{reason}`, reason
//! one of `limit`, `evicted` (closed to make room for a newer connection, see [`WhenFull`]),
//! `handshake_timeout` (HTTP/1.1: also a later request's headers too slow), `tls_error` (the
//! TLS handshake failed, or TLS failed after it: a record that does not decrypt, a second
//! renegotiation attempt, a fatal alert from the client), `idle`, `max_age`, `shutdown`,
//! `keepalive_timeout` (the peer did not answer a keepalive PING in time), `flood_guard`
//! (one of the HTTP/2 layer's flood guards closed it with a GOAWAY ENHANCE_YOUR_CALM: the peer
//! reset more streams than the rapid-reset guard allows, or left more small DATA frames unread
//! than the framing-overhead budget allows; the `h2` crate does not tell which),
//! `protocol_error` (the peer broke HTTP/2: GOAWAY with another error; or sent an HTTP/1.1
//! request hyper cannot parse, headers too large included) and `client` (the peer closed it, or
//! its socket failed).

use std::{
    collections::{BTreeMap, HashMap},
    convert::Infallible,
    hash::{BuildHasher as _, RandomState},
    net::{IpAddr, SocketAddr},
    pin::{Pin, pin},
    sync::{
        Arc, Mutex,
        atomic::{AtomicU8, AtomicU64, AtomicUsize, Ordering},
    },
    task::{Context, Poll},
    time::Duration,
};

use bytes::Bytes;
use http::{Request, Response};
use http_body::Frame;
use hyper_util::rt::{TokioIo, TokioTimer};
use tokio::{
    io::{AsyncRead, AsyncWrite, ReadBuf},
    net::{TcpListener, TcpStream},
    sync::{OwnedSemaphorePermit, Semaphore, oneshot, watch},
    time::Instant,
};
use tonic::{Status, body::Body, transport::server::TcpConnectInfo};
use tower::{Service, ServiceExt as _};

use crate::delivery::{Abandoned, Registry, StreamExecutor};

/// The HTTP/2 client connection preface (RFC 9113, 3.4): a connection whose first bytes are
/// these speaks HTTP/2 (hyper-util's auto builder reads them the same way).
const H2_PREFACE: &[u8; 24] = b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n";

/// The smallest read buffer hyper's HTTP/1.1 server accepts, in bytes.
const MIN_HTTP1_BUFFER: usize = 8192;

/// In each request's extensions: turns true when the request's connection reached its maximum
/// age and sent its GOAWAY, so that calls that would outlast the grace (FollowGame) end
/// between messages with a status rather than be cut when the connection closes.
#[derive(Clone, Debug)]
pub struct ConnectionAged(pub watch::Receiver<bool>);

/// The bounds of one listener's connections.
#[derive(Debug, Clone)]
pub struct ConnectionLimits {
    /// Most connections open at once; what happens to one more is [`ConnectionLimits::when_full`].
    pub max_connections: usize,
    /// What a listener with `max_connections` open connections does with a new one.
    pub when_full: WhenFull,
    /// Longest time from accepting a connection to its HTTP/2 preface, or to the end of its
    /// first HTTP/1.1 request's headers (TLS handshake included); on HTTP/1.1 also the longest
    /// time from the first byte of a later request to the end of its headers.
    pub handshake_timeout: Duration,
    /// A connection without a call in progress for this long is closed (GOAWAY first).
    pub idle_timeout: Duration,
    /// Most concurrent streams (calls) on one connection (HTTP/2 SETTINGS_MAX_CONCURRENT_STREAMS).
    pub max_concurrent_streams: u32,
    /// Connections older than this (±10 % per connection) get a GOAWAY; `None`: no age limit.
    pub max_age: Option<Duration>,
    /// How long calls may go on after the GOAWAY of the age limit before the connection closes.
    pub max_age_grace: Duration,
    /// Interval of HTTP/2 keepalive pings; `None` disables them.
    pub keepalive_interval: Option<Duration>,
    /// How long to wait for the answer to a keepalive ping before closing the connection.
    pub keepalive_timeout: Duration,
    /// HTTP/2 flow-control window of one stream, in bytes: what a client may send ahead of
    /// what the server has read on one call.
    pub stream_window: u32,
    /// HTTP/2 flow-control window of a whole connection, in bytes.
    pub connection_window: u32,
    /// Largest header list accepted from a client, in bytes (HTTP/1.1: the read buffer, which
    /// the request line and headers must fit, at least 8 KiB).
    pub max_header_list_bytes: u32,
    /// Whether HTTP/1.1 connections are served too (gRPC-Web from browsers); HTTP/2 only if not.
    pub http1: bool,
    /// A connection one of whose answers has waited this long for the client to take a piece
    /// of it is closed (`reason="slow_reader"`; see [`crate::delivery`]).
    pub slow_reader_timeout: Duration,
    /// The kernel's send buffer of each connection (`SO_SNDBUF`), in bytes; `None` leaves it to
    /// the kernel's autotuning. It bounds what the server has written and the client not read.
    pub socket_send_buffer: Option<usize>,
}

/// The listening sockets of one port: one per address its flag stands for (a host name may
/// stand for several, `localhost` for `127.0.0.1` and `[::1]`), accepted from as one.
#[derive(Debug)]
pub struct Sockets {
    listeners: Vec<TcpListener>,
    /// The socket looked at first by the next accept, so that none is starved by another.
    next: AtomicUsize,
}

/// A listening socket that could not be opened.
#[derive(Debug, thiserror::Error)]
#[error("cannot listen on {addr}: {source}")]
pub struct BindError {
    /// The address tried (the last one, when none could be bound).
    pub addr: SocketAddr,
    /// The socket error.
    #[source]
    pub source: std::io::Error,
}

impl Sockets {
    /// Binds every address of `addrs` (the addresses one address flag stands for, see
    /// [`crate::address::ListenAddr::resolve`]):
    ///
    /// - port 0 picks a free port for the first address, and the others get the same port;
    /// - the IPv6 wildcard (`[::]`) on a host without IPv6 binds the IPv4 wildcard instead;
    /// - of several addresses, one whose family the host does not have (`[::1]` where IPv6 is
    ///   off: "address not available" or "address family not supported") is left out with a
    ///   warning, as long as another is bound.
    ///
    /// # Errors
    ///
    /// [`BindError`] for the first address that cannot be bound otherwise (in use, not allowed),
    /// or when none can be bound (or `addrs` is empty).
    pub async fn bind(addrs: &[SocketAddr]) -> Result<Self, BindError> {
        let mut listeners: Vec<TcpListener> = Vec::with_capacity(addrs.len());
        let mut left_out = None;
        for &asked in addrs {
            let mut addr = asked;
            if addr.port() == 0
                && let Some(first) = listeners.first()
            {
                let port = first
                    .local_addr()
                    .map_err(|source| BindError { addr, source })?
                    .port();
                addr.set_port(port);
            }
            match bind_with_ipv4_fallback(addr).await {
                Ok(listener) => listeners.push(listener),
                Err(BindError { addr, source }) if addrs.len() > 1 && family_missing(&source) => {
                    tracing::warn!(%addr, error = %source, "address left out: this host cannot listen on it (no such interface, or its IP version is off)");
                    left_out = Some(BindError { addr, source });
                }
                Err(error) => return Err(error),
            }
        }
        if listeners.is_empty() {
            return Err(left_out.unwrap_or_else(|| BindError {
                addr: SocketAddr::from(([0, 0, 0, 0], 0)),
                source: std::io::Error::new(
                    std::io::ErrorKind::InvalidInput,
                    "no address to listen on",
                ),
            }));
        }
        Ok(Self {
            listeners,
            next: AtomicUsize::new(0),
        })
    }

    /// The addresses bound, in the order of the addresses asked.
    ///
    /// # Errors
    ///
    /// The socket error when an address cannot be read.
    pub fn local_addrs(&self) -> std::io::Result<Vec<SocketAddr>> {
        self.listeners.iter().map(TcpListener::local_addr).collect()
    }

    /// The next connection on any of the sockets, and its peer's address.
    ///
    /// # Errors
    ///
    /// The error of the socket that failed to accept (out of file descriptors, a connection
    /// reset before it was accepted).
    pub async fn accept(&self) -> std::io::Result<(TcpStream, SocketAddr)> {
        std::future::poll_fn(|cx| {
            let count = self.listeners.len();
            let start = self.next.fetch_add(1, Ordering::Relaxed) % count.max(1);
            for offset in 0..count {
                if let Poll::Ready(accepted) =
                    self.listeners[(start + offset) % count].poll_accept(cx)
                {
                    return Poll::Ready(accepted);
                }
            }
            Poll::Pending
        })
        .await
    }
}

/// Whether a bind error says the host has no such address family (IPv6 turned off).
fn family_missing(error: &std::io::Error) -> bool {
    error.kind() == std::io::ErrorKind::AddrNotAvailable
        || error.raw_os_error() == Some(libc::EAFNOSUPPORT)
}

/// Binds `addr`; when it is the IPv6 wildcard and the host has no IPv6, binds the IPv4
/// wildcard instead.
async fn bind_with_ipv4_fallback(addr: SocketAddr) -> Result<TcpListener, BindError> {
    match TcpListener::bind(addr).await {
        Ok(listener) => Ok(listener),
        Err(error) if addr == SocketAddr::from((std::net::Ipv6Addr::UNSPECIFIED, addr.port())) => {
            let fallback = SocketAddr::from((std::net::Ipv4Addr::UNSPECIFIED, addr.port()));
            tracing::warn!(%error, %fallback, "cannot bind the IPv6 wildcard address, using IPv4");
            TcpListener::bind(fallback)
                .await
                .map_err(|source| BindError {
                    addr: fallback,
                    source,
                })
        }
        Err(source) => Err(BindError { addr, source }),
    }
}

/// Where new connections get their TLS configuration: called once per connection, so that a
/// reloaded certificate is used from the next connection on.
pub type TlsSource = Arc<dyn Fn() -> tokio_rustls::TlsAcceptor + Send + Sync>;

/// A bound listening socket and how its connections are served.
pub struct Listener {
    tcp: Sockets,
    name: &'static str,
    limits: ConnectionLimits,
    tls: Option<TlsSource>,
}

impl std::fmt::Debug for Listener {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Listener")
            .field("addrs", &self.tcp.local_addrs().ok())
            .field("name", &self.name)
            .field("limits", &self.limits)
            .field("tls", &self.tls.is_some())
            .finish()
    }
}

/// The reasons a connection is closed, as the `reason` label says them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Closed {
    Limit,
    Evicted,
    HandshakeTimeout,
    TlsError,
    Idle,
    MaxAge,
    Shutdown,
    KeepaliveTimeout,
    FloodGuard,
    ProtocolError,
    Client,
    SlowReader,
}

impl Closed {
    /// Every reason, for the series created at 0 when a listener starts.
    const ALL: [Self; 12] = [
        Self::Limit,
        Self::Evicted,
        Self::HandshakeTimeout,
        Self::TlsError,
        Self::Idle,
        Self::MaxAge,
        Self::Shutdown,
        Self::KeepaliveTimeout,
        Self::FloodGuard,
        Self::ProtocolError,
        Self::Client,
        Self::SlowReader,
    ];

    fn label(self) -> &'static str {
        match self {
            Self::Limit => "limit",
            Self::Evicted => "evicted",
            Self::HandshakeTimeout => "handshake_timeout",
            Self::TlsError => "tls_error",
            Self::Idle => "idle",
            Self::MaxAge => "max_age",
            Self::Shutdown => "shutdown",
            Self::KeepaliveTimeout => "keepalive_timeout",
            Self::FloodGuard => "flood_guard",
            Self::ProtocolError => "protocol_error",
            Self::Client => "client",
            Self::SlowReader => "slow_reader",
        }
    }

    /// Why a connection that hyper ended with `error` closed: TLS failing after the handshake,
    /// the server's own keepalive timeout, a GOAWAY the HTTP/2 layer sent because of the peer,
    /// an HTTP/1.1 request hyper could not parse, or the peer itself.
    fn from_error(error: &(dyn std::error::Error + 'static)) -> Self {
        if is_tls_failure(error) {
            return Self::TlsError;
        }
        let mut source = Some(error);
        while let Some(cause) = source {
            if let Some(hyper) = cause.downcast_ref::<hyper::Error>() {
                if hyper.is_timeout() {
                    return Self::KeepaliveTimeout;
                }
                if hyper.is_parse() || hyper.is_parse_too_large() {
                    return Self::ProtocolError;
                }
            }
            if let Some(h2) = cause.downcast_ref::<h2::Error>() {
                return match h2.reason() {
                    _ if !(h2.is_go_away() && h2.is_library()) => Self::Client,
                    Some(h2::Reason::ENHANCE_YOUR_CALM) => Self::FloodGuard,
                    _ => Self::ProtocolError,
                };
            }
            source = cause.source();
        }
        Self::Client
    }
}

/// Creates every connection series of the listener `name` at 0 (`increment(0)`: never resets
/// a value): `rate()` and `increase()` need a first sample before the first event, and alerts on
/// them must not wait for it. Called when the listener's socket is bound, before the server
/// says it listens.
pub fn describe_listener(name: &'static str) {
    metrics::describe_counter!(
        "arbiter_connections_accepted_total",
        "Connections accepted, by listener (grpc, health, metrics)."
    );
    metrics::describe_gauge!(
        "arbiter_connections_open",
        "Connections open now, by listener (grpc, health, metrics)."
    );
    metrics::describe_counter!(
        "arbiter_connections_closed_total",
        "Connections closed, by listener and reason (limit, evicted, handshake_timeout, \
         tls_error, idle, max_age, shutdown, keepalive_timeout, flood_guard, protocol_error, \
         slow_reader, client)."
    );
    metrics::counter!("arbiter_connections_accepted_total", "listener" => name).increment(0);
    metrics::gauge!("arbiter_connections_open", "listener" => name).increment(0.0);
    for reason in Closed::ALL {
        metrics::counter!(
            "arbiter_connections_closed_total",
            "listener" => name,
            "reason" => reason.label()
        )
        .increment(0);
    }
}

fn count_closed(listener: &'static str, reason: Closed) {
    metrics::counter!(
        "arbiter_connections_closed_total",
        "listener" => listener,
        "reason" => reason.label()
    )
    .increment(1);
}

/// Whether `error` (from hyper, with its causes) is TLS failing: rustls refused what the peer
/// sent after the handshake (a record that does not decrypt, a second renegotiation attempt, a
/// fatal alert received). tokio-rustls hands rustls's error over inside an `io::Error`, whose
/// `source()` skips it, and h2 keeps the `io::Error` without a `source()`: both are opened.
fn is_tls_failure(error: &(dyn std::error::Error + 'static)) -> bool {
    let rustls = |io: &std::io::Error| {
        io.get_ref()
            .is_some_and(|inner| inner.is::<tokio_rustls::rustls::Error>())
    };
    let mut source = Some(error);
    while let Some(cause) = source {
        if cause.is::<tokio_rustls::rustls::Error>()
            || cause.downcast_ref::<std::io::Error>().is_some_and(rustls)
            || cause
                .downcast_ref::<h2::Error>()
                .and_then(h2::Error::get_io)
                .is_some_and(rustls)
        {
            return true;
        }
        source = cause.source();
    }
    false
}

/// What a listener that has its most connections open does with a new one.
///
/// The gRPC port refuses it: its clients may all come through one address (a load balancer, a
/// NAT), and every connection there may carry calls in progress, which no newcomer should cut.
/// The probe port (and the metrics port, [`crate::metrics::serve`]) makes room instead: a probe
/// opens a fresh connection each time, so a port that refuses the newest connection is held
/// shut by whoever holds its few places, with calls that never end (a health Watch, a Check
/// whose request never ends) or connections reopened as soon as they are closed, whatever the
/// timeouts. There the oldest connection of the busiest source is closed ([`ConnectionSlots`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WhenFull {
    /// The new connection is closed at once (`reason="limit"`).
    Refuse,
    /// The oldest connection of the source address holding the most connections is closed
    /// (`reason="evicted"`) and the new one takes its place.
    EvictFromBusiestSource,
}

/// Where a connection comes from, for sharing a listener's places among sources: an IPv4
/// address, or the /64 network of an IPv6 address (one host or one pod usually gets a whole
/// /64, so single addresses would cost an attacker nothing), an IPv4-mapped IPv6 address being
/// its IPv4 address.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
enum Source {
    V4(u32),
    V6Network(u64),
}

impl Source {
    fn of(peer: SocketAddr) -> Self {
        match peer.ip().to_canonical() {
            IpAddr::V4(ip) => Self::V4(u32::from(ip)),
            IpAddr::V6(ip) => {
                #[allow(clippy::cast_possible_truncation)] // the upper 64 bits, on purpose
                let network = (u128::from(ip) >> 64) as u64;
                Self::V6Network(network)
            }
        }
    }
}

/// The open connections of one listener: at most a fixed number, and, when full, either the
/// newcomer refused or, with [`WhenFull::EvictFromBusiestSource`], room made for it.
///
/// # Whom a full listener evicts
///
/// The source (see below) that holds the most connections loses its oldest one; between sources
/// holding as many, the one whose oldest connection is oldest. So:
///
/// - a newcomer from a source with fewer connections than another always gets in, whoever
///   holds the rest and whatever they do (idle, a Watch that never ends, a request that never
///   arrives, an answer never read): the kubelet's probes come from the node, a connection
///   per probe (liveness and readiness), and get in past any one other source;
/// - a source that reopens connections as fast as they are closed only ever evicts its own
///   (it holds the most): it cannot push out another source's connection, however fast it is;
/// - only sources holding as few connections as the newcomer's own can lose one to it; pushing
///   out a probe's connection then takes more sources than the listener has places (32 on the
///   probe port), each reconnecting faster than a probe makes its one call. That, and a client
///   that connects faster than the server can accept (the kernel's queue of connections not
///   yet accepted is then full, and it drops new ones, probes included), is what a
///   NetworkPolicy is for: the chart's closes the probe port to other pods.
///
/// A source is an IPv4 address or an IPv6 /64 network.
///
/// Open connections never exceed the cap: a newcomer that evicts waits for the evicted
/// connection to be gone (dropped, which closes its socket at once, calls and all) before it is
/// served.
#[derive(Debug)]
pub struct ConnectionSlots {
    max: usize,
    when_full: WhenFull,
    /// One permit per open connection: a connection holds its permit until its socket is gone.
    open: Arc<Semaphore>,
    table: Mutex<Table>,
}

/// The connections that may still be evicted, by source, oldest first (ids are given in
/// accepting order).
#[derive(Debug, Default)]
struct Table {
    next_id: u64,
    by_source: HashMap<Source, BTreeMap<u64, oneshot::Sender<()>>>,
}

impl Table {
    /// Removes and returns the connection to evict: the oldest of the source holding the most
    /// connections, between equal sources the one whose oldest connection is oldest.
    fn pick_victim(&mut self) -> Option<oneshot::Sender<()>> {
        let source = *self
            .by_source
            .iter()
            .filter_map(|(source, connections)| {
                let (&oldest, _) = connections.first_key_value()?;
                Some((source, connections.len(), oldest))
            })
            .max_by(|a, b| a.1.cmp(&b.1).then(b.2.cmp(&a.2)))?
            .0;
        let connections = self.by_source.get_mut(&source)?;
        let (_, victim) = connections.pop_first()?;
        if connections.is_empty() {
            self.by_source.remove(&source);
        }
        Some(victim)
    }

    fn remove(&mut self, source: Source, id: u64) {
        if let Some(connections) = self.by_source.get_mut(&source) {
            connections.remove(&id);
            if connections.is_empty() {
                self.by_source.remove(&source);
            }
        }
    }
}

impl ConnectionSlots {
    /// Places for at most `max` connections (at least 1), and what to do when they are taken.
    #[must_use]
    pub fn new(max: usize, when_full: WhenFull) -> Arc<Self> {
        let max = max.clamp(1, Semaphore::MAX_PERMITS);
        Arc::new(Self {
            max,
            when_full,
            open: Arc::new(Semaphore::new(max)),
            table: Mutex::new(Table::default()),
        })
    }

    fn table(&self) -> std::sync::MutexGuard<'_, Table> {
        // Every update leaves the table consistent: a panic elsewhere does not spoil it.
        self.table
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// A place for a connection from `peer`: at once when one is free; when none is, `None`
    /// ([`WhenFull::Refuse`]: the caller closes the connection and counts it as `limit`), or
    /// room made by evicting a connection (see the type's documentation) and the place it
    /// leaves, once it is gone.
    pub async fn admit(self: &Arc<Self>, peer: SocketAddr) -> Option<Admitted> {
        let permit = match Arc::clone(&self.open).try_acquire_owned() {
            Ok(permit) => permit,
            Err(_) if self.when_full == WhenFull::Refuse => return None,
            Err(_) => {
                let victim = self.table().pick_victim();
                if let Some(victim) = victim {
                    // Its connection task closes it on hearing this and gives its permit back.
                    let _ = victim.send(());
                }
                Arc::clone(&self.open).acquire_owned().await.ok()?
            }
        };
        let source = Source::of(peer);
        let (tell, evicted) = oneshot::channel();
        let id = {
            let mut table = self.table();
            let id = table.next_id;
            table.next_id += 1;
            table.by_source.entry(source).or_default().insert(id, tell);
            id
        };
        Some(Admitted {
            evicted,
            _place: Place {
                slots: Arc::clone(self),
                source,
                id,
                _permit: permit,
            },
        })
    }

    /// Waits until every connection admitted so far is gone (after the listener stopped
    /// accepting).
    pub async fn all_closed(&self) {
        let _ = self
            .open
            .acquire_many(u32::try_from(self.max).unwrap_or(u32::MAX))
            .await;
    }
}

/// A connection's place in its listener's [`ConnectionSlots`], until dropped.
#[derive(Debug)]
pub struct Admitted {
    evicted: oneshot::Receiver<()>,
    _place: Place,
}

impl Admitted {
    /// Completes when the connection has been chosen for eviction (never, unless it is): the
    /// connection must then be closed at once.
    pub async fn evicted(&mut self) {
        if (&mut self.evicted).await.is_err() {
            // Not evicted (the sender goes only with an eviction or with this place).
            std::future::pending::<()>().await;
        }
    }
}

/// Gives the place back: off the table first, then the permit, so that a connection still in
/// the table always holds its permit.
#[derive(Debug)]
struct Place {
    slots: Arc<ConnectionSlots>,
    source: Source,
    id: u64,
    _permit: OwnedSemaphorePermit,
}

impl Drop for Place {
    fn drop(&mut self) {
        self.slots.table().remove(self.source, self.id);
    }
}

impl Listener {
    /// A listener named `name` (the `listener` label of its metrics) serving the sockets `tcp`
    /// under `limits`, with TLS from `tls` when given.
    #[must_use]
    pub fn new(
        tcp: Sockets,
        name: &'static str,
        limits: ConnectionLimits,
        tls: Option<TlsSource>,
    ) -> Self {
        Self {
            tcp,
            name,
            limits,
            tls,
        }
    }

    /// The addresses bound.
    ///
    /// # Errors
    ///
    /// The socket error when an address cannot be read.
    pub fn local_addrs(&self) -> std::io::Result<Vec<SocketAddr>> {
        self.tcp.local_addrs()
    }

    /// Accepts and serves connections with `service` until `shutdown` turns true; then stops
    /// accepting (the socket is closed), sends every open connection a GOAWAY and returns when
    /// all of them have closed. Calls still running keep their connection open until they end
    /// (the caller bounds the whole drain).
    pub async fn serve<S>(self, service: S, mut shutdown: watch::Receiver<bool>)
    where
        S: Service<Request<Body>, Response = Response<Body>, Error = Infallible>
            + Clone
            + Send
            + 'static,
        S::Future: Send + 'static,
    {
        let Self {
            tcp,
            name,
            limits,
            tls,
        } = self;
        let slots = ConnectionSlots::new(limits.max_connections, limits.when_full);
        let limits = Arc::new(limits);
        loop {
            let accepted = tokio::select! {
                biased;
                _ = shutdown.wait_for(|stop| *stop) => break,
                accepted = tcp.accept() => accepted,
            };
            let (stream, peer) = match accepted {
                Ok(accepted) => accepted,
                Err(error) => {
                    // Out of file descriptors, or a connection reset before it was accepted:
                    // wait a little rather than spin.
                    tracing::debug!(%error, listener = name, "accept failed");
                    tokio::time::sleep(Duration::from_millis(10)).await;
                    continue;
                }
            };
            let admitted = tokio::select! {
                biased;
                _ = shutdown.wait_for(|stop| *stop) => break,
                admitted = slots.admit(peer) => admitted,
            };
            let Some(mut admitted) = admitted else {
                count_closed(name, Closed::Limit);
                crate::overload::note_refused_connection();
                drop(stream);
                continue;
            };
            metrics::counter!("arbiter_connections_accepted_total", "listener" => name)
                .increment(1);
            let _ = stream.set_nodelay(true);
            if let Some(bytes) = limits.socket_send_buffer
                && let Err(error) = socket2::SockRef::from(&stream).set_send_buffer_size(bytes)
            {
                tracing::debug!(%error, listener = name, "SO_SNDBUF not set");
            }
            let info = TcpConnectInfo {
                local_addr: stream.local_addr().ok(),
                remote_addr: Some(peer),
            };
            let connection = serve_connection(
                stream,
                info,
                name,
                Arc::clone(&limits),
                tls.as_ref().map(|source| source()),
                service.clone(),
                shutdown.clone(),
            );
            tokio::spawn(async move {
                let gauge = metrics::gauge!("arbiter_connections_open", "listener" => name);
                gauge.increment(1.0);
                // Evicted: the connection (and its socket, calls and all) is dropped at once.
                let reason = tokio::select! {
                    reason = connection => reason,
                    () = admitted.evicted() => Closed::Evicted,
                };
                // The gauge first, then the counter: whoever reads the counter of closed
                // connections then sees the gauge without them.
                gauge.decrement(1.0);
                count_closed(name, reason);
                drop(admitted);
            });
        }
        drop(tcp);
        // Every connection holds its place until it has closed.
        slots.all_closed().await;
    }
}

/// A connection's bytes, plain or TLS.
trait Io: AsyncRead + AsyncWrite + Unpin + Send {}
impl<T: AsyncRead + AsyncWrite + Unpin + Send> Io for T {}

/// What a connection speaks, from its first bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Protocol {
    /// Not known yet: fewer bytes than the HTTP/2 preface, all of them the preface's.
    Unknown = 0,
    /// HTTP/1.1: the first bytes are not the HTTP/2 preface.
    Http1 = 1,
    /// HTTP/2: the whole preface has arrived.
    Http2 = 2,
}

/// Watches the bytes read from a connection: what it speaks (the HTTP/2 preface or not), and on
/// HTTP/1.1 when the head of a request began to arrive, for the handshake timeout.
struct WatchReads {
    inner: Box<dyn Io>,
    activity: Arc<Activity>,
    /// How many of the first bytes matched the HTTP/2 preface, while the protocol is unknown.
    matched: usize,
}

impl WatchReads {
    fn saw(&mut self, data: &[u8]) {
        if self.activity.protocol() == Protocol::Unknown {
            let take = data.len().min(H2_PREFACE.len() - self.matched);
            let protocol = if data[..take] != H2_PREFACE[self.matched..self.matched + take] {
                Protocol::Http1
            } else {
                self.matched += take;
                if self.matched < H2_PREFACE.len() {
                    return;
                }
                Protocol::Http2
            };
            self.activity
                .protocol
                .store(protocol as u8, Ordering::Relaxed);
        }
        if self.activity.protocol() == Protocol::Http1
            && self.activity.active.load(Ordering::Relaxed) == 0
            && let Ok(mut since) = self.activity.head_since.lock()
        {
            // Bytes with no call in progress: the head of the next request has begun.
            since.get_or_insert_with(Instant::now);
        }
    }
}

impl AsyncRead for WatchReads {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<std::io::Result<()>> {
        let before = buf.filled().len();
        let polled = Pin::new(&mut self.inner).poll_read(cx, buf);
        if let Some(data) = buf.filled().get(before..)
            && !data.is_empty()
        {
            self.saw(data);
        }
        polled
    }
}

impl AsyncWrite for WatchReads {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<std::io::Result<usize>> {
        Pin::new(&mut self.inner).poll_write(cx, buf)
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        Pin::new(&mut self.inner).poll_flush(cx)
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        Pin::new(&mut self.inner).poll_shutdown(cx)
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
}

/// Calls in progress on one connection, since when there has been none, and what the
/// connection speaks.
struct Activity {
    active: AtomicUsize,
    idle_since: Mutex<Instant>,
    /// Since when the head of the next request has been arriving: from the connection's start
    /// for the first request, then from the first byte read with no call in progress (HTTP/1.1);
    /// `None` once a call has started, until such a byte.
    head_since: Mutex<Option<Instant>>,
    /// A [`Protocol`], as its number.
    protocol: AtomicU8,
    /// The deliveries of the connection's calls (see [`crate::delivery`]).
    deliveries: Registry,
}

impl Activity {
    fn new(accepted_at: Instant) -> Self {
        Self {
            active: AtomicUsize::new(0),
            idle_since: Mutex::new(accepted_at),
            head_since: Mutex::new(Some(accepted_at)),
            protocol: AtomicU8::new(Protocol::Unknown as u8),
            deliveries: Registry::default(),
        }
    }

    fn start(self: &Arc<Self>) -> CallInProgress {
        self.active.fetch_add(1, Ordering::Relaxed);
        if let Ok(mut since) = self.head_since.lock() {
            *since = None;
        }
        CallInProgress(Arc::clone(self))
    }

    fn protocol(&self) -> Protocol {
        match self.protocol.load(Ordering::Relaxed) {
            1 => Protocol::Http1,
            2 => Protocol::Http2,
            _ => Protocol::Unknown,
        }
    }

    /// How long the connection has had no call in progress; `None` while it has one.
    fn idle_for(&self) -> Option<Duration> {
        if self.active.load(Ordering::Relaxed) > 0 {
            return None;
        }
        self.idle_since.lock().ok().map(|since| since.elapsed())
    }

    /// Whether a request's head has taken `timeout` or more without a call starting: the
    /// HTTP/2 preface not arrived in whole, or an HTTP/1.1 request's headers not complete.
    fn head_overdue(&self, timeout: Duration) -> bool {
        self.protocol() != Protocol::Http2
            && self
                .head_since
                .lock()
                .is_ok_and(|since| since.is_some_and(|since| since.elapsed() >= timeout))
    }
}

/// One call in progress; ends when dropped (with the response body, or the call's future).
struct CallInProgress(Arc<Activity>);

impl Drop for CallInProgress {
    fn drop(&mut self) {
        if self.0.active.fetch_sub(1, Ordering::Relaxed) == 1
            && let Ok(mut since) = self.0.idle_since.lock()
        {
            *since = Instant::now();
        }
    }
}

/// A response body that keeps its call counted as in progress until it ends.
struct Tracked {
    inner: Body,
    _call: CallInProgress,
}

impl http_body::Body for Tracked {
    type Data = Bytes;
    type Error = Status;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, Status>>> {
        Pin::new(&mut self.inner).poll_frame(cx)
    }

    fn is_end_stream(&self) -> bool {
        self.inner.is_end_stream()
    }

    fn size_hint(&self) -> http_body::SizeHint {
        self.inner.size_hint()
    }
}

/// How long after an HTTP/1.1 call's deadline its connection is closed if the call's answer is
/// still undelivered: time for the call's own `DEADLINE_EXCEEDED` answer to go out first.
const HTTP1_DEADLINE_GRACE: Duration = Duration::from_secs(1);

/// Why the connection must close for its answers, if it must: one waited for the client
/// longer than the slow-reader timeout (HTTP/2 and HTTP/1.1), or an HTTP/1.1 call's deadline
/// passed before its answer was delivered (an HTTP/2 call's stream is reset alone, by its
/// task: see [`crate::delivery::StreamExecutor`]). The deliveries cut short are counted.
fn undelivered(activity: &Activity, limits: &ConnectionLimits) -> Option<Closed> {
    if let Some((delivery, waited)) = activity.deliveries.longest_waiting()
        && waited >= limits.slow_reader_timeout
    {
        delivery.cancel(Abandoned::SlowReader);
        return Some(Closed::SlowReader);
    }
    if activity.protocol() == Protocol::Http1
        && let Some(delivery) = activity.deliveries.any_overdue(HTTP1_DEADLINE_GRACE)
    {
        delivery.cancel(Abandoned::Deadline);
        return Some(Closed::SlowReader);
    }
    None
}

/// `age` plus or minus up to 10 %, drawn anew for each connection, so that the connections of a
/// replica (and replicas started together) do not all reconnect at the same moment.
#[must_use]
pub fn jittered(age: Duration) -> Duration {
    static DRAWS: AtomicU64 = AtomicU64::new(0);
    let random = RandomState::new().hash_one(DRAWS.fetch_add(1, Ordering::Relaxed));
    // A factor from 0.9 to 1.1 in steps of 0.001.
    let permille = 900 + u32::try_from(random % 201).unwrap_or(100);
    age * permille / 1000
}

/// Serves one connection until it closes, enforcing the handshake timeout, the idle timeout, the
/// age limit and the shutdown; returns why it closed (the caller counts it, after the gauge of
/// open connections, so that the two never disagree for a reader).
async fn serve_connection<S>(
    stream: TcpStream,
    info: TcpConnectInfo,
    name: &'static str,
    limits: Arc<ConnectionLimits>,
    tls: Option<tokio_rustls::TlsAcceptor>,
    service: S,
    mut shutdown: watch::Receiver<bool>,
) -> Closed
where
    S: Service<Request<Body>, Response = Response<Body>, Error = Infallible>
        + Clone
        + Send
        + 'static,
    S::Future: Send + 'static,
{
    let accepted_at = Instant::now();
    let handshake_deadline = accepted_at + limits.handshake_timeout;
    // The protocol ALPN chose, if any: then the first bytes need not tell.
    let mut alpn = None;
    let io: Box<dyn Io> = match tls {
        None => Box::new(stream),
        Some(acceptor) => {
            match tokio::time::timeout_at(handshake_deadline, acceptor.accept(stream)).await {
                Ok(Ok(stream)) => {
                    alpn = stream.get_ref().1.alpn_protocol().map(<[u8]>::to_vec);
                    Box::new(stream)
                }
                Ok(Err(error)) => {
                    tracing::debug!(%error, listener = name, peer = ?info.remote_addr, "TLS handshake failed");
                    return Closed::TlsError;
                }
                Err(_) => {
                    return Closed::HandshakeTimeout;
                }
            }
        }
    };
    let activity = Arc::new(Activity::new(accepted_at));
    let io = WatchReads {
        inner: io,
        activity: Arc::clone(&activity),
        matched: 0,
    };
    let calls = Arc::clone(&activity);
    let (aged, aged_rx) = watch::channel(false);
    let hyper_service =
        hyper::service::service_fn(move |request: Request<hyper::body::Incoming>| {
            let call = calls.start();
            let mut request = request.map(Body::new);
            request.extensions_mut().insert(info.clone());
            request
                .extensions_mut()
                .insert(ConnectionAged(aged_rx.clone()));
            let service = service.clone();
            let calls = Arc::clone(&calls);
            async move {
                // HTTP/2: the delivery of the task serving the stream (StreamExecutor), which
                // resets the stream when it ends; HTTP/1.1: one the connection loop watches.
                let delivery = crate::delivery::current().unwrap_or_default();
                calls.deliveries.register(&delivery);
                request.extensions_mut().insert(delivery);
                let Ok(response) = service.oneshot(request).await;
                Ok::<_, Infallible>(response.map(|inner| Body::new(Tracked { inner, _call: call })))
            }
        });
    let mut builder = hyper_util::server::conn::auto::Builder::new(StreamExecutor);
    if !limits.http1 || alpn.as_deref() == Some(crate::tls::ALPN_H2) {
        builder = builder.http2_only();
    } else if alpn.as_deref() == Some(crate::tls::ALPN_HTTP1) {
        builder = builder.http1_only();
    }
    builder
        .http1()
        .timer(TokioTimer::new())
        // The handshake timeout is enforced below, from a request's first byte: hyper's own
        // would also run while a kept-alive connection waits for its next request.
        .header_read_timeout(None::<Duration>)
        .max_buf_size(
            usize::try_from(limits.max_header_list_bytes)
                .map_or(usize::MAX, |bytes| bytes.max(MIN_HTTP1_BUFFER)),
        );
    builder
        .http2()
        .timer(TokioTimer::new())
        .max_concurrent_streams(limits.max_concurrent_streams)
        .initial_stream_window_size(limits.stream_window)
        .initial_connection_window_size(limits.connection_window)
        .max_header_list_size(limits.max_header_list_bytes)
        .keep_alive_interval(limits.keepalive_interval)
        .keep_alive_timeout(limits.keepalive_timeout);
    let mut connection = pin!(builder.serve_connection(TokioIo::new(io), hyper_service));

    let age_deadline = limits.max_age.map(|age| accepted_at + jittered(age));
    let idle_check = (limits.idle_timeout.min(limits.handshake_timeout) / 4)
        .clamp(Duration::from_millis(20), Duration::from_secs(5));
    let mut idle_ticks = tokio::time::interval_at(accepted_at + idle_check, idle_check);
    idle_ticks.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    let mut preface_pending = true;
    // Set once a GOAWAY was sent: why, and when the connection is closed regardless.
    let mut going_away: Option<(Closed, Option<Instant>)> = None;
    let far_future = accepted_at + Duration::from_secs(86_400 * 365);

    loop {
        let hard_deadline = going_away
            .and_then(|(_, deadline)| deadline)
            .unwrap_or(far_future);
        tokio::select! {
            result = connection.as_mut() => {
                let ended = match result {
                    Ok(()) => Closed::Client,
                    Err(error) => {
                        tracing::debug!(%error, listener = name, "connection ended with an error");
                        Closed::from_error(&*error)
                    }
                };
                break going_away.map_or(ended, |(reason, _)| reason);
            }
            () = tokio::time::sleep_until(handshake_deadline), if preface_pending => {
                if activity.head_overdue(limits.handshake_timeout) {
                    break Closed::HandshakeTimeout;
                }
                preface_pending = false;
            }
            () = tokio::time::sleep_until(age_deadline.unwrap_or(far_future)),
                if going_away.is_none() && age_deadline.is_some() =>
            {
                connection.as_mut().graceful_shutdown();
                aged.send_replace(true);
                going_away = Some((Closed::MaxAge, Some(Instant::now() + limits.max_age_grace)));
            }
            _ = idle_ticks.tick() => {
                if let Some(closed) = undelivered(&activity, &limits) {
                    break closed;
                }
                if going_away.is_some() {
                    continue;
                }
                // A later HTTP/1.1 request whose headers trickle in.
                if !preface_pending && activity.head_overdue(limits.handshake_timeout) {
                    break Closed::HandshakeTimeout;
                }
                if activity.idle_for().is_some_and(|idle| idle >= limits.idle_timeout) {
                    connection.as_mut().graceful_shutdown();
                    // Nothing is in progress: the GOAWAY is all that is left to send.
                    going_away = Some((Closed::Idle, Some(Instant::now() + Duration::from_secs(1))));
                }
            }
            _ = shutdown.wait_for(|stop| *stop), if going_away.is_none() => {
                connection.as_mut().graceful_shutdown();
                // Calls in progress may finish: the drain timeout of the caller bounds them.
                going_away = Some((Closed::Shutdown, None));
            }
            () = tokio::time::sleep_until(hard_deadline), if going_away.is_some_and(|(_, deadline)| deadline.is_some()) => {
                break going_away.map_or(Closed::Client, |(reason, _)| reason);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Port 0 on a name's two addresses is one free port for both (a client must reach the same
    /// server on either), and each socket accepts.
    #[tokio::test]
    async fn the_addresses_of_a_port_share_the_free_port_and_all_accept() {
        let ipv6 = std::net::TcpListener::bind("[::1]:0").is_ok();
        let mut asked = vec![SocketAddr::from(([127, 0, 0, 1], 0))];
        if ipv6 {
            asked.push(SocketAddr::from((std::net::Ipv6Addr::LOCALHOST, 0)));
        }
        let sockets = Sockets::bind(&asked).await.expect("bind");
        let bound = sockets.local_addrs().expect("addresses");
        let port = bound[0].port();
        assert_ne!(port, 0);
        let wanted: Vec<SocketAddr> = asked
            .iter()
            .map(|addr| SocketAddr::new(addr.ip(), port))
            .collect();
        assert_eq!(bound, wanted);
        for addr in bound {
            let _client = TcpStream::connect(addr).await.expect("connect");
            let (stream, _) = sockets.accept().await.expect("accept");
            assert_eq!(stream.local_addr().expect("local address"), addr);
        }
    }

    #[tokio::test]
    async fn a_port_without_an_address_or_with_one_taken_is_an_error() {
        let error = Sockets::bind(&[]).await.expect_err("nothing to bind");
        assert_eq!(error.source.kind(), std::io::ErrorKind::InvalidInput);
        let taken = Sockets::bind(&[SocketAddr::from(([127, 0, 0, 1], 0))])
            .await
            .expect("bind");
        let addr = taken.local_addrs().expect("address")[0];
        let error = Sockets::bind(&[addr]).await.expect_err("in use");
        assert_eq!(error.addr, addr);
        assert_eq!(error.source.kind(), std::io::ErrorKind::AddrInUse);
        assert!(
            error
                .to_string()
                .starts_with(&format!("cannot listen on {addr}: "))
        );
    }

    /// Of a name's addresses, one the host cannot have (here an address of no interface) is
    /// left out, as `[::1]` is where IPv6 is off; alone, it is an error.
    #[tokio::test]
    async fn an_address_the_host_cannot_have_is_left_out_of_several() {
        let foreign = SocketAddr::from(([192, 0, 2, 1], 0)); // TEST-NET-1, on no interface
        let sockets = Sockets::bind(&[SocketAddr::from(([127, 0, 0, 1], 0)), foreign])
            .await
            .expect("the loopback address alone");
        let bound = sockets.local_addrs().expect("addresses");
        assert_eq!(bound.len(), 1);
        assert!(bound[0].ip().is_loopback());
        let error = Sockets::bind(&[foreign]).await.expect_err("alone");
        assert_eq!(error.source.kind(), std::io::ErrorKind::AddrNotAvailable);
    }

    fn peer(text: &str) -> SocketAddr {
        text.parse().expect("a socket address")
    }

    /// A connection held until it is evicted: then its place is dropped (its socket closed)
    /// and its name sent on `gone`.
    fn hold(
        mut admitted: Admitted,
        name: &'static str,
        gone: &tokio::sync::mpsc::UnboundedSender<&'static str>,
    ) {
        let gone = gone.clone();
        tokio::spawn(async move {
            admitted.evicted().await;
            drop(admitted);
            let _ = gone.send(name);
        });
    }

    /// The gRPC port's way: a full listener refuses the newcomer, and has room again once a
    /// connection has gone.
    #[tokio::test]
    async fn a_full_refusing_listener_refuses_the_newcomer() {
        let slots = ConnectionSlots::new(2, WhenFull::Refuse);
        let first = slots.admit(peer("10.0.0.1:1000")).await.expect("room");
        let _second = slots.admit(peer("10.0.0.2:1000")).await.expect("room");
        assert!(slots.admit(peer("10.0.0.3:1000")).await.is_none());
        drop(first);
        assert!(slots.admit(peer("10.0.0.3:1000")).await.is_some());
    }

    /// Issue 26 item 2: 32 connections held to the probe port (Watch calls, idle ones reopened
    /// at once) refused every fresh probe. A full probe listener now evicts the oldest
    /// connection of the source holding the most, so a newcomer from another source always
    /// gets in, and a source reopening its connections only ever evicts its own.
    #[tokio::test]
    async fn r_a_full_probe_listener_evicts_the_oldest_of_the_busiest_source() {
        let (gone_tx, mut gone) = tokio::sync::mpsc::unbounded_channel();
        let slots = ConnectionSlots::new(3, WhenFull::EvictFromBusiestSource);
        let attacker = "10.0.0.66";
        for name in ["attacker 1", "attacker 2"] {
            let admitted = slots.admit(peer(&format!("{attacker}:4000"))).await;
            hold(admitted.expect("room"), name, &gone_tx);
        }
        let node = slots.admit(peer("10.0.0.1:5000")).await.expect("room");
        hold(node, "probe 1", &gone_tx);
        // The attacker reopens connections as fast as it likes: each evicts its own oldest.
        for (round, name) in ["attacker 3", "attacker 4", "attacker 5"]
            .iter()
            .enumerate()
        {
            let admitted = slots
                .admit(peer(&format!("{attacker}:{}", 4001 + round)))
                .await;
            hold(admitted.expect("room after an eviction"), name, &gone_tx);
            let evicted = gone.recv().await.expect("one evicted");
            assert_eq!(evicted, ["attacker 1", "attacker 2", "attacker 3"][round]);
        }
        // A second probe from the node: the attacker still holds the most and loses one.
        let second = slots.admit(peer("10.0.0.1:5001")).await.expect("room");
        assert_eq!(gone.recv().await, Some("attacker 4"));
        hold(second, "probe 2", &gone_tx);
        // Now every source holds one or two: the node (2) gives up its oldest to a third source.
        let third = slots.admit(peer("10.0.0.9:6000")).await.expect("room");
        assert_eq!(gone.recv().await, Some("probe 1"));
        hold(third, "other", &gone_tx);
        // Sources holding as many: the one whose oldest connection is oldest (the attacker's 5
        // came before the node's second probe).
        let _fourth = slots.admit(peer("10.0.0.10:6000")).await.expect("room");
        assert_eq!(gone.recv().await, Some("attacker 5"));
        assert!(gone.try_recv().is_err(), "one eviction per newcomer");
    }

    /// An IPv6 host (or pod) usually has a whole /64: its addresses are one source, and an
    /// IPv4 address seen through a dual-stack socket is the IPv4 source.
    #[test]
    fn sources_are_ipv4_addresses_and_ipv6_networks() {
        assert_eq!(
            Source::of(peer("[2001:db8:1:2::1]:1")),
            Source::of(peer("[2001:db8:1:2:ffff::9]:2"))
        );
        assert_ne!(
            Source::of(peer("[2001:db8:1:2::1]:1")),
            Source::of(peer("[2001:db8:1:3::1]:1"))
        );
        assert_eq!(
            Source::of(peer("[::ffff:10.1.2.3]:1")),
            Source::of(peer("10.1.2.3:2"))
        );
        assert_ne!(
            Source::of(peer("10.1.2.3:1")),
            Source::of(peer("10.1.2.4:1"))
        );
    }

    /// Every connection that ends leaves the table: sources with none are forgotten, and
    /// `all_closed` waits for the last place.
    #[tokio::test]
    async fn places_are_given_back_and_sources_forgotten() {
        let slots = ConnectionSlots::new(4, WhenFull::EvictFromBusiestSource);
        let held: Vec<_> = ["10.0.0.1:1", "10.0.0.1:2", "10.0.0.2:1", "[2001:db8::1]:1"]
            .into_iter()
            .map(|text| slots.admit(peer(text)))
            .collect();
        let mut admitted = Vec::new();
        for future in held {
            admitted.push(future.await.expect("room"));
        }
        assert_eq!(slots.table().by_source.len(), 3);
        admitted.clear();
        assert!(slots.table().by_source.is_empty());
        tokio::time::timeout(Duration::from_secs(1), slots.all_closed())
            .await
            .expect("every place free");
    }

    fn watch(activity: &Arc<Activity>) -> WatchReads {
        WatchReads {
            inner: Box::new(tokio::io::duplex(64).0),
            activity: Arc::clone(activity),
            matched: 0,
        }
    }

    /// The protocol is told from the first bytes as hyper-util's auto builder tells it: the
    /// whole HTTP/2 preface (in any pieces) is HTTP/2, the first byte that differs HTTP/1.1.
    #[tokio::test]
    async fn the_first_bytes_tell_http2_from_http1() {
        let activity = Arc::new(Activity::new(Instant::now()));
        let mut reads = watch(&activity);
        for piece in H2_PREFACE.chunks(5) {
            assert_eq!(activity.protocol(), Protocol::Unknown);
            reads.saw(piece);
        }
        assert_eq!(activity.protocol(), Protocol::Http2);
        reads.saw(b"POST / HTTP/1.1\r\n");
        assert_eq!(activity.protocol(), Protocol::Http2, "decided once");

        for first in [&b"POST /a HTTP/1.1"[..], b"PRI * HTTP/1.1\r\n", b"OPTIONS"] {
            let activity = Arc::new(Activity::new(Instant::now()));
            watch(&activity).saw(first);
            assert_eq!(activity.protocol(), Protocol::Http1, "{first:?}");
        }
    }

    /// The handshake timeout: a connection's first request head (the HTTP/2 preface, or an
    /// HTTP/1.1 request's headers) is timed from the connection's start; on HTTP/1.1 a later
    /// request's head from its first byte, not from the end of the previous call (that wait is
    /// the idle timeout's); HTTP/2 after its preface is never timed so.
    #[tokio::test(start_paused = true)]
    async fn request_heads_are_timed_from_their_first_byte() {
        let timeout = Duration::from_secs(10);
        let silent = Arc::new(Activity::new(Instant::now()));
        tokio::time::advance(timeout).await;
        assert!(silent.head_overdue(timeout), "nothing arrived");

        let activity = Arc::new(Activity::new(Instant::now()));
        let mut reads = watch(&activity);
        reads.saw(b"POST /a HTTP/1.1\r\nHost: a\r\n");
        tokio::time::advance(timeout / 2).await;
        assert!(!activity.head_overdue(timeout));
        let call = activity.start();
        tokio::time::advance(timeout * 2).await;
        assert!(!activity.head_overdue(timeout), "a call is in progress");
        drop(call);
        tokio::time::advance(timeout * 2).await;
        assert!(
            !activity.head_overdue(timeout),
            "idle, no byte since the call"
        );
        reads.saw(b"POST /b");
        tokio::time::advance(timeout - Duration::from_millis(1)).await;
        assert!(!activity.head_overdue(timeout));
        reads.saw(b" HTTP/1.1\r\n");
        tokio::time::advance(Duration::from_millis(1)).await;
        assert!(activity.head_overdue(timeout), "timed from its first byte");

        let http2 = Arc::new(Activity::new(Instant::now()));
        watch(&http2).saw(H2_PREFACE);
        tokio::time::advance(timeout * 2).await;
        assert!(!http2.head_overdue(timeout));
    }
}
