//! # arbiter-fuzz-targets
//!
//! Every fuzz target of arbiter as a plain function of the input bytes. Each must return for
//! every input, without a panic, in bounded time and memory; a broken invariant is a panic.
//!
//! The afl binaries of `fuzz/` (outside the workspace; `make fuzz`) call these functions, and
//! this crate's `tests/corpora.rs` replays every saved input of `fuzz/corpus/<target>/` through
//! them in `cargo test`, with no fuzzer installed. [`TARGETS`] lists them by name; the name is
//! also the corpus directory's and the afl binary's.
//!
//! Inputs that need options (a language, a position, an output format, a handler) take them
//! from their first byte, so that the fuzzer can change them like any other byte:
//!
//! | target | first byte | rest |
//! |---|---|---|
//! | [`fen`] | (none) | the FEN text, read in all four modes (standard/Chess960, `Validation::STRICT`/`PERFT_SUITE`) |
//! | [`san`] | bits 0-3: position of [`POSITIONS`]; bits 4-6: language (mod 7); bit 7: strict | the SAN text |
//! | [`uci`] | bits 0-3: position of [`POSITIONS`] | the UCI text (also read as SAN-or-UCI) |
//! | [`pgn_read`] | (none) | PGN bytes, read with the default limits and with tight ones, whole and by the chunks of `arbiter adjudicate -j` (which must agree) |
//! | [`pgn_adjudicate`], [`pgn_adjudicate_full`] | bits 0-1: output format; bit 2: claim draws; bits 3-5: language; bits 6-7: rules (standard, rapid, blitz,unsupervised, armageddon) | PGN bytes, as `arbiter adjudicate` reads a file |
//! | [`rpc`], [`rpc_full`] | handler (mod 6) of [`RPC_HANDLERS`] | the protobuf request message; for `AdjudicateGames`, the gRPC request body (5-byte frame headers and messages) |

use std::io;
use std::time::Duration;

use arbiter_pgn::{PgnError, RawGame, Reader, ReaderLimits, Splitter};
use arbiter_proto::convert::Notation;
use arbiter_proto::v1::arbiter_service_server::ArbiterService as _;
use arbiter_proto::v1::{
    AdjudicateGameRequest, AdjudicateGamesRequest, ApplyMoveRequest, ApplyMovesRequest,
    ListLegalMovesRequest, ValidatePositionRequest,
};
use arbiter_rules::{
    AnalysisBudget, CastlingMode, FenOptions, MoveError, Position, SanLanguage, SanMode, Validation,
};
use arbiter_server::adjudicate::Settings;
use arbiter_server::adjudicate_cli;
use arbiter_server::cli::OutputFormat;
use arbiter_server::limits::Limits;
use arbiter_server::service::{Arbiter, StreamTimes};
use arbiter_server::workers::Workers;
use prost::Message as _;
use tokio_stream::StreamExt as _;
use tonic::{Request, Response, Status};

/// A fuzz target: runs one input.
pub type Target = fn(&[u8]);

/// Every target: its name (the corpus directory `fuzz/corpus/<name>/` and the afl binary) and
/// its function.
pub const TARGETS: &[(&str, Target)] = &[
    ("fen", fen),
    ("san", san),
    ("uci", uci),
    ("pgn_read", pgn_read),
    ("pgn_adjudicate", pgn_adjudicate),
    ("pgn_adjudicate_full", pgn_adjudicate_full),
    ("rpc", rpc),
    ("rpc_full", rpc_full),
];

/// The positions the [`san`] and [`uci`] targets read moves in, picked by the low 4 bits of the
/// first input byte, with whether they are Chess960. From the perft fixtures
/// (`tests/data/perft/`): promotions, en passant, castling both ways, pins, many queens that
/// need every kind of disambiguation, and Chess960 castling.
pub const POSITIONS: [(&str, bool); 16] = [
    (
        "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
        false,
    ),
    (
        "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
        false,
    ),
    ("8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1", false),
    (
        "r3k2r/Pppp1ppp/1b3nbN/nP6/BBP1P3/q4N2/Pp1P2PP/R2Q1RK1 w kq - 0 1",
        false,
    ),
    (
        "r2q1rk1/pP1p2pp/Q4n2/bbp1p3/Np6/1B3NBn/pPPP1PPP/R3K2R b KQ - 0 1",
        false,
    ),
    (
        "rnbq1k1r/pp1Pbppp/2p5/8/2B5/8/PPP1NnPP/RNBQK2R w KQ - 1 8",
        false,
    ),
    ("8/8/1k6/2b5/2pP4/8/5K2/8 b - d3 0 1", false),
    ("1rrrrrk1/1PPPPPPP/8/8/8/8/8/6K1 b - - 0 1", false),
    (
        "R6R/3Q4/1Q4Q1/4Q3/2Q4Q/Q4Q2/pp1Q4/kBNN1KB1 w - - 0 1",
        false,
    ),
    (
        "rnbqk1nr/bb3p1p/1q2r3/2pPp3/3P4/7P/1PP1NpPP/R1BQKBNR w KQkq c6 0 1",
        false,
    ),
    ("r6r/1b2k1bq/8/8/7B/8/8/R3K2R b KQ - 3 2", false),
    ("8/P1k5/K7/8/8/8/8/8 w - - 0 1", false),
    ("3R4/8/q4k2/2B5/1NK5/3b4/8/8 w - - 0 1", false),
    (
        "1rqbkrbn/1ppppp1p/1n6/p1N3p1/8/2P4P/PP1PPPP1/1RQBKRBN w FBfb - 0 9",
        true,
    ),
    (
        "rbbqn1kr/pp2p1pp/6n1/2pp1p2/2P4P/P7/BP1PPPP1/R1BQNNKR w HAha - 0 9",
        true,
    ),
    (
        "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w AHah - 0 1",
        true,
    ),
];

/// The handlers of the [`rpc`] targets, in the order the first input byte (mod 6) picks them.
pub const RPC_HANDLERS: [&str; 6] = [
    "ListLegalMoves",
    "ApplyMove",
    "ApplyMoves",
    "AdjudicateGame",
    "ValidatePosition",
    "AdjudicateGames",
];

/// The [`POSITIONS`], read with `Validation::PERFT_SUITE` (some cannot arise in a game, and are meant to stress
/// move generation).
///
/// # Panics
/// When a position of the table is not a valid FEN (a unit test reads them all).
#[must_use]
pub fn position(index: usize) -> Position {
    let (fen, chess960) = POSITIONS[index % POSITIONS.len()];
    let options = FenOptions {
        mode: if chess960 {
            CastlingMode::Chess960
        } else {
            CastlingMode::Standard
        },
        validation: arbiter_rules::Validation::PERFT_SUITE,
    };
    Position::from_fen_with(fen, options).expect("the fuzz positions are valid FEN")
}

/// Checks what must hold of every position read: its FEN (X-FEN and Shredder-FEN) reads back
/// as the same position with the same Zobrist key, and every legal move's SAN and UCI read back
/// (strictly) as that move.
fn check_position(position: &Position, options: FenOptions) {
    for shredder in [false, true] {
        let written = position.to_fen_with(shredder);
        let again = Position::from_fen_with(&written, options)
            .unwrap_or_else(|e| panic!("{written:?} written from a position does not read: {e}"));
        assert_eq!(&again, position, "{written:?} reads as another position");
        assert_eq!(again.zobrist(), position.zobrist(), "{written:?}: Zobrist");
    }
    let _ = position.status();
    for &m in position.legal_moves().iter() {
        let san = position.san(&m);
        assert_eq!(
            position.parse_san(&san, SanMode::Strict),
            Ok(m),
            "SAN {san:?} in {}",
            position.to_fen()
        );
        let uci = position.uci(&m);
        assert_eq!(position.parse_uci(&uci), Ok(m), "UCI {uci:?}");
        let _ = position.play(&m);
    }
}

/// The FEN reader: the input as text (invalid UTF-8 replaced), read in standard and Chess960
/// mode, strictly and with the perft-suite opt-out; each position read is checked (FEN written reads back,
/// every legal move's SAN and UCI read back).
pub fn fen(data: &[u8]) {
    let text = String::from_utf8_lossy(data);
    for mode in [CastlingMode::Standard, CastlingMode::Chess960] {
        for validation in [Validation::STRICT, Validation::PERFT_SUITE] {
            let options = FenOptions { mode, validation };
            if let Ok(position) = Position::from_fen_with(&text, options) {
                check_position(&position, options);
            }
        }
    }
}

/// Checks that a move read from text is legal, and that its canonical spelling reads back.
fn check_read_move(position: &Position, read: &Result<arbiter_rules::Move, MoveError>) {
    match read {
        Ok(m) => {
            assert!(
                position.legal_moves().iter().any(|legal| legal == m),
                "an illegal move was read"
            );
        }
        // Errors must render (they are sent to clients).
        Err(error) => {
            let _ = (error.to_string(), error.reason(), error.kind());
        }
    }
}

/// The SAN reader in each of the 7 languages (see the table above): the move read must be
/// legal, and its SAN in that language must read back strictly as the same move.
pub fn san(data: &[u8]) {
    let Some((&selector, rest)) = data.split_first() else {
        return;
    };
    let position = position(usize::from(selector & 0x0f));
    let language = SanLanguage::ALL[usize::from((selector >> 4) & 0x07) % SanLanguage::ALL.len()];
    let mode = if selector & 0x80 == 0 {
        SanMode::Tolerant
    } else {
        SanMode::Strict
    };
    let text = String::from_utf8_lossy(rest);
    let read = position.parse_san_in(&text, mode, language);
    check_read_move(&position, &read);
    if let Ok(m) = read {
        let canonical = position.san_in(&m, language);
        assert_eq!(
            position.parse_san_in(&canonical, SanMode::Strict, language),
            Ok(m),
            "{canonical:?} ({language:?}) does not read back"
        );
    }
}

/// The UCI reader, and the SAN-or-UCI reader (`parse_move`) on the same text: a move read must
/// be legal, and its UCI must read back as the same move.
pub fn uci(data: &[u8]) {
    let Some((&selector, rest)) = data.split_first() else {
        return;
    };
    let position = position(usize::from(selector & 0x0f));
    let text = String::from_utf8_lossy(rest);
    for read in [position.parse_uci(&text), position.parse_move(&text)] {
        check_read_move(&position, &read);
        if let Ok(m) = read {
            let uci = position.uci(&m);
            assert_eq!(
                position.parse_uci(&uci),
                Ok(m),
                "{uci:?} does not read back"
            );
        }
    }
}

/// The PGN reader alone: every game of the input, with the default limits and with tight ones
/// (so that every limit is reached). The lines an error skipped end where the next game starts,
/// and reading by the chunks of `arbiter adjudicate -j` ([`Splitter`], cutting wherever it can)
/// gives the games and errors of reading the whole input.
pub fn pgn_read(data: &[u8]) {
    let tight = ReaderLimits {
        max_game_bytes: 512,
        max_tags: 4,
        max_tag_value_bytes: 16,
        max_plies: 12,
        max_variation_depth: 2,
    };
    for limits in [ReaderLimits::default(), tight] {
        let whole = read_items(Reader::with_limits(data, limits), 0);
        for (item, next) in whole
            .iter()
            .zip(whole.iter().skip(1).map(Some).chain([None]))
        {
            let Err(error) = item else { continue };
            let _ = error.to_string();
            // After an error in the middle of a game, the lines skipped run from the error's
            // line to the game's end, and the next game starts at or after that line.
            if let Some(skipped) = error.skipped {
                assert_eq!(skipped.first, error.line, "{error}");
                assert!(skipped.first <= skipped.last, "{error}");
                if let Some(Ok(game)) = next {
                    assert!(
                        game.line >= skipped.last,
                        "{error}, next game at {}",
                        game.line
                    );
                }
            }
        }
        // `arbiter adjudicate -j`: reading by chunks is reading the whole input.
        let mut splitter = Splitter::new(data, &limits, 0);
        let mut chunked = Vec::new();
        while let Some(chunk) = splitter.next_chunk(Vec::new()) {
            let base = chunked.len();
            chunked.extend(read_items(Reader::of_chunk(&chunk, limits), base));
        }
        if let Some((first_line, rest)) = splitter.into_rest() {
            let base = chunked.len();
            let reader = Reader::with_limits(rest, limits).starting_at_line(first_line);
            chunked.extend(read_items(reader, base));
        }
        assert!(chunked == whole, "reading by chunks differs");
    }
}

/// Every game and error of `reader`, numbered from `base`.
fn read_items<R: io::BufRead>(
    mut reader: Reader<R>,
    base: usize,
) -> Vec<Result<RawGame, PgnError>> {
    let mut items = Vec::new();
    loop {
        let mut game = RawGame::default();
        match reader.read_game(&mut game) {
            Ok(true) => {
                game.index += base;
                items.push(Ok(game));
            }
            Ok(false) => return items,
            Err(mut error) => {
                error.game += base;
                items.push(Err(error));
            }
        }
    }
}

/// `arbiter adjudicate` on the input at the `material` analysis level, from bytes to verdicts:
/// the CLI's reader, replay, adjudication and output (table, JSON lines or PGN, see the table
/// above), then its summary.
pub fn pgn_adjudicate(data: &[u8]) {
    adjudicate_cli_path(data, AnalysisBudget::Material);
}

/// [`pgn_adjudicate`] at the `full` analysis level (the CLI's default): bounded by the
/// analyzer's own search limit.
pub fn pgn_adjudicate_full(data: &[u8]) {
    adjudicate_cli_path(data, AnalysisBudget::Full);
}

fn adjudicate_cli_path(data: &[u8], analysis: AnalysisBudget) {
    let Some((&options, pgn)) = data.split_first() else {
        return;
    };
    let format = match options & 0x03 {
        1 => OutputFormat::Jsonl,
        2 => OutputFormat::Pgn,
        _ => OutputFormat::Table,
    };
    // The CLI's defaults (`--max-moves`, `--max-game-bytes`), with the flags the byte sets.
    let settings = Settings {
        claim_draw: options & 0x04 != 0,
        limits: Limits {
            analysis,
            ..Limits::default()
        },
        notation: Notation {
            language: SanLanguage::ALL[usize::from((options >> 3) & 0x07) % SanLanguage::ALL.len()],
            shredder: false,
        },
        rules: arbiter_rules::RuleSet::parse(
            ["standard", "rapid", "blitz,unsupervised", "armageddon"][usize::from(options >> 6)],
            None,
        )
        .expect("the fuzz rule sets are valid"),
    };
    let summary = adjudicate_cli::run(pgn, &mut io::sink(), format, &settings)
        .expect("writing to a sink does not fail");
    summary
        .write(&mut io::sink())
        .expect("writing to a sink does not fail");
}

/// The status the worker pool answers when a handler's work panicked.
const PANICKED: &str = "internal error while applying the rules";

thread_local! {
    /// One runtime per thread for the RPC targets (the handlers run their work on its blocking
    /// pool, as the server's runtime does).
    static RUNTIME: tokio::runtime::Runtime = tokio::runtime::Builder::new_current_thread()
        .enable_time()
        .build()
        .expect("a tokio runtime starts");
}

/// Each handler of the `arbiter.v1.ArbiterService` (first byte, see [`RPC_HANDLERS`]) on the
/// request decoded from the rest of the input, in-process, at the `material` analysis level. A
/// request that does not decode is skipped (tonic refuses it before the handler). The handler's
/// work must not panic (the pool would answer `INTERNAL`).
pub fn rpc(data: &[u8]) {
    rpc_with(data, AnalysisBudget::Material);
}

/// [`rpc`] at the `full` analysis level (the server's default).
pub fn rpc_full(data: &[u8]) {
    rpc_with(data, AnalysisBudget::Full);
}

fn rpc_with(data: &[u8], analysis: AnalysisBudget) {
    let Some((&selector, body)) = data.split_first() else {
        return;
    };
    let limits = Limits {
        analysis,
        ..Limits::default()
    };
    let service = Arbiter::new(
        limits,
        Workers::new(1, Duration::from_secs(10), Workers::max_seatless(1, 1)),
        StreamTimes::default(),
    );
    RUNTIME.with(|runtime| runtime.block_on(call(&service, selector, body)));
}

fn check_status(status: &Status) {
    assert!(
        !(status.code() == tonic::Code::Internal && status.message() == PANICKED),
        "a handler panicked"
    );
    let _ = status.to_string();
}

fn check_unary<T>(answer: Result<Response<T>, Status>) {
    if let Err(status) = answer {
        check_status(&status);
    }
}

async fn call(service: &Arbiter, selector: u8, body: &[u8]) {
    match selector % 6 {
        0 => {
            if let Ok(request) = ListLegalMovesRequest::decode(body) {
                check_unary(service.list_legal_moves(Request::new(request)).await);
            }
        }
        1 => {
            if let Ok(request) = ApplyMoveRequest::decode(body) {
                check_unary(service.apply_move(Request::new(request)).await);
            }
        }
        2 => {
            if let Ok(request) = ApplyMovesRequest::decode(body) {
                check_unary(service.apply_moves(Request::new(request)).await);
            }
        }
        3 => {
            if let Ok(request) = AdjudicateGameRequest::decode(body) {
                check_unary(service.adjudicate_game(Request::new(request)).await);
            }
        }
        4 => {
            if let Ok(request) = ValidatePositionRequest::decode(body) {
                check_unary(service.validate_position(Request::new(request)).await);
            }
        }
        _ => {
            let body = http_body_util::Full::new(bytes::Bytes::copy_from_slice(body));
            let inbound = tonic::Streaming::new_request(
                tonic_prost::ProstDecoder::<AdjudicateGamesRequest>::default(),
                body,
                None,
                Some(4 << 20),
            );
            match service.adjudicate_games(Request::new(inbound)).await {
                Ok(response) => {
                    let mut responses = response.into_inner();
                    while let Some(item) = responses.next().await {
                        if let Err(status) = item {
                            check_status(&status);
                        }
                    }
                }
                Err(status) => check_status(&status),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_fuzz_position_reads() {
        for index in 0..POSITIONS.len() {
            assert!(!position(index).legal_moves().is_empty(), "{index}");
        }
    }

    #[test]
    fn the_targets_take_the_empty_input_and_a_plain_one() {
        for (name, target) in TARGETS {
            target(b"");
            target(b"\x00");
            let _ = name;
        }
        fen(b"startpos");
        san(b"\x00e4");
        uci(b"\x00e2e4");
        pgn_read(b"1. e4 e5 *");
        pgn_adjudicate(b"\x011. f3 e5 2. g4 Qh4# 0-1");
    }

    #[test]
    fn a_panicking_handler_is_caught_by_the_rpc_check() {
        let panicked = Status::internal(PANICKED);
        let result =
            std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| check_status(&panicked)));
        assert!(result.is_err());
        check_status(&Status::internal("failed to decode Protobuf message"));
    }
}
