//! Command line: subcommands, flags and their `ARBITER_*` environment fallbacks.

use std::{path::PathBuf, time::Duration};

use clap::{Args, Parser, Subcommand, ValueEnum};

use crate::{
    address::{AddressError, ListenAddr},
    duration::{parse_duration, parse_positive_duration},
    health_check::Probe,
    limits,
    serve::ServeConfig,
    tls::TlsFiles,
    transport::{ConnectionLimits, WhenFull},
};

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
    #[command(after_help = SERVE_AFTER_HELP, after_long_help = SERVE_AFTER_LONG_HELP)]
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
    /// 64 for a wrong command line; 0 when the reader of the output stops before all of it is
    /// written (`| head`).
    Adjudicate(AdjudicateArgs),
    /// Draw a position as an SVG board diagram on standard output: coordinates, the side to
    /// move, a check and (with --last-move) the last move marked; pieces drawn as SVG paths, so
    /// the file looks the same everywhere. Exit status 2 for a FEN that is not a position.
    Board(BoardArgs),
}

/// Parses the command line `argv` (the program's name first).
///
/// For `-h` (when it comes before any `--help`), `serve`'s flags are shown one line each, under their headings,
/// as cargo's and ripgrep's `-h` are: their defaults, `ARBITER_*` variables and possible values
/// are left to `--help` (the end of `-h` says so), since with them the lines of `serve -h` ran
/// past 100 columns and clap put each summary on a line of its own.
///
/// # Errors
///
/// clap's error for a command line that cannot be parsed, and for `--help`, `-h` and
/// `--version` (whose text is the error's).
pub fn try_parse(argv: &[std::ffi::OsString]) -> Result<Cli, clap::Error> {
    use clap::{CommandFactory as _, FromArgMatches as _};
    // clap answers the first of `-h` and `--help` it meets.
    let short = argv
        .iter()
        .skip(1)
        .take_while(|word| *word != "--")
        .find(|word| *word == "-h" || *word == "--help")
        .is_some_and(|word| word == "-h");
    let mut command = Cli::command();
    if short {
        command = command.mut_subcommand("serve", |serve| {
            serve.mut_args(|arg| {
                arg.hide_env(true)
                    .hide_default_value(true)
                    .hide_possible_values(true)
            })
        });
    }
    let mut matches = command.try_get_matches_from(argv)?;
    Cli::from_arg_matches_mut(&mut matches)
}

/// The `ARBITER_*` variable a refused value came from, when it came from one: clap's message
/// names the flag (`invalid value '5x' for '--lame-duck <DURATION>'`) even when the value was
/// the variable's, and a flag that is nowhere on the command line would leave the reader
/// searching. `None` when the value was on the command line, or `error` is about no value.
#[must_use]
pub fn refused_variable(error: &clap::Error, argv: &[std::ffi::OsString]) -> Option<String> {
    use clap::{
        CommandFactory as _,
        error::{ContextKind, ContextValue},
    };
    let (Some(ContextValue::String(arg)), Some(ContextValue::String(value))) = (
        error.get(ContextKind::InvalidArg),
        error.get(ContextKind::InvalidValue),
    ) else {
        return None;
    };
    let flag = arg.split_whitespace().next()?;
    let given = |long: &str| {
        argv.iter().any(|word| {
            word.to_str().is_some_and(|word| {
                word == format!("--{long}") || word.starts_with(&format!("--{long}="))
            })
        })
    };
    let command = Cli::command();
    command
        .get_subcommands()
        .flat_map(clap::Command::get_arguments)
        .filter(|candidate| {
            candidate
                .get_long()
                .is_some_and(|long| format!("--{long}") == flag && !given(long))
        })
        .filter_map(|candidate| candidate.get_env())
        .find(|variable| std::env::var_os(variable).is_some_and(|set| set == value.as_str()))
        .map(|variable| variable.to_string_lossy().into_owned())
}

/// The end of `arbiter serve -h`: how values are written, where the rest is.
const SERVE_AFTER_HELP: &str = "\
Durations: 500ms, 10s, 1m30s, 1h. Addresses: HOST:PORT (127.0.0.1:50051, [::]:50051,
localhost:50051). Each flag reads its ARBITER_* variable when not given on the command line.
Defaults, variables and details: --help. Every bound: docs/operations.md.";

/// The end of `arbiter serve --help`.
const SERVE_AFTER_LONG_HELP: &str = "\
Durations: a number and a unit (500ms, 10s, 1.5s, 5m, 1h), several of them (1m30s, 1h 30m), or a
plain number of seconds; at most a year.

Addresses: HOST:PORT, HOST an IPv4 address, an IPv6 address in brackets ([::1], [::]) or a host
name. A name is resolved once, at startup, and the server listens on every address it resolves
to, all on the same port (port 0: one free port); localhost is 127.0.0.1 and [::1], without the
resolver.

Each flag reads its ARBITER_* variable when it is not given on the command line.

Exit status: 0 after a drain; 1 when the server cannot start (an address in use, a TLS file
that cannot be read); 64 for a wrong command line (a value that cannot be read, a host name that
does not resolve, flags that contradict each other).

Every bound, its default and what a client sees when it is reached: docs/operations.md.";

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

/// Flags of `arbiter serve`, under the headings of `serve -h` (the groups of docs/cli.md). Each
/// doc comment's first line is the flag's summary in `-h`; `--help` prints it all.
#[derive(Debug, Clone, Args)]
pub struct ServeArgs {
    /// Address of the gRPC API (and gRPC-Web)
    ///
    /// HOST:PORT, HOST an IPv4 address, an IPv6 address in brackets or a host name: the server
    /// listens on every address the name resolves to when it starts (localhost: 127.0.0.1 and
    /// `[::1]`). Port 0 picks a free port, named by the log's "arbiter listening" line.
    #[arg(long, env = "ARBITER_GRPC_ADDR", default_value = "[::]:50051", value_name = "ADDR",
          help_heading = "Listeners", value_parser = |text: &str| text.parse::<ListenAddr>())]
    pub grpc_addr: ListenAddr,

    /// Address of the plaintext health port for probes ("off": none)
    ///
    /// A second listener that serves only gRPC health (`grpc.health.v1.Health`), for probes: it
    /// has its own connection limit, so probes get through when the main port is full, and it
    /// stays plaintext when the main port speaks TLS. HOST:PORT as --grpc-addr; "" or "off"
    /// disables it. Port 0 picks a free port (named by the log's "arbiter listening" line).
    #[arg(long, env = "ARBITER_HEALTH_ADDR", default_value = "[::]:50052", value_name = "ADDR",
          help_heading = "Listeners",
          value_parser = |text: &str| crate::address::parse_optional(text).map(OptionalAddr))]
    pub health_addr: OptionalAddr,

    /// Address of GET /metrics for Prometheus ("off": none)
    ///
    /// The Prometheus endpoint (`GET /metrics`, HTTP/1.1). HOST:PORT as --grpc-addr; "" or
    /// "off" disables metrics. Port 0 picks a free port (named by the log's "arbiter listening" line).
    #[arg(long, env = "ARBITER_METRICS_ADDR", default_value = "[::]:9090", value_name = "ADDR",
          help_heading = "Listeners",
          value_parser = |text: &str| crate::address::parse_optional(text).map(OptionalAddr))]
    pub metrics_addr: OptionalAddr,

    /// Dead-position and flag-fall analysis: material, fast or full
    ///
    /// How much analysis adjudication may spend on dead positions and on "can the opponent
    /// still checkmate?" (flag fall, resignation): material checks only, a fast sound check, or
    /// the full helpmate search. A level, not a number: the search is bounded by the analyzer's
    /// own node limit (1,000,000 positions per search phase), in time by the request timeout and
    /// in memory by `--max-analyses` (about 100 MiB each).
    #[arg(long, env = "ARBITER_ANALYSIS", value_enum, default_value_t = Analysis::from(limits::DEFAULT_ANALYSIS),
          value_name = "LEVEL", help_heading = "Adjudication")]
    pub analysis: Analysis,

    /// Analyzer runs at once in the process
    ///
    /// Most "can this side still checkmate?" analyzer runs at once in the process (each holds
    /// its own search memory, about 100 MiB, see docs/operations.md); further runs wait for one
    /// to finish.
    #[arg(long, env = "ARBITER_MAX_ANALYSES", default_value_t = limits::DEFAULT_MAX_ANALYSES,
          value_name = "N", help_heading = "Adjudication", value_parser = clap::value_parser!(u32).range(1..))]
    pub max_analyses: u32,

    /// Most moves in one request or game
    #[arg(long, env = "ARBITER_MAX_MOVES", default_value_t = limits::DEFAULT_MAX_MOVES,
          value_name = "N", help_heading = "Adjudication", value_parser = clap::value_parser!(u32).range(1..))]
    pub max_moves: u32,

    /// Largest PGN text in one request, in bytes
    #[arg(long, env = "ARBITER_MAX_PGN_BYTES", default_value_t = limits::DEFAULT_MAX_PGN_BYTES,
          value_name = "BYTES", help_heading = "Adjudication", value_parser = clap::value_parser!(u32).range(1..))]
    pub max_pgn_bytes: u32,

    /// Most games on one AdjudicateGames stream
    #[arg(long, env = "ARBITER_MAX_GAMES_PER_STREAM", default_value_t = limits::DEFAULT_MAX_GAMES_PER_STREAM,
          value_name = "N", help_heading = "Adjudication", value_parser = clap::value_parser!(u32).range(1..))]
    pub max_games_per_stream: u32,

    /// Most tag pairs of one PGN game
    ///
    /// Most tag pairs of one PGN game; a game with more is an error of its own (LIMIT_EXCEEDED)
    /// naming the flag and the line:column, and the next game is read.
    #[arg(long, env = "ARBITER_MAX_TAGS", default_value_t = limits::DEFAULT_MAX_TAGS,
          value_name = "N", help_heading = "Adjudication", value_parser = clap::value_parser!(u32).range(1..))]
    pub max_tags: u32,

    /// Largest PGN tag value, in bytes
    ///
    /// Largest PGN tag value, in bytes (escapes decoded); a game with a longer one is an error
    /// of its own (LIMIT_EXCEEDED).
    #[arg(long, env = "ARBITER_MAX_TAG_VALUE_BYTES", default_value_t = limits::DEFAULT_MAX_TAG_VALUE_BYTES,
          value_name = "BYTES", help_heading = "Adjudication", value_parser = clap::value_parser!(u32).range(1..))]
    pub max_tag_value_bytes: u32,

    /// Deepest nesting of PGN variations (0: none)
    ///
    /// Deepest nesting of variations in PGN movetext (0: no variations); a game nested deeper is
    /// an error of its own (LIMIT_EXCEEDED).
    #[arg(long, env = "ARBITER_MAX_VARIATION_DEPTH", default_value_t = limits::DEFAULT_MAX_VARIATION_DEPTH,
          value_name = "DEPTH", help_heading = "Adjudication")]
    pub max_variation_depth: u32,

    /// Threads that do chess work (0: one per core)
    ///
    /// Threads that do the chess work of calls (0: one per available core). Memory and CPU of
    /// the work are bounded by this number, whatever the number of calls.
    #[arg(
        long,
        env = "ARBITER_WORKERS",
        default_value_t = 0,
        value_name = "N",
        help_heading = "Work and admission"
    )]
    pub workers: u32,

    /// Workers stream messages may use at once (0: all but one)
    ///
    /// Most workers that the messages of AdjudicateGames streams may use at once (0: all
    /// workers but one, at least one), so that unary calls never queue behind a crowd of
    /// stream messages.
    #[arg(
        long,
        env = "ARBITER_STREAM_WORKERS",
        default_value_t = 0,
        value_name = "N",
        help_heading = "Work and admission"
    )]
    pub stream_workers: u32,

    /// Unary requests this small run on the thread that read them
    ///
    /// Unary requests of at most this many bytes (the protobuf message) are answered on the
    /// network thread that read them instead of a worker, while fewer than --workers − 1 (at
    /// least 1) run there: their work (a FEN and about a hundred moves at most) takes less than
    /// handing it to a worker and back. A call whose work needs an analysis goes to a worker
    /// anyway. 0: every call goes to a worker.
    #[arg(long, env = "ARBITER_MAX_INLINE_BYTES", default_value_t = limits::DEFAULT_MAX_INLINE_BYTES,
          value_name = "BYTES", help_heading = "Work and admission")]
    pub max_inline_bytes: u32,

    /// Unary calls admitted at once; more are refused
    ///
    /// Most unary calls admitted at once in the whole process, running or waiting for a worker;
    /// calls beyond it fail at once with RESOURCE_EXHAUSTED.
    #[arg(long, env = "ARBITER_CONCURRENCY_LIMIT", default_value_t = limits::DEFAULT_CONCURRENCY_LIMIT,
          value_name = "N", help_heading = "Work and admission", value_parser = clap::value_parser!(u32).range(1..))]
    pub concurrency_limit: u32,

    /// Longest wait for a worker or for room in a byte budget
    ///
    /// Longest time an admitted call waits for a free worker (or an analysis slot, or room in
    /// the request and answer byte budgets) before it fails with RESOURCE_EXHAUSTED.
    #[arg(long, env = "ARBITER_MAX_QUEUE_WAIT", default_value = limits::DEFAULT_MAX_QUEUE_WAIT,
          value_name = "DURATION", help_heading = "Work and admission", value_parser = parse_duration)]
    pub max_queue_wait: Duration,

    /// AdjudicateGames streams open at once; more are refused
    ///
    /// Most AdjudicateGames streams open at once; a stream holds its share until it ends, and
    /// streams beyond it fail at once with RESOURCE_EXHAUSTED. Reflection streams have a pool
    /// of their own of the same size.
    #[arg(long, env = "ARBITER_MAX_STREAMS", default_value_t = limits::DEFAULT_MAX_STREAMS,
          value_name = "N", help_heading = "Work and admission", value_parser = clap::value_parser!(u32).range(1..))]
    pub max_streams: u32,

    /// FollowGame streams open at once; more are refused
    ///
    /// Most FollowGame streams open at once, a cap of their own beside --max-streams (a
    /// followed game's stream lasts as long as the game, or the connection); streams beyond it
    /// fail at once with RESOURCE_EXHAUSTED.
    #[arg(long, env = "ARBITER_MAX_FOLLOW_STREAMS", default_value_t = limits::DEFAULT_MAX_FOLLOW_STREAMS,
          value_name = "N", help_heading = "Work and admission", value_parser = clap::value_parser!(u32).range(1..))]
    pub max_follow_streams: u32,

    /// Longest time of a call, or of one stream message
    ///
    /// Longest time a call may take before it fails with DEADLINE_EXCEEDED, delivering its
    /// answer included; a shorter `grpc-timeout` from the client wins. For an AdjudicateGames
    /// stream: longest time of one request message, from its arrival until its last answer is
    /// handed over.
    #[arg(long, env = "ARBITER_REQUEST_TIMEOUT", default_value = limits::DEFAULT_REQUEST_TIMEOUT,
          value_name = "DURATION", help_heading = "Work and admission", value_parser = parse_positive_duration)]
    pub request_timeout: Duration,

    /// Largest request or answer message, in bytes
    #[arg(long, env = "ARBITER_MAX_MESSAGE_BYTES", default_value_t = limits::DEFAULT_MAX_MESSAGE_BYTES,
          value_name = "BYTES", help_heading = "Memory", value_parser = clap::value_parser!(u32).range(1024..))]
    pub max_message_bytes: u32,

    /// Bytes of request messages held at once (all calls)
    ///
    /// Most bytes of request messages that calls may hold at once in the whole process, as sent
    /// on the wire (the 5-byte gRPC header of each message included): a unary call holds its
    /// request's bytes until its work ends, a stream each message's until that message is
    /// answered. A call that finds no room waits for it (HTTP/2 flow control slows its client) at
    /// most `--max-queue-wait`, then fails with RESOURCE_EXHAUSTED. Must hold one largest message:
    /// at least `--max-message-bytes` + 5.
    #[arg(long, env = "ARBITER_MAX_REQUEST_BYTES_IN_FLIGHT", default_value_t = limits::DEFAULT_MAX_REQUEST_BYTES_IN_FLIGHT,
          value_name = "BYTES", help_heading = "Memory", value_parser = clap::value_parser!(u64).range(1024..))]
    pub max_request_bytes_in_flight: u64,

    /// Bytes of answers built and not yet read by clients
    ///
    /// Most bytes of answers that the process may hold built but not yet taken by their clients
    /// (plus 1 KiB per such call). A call that arrives when there is no room is refused with
    /// RESOURCE_EXHAUSTED before any work; an answer that finds no room takes it from the
    /// answer whose client has taken nothing of its own for longest, if longer than
    /// `--max-queue-wait` (that call's stream is reset), else waits at most `--max-queue-wait`
    /// and is replaced by RESOURCE_EXHAUSTED. Must hold one largest answer: at least
    /// `--max-message-bytes` + 5 + 1024.
    #[arg(long, env = "ARBITER_MAX_ANSWER_BYTES_IN_FLIGHT", default_value_t = limits::DEFAULT_MAX_ANSWER_BYTES_IN_FLIGHT,
          value_name = "BYTES", help_heading = "Memory", value_parser = clap::value_parser!(u64).range(1024..))]
    pub max_answer_bytes_in_flight: u64,

    /// Kernel send buffer of a connection (0: autotuned)
    ///
    /// The kernel's send buffer of each accepted connection (SO_SNDBUF, in bytes; Linux doubles
    /// it): bounds what written answers a client has not read hold in the kernel. 0 leaves it
    /// to the kernel's autotuning (up to net.ipv4.tcp_wmem's maximum, 4 MiB by default).
    #[arg(long, env = "ARBITER_SOCKET_SEND_BUFFER_BYTES", default_value_t = limits::DEFAULT_SOCKET_SEND_BUFFER_BYTES,
          value_name = "BYTES", help_heading = "Memory")]
    pub socket_send_buffer_bytes: u32,

    /// Close a connection whose client reads nothing this long
    ///
    /// A connection one of whose answers has waited this long for its client to take the next
    /// piece (at most 16 KiB) is closed, with every call on it.
    #[arg(long, env = "ARBITER_SLOW_READER_TIMEOUT", default_value = limits::DEFAULT_SLOW_READER_TIMEOUT,
          value_name = "DURATION", help_heading = "Memory", value_parser = parse_positive_duration)]
    pub slow_reader_timeout: Duration,

    /// End a stream that makes no progress this long
    ///
    /// A stream without progress for this long (no request message received and no answer taken
    /// by its client: one bound for the whole stream) is ended with DEADLINE_EXCEEDED.
    #[arg(long, env = "ARBITER_STREAM_IDLE_TIMEOUT", default_value = limits::DEFAULT_STREAM_IDLE_TIMEOUT,
          value_name = "DURATION", help_heading = "Memory", value_parser = parse_positive_duration)]
    pub stream_idle_timeout: Duration,

    /// End a FollowGame stream without progress this long
    ///
    /// A FollowGame stream without progress for this long (no request message received and no
    /// answer taken by its client) is ended with DEADLINE_EXCEEDED. Games last hours and a move
    /// may take one: the default is long, and the connection's maximum age
    /// (--max-connection-age) ends a stream before it unless raised.
    #[arg(long, env = "ARBITER_FOLLOW_IDLE_TIMEOUT", default_value = limits::DEFAULT_FOLLOW_IDLE_TIMEOUT,
          value_name = "DURATION", help_heading = "Memory", value_parser = parse_positive_duration)]
    pub follow_idle_timeout: Duration,

    /// Most incidents one FollowGame stream rules on
    ///
    /// Most incidents (illegal moves, claims, draw offers, ...) one FollowGame stream rules on,
    /// those of its start included; each keeps its ruling (about 500 bytes at most). The
    /// stream's plies are bounded by --max-moves. A stream beyond either fails with
    /// RESOURCE_EXHAUSTED, and a stream resumed with more incidents than this in its start is
    /// refused (AdjudicateGame takes up to --max-moves incidents).
    #[arg(long, env = "ARBITER_MAX_FOLLOW_INCIDENTS", default_value_t = limits::DEFAULT_MAX_FOLLOW_INCIDENTS,
          value_name = "N", help_heading = "Memory", value_parser = clap::value_parser!(u32).range(1..))]
    pub max_follow_incidents: u32,

    /// Connections open at once on the gRPC port
    ///
    /// Most connections open at once on the gRPC port; a connection beyond it is closed at once.
    #[arg(long, env = "ARBITER_MAX_CONNECTIONS", default_value_t = limits::DEFAULT_MAX_CONNECTIONS,
          value_name = "N", help_heading = "Connections", value_parser = clap::value_parser!(u32).range(1..))]
    pub max_connections: u32,

    /// Connections open at once on the health port
    ///
    /// Most connections open at once on the health port. At the cap a new connection is still
    /// served: the oldest connection of the source address holding the most is closed to make
    /// room, so that no client can keep the probes out.
    #[arg(long, env = "ARBITER_HEALTH_MAX_CONNECTIONS", default_value_t = limits::DEFAULT_HEALTH_MAX_CONNECTIONS,
          value_name = "N", help_heading = "Connections", value_parser = clap::value_parser!(u32).range(1..))]
    pub health_max_connections: u32,

    /// Connections open at once on the metrics port
    ///
    /// Most connections open at once on the metrics port (Prometheus needs one or two). At the
    /// cap a new connection is still served: the oldest connection of the source address
    /// holding the most is closed to make room, so that no client can keep scrapes out.
    #[arg(long, env = "ARBITER_METRICS_MAX_CONNECTIONS", default_value_t = limits::DEFAULT_METRICS_MAX_CONNECTIONS,
          value_name = "N", help_heading = "Connections", value_parser = clap::value_parser!(u32).range(1..))]
    pub metrics_max_connections: u32,

    /// Longest time to the HTTP/2 preface, TLS included
    ///
    /// Longest time from accepting a connection to its HTTP/2 preface, TLS handshake included
    /// (HTTP/1.1: to the end of a request's headers); slower connections are closed.
    #[arg(long, env = "ARBITER_HANDSHAKE_TIMEOUT", default_value = limits::DEFAULT_HANDSHAKE_TIMEOUT,
          value_name = "DURATION", help_heading = "Connections", value_parser = parse_positive_duration)]
    pub handshake_timeout: Duration,

    /// Close a connection without a call this long
    ///
    /// A connection with no call in progress for this long is closed (HTTP/2 GOAWAY first).
    #[arg(long, env = "ARBITER_CONNECTION_IDLE_TIMEOUT", default_value = limits::DEFAULT_CONNECTION_IDLE_TIMEOUT,
          value_name = "DURATION", help_heading = "Connections", value_parser = parse_duration)]
    pub connection_idle_timeout: Duration,

    /// Ask connections this old to reconnect (GOAWAY)
    ///
    /// Connections older than this are asked to reconnect (HTTP/2 GOAWAY), so that clients
    /// spread over new replicas; each connection gets its own jitter of up to ±10 %. "0s": no
    /// age limit.
    #[arg(long, env = "ARBITER_MAX_CONNECTION_AGE", default_value = limits::DEFAULT_MAX_CONNECTION_AGE,
          value_name = "DURATION", help_heading = "Connections", value_parser = parse_duration)]
    pub max_connection_age: Duration,

    /// Time calls get to finish on a connection past its age
    ///
    /// How long calls on a connection past its maximum age may still run before it is closed.
    #[arg(long, env = "ARBITER_MAX_CONNECTION_AGE_GRACE", default_value = limits::DEFAULT_MAX_CONNECTION_AGE_GRACE,
          value_name = "DURATION", help_heading = "Connections", value_parser = parse_duration)]
    pub max_connection_age_grace: Duration,

    /// Calls in progress on one connection
    ///
    /// Most calls in progress on one connection (HTTP/2 SETTINGS_MAX_CONCURRENT_STREAMS); a
    /// client opens more connections or waits.
    #[arg(long, env = "ARBITER_MAX_CONCURRENT_STREAMS", default_value_t = limits::DEFAULT_MAX_CONCURRENT_STREAMS,
          value_name = "N", help_heading = "HTTP/2", value_parser = clap::value_parser!(u32).range(1..))]
    pub max_concurrent_streams: u32,

    /// Ping idle connections this often ("0s": never)
    ///
    /// Interval of HTTP/2 keepalive pings on idle connections; "0s" disables them.
    #[arg(long, env = "ARBITER_HTTP2_KEEPALIVE_INTERVAL", default_value = limits::DEFAULT_HTTP2_KEEPALIVE_INTERVAL,
          value_name = "DURATION", help_heading = "HTTP/2", value_parser = parse_duration)]
    pub http2_keepalive_interval: Duration,

    /// Wait for a keepalive ping's answer
    ///
    /// How long to wait for the answer to a keepalive ping before closing the connection.
    #[arg(long, env = "ARBITER_HTTP2_KEEPALIVE_TIMEOUT", default_value = limits::DEFAULT_HTTP2_KEEPALIVE_TIMEOUT,
          value_name = "DURATION", help_heading = "HTTP/2", value_parser = parse_duration)]
    pub http2_keepalive_timeout: Duration,

    /// HTTP/2 flow-control window of a connection, in bytes
    ///
    /// HTTP/2 flow-control window of one connection, in bytes: the request data a client may
    /// send ahead of what the server has read, over all its calls on the connection. The HTTP/2
    /// layer's guard against floods of small DATA frames lets unread frames under 256 bytes cost
    /// half this window (each costs 256 minus its size) before it closes the connection
    /// (docs/operations.md: "Streaming many small games").
    #[arg(long, env = "ARBITER_HTTP2_CONNECTION_WINDOW_BYTES", default_value_t = limits::DEFAULT_HTTP2_CONNECTION_WINDOW_BYTES,
          value_name = "BYTES", help_heading = "HTTP/2",
          value_parser = clap::value_parser!(u32).range(65_535..=2_147_483_647))]
    pub http2_connection_window_bytes: u32,

    /// HTTP/2 flow-control window of one call, in bytes
    ///
    /// HTTP/2 flow-control window of one call (stream), in bytes: the request data a client may
    /// send on one call ahead of what the server has read. Wider speeds up large requests over
    /// long round trips; it must stay small against the connection window for streams of small
    /// messages (docs/operations.md: "Streaming many small games").
    #[arg(long, env = "ARBITER_HTTP2_STREAM_WINDOW_BYTES", default_value_t = limits::DEFAULT_HTTP2_STREAM_WINDOW_BYTES,
          value_name = "BYTES", help_heading = "HTTP/2",
          value_parser = clap::value_parser!(u32).range(1024..=2_147_483_647))]
    pub http2_stream_window_bytes: u32,

    /// Accept calls this long after SIGTERM, health NOT_SERVING
    ///
    /// How long the server keeps accepting calls after a shutdown signal while health already
    /// reports NOT_SERVING, so that load balancers stop sending new calls first; at most half of
    /// `--drain-timeout`.
    #[arg(long, env = "ARBITER_LAME_DUCK", default_value = limits::DEFAULT_LAME_DUCK,
          value_name = "DURATION", help_heading = "Shutdown", value_parser = parse_duration)]
    pub lame_duck: Duration,

    /// Longest graceful shutdown, lame duck included
    ///
    /// Longest time a graceful shutdown may take, lame-duck period included, before the process
    /// exits anyway.
    #[arg(long, env = "ARBITER_DRAIN_TIMEOUT", default_value = limits::DEFAULT_DRAIN_TIMEOUT,
          value_name = "DURATION", help_heading = "Shutdown", value_parser = parse_duration)]
    pub drain_timeout: Duration,

    /// PEM certificate chain: with --tls-key, TLS only
    ///
    /// PEM certificate chain of the server: with `--tls-key`, the server speaks TLS only.
    #[arg(
        long,
        env = "ARBITER_TLS_CERT",
        requires = "tls_key",
        value_name = "FILE",
        help_heading = "TLS"
    )]
    pub tls_cert: Option<PathBuf>,

    /// PEM private key of --tls-cert
    #[arg(
        long,
        env = "ARBITER_TLS_KEY",
        requires = "tls_cert",
        value_name = "FILE",
        help_heading = "TLS"
    )]
    pub tls_key: Option<PathBuf>,

    /// PEM CA certificates of clients: mutual TLS
    ///
    /// PEM certificates of the CAs that sign client certificates: turns on mutual TLS (clients
    /// without a certificate signed by one of them are refused). Needs `--tls-cert`.
    #[arg(
        long,
        env = "ARBITER_TLS_CLIENT_CA",
        requires = "tls_cert",
        value_name = "FILE",
        help_heading = "TLS"
    )]
    pub tls_client_ca: Option<PathBuf>,

    /// How often the TLS files are read again ("0s": never)
    ///
    /// How often the TLS files are read again; a changed certificate is served to new
    /// connections without a restart, a broken one is logged and the previous one kept. "0s"
    /// turns reloading off.
    #[arg(long, env = "ARBITER_TLS_RELOAD_INTERVAL", default_value = limits::DEFAULT_TLS_RELOAD_INTERVAL,
          value_name = "DURATION", help_heading = "TLS", value_parser = parse_duration)]
    pub tls_reload_interval: Duration,

    /// Browser origins allowed to call over gRPC-Web (CORS)
    ///
    /// Browser origins allowed to call over gRPC-Web (CORS), comma-separated, each as a browser
    /// sends it: `scheme://host[:port]` (e.g. `http://127.0.0.1:8080,https://app.example`).
    /// "" allows none: no page of another origin can call. "*" allows any page (the API has no
    /// cookies or credentials a page could borrow, but any page a visitor opens can then use
    /// the server). Clients that are not browsers need no origin.
    #[arg(long, env = "ARBITER_CORS_ALLOWED_ORIGINS", default_value = "", value_name = "ORIGINS",
          help_heading = "Browsers (gRPC-Web)", value_parser = crate::grpc_web::AllowedOrigins::parse)]
    pub cors_allowed_origins: crate::grpc_web::AllowedOrigins,

    /// Log format, json or text (default: text on a terminal, else json)
    ///
    /// Log format on standard error; default: text on a terminal, JSON otherwise. The filter
    /// comes from RUST_LOG (default "info").
    #[arg(
        long,
        env = "ARBITER_LOG_FORMAT",
        value_name = "FORMAT",
        help_heading = "Logging"
    )]
    pub log_format: Option<LogFormat>,

    /// Access log ("call finished" lines): off, sampled or all
    ///
    /// Access log: a "call finished" line (method, peer, request id, status, microseconds) for
    /// no call, one call in `--access-log-sample`, or every call. Calls are always counted in
    /// the metrics; refused calls and connections are summarised at most once a second.
    #[arg(long, env = "ARBITER_ACCESS_LOG", value_enum, default_value_t = AccessLogMode::Off,
          value_name = "MODE", help_heading = "Logging")]
    pub access_log: AccessLogMode,

    /// With --access-log sampled: log one call in this many
    #[arg(long, env = "ARBITER_ACCESS_LOG_SAMPLE", default_value_t = limits::DEFAULT_ACCESS_LOG_SAMPLE,
          value_name = "N", help_heading = "Logging", value_parser = clap::value_parser!(u64).range(1..))]
    pub access_log_sample: u64,
}

/// Flags of `arbiter serve` that contradict each other.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ServeArgsError {
    /// An address flag's host name did not resolve (or the resolver failed).
    #[error("--{flag} ({variable}) {addr}: {source}")]
    Unresolved {
        /// The flag, without its dashes.
        flag: &'static str,
        /// Its environment variable.
        variable: &'static str,
        /// The address as given.
        addr: String,
        /// What the resolver said.
        source: AddressError,
    },
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

    /// The log format of `--log-format`; `None`: the default (text on a terminal, JSON
    /// otherwise).
    #[must_use]
    pub fn log_format(&self) -> Option<crate::logging::LogFormat> {
        self.log_format.map(|format| match format {
            LogFormat::Json => crate::logging::LogFormat::Json,
            LogFormat::Text => crate::logging::LogFormat::Text,
        })
    }

    /// The flags as the plain values the server runs with ([`ServeConfig`]): addresses
    /// resolved (see [`ListenAddr::resolve`]: blocking, once, at startup), counts as `usize`,
    /// 0 workers as the number of cores, a zero age or keepalive interval as "none".
    ///
    /// # Errors
    ///
    /// As [`ServeArgs::check`]: flags that contradict each other; and
    /// [`ServeArgsError::Unresolved`] for an address whose host name does not resolve.
    pub fn config(&self) -> Result<ServeConfig, ServeArgsError> {
        self.check()?;
        let usize_of = limits::usize_of;
        Ok(ServeConfig {
            grpc_addrs: resolve("grpc-addr", "ARBITER_GRPC_ADDR", Some(&self.grpc_addr))?,
            health_addrs: resolve(
                "health-addr",
                "ARBITER_HEALTH_ADDR",
                self.health_addr.0.as_ref(),
            )?,
            metrics_addrs: resolve(
                "metrics-addr",
                "ARBITER_METRICS_ADDR",
                self.metrics_addr.0.as_ref(),
            )?,
            limits: limits::Limits {
                max_moves: usize_of(self.max_moves),
                max_pgn_bytes: usize_of(self.max_pgn_bytes),
                analysis: self.analysis.into(),
                max_games_per_stream: usize_of(self.max_games_per_stream),
                max_tags: usize_of(self.max_tags),
                max_tag_value_bytes: usize_of(self.max_tag_value_bytes),
                max_variation_depth: usize_of(self.max_variation_depth),
            },
            max_message_bytes: usize_of(self.max_message_bytes),
            workers: self.worker_threads(),
            stream_workers: self.stream_worker_threads(),
            max_analyses: usize_of(self.max_analyses),
            concurrency_limit: usize_of(self.concurrency_limit),
            max_streams: usize_of(self.max_streams),
            max_follow_streams: usize_of(self.max_follow_streams),
            follow: crate::follow::FollowBounds {
                idle: self.follow_idle_timeout,
                max_incidents: usize_of(self.max_follow_incidents),
            },
            max_inline_bytes: usize_of(self.max_inline_bytes),
            max_queue_wait: self.max_queue_wait,
            request_timeout: self.request_timeout,
            stream_idle_timeout: self.stream_idle_timeout,
            max_request_bytes_in_flight: self.max_request_bytes_in_flight,
            max_answer_bytes_in_flight: self.max_answer_bytes_in_flight,
            connections: ConnectionLimits {
                max_connections: usize_of(self.max_connections),
                when_full: WhenFull::Refuse,
                handshake_timeout: self.handshake_timeout,
                idle_timeout: self.connection_idle_timeout,
                max_concurrent_streams: self.max_concurrent_streams,
                max_age: Some(self.max_connection_age).filter(|age| !age.is_zero()),
                max_age_grace: self.max_connection_age_grace,
                keepalive_interval: Some(self.http2_keepalive_interval)
                    .filter(|every| !every.is_zero()),
                keepalive_timeout: self.http2_keepalive_timeout,
                stream_window: self.http2_stream_window_bytes,
                connection_window: self.http2_connection_window_bytes,
                max_header_list_bytes: crate::serve::MAX_HEADER_LIST_BYTES,
                http1: true,
                slow_reader_timeout: self.slow_reader_timeout,
                socket_send_buffer: (self.socket_send_buffer_bytes > 0)
                    .then(|| usize_of(self.socket_send_buffer_bytes)),
            },
            health_max_connections: usize_of(self.health_max_connections),
            metrics_max_connections: usize_of(self.metrics_max_connections),
            tls: match (&self.tls_cert, &self.tls_key) {
                (Some(cert), Some(key)) => Some(TlsFiles {
                    cert: cert.clone(),
                    key: key.clone(),
                    client_ca: self.tls_client_ca.clone(),
                }),
                _ => None,
            },
            tls_reload_interval: Some(self.tls_reload_interval).filter(|every| !every.is_zero()),
            cors_allowed_origins: self.cors_allowed_origins.clone(),
            access_log: self.access_log(),
            lame_duck: self.lame_duck,
            drain_timeout: self.drain_timeout,
        })
    }
}

/// An address that can be turned off (`--metrics-addr`, `--health-addr`): `None` when off.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OptionalAddr(pub Option<ListenAddr>);

/// The socket addresses of an address flag's value (none when it is off), or the error naming
/// the flag and its variable.
fn resolve(
    flag: &'static str,
    variable: &'static str,
    addr: Option<&ListenAddr>,
) -> Result<Vec<std::net::SocketAddr>, ServeArgsError> {
    addr.map_or(Ok(Vec::new()), |addr| {
        addr.resolve().map_err(|source| ServeArgsError::Unresolved {
            flag,
            variable,
            addr: addr.to_string(),
            source,
        })
    })
}

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
    /// The PGN file; "-" reads standard input. Compressed files are read as they are, told
    /// apart by their first bytes: zstd (.pgn.zst), gzip (.pgn.gz, every member), bzip2
    /// (.pgn.bz2) and zip (each .pgn member in order; other members are skipped and named).
    pub file: std::path::PathBuf,
    /// Output: an aligned table with a summary, one JSON object per line (the summary goes to
    /// standard error), the games in PGN export format with the verdict in tags, or an HTML
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
    /// The rules the games were played under, comma-separated words: one time class
    /// (standard, rapid, blitz), supervised (the default) or unsupervised (rapid A.5, blitz
    /// B.3), and armageddon (Black's draw odds: a draw counts as a win for Black in the event;
    /// alone it is blitz). E.g. rapid, blitz,unsupervised, armageddon. Each verdict gives the
    /// Laws' result and, with armageddon, the event's.
    #[arg(long, value_name = "SPEC", default_value = "standard", value_parser = parse_rules)]
    pub rules: arbiter_rules::RuleSet,
    /// With --rules armageddon: the regulation that gives Black draw odds, as the verdicts name
    /// it (1 to 200 bytes), e.g. "World Cup 2025 regulations 3.7.5".
    #[arg(long, value_name = "NAME")]
    pub regulation: Option<String>,
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
    /// With --format pgn: write the adjudicated result as the Result tag and the termination
    /// marker, instead of keeping the declared ones and adding ArbiterResult and the other
    /// Arbiter* tags.
    #[arg(long)]
    pub fix_result: bool,
    /// Largest window a zstd frame may need, in bytes (rounded up to a power of two, 1 KiB to
    /// 2 GiB): what decoding a .zst input holds in memory. zstd's own levels write at most 8 MiB
    /// (`--long` 128 MiB, `--long=31` 2 GiB); a frame that needs more is an input error naming
    /// this flag.
    #[arg(long, default_value_t = crate::pgn_input::DEFAULT_MAX_ZSTD_WINDOW_BYTES,
          value_parser = clap::value_parser!(u64).range(1024..=1 << 31))]
    pub max_zstd_window_bytes: u64,
    /// Largest central directory of a zip file, in bytes: the list of its members, read into
    /// memory before them (about 50 bytes plus the name for each member).
    #[arg(long, default_value_t = crate::pgn_input::DEFAULT_MAX_ZIP_DIRECTORY_BYTES,
          value_parser = clap::value_parser!(u64).range(22..))]
    pub max_zip_directory_bytes: u64,
    /// Most members of a zip file, .pgn or not (directories included).
    #[arg(long, default_value_t = crate::pgn_input::DEFAULT_MAX_ZIP_MEMBERS,
          value_parser = clap::value_parser!(u32).range(1..))]
    pub max_zip_members: u32,
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

/// Reads `--rules` ([`arbiter_rules::RuleSet::parse`]): the error names the word that is wrong.
///
/// # Errors
/// An unknown word, two contradicting words, or standard play with `unsupervised`.
pub fn parse_rules(text: &str) -> Result<arbiter_rules::RuleSet, String> {
    arbiter_rules::RuleSet::parse(text, None).map_err(|e| e.to_string())
}

impl HealthCheckArgs {
    /// The flags as the plain values [`crate::health_check::run`] takes.
    #[must_use]
    pub fn probe(&self) -> Probe {
        Probe {
            addr: self.addr.clone(),
            service: self.service.clone(),
            timeout: self.timeout,
            tls_ca: self.tls_ca.clone(),
            // clap makes `--tls-cert` and `--tls-key` go together.
            tls_identity: self.tls_cert.clone().zip(self.tls_key.clone()),
            tls_domain: self.tls_domain.clone(),
        }
    }
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
    /// Every game in PGN export format, main line only (no comments, clocks, variations or
    /// NAGs), the declared Result tag and termination marker kept and the verdict added as
    /// ArbiterResult, ArbiterTermination, ... tags, or ArbiterError (`--fix-result`: the Result
    /// tag and termination marker as adjudicated).
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

#[cfg(test)]
mod tests {
    use super::*;
    use clap::CommandFactory;

    #[test]
    fn cli_is_consistent() {
        Cli::command().debug_assert();
    }

    #[test]
    fn serve_defaults() {
        let cli = Cli::try_parse_from(["arbiter", "serve"]).expect("defaults parse");
        let Command::Serve(args) = cli.command else {
            panic!("expected serve");
        };
        assert_eq!(args.grpc_addr.port(), 50051);
        assert_eq!(args.grpc_addr.to_string(), "[::]:50051");
        assert_eq!(args.max_message_bytes, 4 * 1024 * 1024);
        assert_eq!(args.max_moves, 10_000);
        assert_eq!(args.request_timeout, Duration::from_secs(10));
        assert_eq!(args.stream_workers, 0);
        assert_eq!(
            args.metrics_addr.0.as_ref().map(ListenAddr::port),
            Some(9090)
        );
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
        assert_eq!(args.max_follow_streams, 128);
        assert_eq!(args.max_follow_incidents, 256);
        assert_eq!(args.follow_idle_timeout, Duration::from_secs(2 * 3600));
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
        assert_eq!(
            args.health_addr.0.as_ref().map(ListenAddr::port),
            Some(50052)
        );
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

    /// Issue 27 item 8: `--request-timeout 1m30s` was refused. Every flag whose default is a
    /// duration reads compound durations, and a value that is none names its flag.
    #[test]
    fn r_every_duration_flag_reads_compound_durations() {
        let duration_flags: Vec<String> = Cli::command()
            .find_subcommand("serve")
            .expect("serve")
            .get_arguments()
            .filter(|arg| {
                arg.get_default_values().iter().any(|value| {
                    let text = value.to_string_lossy();
                    text.ends_with(['s', 'm', 'h'])
                        && text.starts_with(|c: char| c.is_ascii_digit())
                })
            })
            .map(|arg| arg.get_long().expect("a long flag").to_owned())
            .collect();
        assert_eq!(duration_flags.len(), 14, "{duration_flags:?}");
        for flag in &duration_flags {
            let flag = format!("--{flag}");
            let args = Cli::try_parse_from(["arbiter", "serve", &flag, "1m30s"]);
            assert!(args.is_ok(), "{flag} 1m30s: {:?}", args.err());
            let error = Cli::try_parse_from(["arbiter", "serve", &flag, "1m30"])
                .expect_err("no unit after 30");
            assert_eq!(error.kind(), clap::error::ErrorKind::ValueValidation);
            assert!(error.to_string().contains(&flag), "{error}");
        }
        assert_eq!(
            serve_args(&["--request-timeout", "1m30s", "--lame-duck", "1.5s"]).request_timeout,
            Duration::from_secs(90)
        );
        let health_check = Cli::try_parse_from(["arbiter", "health-check", "--timeout", "1m30s"])
            .expect("health-check --timeout 1m30s");
        let Command::HealthCheck(args) = health_check.command else {
            panic!("expected health-check");
        };
        assert_eq!(args.timeout, Duration::from_secs(90));
    }

    /// Issue 27 item 8: `--grpc-addr localhost:50051` was refused. Every address flag takes a
    /// host name; `localhost` stands for both loopback addresses, and the configuration binds
    /// both.
    #[test]
    fn r_address_flags_take_host_names() {
        let config = serve_args(&[
            "--grpc-addr",
            "localhost:50051",
            "--health-addr",
            "LOCALHOST:0",
            "--metrics-addr",
            "127.0.0.1:9090",
        ])
        .config()
        .expect("localhost resolves");
        let loopback = |port| {
            vec![
                std::net::SocketAddr::from(([127, 0, 0, 1], port)),
                std::net::SocketAddr::from((std::net::Ipv6Addr::LOCALHOST, port)),
            ]
        };
        assert_eq!(config.grpc_addrs, loopback(50051));
        assert_eq!(config.health_addrs, loopback(0));
        assert_eq!(
            config.metrics_addrs,
            [std::net::SocketAddr::from(([127, 0, 0, 1], 9090))]
        );
    }

    #[test]
    fn an_address_that_does_not_resolve_or_read_names_its_flag() {
        let error = serve_args(&["--metrics-addr", "nowhere.invalid:9090"])
            .config()
            .expect_err("never resolves");
        assert_eq!(
            error.to_string(),
            "--metrics-addr (ARBITER_METRICS_ADDR) nowhere.invalid:9090: cannot resolve \
             \"nowhere.invalid\": names under .invalid never resolve (RFC 6761)"
        );
        for (flag, value) in [
            ("--grpc-addr", "localhost"),
            ("--health-addr", "localhost:http"),
            ("--metrics-addr", "::1:9090"),
        ] {
            let error = Cli::try_parse_from(["arbiter", "serve", flag, value]).expect_err(value);
            assert_eq!(error.kind(), clap::error::ErrorKind::ValueValidation);
            assert!(error.to_string().contains(flag), "{error}");
        }
    }

    /// The help `argv` asks for, as the binary prints it.
    fn help(argv: &[&str]) -> String {
        let argv: Vec<std::ffi::OsString> = argv.iter().map(Into::into).collect();
        let error = try_parse(&argv).expect_err("help is an error");
        assert_eq!(error.kind(), clap::error::ErrorKind::DisplayHelp);
        error.render().to_string()
    }

    /// Issue 27 item 8: `serve -h` was 93 lines, 35 flags in one list, lines up to 606
    /// columns. Now its flags are under headings (the groups of docs/cli.md), one line each,
    /// within 100 columns; `--help` keeps the details, defaults and variables.
    #[test]
    fn r_serve_short_help_is_one_line_per_flag_under_headings() {
        const HEADINGS: [&str; 10] = [
            "Listeners",
            "Adjudication",
            "Work and admission",
            "Memory",
            "Connections",
            "HTTP/2",
            "Shutdown",
            "TLS",
            "Browsers (gRPC-Web)",
            "Logging",
        ];
        let command = Cli::command();
        let serve = command.find_subcommand("serve").expect("serve");
        let flags: Vec<&clap::Arg> = serve
            .get_arguments()
            .filter(|arg| arg.get_id() != "help")
            .collect();
        let short = help(&["arbiter", "serve", "-h"]);
        let lines: Vec<&str> = short.lines().collect();
        let wide: Vec<&&str> = lines
            .iter()
            .filter(|line| line.chars().count() > 100)
            .collect();
        assert_eq!(wide, Vec::<&&str>::new(), "lines over 100 columns");
        let headings: Vec<&str> = lines
            .iter()
            .filter_map(|line| line.strip_suffix(':'))
            .filter(|line| !line.starts_with(' ') && *line != "Usage" && *line != "Options")
            .collect();
        assert_eq!(headings, HEADINGS);
        for arg in &flags {
            let heading = arg.get_help_heading().expect("a heading");
            assert!(HEADINGS.contains(&heading), "{heading}");
            let long = format!("--{} <", arg.get_long().expect("a long flag"));
            let line = lines
                .iter()
                .find(|line| line.trim_start().starts_with(&long))
                .unwrap_or_else(|| panic!("no line for {long}"));
            let summary = arg.get_help().expect("a summary").to_string();
            assert!(
                line.ends_with(&summary),
                "{line:?} does not end with {summary:?}"
            );
        }
        assert!(!short.contains("[env: "), "{short}");
        // One line per flag, a heading and a blank line per heading, and the rest: the about
        // line, usage and `-h` (7 lines), the three lines at the end (73 lines for 43 flags).
        assert_eq!(lines.len(), flags.len() + 2 * HEADINGS.len() + 10);

        let full = help(&["arbiter", "serve", "--help"]);
        for arg in &flags {
            let variable = arg.get_env().expect("a variable").to_string_lossy();
            assert!(full.contains(&format!("[env: {variable}=")), "{variable}");
        }
        assert!(full.contains("[default: [::]:50051]"), "{full}");
        assert!(full.contains("HOST:PORT, HOST an IPv4 address"), "{full}");
        assert!(flags.len() >= 43, "{}", flags.len());
        // clap answers the first of the two.
        assert_eq!(help(&["arbiter", "serve", "--help", "-h"]), full);
        assert_eq!(help(&["arbiter", "serve", "-h", "--help"]), short);
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
