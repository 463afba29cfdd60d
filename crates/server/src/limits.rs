//! Every bound of the server and the CLI, with its default as a named constant: the flags of
//! `arbiter serve` and `arbiter adjudicate` (the `cli` module) take their defaults from here, and
//! [`Limits`], the bounds on the chess work of one call or game that the handlers
//! ([`crate::service`]) and the CLI ([`crate::adjudicate_cli`]) both enforce, is built from the
//! same constants. docs/operations.md's "Limits and overload" table states the same numbers (the
//! tests of the `cli` module check the flags' defaults against those numbers and against
//! [`Limits::default`]), and `scripts/check-deploy.py` checks that the Helm chart and the
//! kustomize base set every flag to the binary's default.
//!
//! Durations are written as the flags read them ("10s", "5m"; see [`crate::duration::parse_duration`]).

use std::time::Duration;

use arbiter_rules::AnalysisBudget;

/// Default of `--max-moves` (both commands): most plies of one game or moves of one request
/// (10,000), the PGN reader's own bound ([`arbiter_pgn::DEFAULT_MAX_PLIES`]).
pub const DEFAULT_MAX_MOVES: u32 = arbiter_pgn::DEFAULT_MAX_PLIES;

/// Default of `--max-pgn-bytes` (`serve`) and `--max-game-bytes` (`adjudicate`): most bytes of one
/// game's PGN text (1 MiB), the PGN reader's own bound ([`arbiter_pgn::DEFAULT_MAX_GAME_BYTES`]).
pub const DEFAULT_MAX_PGN_BYTES: u32 = arbiter_pgn::DEFAULT_MAX_GAME_BYTES;

/// Default of `--max-tags` (both commands): most tag pairs of one PGN game (256), the PGN
/// reader's own bound ([`arbiter_pgn::DEFAULT_MAX_TAGS`]).
pub const DEFAULT_MAX_TAGS: u32 = arbiter_pgn::DEFAULT_MAX_TAGS;

/// Default of `--max-tag-value-bytes` (both commands): most bytes of one tag value, escapes
/// decoded (4,096), the PGN reader's own bound ([`arbiter_pgn::DEFAULT_MAX_TAG_VALUE_BYTES`]).
pub const DEFAULT_MAX_TAG_VALUE_BYTES: u32 = arbiter_pgn::DEFAULT_MAX_TAG_VALUE_BYTES;

/// Default of `--max-variation-depth` (both commands): deepest nesting of variations in PGN
/// movetext (64), the PGN reader's own bound ([`arbiter_pgn::DEFAULT_MAX_VARIATION_DEPTH`]).
/// Variations are skipped, not kept: the depth is a counter, and the bound is there so that a
/// game of nothing but `(` is refused early.
pub const DEFAULT_MAX_VARIATION_DEPTH: u32 = arbiter_pgn::DEFAULT_MAX_VARIATION_DEPTH;

/// Default of `--max-games-per-stream`: most games answered on one `AdjudicateGames` stream
/// (10,000).
pub const DEFAULT_MAX_GAMES_PER_STREAM: u32 = 10_000;

/// Default of `--analysis` (both commands): the full helpmate search, bounded by the analyzer's
/// node limit and, on the server, by the request timeout.
pub const DEFAULT_ANALYSIS: AnalysisBudget = AnalysisBudget::Full;

/// Default of `--max-message-bytes`: largest request or response message (4 MiB, gRPC's usual
/// default).
pub const DEFAULT_MAX_MESSAGE_BYTES: u32 = 4 * 1024 * 1024;

/// Default of `--max-request-bytes-in-flight`: 8 MiB of requests on the wire, two requests
/// of the default largest size (4 MiB). A decoded request takes up to ~12 times its wire size
/// (empty move strings, the worst case; ~5 times for game moves in UCI), ~50 MiB for one 4 MiB
/// message. Measured (BENCHMARKS.md, "Server memory under load"): under 1,000 concurrent 60 KB
/// calls and 200 concurrent 4 MiB calls the peak was ~150 / ~160 MiB with 8 MiB, ~180 / ~205 MiB
/// with 16 MiB, against 370 / 650-690 MiB without a budget; the rest of the peak is mostly
/// unread request data in HTTP/2 flow-control windows, which the budget does not see.
pub const DEFAULT_MAX_REQUEST_BYTES_IN_FLIGHT: u64 = 8 * 1024 * 1024;

/// Default of `--max-answer-bytes-in-flight`: 16 MiB of answers built and not yet taken by
/// their clients (four answers of the largest size, 4 MiB), plus 1 KiB per waiting call (see
/// `guard::answer_bytes`). Clients that read take their answers within milliseconds and hold
/// almost none of it; clients that stop reading lose their room to the others after
/// `--max-queue-wait` (BENCHMARKS.md, "Answers a client does not read").
pub const DEFAULT_MAX_ANSWER_BYTES_IN_FLIGHT: u64 = 16 * 1024 * 1024;

/// Default of `--slow-reader-timeout`: longest a piece of an answer (at most 16 KiB) may wait
/// for its client before the connection is closed. A client on a 100 kB/s link takes a piece
/// in a fifth of a second.
pub const DEFAULT_SLOW_READER_TIMEOUT: &str = "20s";

/// Default of `--socket-send-buffer-bytes`: the kernel's send buffer of each accepted connection
/// (`SO_SNDBUF`; Linux doubles the value for its own bookkeeping), 256 KiB.
///
/// What the server has written and the client has not acknowledged waits there, outside the
/// process and its budgets. Left to the kernel, Linux grows a socket's buffer up to
/// `net.ipv4.tcp_wmem`'s maximum (4 MiB by default): a fresh review's HTTP/1.1 clients that
/// pipelined 60 calls and never read held ~4 MiB each (85 MiB for 20 connections) until the
/// connection's idle or age limit, ~4 GiB at `--max-connections`. 256 KiB bounds that to
/// ~0.5 MiB a connection and still lets one connection send ~10 MB/s over a 50 ms round trip.
pub const DEFAULT_SOCKET_SEND_BUFFER_BYTES: u32 = 256 * 1024;

/// Default of `--concurrency-limit`: unary calls admitted at once in the process (256, about
/// 128 per worker of a 2-core pod; raise it with the workers).
///
/// An admitted call holds memory until it ends: its stream, its unread request data (up to a
/// stream window), its request while it waits for a worker (see `service`), and its answer
/// until it is read. With 2,048 (the first default), a flood of 300 connections × 60
/// `ApplyMoves` calls of 16 KB peaked at 167 MiB whether or not the clients read their answers;
/// with 256 (and 32 calls per connection) at 96 MiB (BENCHMARKS.md, "Answers a client does not
/// read"). More admitted calls do not serve more: on 2 cores, 15,300 calls/s were answered with
/// 64 in flight and 10,300/s with 2,048 (docs/operations.md, "Clients must back off").
pub const DEFAULT_CONCURRENCY_LIMIT: u32 = 256;

/// Default of `--max-streams`: `AdjudicateGames` streams open at once (256).
pub const DEFAULT_MAX_STREAMS: u32 = 256;

/// Default of `--max-follow-streams`: `FollowGame` streams open at once, a cap of their own
/// beside `--max-streams` (each holds its game, about 40 bytes a ply, and its rulings; measured
/// in docs/operations.md, "Following games").
pub const DEFAULT_MAX_FOLLOW_STREAMS: u32 = 128;

/// Default of `--max-follow-incidents`: incidents one `FollowGame` stream rules on (256; a game
/// has a few: each keeps its ruling, about 500 bytes at most, so 160 KiB a stream at most).
/// AdjudicateGame takes up to `--max-moves` incidents: a game with more than this many can be
/// adjudicated but not resumed on a new stream.
pub const DEFAULT_MAX_FOLLOW_INCIDENTS: u32 = 256;

/// Default of `--max-analyses`: "can this side still checkmate?" searches at once (1; each holds
/// about 100 MiB of search memory at most).
pub const DEFAULT_MAX_ANALYSES: u32 = 1;

/// Default of `--max-connections`: connections open at once on the gRPC port (1,024).
pub const DEFAULT_MAX_CONNECTIONS: u32 = 1024;

/// Default of `--health-max-connections`: connections open at once on the health port (32).
pub const DEFAULT_HEALTH_MAX_CONNECTIONS: u32 = 32;

/// Default of `--metrics-max-connections`: connections open at once on the metrics port (16).
pub const DEFAULT_METRICS_MAX_CONNECTIONS: u32 = 16;

/// Default of `--max-concurrent-streams`: calls in progress on one connection (HTTP/2
/// `SETTINGS_MAX_CONCURRENT_STREAMS`, 32). gRPC clients queue the calls beyond it on their
/// side; a client that opens more anyway has them refused by the HTTP/2 layer
/// (`REFUSED_STREAM`) before any task or buffer is spent on them. With 128 (the first default),
/// the 60 calls each of 300 connections were all accepted at once, each a task, a header map
/// and its unread data until the concurrency limit refused it: 17,820 such calls alive at the
/// peak of the flood above, about 45 MiB of it.
pub const DEFAULT_MAX_CONCURRENT_STREAMS: u32 = 32;

/// The default HTTP/2 flow-control window of one stream (`--http2-stream-window-bytes`, 16 KiB):
/// what a client may send on one call ahead of what the server has read (a larger message is
/// simply sent in several windows).
///
/// The two windows are chosen together, against two limits:
/// - **Memory.** Request data received but not read yet is invisible to the request-bytes
///   budget. Each admitted call holds at most one stream window of it, and each connection at
///   most one connection window. (A flood of 250 connections filling 1 MiB windows took the
///   server to ~365 MiB.)
/// - **The `h2` crate's flood guard against small DATA frames** (h2 0.4.16 and later, not
///   configurable through hyper). A connection may hold unread frames under 256 bytes costing at
///   most half its connection window, each costing 256 minus its size. When it holds more, it is
///   closed with GOAWAY `ENHANCE_YOUR_CALM`. The worst a single call can buffer is its stream
///   window of small frames.
///
/// A client a whole window ahead gets the window back a few bytes at a time and sends each
/// message as two frames, so a full call window of messages of `s` bytes costs up to
/// `16 KiB × (512 − s) / s`. With 16 KiB per stream and 1 MiB per connection (a 512 KiB budget)
/// that stays under the guard for messages of 16 bytes or more: one-game messages streamed
/// faster than they are answered never close the connection.
///
/// Memory: only admitted calls hold unread data (`--concurrency-limit` + `--max-streams`, 512
/// × 16 KiB = 8 MiB). Measured with 1,000 connections × 16 / × 64 stalled calls (peak
/// `VmHWM`, when 2,048 + 256 calls were admitted): 112 / 160 MiB; the 64 KiB + 64 KiB windows before: 71 / 143 MiB, and those let
/// about 220 unread one-game messages close a connection (BENCHMARKS.md, "Small messages and the
/// HTTP/2 flood guard").
pub const DEFAULT_HTTP2_STREAM_WINDOW_BYTES: u32 = 16 * 1024;

/// The default HTTP/2 flow-control window of one connection (`--http2-connection-window-bytes`,
/// 1 MiB). It bounds the unread request data of all the connection's calls, and half of it is
/// the HTTP/2 layer's budget for unread small DATA frames; see [`DEFAULT_HTTP2_STREAM_WINDOW_BYTES`].
pub const DEFAULT_HTTP2_CONNECTION_WINDOW_BYTES: u32 = 1024 * 1024;

/// Most worker threads of `arbiter adjudicate -j` (256): each holds a queue of games and its
/// analysis memory, and more threads than cores only add memory. `-j 0` uses one per available
/// core, also at most this many.
pub const MAX_JOBS: u16 = 256;

/// Default of `--access-log-sample`: with `--access-log sampled`, one call in 100 is logged.
pub const DEFAULT_ACCESS_LOG_SAMPLE: u64 = 100;

/// Default of `--request-timeout`: longest time of one call, or of one stream message's work.
pub const DEFAULT_REQUEST_TIMEOUT: &str = "10s";

/// Default of `--max-inline-bytes`: unary requests of at most this many bytes (as protobuf)
/// may be answered on the network thread that read them, without the hand-off to a worker. 512
/// bytes hold a FEN and about a hundred moves: at most about 60 µs of work (docs/operations.md,
/// "Limits and overload"; a fresh review measured health checks 15-100 times slower under a load
/// of 2 KiB requests answered there, the first default).
pub const DEFAULT_MAX_INLINE_BYTES: u32 = 512;

/// Default of `--max-queue-wait`: longest wait of an admitted call for a worker.
pub const DEFAULT_MAX_QUEUE_WAIT: &str = "1s";

/// Default of `--stream-idle-timeout`: longest silence of a stream's client, either way.
pub const DEFAULT_STREAM_IDLE_TIMEOUT: &str = "60s";

/// Default of `--follow-idle-timeout`: longest silence of a `FollowGame` stream's client,
/// either way (2 hours: a game lasts hours, and a move may take one). The connection's maximum
/// age (`--max-connection-age`) ends a stream before it by default.
pub const DEFAULT_FOLLOW_IDLE_TIMEOUT: &str = "2h";

/// Default of `--drain-timeout`: longest graceful shutdown, lame-duck period included.
pub const DEFAULT_DRAIN_TIMEOUT: &str = "15s";

/// Default of `--lame-duck`: calls still accepted after a shutdown signal.
pub const DEFAULT_LAME_DUCK: &str = "2s";

/// Default of `--handshake-timeout`: longest time from accept to the HTTP/2 preface.
pub const DEFAULT_HANDSHAKE_TIMEOUT: &str = "10s";

/// Default of `--connection-idle-timeout`: a connection without calls this long is closed.
pub const DEFAULT_CONNECTION_IDLE_TIMEOUT: &str = "5m";

/// Default of `--max-connection-age`: older connections are asked to reconnect.
pub const DEFAULT_MAX_CONNECTION_AGE: &str = "5m";

/// Default of `--max-connection-age-grace`: calls' time to finish on a connection past its age.
pub const DEFAULT_MAX_CONNECTION_AGE_GRACE: &str = "30s";

/// Default of `--http2-keepalive-interval`: pings on idle connections.
pub const DEFAULT_HTTP2_KEEPALIVE_INTERVAL: &str = "60s";

/// Default of `--http2-keepalive-timeout`: wait for a ping's answer.
pub const DEFAULT_HTTP2_KEEPALIVE_TIMEOUT: &str = "20s";

/// Default of `--tls-reload-interval`: how often the TLS files are read again.
pub const DEFAULT_TLS_RELOAD_INTERVAL: &str = "30s";

/// One of the duration defaults above as a [`Duration`].
///
/// # Panics
/// When `text` is not a duration [`crate::duration::parse_duration`] reads; every constant of this
/// module is one (a test reads them all).
#[must_use]
pub fn default_duration(text: &str) -> Duration {
    crate::duration::parse_duration(text)
        .unwrap_or_else(|error| panic!("the default duration {text:?} is unreadable: {error}"))
}

/// The bounds on the chess work of one call or game, the same for the server's handlers and for
/// `arbiter adjudicate` (which reads a file, not a stream: it does not use
/// `max_games_per_stream`). Built from the flags; [`Limits::default`] is the flags' defaults.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    /// Most moves of one request or plies of one game (`--max-moves`).
    pub max_moves: usize,
    /// Most bytes of one game's PGN text, and of the `pgn` field of one request message
    /// (`--max-pgn-bytes`, `--max-game-bytes`).
    pub max_pgn_bytes: usize,
    /// How much analysis dead positions and "can the opponent still mate?" may use
    /// (`--analysis`).
    pub analysis: AnalysisBudget,
    /// Most games answered on one `AdjudicateGames` stream (`--max-games-per-stream`).
    pub max_games_per_stream: usize,
    /// Most tag pairs of one PGN game (`--max-tags`).
    pub max_tags: usize,
    /// Most bytes of one PGN tag value (`--max-tag-value-bytes`).
    pub max_tag_value_bytes: usize,
    /// Deepest nesting of variations in PGN movetext (`--max-variation-depth`).
    pub max_variation_depth: usize,
}

impl Default for Limits {
    fn default() -> Self {
        Self {
            max_moves: usize_of(DEFAULT_MAX_MOVES),
            max_pgn_bytes: usize_of(DEFAULT_MAX_PGN_BYTES),
            analysis: DEFAULT_ANALYSIS,
            max_games_per_stream: usize_of(DEFAULT_MAX_GAMES_PER_STREAM),
            max_tags: usize_of(DEFAULT_MAX_TAGS),
            max_tag_value_bytes: usize_of(DEFAULT_MAX_TAG_VALUE_BYTES),
            max_variation_depth: usize_of(DEFAULT_MAX_VARIATION_DEPTH),
        }
    }
}

impl Limits {
    /// The PGN reader's bounds these limits set: every bound of [`arbiter_pgn::ReaderLimits`] is
    /// one of them.
    #[must_use]
    pub fn reader_limits(&self) -> arbiter_pgn::ReaderLimits {
        arbiter_pgn::ReaderLimits {
            max_game_bytes: self.max_pgn_bytes.max(1),
            max_tags: self.max_tags,
            max_tag_value_bytes: self.max_tag_value_bytes,
            max_plies: self.max_moves,
            max_variation_depth: self.max_variation_depth,
        }
    }
}

/// A flag's `u32` value as a count of this platform (saturating on 16-bit targets).
#[must_use]
pub fn usize_of(value: u32) -> usize {
    usize::try_from(value).unwrap_or(usize::MAX)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_duration_default_is_readable_and_not_zero() {
        for text in [
            DEFAULT_REQUEST_TIMEOUT,
            DEFAULT_MAX_QUEUE_WAIT,
            DEFAULT_STREAM_IDLE_TIMEOUT,
            DEFAULT_FOLLOW_IDLE_TIMEOUT,
            DEFAULT_DRAIN_TIMEOUT,
            DEFAULT_LAME_DUCK,
            DEFAULT_HANDSHAKE_TIMEOUT,
            DEFAULT_CONNECTION_IDLE_TIMEOUT,
            DEFAULT_MAX_CONNECTION_AGE,
            DEFAULT_MAX_CONNECTION_AGE_GRACE,
            DEFAULT_HTTP2_KEEPALIVE_INTERVAL,
            DEFAULT_HTTP2_KEEPALIVE_TIMEOUT,
            DEFAULT_TLS_RELOAD_INTERVAL,
        ] {
            assert!(!default_duration(text).is_zero(), "{text}");
        }
        assert_eq!(
            default_duration(DEFAULT_REQUEST_TIMEOUT),
            Duration::from_secs(10)
        );
    }

    /// Every bound of the PGN reader is one of the limits (issue 27: tags, tag values and
    /// variation depth were the reader's fixed defaults), and the defaults are the reader's.
    #[test]
    fn the_reader_is_bounded_by_the_limits() {
        let limits = Limits {
            max_moves: 7,
            max_pgn_bytes: 0,
            max_tags: 3,
            max_tag_value_bytes: 5,
            max_variation_depth: 0,
            ..Limits::default()
        };
        assert_eq!(
            limits.reader_limits(),
            arbiter_pgn::ReaderLimits {
                max_game_bytes: 1,
                max_tags: 3,
                max_tag_value_bytes: 5,
                max_plies: 7,
                max_variation_depth: 0,
            }
        );
        assert_eq!(
            Limits::default().reader_limits(),
            arbiter_pgn::ReaderLimits::default()
        );
    }
}
