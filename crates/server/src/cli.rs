//! Command line: subcommands, flags and their `ARBITER_*` environment fallbacks.

use std::{net::SocketAddr, path::PathBuf, time::Duration};

use clap::{Args, Parser, Subcommand, ValueEnum};

use crate::limits;

/// Chess rules as a service: the arbiter gRPC server and its tools.
#[derive(Debug, Parser)]
#[command(name = "arbiter", version, about, long_about = None, args_override_self = true)]
pub struct Cli {
    /// What to do.
    #[command(subcommand)]
    pub command: Command,
}

/// The subcommands of `arbiter`.
#[derive(Debug, Subcommand)]
// Parsed once per process: the size of the largest variant does not matter.
#[allow(clippy::large_enum_variant)]
pub enum Command {
    /// Serve the gRPC API until SIGTERM or SIGINT.
    Serve(ServeArgs),
    /// Count the leaf nodes of the legal move tree of a position (move generator check and
    /// benchmark).
    Perft(PerftArgs),
    /// Ask a running server for its gRPC health; exit 0 when SERVING, 1 otherwise.
    HealthCheck(HealthCheckArgs),
    /// Adjudicate every game of a PGN file: one verdict per game (result, termination, FIDE
    /// article, ply, the first illegal move, a Result tag that contradicts the rules) and a
    /// summary. Exit status 2 when a game has a finding --fail-on lists (by default an illegal
    /// move or a contradicting result), 1 when the file cannot be read or the output written,
    /// 64 for a wrong command line; 0 when the reader of the output stops early (`| head`).
    Adjudicate(AdjudicateArgs),
    /// Draw a position as an SVG board diagram on standard output: coordinates, the side to
    /// move, a check and (with --last-move) the last move marked; pieces drawn as SVG paths, so
    /// the file looks the same everywhere. Exit status 2 for a FEN that is not a position.
    Board(BoardArgs),
}

/// Flags of `arbiter board`.
#[derive(Debug, Clone, Args)]
pub struct BoardArgs {
    /// The position, as FEN (X-FEN or Shredder-FEN castling rights for Chess960) or "startpos".
    pub fen: String,
    /// The last move's squares, as UCI (`e2e4`; for castling the king's, `e1g1`), marked on
    /// the board.
    #[arg(long, value_parser = parse_last_move)]
    pub last_move: Option<(arbiter_rules::Square, arbiter_rules::Square)>,
    /// Black's side at the bottom.
    #[arg(long)]
    pub flip: bool,
}

/// The from and to squares of a UCI move text (`e2e4`, `e7e8q`).
fn parse_last_move(text: &str) -> Result<(arbiter_rules::Square, arbiter_rules::Square), String> {
    let square =
        |range: std::ops::Range<usize>| text.get(range).and_then(arbiter_rules::Square::from_name);
    match (square(0..2), square(2..4), text.len()) {
        (Some(from), Some(to), 4 | 5) => Ok((from, to)),
        _ => Err(format!(
            "'{text}' is not a move in UCI: two squares, e.g. e2e4 (with a promotion letter, e7e8q)"
        )),
    }
}

/// Flags of `arbiter serve`.
#[derive(Debug, Clone, Args)]
pub struct ServeArgs {
    /// Address the gRPC server listens on; port 0 picks a free port (the log tells which).
    #[arg(long, env = "ARBITER_GRPC_ADDR", default_value = "[::]:50051")]
    pub grpc_addr: SocketAddr,

    /// Address of the Prometheus endpoint (`GET /metrics`, HTTP/1.1); port 0 picks a free port
    /// (the log tells which); "" or "off" disables metrics.
    #[arg(long, env = "ARBITER_METRICS_ADDR", default_value = "[::]:9090",
          value_parser = |text: &str| crate::metrics::parse_metrics_addr(text).map(OptionalAddr))]
    pub metrics_addr: OptionalAddr,

    /// Largest accepted request message, in bytes.
    #[arg(long, env = "ARBITER_MAX_MESSAGE_BYTES", default_value_t = limits::DEFAULT_MAX_MESSAGE_BYTES,
          value_parser = clap::value_parser!(u32).range(1024..))]
    pub max_message_bytes: u32,

    /// Most moves accepted in one request or game.
    #[arg(long, env = "ARBITER_MAX_MOVES", default_value_t = limits::DEFAULT_MAX_MOVES,
          value_parser = clap::value_parser!(u32).range(1..))]
    pub max_moves: u32,

    /// Largest PGN text accepted in one request, in bytes (default 1 MiB).
    #[arg(long, env = "ARBITER_MAX_PGN_BYTES", default_value_t = limits::DEFAULT_MAX_PGN_BYTES,
          value_parser = clap::value_parser!(u32).range(1..))]
    pub max_pgn_bytes: u32,

    /// Most games accepted on one streaming call.
    #[arg(long, env = "ARBITER_MAX_GAMES_PER_STREAM", default_value_t = limits::DEFAULT_MAX_GAMES_PER_STREAM,
          value_parser = clap::value_parser!(u32).range(1..))]
    pub max_games_per_stream: u32,

    /// Most tag pairs of one PGN game; a game with more is an error of its own (LIMIT_EXCEEDED).
    #[arg(long, env = "ARBITER_MAX_TAGS", default_value_t = limits::DEFAULT_MAX_TAGS,
          value_parser = clap::value_parser!(u32).range(1..))]
    pub max_tags: u32,

    /// Largest PGN tag value, in bytes (escapes decoded); a game with a longer one is an error
    /// of its own (LIMIT_EXCEEDED).
    #[arg(long, env = "ARBITER_MAX_TAG_VALUE_BYTES", default_value_t = limits::DEFAULT_MAX_TAG_VALUE_BYTES,
          value_parser = clap::value_parser!(u32).range(1..))]
    pub max_tag_value_bytes: u32,

    /// Deepest nesting of variations in PGN movetext (0: no variations); a game nested deeper is
    /// an error of its own (LIMIT_EXCEEDED).
    #[arg(long, env = "ARBITER_MAX_VARIATION_DEPTH", default_value_t = limits::DEFAULT_MAX_VARIATION_DEPTH)]
    pub max_variation_depth: u32,

    /// How much analysis adjudication may spend on dead positions and on "can the opponent
    /// still checkmate?" (flag fall, resignation): material checks only, a fast sound check, or
    /// the full helpmate search. A level, not a number: the search is bounded by the analyzer's
    /// own node limit (1,000,000 positions per search phase), in time by the request timeout and
    /// in memory by `--max-analyses` (about 100 MiB each).
    #[arg(long, env = "ARBITER_ANALYSIS", value_enum, default_value_t = Analysis::from(limits::DEFAULT_ANALYSIS))]
    pub analysis: Analysis,

    /// Longest time a call may take before it fails with DEADLINE_EXCEEDED (e.g. "10s",
    /// "500ms"), delivering its answer included; a shorter `grpc-timeout` from the client wins.
    /// For an AdjudicateGames stream: longest time of one request message, from its arrival
    /// until its last answer is handed over.
    #[arg(long, env = "ARBITER_REQUEST_TIMEOUT", default_value = limits::DEFAULT_REQUEST_TIMEOUT, value_parser = parse_positive_duration)]
    pub request_timeout: Duration,

    /// Threads that do the chess work of calls (0: one per available core). Memory and CPU of
    /// the work are bounded by this number, whatever the number of calls.
    #[arg(long, env = "ARBITER_WORKERS", default_value_t = 0)]
    pub workers: u32,

    /// Most workers that the messages of AdjudicateGames streams may use at once (0: all
    /// workers but one, at least one), so that unary calls never queue behind a crowd of
    /// stream messages.
    #[arg(long, env = "ARBITER_STREAM_WORKERS", default_value_t = 0)]
    pub stream_workers: u32,

    /// Most unary calls admitted at once in the whole process, running or waiting for a worker;
    /// calls beyond it fail at once with RESOURCE_EXHAUSTED.
    #[arg(long, env = "ARBITER_CONCURRENCY_LIMIT", default_value_t = limits::DEFAULT_CONCURRENCY_LIMIT,
          value_parser = clap::value_parser!(u32).range(1..))]
    pub concurrency_limit: u32,

    /// Longest time an admitted call waits for a free worker before it fails with
    /// RESOURCE_EXHAUSTED (e.g. "1s", "200ms").
    #[arg(long, env = "ARBITER_MAX_QUEUE_WAIT", default_value = limits::DEFAULT_MAX_QUEUE_WAIT, value_parser = parse_duration)]
    pub max_queue_wait: Duration,

    /// Unary requests of at most this many bytes (the protobuf message) are answered on the
    /// network thread that read them instead of a worker, while fewer than --workers − 1 (at
    /// least 1) run there: their work (a FEN and about a hundred moves at most)
    /// takes less than handing it to a worker and back. A call whose work needs an analysis goes
    /// to a worker anyway. 0: every call goes to a worker.
    #[arg(long, env = "ARBITER_MAX_INLINE_BYTES", default_value_t = limits::DEFAULT_MAX_INLINE_BYTES)]
    pub max_inline_bytes: u32,

    /// Most AdjudicateGames streams open at once; a stream holds its share until it ends, and
    /// streams beyond it fail at once with RESOURCE_EXHAUSTED.
    #[arg(long, env = "ARBITER_MAX_STREAMS", default_value_t = limits::DEFAULT_MAX_STREAMS,
          value_parser = clap::value_parser!(u32).range(1..))]
    pub max_streams: u32,

    /// Most bytes of request messages that calls may hold at once in the whole process, as sent
    /// on the wire (the 5-byte gRPC header of each message included): a unary call holds its
    /// request's bytes until its work ends, a stream each message's until that message is
    /// answered. A call that finds no room waits for it (HTTP/2 flow control slows its client) at
    /// most `--max-queue-wait`, then fails with RESOURCE_EXHAUSTED. Must hold one largest message:
    /// at least `--max-message-bytes` + 5.
    #[arg(long, env = "ARBITER_MAX_REQUEST_BYTES_IN_FLIGHT", default_value_t = limits::DEFAULT_MAX_REQUEST_BYTES_IN_FLIGHT,
          value_parser = clap::value_parser!(u64).range(1024..))]
    pub max_request_bytes_in_flight: u64,

    /// Most bytes of answers that the process may hold built but not yet taken by their clients
    /// (plus 1 KiB per such call). A call that arrives when there is no room is refused with
    /// RESOURCE_EXHAUSTED before any work; an answer that finds no room takes it from the
    /// answer whose client has taken nothing of its own for longest, if longer than
    /// `--max-queue-wait` (that call's stream is reset), else waits at most `--max-queue-wait`
    /// and is replaced by RESOURCE_EXHAUSTED. Must hold one largest answer: at least
    /// `--max-message-bytes` + 5 + 1024.
    #[arg(long, env = "ARBITER_MAX_ANSWER_BYTES_IN_FLIGHT", default_value_t = limits::DEFAULT_MAX_ANSWER_BYTES_IN_FLIGHT,
          value_parser = clap::value_parser!(u64).range(1024..))]
    pub max_answer_bytes_in_flight: u64,

    /// The kernel's send buffer of each accepted connection (SO_SNDBUF, in bytes; Linux doubles
    /// it): bounds what written answers a client has not read hold in the kernel. 0 leaves it
    /// to the kernel's autotuning (up to net.ipv4.tcp_wmem's maximum, 4 MiB by default).
    #[arg(long, env = "ARBITER_SOCKET_SEND_BUFFER_BYTES", default_value_t = limits::DEFAULT_SOCKET_SEND_BUFFER_BYTES)]
    pub socket_send_buffer_bytes: u32,

    /// A connection one of whose answers has waited this long for its client to take the next
    /// piece (at most 16 KiB) is closed, with every call on it.
    #[arg(long, env = "ARBITER_SLOW_READER_TIMEOUT", default_value = limits::DEFAULT_SLOW_READER_TIMEOUT, value_parser = parse_positive_duration)]
    pub slow_reader_timeout: Duration,

    /// A stream without progress for this long (no request message received and no answer taken
    /// by its client: one bound for the whole stream) is ended with DEADLINE_EXCEEDED.
    #[arg(long, env = "ARBITER_STREAM_IDLE_TIMEOUT", default_value = limits::DEFAULT_STREAM_IDLE_TIMEOUT, value_parser = parse_positive_duration)]
    pub stream_idle_timeout: Duration,

    /// Most "can this side still checkmate?" analyzer runs at once in the process (each holds
    /// its own search memory, see the README); further runs wait for one to finish.
    #[arg(long, env = "ARBITER_MAX_ANALYSES", default_value_t = limits::DEFAULT_MAX_ANALYSES,
          value_parser = clap::value_parser!(u32).range(1..))]
    pub max_analyses: u32,

    /// Longest time a graceful shutdown may take, lame-duck period included, before the process
    /// exits anyway.
    #[arg(long, env = "ARBITER_DRAIN_TIMEOUT", default_value = limits::DEFAULT_DRAIN_TIMEOUT, value_parser = parse_duration)]
    pub drain_timeout: Duration,

    /// How long the server keeps accepting calls after a shutdown signal while health already
    /// reports NOT_SERVING, so that load balancers stop sending new calls first; at most half of
    /// `--drain-timeout`.
    #[arg(long, env = "ARBITER_LAME_DUCK", default_value = limits::DEFAULT_LAME_DUCK, value_parser = parse_duration)]
    pub lame_duck: Duration,

    /// Address of a second, plaintext listener that serves only gRPC health
    /// (`grpc.health.v1.Health`), for probes: it has its own connection limit, so probes get
    /// through when the main port is full, and it stays plaintext when the main port speaks TLS;
    /// "" or "off" disables it. Port 0 picks a free port (the log tells which).
    #[arg(long, env = "ARBITER_HEALTH_ADDR", default_value = "[::]:50052",
          value_parser = |text: &str| crate::metrics::parse_metrics_addr(text).map(OptionalAddr))]
    pub health_addr: OptionalAddr,

    /// Most connections open at once on the gRPC port; a connection beyond it is closed at once.
    #[arg(long, env = "ARBITER_MAX_CONNECTIONS", default_value_t = limits::DEFAULT_MAX_CONNECTIONS,
          value_parser = clap::value_parser!(u32).range(1..))]
    pub max_connections: u32,

    /// Most connections open at once on the health port. At the cap a new connection is still
    /// served: the oldest connection of the source address holding the most is closed to make
    /// room, so that no client can keep the probes out.
    #[arg(long, env = "ARBITER_HEALTH_MAX_CONNECTIONS", default_value_t = limits::DEFAULT_HEALTH_MAX_CONNECTIONS,
          value_parser = clap::value_parser!(u32).range(1..))]
    pub health_max_connections: u32,

    /// Most connections open at once on the metrics port (Prometheus needs one or two). At the
    /// cap a new connection is still served: the oldest connection of the source address
    /// holding the most is closed to make room, so that no client can keep scrapes out.
    #[arg(long, env = "ARBITER_METRICS_MAX_CONNECTIONS", default_value_t = limits::DEFAULT_METRICS_MAX_CONNECTIONS,
          value_parser = clap::value_parser!(u32).range(1..))]
    pub metrics_max_connections: u32,

    /// Longest time from accepting a connection to its HTTP/2 preface, TLS handshake included;
    /// slower connections are closed.
    #[arg(long, env = "ARBITER_HANDSHAKE_TIMEOUT", default_value = limits::DEFAULT_HANDSHAKE_TIMEOUT, value_parser = parse_positive_duration)]
    pub handshake_timeout: Duration,

    /// A connection with no call in progress for this long is closed (HTTP/2 GOAWAY first).
    #[arg(long, env = "ARBITER_CONNECTION_IDLE_TIMEOUT", default_value = limits::DEFAULT_CONNECTION_IDLE_TIMEOUT, value_parser = parse_duration)]
    pub connection_idle_timeout: Duration,

    /// Most calls in progress on one connection (HTTP/2 SETTINGS_MAX_CONCURRENT_STREAMS); a
    /// client opens more connections or waits.
    #[arg(long, env = "ARBITER_MAX_CONCURRENT_STREAMS", default_value_t = limits::DEFAULT_MAX_CONCURRENT_STREAMS,
          value_parser = clap::value_parser!(u32).range(1..))]
    pub max_concurrent_streams: u32,

    /// Connections older than this are asked to reconnect (HTTP/2 GOAWAY), so that clients
    /// spread over new replicas; each connection gets its own jitter of up to ±10 %.
    #[arg(long, env = "ARBITER_MAX_CONNECTION_AGE", default_value = limits::DEFAULT_MAX_CONNECTION_AGE, value_parser = parse_duration)]
    pub max_connection_age: Duration,

    /// How long calls on a connection past its maximum age may still run before it is closed.
    #[arg(long, env = "ARBITER_MAX_CONNECTION_AGE_GRACE", default_value = limits::DEFAULT_MAX_CONNECTION_AGE_GRACE, value_parser = parse_duration)]
    pub max_connection_age_grace: Duration,

    /// Interval of HTTP/2 keepalive pings on idle connections (e.g. "60s"); "0s" disables them.
    #[arg(long, env = "ARBITER_HTTP2_KEEPALIVE_INTERVAL", default_value = limits::DEFAULT_HTTP2_KEEPALIVE_INTERVAL, value_parser = parse_duration)]
    pub http2_keepalive_interval: Duration,

    /// How long to wait for the answer to a keepalive ping before closing the connection.
    #[arg(long, env = "ARBITER_HTTP2_KEEPALIVE_TIMEOUT", default_value = limits::DEFAULT_HTTP2_KEEPALIVE_TIMEOUT, value_parser = parse_duration)]
    pub http2_keepalive_timeout: Duration,

    /// HTTP/2 flow-control window of one connection, in bytes: the request data a client may
    /// send ahead of what the server has read, over all its calls on the connection. The HTTP/2
    /// layer's guard against floods of small DATA frames lets unread frames under 256 bytes cost
    /// half this window (each costs 256 minus its size) before it closes the connection (README:
    /// "Streaming many small games").
    #[arg(long, env = "ARBITER_HTTP2_CONNECTION_WINDOW_BYTES", default_value_t = limits::DEFAULT_HTTP2_CONNECTION_WINDOW_BYTES,
          value_parser = clap::value_parser!(u32).range(65_535..=2_147_483_647))]
    pub http2_connection_window_bytes: u32,

    /// HTTP/2 flow-control window of one call (stream), in bytes: the request data a client may
    /// send on one call ahead of what the server has read. Wider speeds up large requests over
    /// long round trips; it must stay small against the connection window for streams of small
    /// messages (README: "Streaming many small games").
    #[arg(long, env = "ARBITER_HTTP2_STREAM_WINDOW_BYTES", default_value_t = limits::DEFAULT_HTTP2_STREAM_WINDOW_BYTES,
          value_parser = clap::value_parser!(u32).range(1024..=2_147_483_647))]
    pub http2_stream_window_bytes: u32,

    /// PEM certificate chain of the server: with `--tls-key`, the server speaks TLS only.
    #[arg(long, env = "ARBITER_TLS_CERT", requires = "tls_key")]
    pub tls_cert: Option<PathBuf>,

    /// PEM private key of `--tls-cert`.
    #[arg(long, env = "ARBITER_TLS_KEY", requires = "tls_cert")]
    pub tls_key: Option<PathBuf>,

    /// PEM certificates of the CAs that sign client certificates: turns on mutual TLS (clients
    /// without a certificate signed by one of them are refused). Needs `--tls-cert`.
    #[arg(long, env = "ARBITER_TLS_CLIENT_CA", requires = "tls_cert")]
    pub tls_client_ca: Option<PathBuf>,

    /// How often the TLS files are read again; a changed certificate is served to new
    /// connections without a restart, a broken one is logged and the previous one kept. "0s"
    /// turns reloading off.
    #[arg(long, env = "ARBITER_TLS_RELOAD_INTERVAL", default_value = limits::DEFAULT_TLS_RELOAD_INTERVAL, value_parser = parse_duration)]
    pub tls_reload_interval: Duration,

    /// Access log: a "call finished" line (method, peer, request id, status, microseconds) for
    /// no call, one call in `--access-log-sample`, or every call. Calls are always counted in
    /// the metrics; refused calls and connections are summarised at most once a second.
    #[arg(long, env = "ARBITER_ACCESS_LOG", value_enum, default_value_t = AccessLogMode::Off)]
    pub access_log: AccessLogMode,

    /// With `--access-log sampled`: log one call in this many.
    #[arg(long, env = "ARBITER_ACCESS_LOG_SAMPLE", default_value_t = limits::DEFAULT_ACCESS_LOG_SAMPLE,
          value_parser = clap::value_parser!(u64).range(1..))]
    pub access_log_sample: u64,

    /// Browser origins allowed to call over gRPC-Web (CORS), comma-separated, each as a browser
    /// sends it: `scheme://host[:port]` (e.g. `http://127.0.0.1:8080,https://app.example`).
    /// "" allows none: no page of another origin can call. "*" allows any page (the API has no
    /// cookies or credentials a page could borrow, but any page a visitor opens can then use
    /// the server). Clients that are not browsers need no origin.
    #[arg(long, env = "ARBITER_CORS_ALLOWED_ORIGINS", default_value = "",
          value_parser = crate::grpc_web::AllowedOrigins::parse)]
    pub cors_allowed_origins: crate::grpc_web::AllowedOrigins,

    /// Log format; default: text on a terminal, JSON otherwise. The filter comes from RUST_LOG
    /// (default "info").
    #[arg(long, env = "ARBITER_LOG_FORMAT")]
    pub log_format: Option<LogFormat>,
}

/// Flags of `arbiter serve` that contradict each other.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ServeArgsError {
    /// The budget of request bytes in flight cannot hold one message of the largest size
    /// accepted: such a message could never be received.
    #[error(
        "--max-request-bytes-in-flight ({budget} bytes) must be at least --max-message-bytes + 5 \
         ({needed} bytes: one largest message and its gRPC header), or a largest message could \
         never be received; raise it or lower --max-message-bytes"
    )]
    RequestBytesBelowMessageSize {
        /// `--max-request-bytes-in-flight`, in bytes.
        budget: u64,
        /// The smallest budget that holds one largest message, in bytes.
        needed: u64,
    },
    /// The budget of answer bytes in flight cannot hold one answer of the largest size
    /// sent: such an answer could never be sent.
    #[error(
        "--max-answer-bytes-in-flight ({budget} bytes) must be at least --max-message-bytes + \
         1029 ({needed} bytes: one largest answer, its gRPC header and the 1 KiB kept per call), \
         or a largest answer could never be sent; raise it or lower --max-message-bytes"
    )]
    AnswerBytesBelowMessageSize {
        /// `--max-answer-bytes-in-flight`, in bytes.
        budget: u64,
        /// The smallest budget that holds one largest answer, in bytes.
        needed: u64,
    },
}

impl ServeArgs {
    /// Checks the flags that depend on each other (clap checks each flag alone).
    ///
    /// # Errors
    ///
    /// [`ServeArgsError::RequestBytesBelowMessageSize`] when `--max-request-bytes-in-flight` is
    /// below `--max-message-bytes` + 5; [`ServeArgsError::AnswerBytesBelowMessageSize`] when
    /// `--max-answer-bytes-in-flight` is below `--max-message-bytes` + 1029.
    pub fn check(&self) -> Result<(), ServeArgsError> {
        let needed = u64::from(self.max_message_bytes) + 5;
        if self.max_request_bytes_in_flight < needed {
            return Err(ServeArgsError::RequestBytesBelowMessageSize {
                budget: self.max_request_bytes_in_flight,
                needed,
            });
        }
        let needed = u64::from(self.max_message_bytes) + 5 + 1024;
        if self.max_answer_bytes_in_flight < needed {
            return Err(ServeArgsError::AnswerBytesBelowMessageSize {
                budget: self.max_answer_bytes_in_flight,
                needed,
            });
        }
        Ok(())
    }
}

impl ServeArgs {
    /// The number of worker threads: `--workers`, or one per available core when it is 0.
    #[must_use]
    pub fn worker_threads(&self) -> usize {
        match self.workers {
            0 => std::thread::available_parallelism().map_or(1, std::num::NonZero::get),
            n => limits::usize_of(n),
        }
    }

    /// Workers that stream messages may use at once: `--stream-workers`, or all workers but
    /// one (at least one), never more than the workers.
    #[must_use]
    pub fn stream_worker_threads(&self) -> usize {
        let workers = self.worker_threads();
        match self.stream_workers {
            0 => workers.saturating_sub(1).max(1),
            n => limits::usize_of(n).min(workers),
        }
    }

    /// Most calls away from their worker for analyzer runs at once (see
    /// [`crate::workers::Workers::max_seatless`]).
    #[must_use]
    pub fn max_seatless(&self) -> usize {
        crate::workers::Workers::max_seatless(
            self.worker_threads(),
            usize::try_from(self.max_analyses).unwrap_or(usize::MAX),
        )
    }

    /// Threads of the blocking pool: one per worker, one per call that may be away from its
    /// worker for an analyzer run, and one for housekeeping (reading reloaded TLS files). The
    /// pool never grows with the number of calls.
    #[must_use]
    pub fn blocking_threads(&self) -> usize {
        self.worker_threads()
            .saturating_add(self.max_seatless())
            .saturating_add(1)
    }
}

/// An address that can be turned off (`--metrics-addr`, `--health-addr`): `None` when off.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct OptionalAddr(pub Option<SocketAddr>);

/// Analysis budget of adjudication (see `arbiter_rules::AnalysisBudget`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Analysis {
    /// Material checks only (microseconds).
    Material,
    /// Material checks and a fast, sound but incomplete unwinnability check.
    Fast,
    /// Material checks and the full helpmate search.
    Full,
}

impl From<arbiter_rules::AnalysisBudget> for Analysis {
    fn from(budget: arbiter_rules::AnalysisBudget) -> Self {
        match budget {
            arbiter_rules::AnalysisBudget::Material => Self::Material,
            arbiter_rules::AnalysisBudget::Fast => Self::Fast,
            arbiter_rules::AnalysisBudget::Full => Self::Full,
        }
    }
}

impl From<Analysis> for arbiter_rules::AnalysisBudget {
    fn from(analysis: Analysis) -> Self {
        match analysis {
            Analysis::Material => Self::Material,
            Analysis::Fast => Self::Fast,
            Analysis::Full => Self::Full,
        }
    }
}

/// The `--access-log` setting.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum AccessLogMode {
    /// No access log lines.
    Off,
    /// One call in `--access-log-sample`.
    Sampled,
    /// Every call.
    All,
}

impl ServeArgs {
    /// The access log setting of `--access-log` and `--access-log-sample`.
    #[must_use]
    pub fn access_log(&self) -> crate::logging::AccessLog {
        match self.access_log {
            AccessLogMode::Off => crate::logging::AccessLog::Off,
            AccessLogMode::Sampled => crate::logging::AccessLog::Sampled(self.access_log_sample),
            AccessLogMode::All => crate::logging::AccessLog::All,
        }
    }
}

/// How log lines are written.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum LogFormat {
    /// One JSON object per line.
    Json,
    /// Human-readable text.
    Text,
}

/// Flags of `arbiter perft`.
#[derive(Debug, Clone, Args)]
pub struct PerftArgs {
    /// The position, as FEN or "startpos". Chess960 castling rights may be written as X-FEN or
    /// Shredder-FEN; a FEN that is only valid in Chess960 is read as Chess960.
    #[arg(long, default_value = "startpos")]
    pub fen: String,
    /// Read the position as Chess960 (FIDE Laws Guidelines III): castling rights as X-FEN or
    /// Shredder-FEN, and castling in the --divide list written king-takes-rook ("e1h1").
    #[arg(long)]
    pub chess960: bool,
    /// Search depth in plies.
    #[arg(long, value_parser = clap::value_parser!(u32).range(0..=12))]
    pub depth: u32,
    /// Also print the node count below each legal move.
    #[arg(long)]
    pub divide: bool,
}

/// Flags of `arbiter adjudicate`.
#[derive(Debug, Clone, Args)]
pub struct AdjudicateArgs {
    /// The PGN file; "-" reads standard input.
    pub file: std::path::PathBuf,
    /// Output: an aligned table with a summary, one JSON object per line (the summary goes to
    /// standard error), the games in PGN export format with the adjudicated Result, or an HTML
    /// report to open, print and sign (the games that need a look first, with boards; the
    /// summary also goes to standard error).
    #[arg(long, value_enum, default_value_t = OutputFormat::Table)]
    pub format: OutputFormat,
    /// The date the HTML report gives for the run, as written (at most 100 characters), so that
    /// a report can be made again byte for byte. Default: the time of the run in UTC, or the
    /// time of SOURCE_DATE_EPOCH when that is set.
    #[arg(long, env = "ARBITER_REPORT_DATE", value_parser = parse_report_date)]
    pub report_date: Option<String>,
    /// Games that need a look that the HTML report draws with boards, at most; the others are
    /// rows of a table (a section with boards is at most 64 KiB, a row at most 10 KiB).
    #[arg(long, default_value_t = 1000, value_parser = clap::value_parser!(u32).range(0..=1_000_000))]
    pub report_boards: u32,
    /// Apply a draw claim (threefold repetition, fifty-move rule) valid at the end of a game.
    #[arg(long)]
    pub claim_draws: bool,
    /// How much analysis dead positions and "can the opponent still checkmate?" may use (the
    /// server's default is full too).
    #[arg(long, value_enum, default_value_t = Analysis::from(limits::DEFAULT_ANALYSIS))]
    pub analysis: Analysis,
    /// Most plies of one game.
    #[arg(long, default_value_t = limits::DEFAULT_MAX_MOVES, value_parser = clap::value_parser!(u32).range(1..))]
    pub max_moves: u32,
    /// Largest game, in bytes of PGN.
    #[arg(long, default_value_t = limits::DEFAULT_MAX_PGN_BYTES, value_parser = clap::value_parser!(u32).range(1..))]
    pub max_game_bytes: u32,
    /// Most tag pairs of one game.
    #[arg(long, default_value_t = limits::DEFAULT_MAX_TAGS, value_parser = clap::value_parser!(u32).range(1..))]
    pub max_tags: u32,
    /// Largest tag value, in bytes (escapes decoded).
    #[arg(long, default_value_t = limits::DEFAULT_MAX_TAG_VALUE_BYTES, value_parser = clap::value_parser!(u32).range(1..))]
    pub max_tag_value_bytes: u32,
    /// Deepest nesting of variations in the movetext (0: no variations).
    #[arg(long, default_value_t = limits::DEFAULT_MAX_VARIATION_DEPTH)]
    pub max_variation_depth: u32,
    /// The piece letters of SAN in the moves written in the JSON output and the HTML report
    /// (claims, evidence, mating lines): en,
    /// es, de, fr, it, nl or figurine. The movetext is read, and PGN output (--format pgn)
    /// written, with English letters, as the PGN standard says. Chess960 games need no flag:
    /// their `Variant` tag (or a Chess960-only FEN tag) says so.
    #[arg(long, default_value = "en", value_parser = parse_language)]
    pub language: arbiter_rules::SanLanguage,
    /// Games read and adjudicated in parallel worker threads (0: one per available core, at most
    /// 256), each taking 64 KiB pieces of the input cut where a game surely starts. The output
    /// is that of one thread, in input order.
    #[arg(long, short = 'j', default_value_t = 0,
          value_parser = clap::value_parser!(u16).range(0..=i64::from(limits::MAX_JOBS)))]
    pub jobs: u16,
    /// The findings that make the exit status 2, comma-separated: error (a game that could not
    /// be adjudicated: an illegal move, text that is not PGN, a bound such as --max-moves),
    /// disagreement (a Result tag the rules contradict), warning (a verdict with warnings),
    /// unproven (a loss by flag fall, resignation or second illegal move not proven at this
    /// --analysis level); any (all four) or none (never: the status then only says whether the
    /// file was read and the output written).
    #[arg(long, default_value = "error,disagreement", value_parser = parse_fail_on)]
    pub fail_on: FailOn,
}

/// The findings that make `arbiter adjudicate` exit with status 2 (`--fail-on`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
// A set of four independent kinds, one flag each.
#[allow(clippy::struct_excessive_bools)]
pub struct FailOn {
    /// A game that could not be adjudicated (illegal move, not PGN, a bound).
    pub error: bool,
    /// A `Result` tag the rules contradict.
    pub disagreement: bool,
    /// A verdict with warnings.
    pub warning: bool,
    /// A loss that stands unproven at the analysis level of the run.
    pub unproven: bool,
}

impl FailOn {
    /// The default, and the only behaviour before `--fail-on`: errors and disagreements.
    pub const DEFAULT: FailOn = FailOn {
        error: true,
        disagreement: true,
        warning: false,
        unproven: false,
    };

    /// Every finding (`any`).
    pub const ANY: FailOn = FailOn {
        error: true,
        disagreement: true,
        warning: true,
        unproven: true,
    };
}

/// The words `--fail-on` takes, besides `any` and `none`.
const FAIL_ON_WORDS: &str = "error, disagreement, warning, unproven";

/// Reads `--fail-on`: a comma-separated list of `error`, `disagreement`, `warning`, `unproven`
/// and `any` (spaces around the words allowed, each word at most once), or `none` alone.
///
/// # Errors
///
/// Names the word that is unknown, repeated, empty, or `none` with others.
pub fn parse_fail_on(text: &str) -> Result<FailOn, String> {
    let words: Vec<&str> = text.split(',').map(str::trim).collect();
    if words == ["none"] {
        return Ok(FailOn::default());
    }
    let mut fail_on = FailOn::default();
    for (i, word) in words.iter().enumerate() {
        if words[..i].contains(word) {
            return Err(format!("{word:?} is listed twice"));
        }
        match *word {
            "error" => fail_on.error = true,
            "disagreement" => fail_on.disagreement = true,
            "warning" => fail_on.warning = true,
            "unproven" => fail_on.unproven = true,
            "any" => fail_on = FailOn::ANY,
            "none" => return Err("none cannot be combined with other findings".to_owned()),
            "" => {
                return Err(format!(
                    "an empty word in {text:?}: list {FAIL_ON_WORDS} (or any, or none) separated by commas"
                ));
            }
            _ => {
                return Err(format!(
                    "unknown finding {word:?}: use {FAIL_ON_WORDS}, any or none"
                ));
            }
        }
    }
    Ok(fail_on)
}

/// Reads `--report-date`: any text of 1 to 100 characters without control characters.
///
/// # Errors
///
/// Says which rule the text breaks.
pub fn parse_report_date(text: &str) -> Result<String, String> {
    if text.trim().is_empty() {
        return Err("empty: the page to sign needs a date".to_owned());
    }
    if text.chars().count() > 100 {
        return Err("longer than 100 characters".to_owned());
    }
    if text.chars().any(char::is_control) {
        return Err("contains a control character".to_owned());
    }
    Ok(text.to_owned())
}

/// Parses a SAN language code for `--language`.
///
/// # Errors
///
/// Names the codes accepted when `text` is none of them.
pub fn parse_language(text: &str) -> Result<arbiter_rules::SanLanguage, String> {
    arbiter_rules::SanLanguage::from_code(text.trim()).ok_or_else(|| {
        format!("unknown SAN language {text:?}: use en, es, de, fr, it, nl or figurine")
    })
}

/// Output format of `arbiter adjudicate`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum OutputFormat {
    /// An aligned table, then the summary.
    Table,
    /// One JSON object per game.
    Jsonl,
    /// The games in PGN export format, Result tag and termination marker as adjudicated.
    Pgn,
    /// One self-contained HTML page (inline CSS and SVG boards, no script): the run's head and
    /// summary, the games that need a look with boards, the other games as table rows.
    Html,
}

/// Flags of `arbiter health-check`.
#[derive(Debug, Clone, Args)]
pub struct HealthCheckArgs {
    /// The server to ask: a URI (`http://host:port`, `https://host:port`) or `host:port`
    /// (plaintext, or TLS when a `--tls-*` flag is given).
    #[arg(
        long,
        env = "ARBITER_HEALTH_CHECK_ADDR",
        default_value = "http://127.0.0.1:50051"
    )]
    pub addr: String,
    /// The service name to ask about; "" is the server as a whole.
    #[arg(long, default_value = "")]
    pub service: String,
    /// Longest time to wait for the answer.
    #[arg(long, default_value = "5s", value_parser = parse_duration)]
    pub timeout: Duration,
    /// PEM CA certificate(s) to trust for a TLS server (an `https://` address uses TLS; this
    /// flag implies it).
    #[arg(long, env = "ARBITER_HEALTH_CHECK_TLS_CA")]
    pub tls_ca: Option<PathBuf>,
    /// PEM client certificate chain, for a server that asks for mutual TLS.
    #[arg(long, env = "ARBITER_HEALTH_CHECK_TLS_CERT", requires = "tls_key")]
    pub tls_cert: Option<PathBuf>,
    /// PEM private key of `--tls-cert`.
    #[arg(long, env = "ARBITER_HEALTH_CHECK_TLS_KEY", requires = "tls_cert")]
    pub tls_key: Option<PathBuf>,
    /// The name the server certificate must carry (default: the host of `--addr`).
    #[arg(long, env = "ARBITER_HEALTH_CHECK_TLS_DOMAIN")]
    pub tls_domain: Option<String>,
}

/// Parses a duration that must be longer than zero (a timeout of zero would fail every call).
///
/// # Errors
///
/// As [`parse_duration`], and when the duration is zero.
pub fn parse_positive_duration(text: &str) -> Result<Duration, String> {
    let duration = parse_duration(text)?;
    if duration.is_zero() {
        return Err(format!(
            "{text:?} is zero: this timeout must be longer than 0"
        ));
    }
    Ok(duration)
}

/// Parses a duration such as "250ms", "10s", "2m", "1h", or a bare number of seconds.
///
/// # Errors
///
/// Returns a message naming the problem when the text is not such a duration.
pub fn parse_duration(text: &str) -> Result<Duration, String> {
    let text = text.trim();
    let split = text
        .find(|c: char| !c.is_ascii_digit() && c != '.')
        .unwrap_or(text.len());
    let (number, unit) = text.split_at(split);
    let value: f64 = number
        .parse()
        .map_err(|_| format!("{text:?} is not a duration such as \"10s\" or \"500ms\""))?;
    let seconds = match unit.trim() {
        "" | "s" => value,
        "ms" => value / 1000.0,
        "m" => value * 60.0,
        "h" => value * 3600.0,
        other => {
            return Err(format!(
                "unknown duration unit {other:?}: use ms, s, m or h"
            ));
        }
    };
    if !(0.0..=86_400.0 * 365.0).contains(&seconds) {
        return Err(format!("{text:?} is out of range"));
    }
    Ok(Duration::from_secs_f64(seconds))
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::CommandFactory;

    #[test]
    fn cli_is_consistent() {
        Cli::command().debug_assert();
    }

    #[test]
    fn durations_parse() {
        assert_eq!(parse_duration("10s"), Ok(Duration::from_secs(10)));
        assert_eq!(parse_duration("250ms"), Ok(Duration::from_millis(250)));
        assert_eq!(parse_duration("2m"), Ok(Duration::from_secs(120)));
        assert_eq!(parse_duration("3"), Ok(Duration::from_secs(3)));
        assert!(parse_duration("ten").is_err());
        assert!(parse_duration("5d").is_err());
        assert!(parse_duration("").is_err());
        assert_eq!(parse_duration("0s"), Ok(Duration::ZERO));
        assert!(parse_positive_duration("0s").is_err());
        assert_eq!(parse_positive_duration("1ms"), Ok(Duration::from_millis(1)));
    }

    #[test]
    fn serve_defaults() {
        let cli = Cli::try_parse_from(["arbiter", "serve"]).expect("defaults parse");
        let Command::Serve(args) = cli.command else {
            panic!("expected serve");
        };
        assert_eq!(args.grpc_addr.port(), 50051);
        assert_eq!(args.max_message_bytes, 4 * 1024 * 1024);
        assert_eq!(args.max_moves, 10_000);
        assert_eq!(args.request_timeout, Duration::from_secs(10));
        assert_eq!(args.stream_workers, 0);
        assert_eq!(args.metrics_addr.0.map(|addr| addr.port()), Some(9090));
        assert_eq!(args.max_pgn_bytes, 1024 * 1024);
        assert_eq!(args.max_games_per_stream, 10_000);
        assert_eq!(args.http2_connection_window_bytes, 1024 * 1024);
        assert_eq!(args.http2_stream_window_bytes, 16 * 1024);
        assert_eq!(args.http2_keepalive_interval, Duration::from_secs(60));
        assert_eq!(args.tls_cert, None);
        assert_eq!(args.workers, 0);
        assert_eq!(args.concurrency_limit, 256);
        assert_eq!(args.max_queue_wait, Duration::from_secs(1));
        assert_eq!(args.max_inline_bytes, 512);
        assert_eq!(args.max_streams, 256);
        assert_eq!(args.max_request_bytes_in_flight, 8 * 1024 * 1024);
        assert_eq!(args.max_answer_bytes_in_flight, 16 * 1024 * 1024);
        assert_eq!(args.slow_reader_timeout, Duration::from_secs(20));
        assert_eq!(args.socket_send_buffer_bytes, 256 * 1024);
        assert_eq!(args.check(), Ok(()));
        assert_eq!(args.stream_idle_timeout, Duration::from_secs(60));
        assert_eq!(args.max_analyses, 1);
        assert_eq!(args.max_connections, 1024);
        assert_eq!(args.health_max_connections, 32);
        assert_eq!(args.metrics_max_connections, 16);
        assert_eq!(args.handshake_timeout, Duration::from_secs(10));
        assert_eq!(args.connection_idle_timeout, Duration::from_secs(300));
        assert_eq!(args.max_concurrent_streams, 32);
        assert_eq!(args.health_addr.0.map(|addr| addr.port()), Some(50052));
        assert_eq!(args.tls_reload_interval, Duration::from_secs(30));
        assert_eq!(args.access_log, AccessLogMode::Off);
        assert_eq!(args.access_log_sample, 100);
        assert_eq!(
            args.cors_allowed_origins,
            crate::grpc_web::AllowedOrigins::None
        );
    }

    /// The flags of both commands and the handlers' [`limits::Limits::default`] are one set of
    /// defaults (issue 12, item 4: the defaults were once written in five places).
    #[test]
    fn serve_and_adjudicate_flags_default_to_the_one_limits_default() {
        let serve = serve_args(&[]);
        let served = limits::Limits {
            max_moves: limits::usize_of(serve.max_moves),
            max_pgn_bytes: limits::usize_of(serve.max_pgn_bytes),
            analysis: serve.analysis.into(),
            max_games_per_stream: limits::usize_of(serve.max_games_per_stream),
            max_tags: limits::usize_of(serve.max_tags),
            max_tag_value_bytes: limits::usize_of(serve.max_tag_value_bytes),
            max_variation_depth: limits::usize_of(serve.max_variation_depth),
        };
        assert_eq!(served, limits::Limits::default());
        let cli = Cli::try_parse_from(["arbiter", "adjudicate", "round.pgn"]).expect("parses");
        let Command::Adjudicate(adjudicate) = cli.command else {
            panic!("expected adjudicate");
        };
        assert_eq!(
            (
                limits::usize_of(adjudicate.max_moves),
                limits::usize_of(adjudicate.max_game_bytes),
                arbiter_rules::AnalysisBudget::from(adjudicate.analysis),
            ),
            (served.max_moves, served.max_pgn_bytes, served.analysis)
        );
        assert_eq!(
            (
                adjudicate.max_tags,
                adjudicate.max_tag_value_bytes,
                adjudicate.max_variation_depth
            ),
            (
                serve.max_tags,
                serve.max_tag_value_bytes,
                serve.max_variation_depth
            )
        );
        assert_eq!(
            served.reader_limits(),
            arbiter_pgn::ReaderLimits::default(),
            "the reader's own defaults are the flags' defaults"
        );
        assert_eq!(
            (serve.request_timeout, serve.stream_idle_timeout),
            (
                limits::default_duration(limits::DEFAULT_REQUEST_TIMEOUT),
                limits::default_duration(limits::DEFAULT_STREAM_IDLE_TIMEOUT)
            )
        );
    }

    /// Issue 12, a fresh reviewer's report (F5): `arbiter adjudicate -j 100000` panicked when
    /// the system refused the threads (exit 134). `-j` is now bounded by `limits::MAX_JOBS`, and
    /// a refused thread is an error message (exit 1), not a panic.
    #[test]
    fn r_adjudicate_jobs_are_bounded() {
        let jobs = |j: &str| {
            Cli::try_parse_from(["arbiter", "adjudicate", "round.pgn", "-j", j]).map(|cli| {
                let Command::Adjudicate(args) = cli.command else {
                    panic!("expected adjudicate");
                };
                args.jobs
            })
        };
        assert_eq!(jobs("256").ok(), Some(limits::MAX_JOBS));
        assert_eq!(jobs("0").ok(), Some(0));
        for refused in ["257", "100000"] {
            let error = jobs(refused).expect_err(refused);
            assert_eq!(
                error.kind(),
                clap::error::ErrorKind::ValueValidation,
                "{refused}"
            );
        }
    }

    /// Issue 27, item 8: `--fail-on` reads a list of findings, `any` or `none`, and names a
    /// wrong word; its default is what made the status 2 before it.
    #[test]
    fn fail_on_reads_a_list_of_findings() {
        let only = |error, disagreement, warning, unproven| FailOn {
            error,
            disagreement,
            warning,
            unproven,
        };
        for (text, expected) in [
            ("error,disagreement", FailOn::DEFAULT),
            ("none", FailOn::default()),
            (" none ", FailOn::default()),
            ("any", FailOn::ANY),
            ("warning,any", FailOn::ANY),
            ("error", only(true, false, false, false)),
            ("disagreement", only(false, true, false, false)),
            ("warning", only(false, false, true, false)),
            ("unproven", only(false, false, false, true)),
            ("unproven, warning", only(false, false, true, true)),
        ] {
            assert_eq!(parse_fail_on(text), Ok(expected), "{text:?}");
        }
        for (text, message) in [
            (
                "errors",
                "unknown finding \"errors\": use error, disagreement, warning, unproven, any or none",
            ),
            ("error,error", "\"error\" is listed twice"),
            ("none,error", "none cannot be combined with other findings"),
            (
                "error,",
                "an empty word in \"error,\": list error, disagreement, warning, unproven (or any, or none) separated by commas",
            ),
        ] {
            assert_eq!(parse_fail_on(text), Err(message.to_owned()), "{text:?}");
        }
        let cli = Cli::try_parse_from(["arbiter", "adjudicate", "round.pgn"]).expect("parses");
        let Command::Adjudicate(args) = cli.command else {
            panic!("expected adjudicate");
        };
        assert_eq!(args.fail_on, FailOn::DEFAULT);
    }

    fn serve_args(flags: &[&str]) -> ServeArgs {
        let cli = Cli::try_parse_from(["arbiter", "serve"].iter().chain(flags)).expect("parses");
        let Command::Serve(args) = cli.command else {
            panic!("expected serve");
        };
        args
    }

    #[test]
    fn the_request_bytes_budget_must_hold_one_largest_message() {
        let args = serve_args(&["--max-request-bytes-in-flight", "4194304"]);
        let error = args.check().expect_err("4 MiB messages need 4 MiB + 5");
        assert_eq!(
            error,
            ServeArgsError::RequestBytesBelowMessageSize {
                budget: 4 * 1024 * 1024,
                needed: 4 * 1024 * 1024 + 5
            }
        );
        assert!(error.to_string().contains("--max-message-bytes"), "{error}");
        let args = serve_args(&[
            "--max-request-bytes-in-flight",
            "65536",
            "--max-message-bytes",
            "65531",
        ]);
        assert_eq!(args.check(), Ok(()));
        assert!(
            Cli::try_parse_from(["arbiter", "serve", "--max-request-bytes-in-flight", "1023"])
                .is_err()
        );
    }

    #[test]
    fn metrics_can_be_turned_off() {
        for off in ["", "off"] {
            let cli =
                Cli::try_parse_from(["arbiter", "serve", "--metrics-addr", off]).expect("parses");
            let Command::Serve(args) = cli.command else {
                panic!("expected serve");
            };
            assert_eq!(args.metrics_addr, OptionalAddr(None));
        }
    }
}
