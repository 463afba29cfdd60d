//! The `arbiter.v1.ArbiterService` handlers: thin adapters between the wire conversions of
//! `arbiter-proto` and the rules of `arbiter-rules`.
//!
//! The chess work of every call runs on the worker pool ([`crate::workers`]), so that a long
//! analysis never stalls the threads that answer health checks and accept connections, the call
//! deadline of [`crate::guard`] can answer on time, and the work stops when its call ends.

use arbiter_proto::convert::{self, ConvertError, Notation};
use arbiter_proto::v1::{
    AdjudicateGameRequest, AdjudicateGameResponse, ApplyMoveRequest, ApplyMoveResponse,
    ApplyMovesRequest, ApplyMovesResponse, ListLegalMovesRequest, ListLegalMovesResponse,
    ValidatePositionRequest, ValidatePositionResponse, adjudicate_game_request, apply_move_request,
    arbiter_service_server::ArbiterService,
};
use std::pin::Pin;

use arbiter_proto::convert::ErrorReason;
use arbiter_proto::v1::{
    AdjudicateGamesRequest, AdjudicateGamesResponse, adjudicate_games_request,
};
use arbiter_rules::{
    AdjudicationRequest, CastlingMode, RecordPlace, RefereeError, RuleSet, TimedIncident,
};
use std::task::{Context, Poll};
use std::time::Duration;
use tokio::sync::{mpsc, oneshot, watch};
use tokio_stream::Stream;
use tonic::{Request, Response, Status, Streaming};

use crate::adjudicate::{self, Place, Settings};
use crate::follow::{FollowBounds, drained};
use crate::guard::{Admission, CallDeadline};
use crate::limits::{self, Limits};
use crate::workers::Workers;
use arbiter_pgn::verdict::VerdictError;

/// How long streams may wait, and how long a stream's message may take.
#[derive(Debug, Clone, Copy)]
pub struct StreamTimes {
    /// A stream that sends no message for this long, or whose client reads no response for this
    /// long, is ended with `DEADLINE_EXCEEDED`.
    pub idle: Duration,
    /// Longest time of one message of a stream, from its arrival until its last answer is
    /// handed over (its work and the delivery of its answers; the unary calls' request
    /// timeout).
    pub message: Duration,
}

impl Default for StreamTimes {
    fn default() -> Self {
        Self {
            idle: limits::default_duration(limits::DEFAULT_STREAM_IDLE_TIMEOUT),
            message: limits::default_duration(limits::DEFAULT_REQUEST_TIMEOUT),
        }
    }
}

/// The arbiter service implementation.
#[derive(Debug, Clone)]
pub struct Arbiter {
    limits: Limits,
    workers: Workers,
    stream_times: StreamTimes,
    /// The bounds of FollowGame streams (see [`Arbiter::with_follow`]).
    follow: FollowBounds,
    /// Requests of at most this many bytes are answered on the thread that read them
    /// (`--max-inline-bytes`; see [`Arbiter::with_max_inline_bytes`]).
    max_inline_bytes: usize,
    /// Turns true when the server stops taking calls (see [`Arbiter::with_drain`]).
    draining: watch::Receiver<bool>,
}

/// Why an AdjudicateGames stream ends when the server shuts down.
const STREAM_DRAINED: &str = "the server is shutting down: every game of the messages answered so far has its response; send the others on a new stream";

impl Arbiter {
    /// A service enforcing `limits`, doing its work on `workers`.
    #[must_use]
    pub fn new(limits: Limits, workers: Workers, stream_times: StreamTimes) -> Self {
        Self {
            limits,
            workers,
            stream_times,
            follow: FollowBounds::default(),
            max_inline_bytes: limits::usize_of(limits::DEFAULT_MAX_INLINE_BYTES),
            // Never draining: the sender is gone and the value stays false.
            draining: watch::channel(false).1,
        }
    }

    /// Ends open AdjudicateGames and FollowGame streams once `draining` turns true (the server's drain, after
    /// its lame-duck period): a stream waiting for its next request message ends at once with
    /// UNAVAILABLE, a stream working on a message first sends that message's responses. Without
    /// it, a client that keeps its stream open would hold every shutdown until the drain
    /// timeout, and then lose the connection without a status.
    #[must_use]
    pub fn with_drain(mut self, draining: watch::Receiver<bool>) -> Self {
        self.draining = draining;
        self
    }

    /// Bounds FollowGame streams by `follow` (their idle time and incidents; their plies are
    /// bounded by the limits' `max_moves`).
    #[must_use]
    pub fn with_follow(mut self, follow: FollowBounds) -> Self {
        self.follow = follow;
        self
    }

    /// Answers unary calls whose request message (as protobuf) is at most `bytes` long on the
    /// network thread that read them while few enough run there, without handing
    /// them to a worker thread and back (0: every call goes to a worker; see
    /// [`Workers::run_small`]). Their work is bounded by that size: about 60 µs for the default
    /// 512 bytes (ApplyMoves of 99 moves); work that needs an analysis goes to a worker anyway.
    #[must_use]
    pub fn with_max_inline_bytes(mut self, bytes: usize) -> Self {
        self.max_inline_bytes = bytes;
        self
    }

    /// The limits this service enforces.
    #[must_use]
    pub fn limits(&self) -> Limits {
        self.limits
    }

    /// Runs a unary call's `work`, holding the call's admission until the work has returned: on
    /// this thread when the request's message is at most `--max-inline-bytes` long (its work is
    /// then microseconds), else on a worker (see [`Workers::run_small`]); a rejected move is
    /// counted.
    ///
    /// A request too large to be answered here waits for its worker in its wire form, and is
    /// decoded again by the worker: decoded, a request takes several times its wire size (an
    /// `ApplyMoves` request of 2,700 plies, 16 KB on the wire, is about 90 KB of strings), and
    /// only its wire size is under `--max-request-bytes-in-flight`. So the requests waiting
    /// for a worker hold what the budget counts, and only the ones being worked on are
    /// decoded (measured in BENCHMARKS.md, "Answers a client does not read": a flood of 18,000
    /// such calls peaked some 50 MiB lower). The price is one more encoding and decoding of
    /// a large request, small beside its work.
    async fn unary<M: prost::Message + Default + Sync + 'static, T: Send + 'static>(
        &self,
        request: Request<M>,
        work: impl Fn(&M) -> Result<T, Status> + Send + Sync + 'static,
    ) -> Result<Response<T>, Status> {
        let admission = request.extensions().get::<Admission>().cloned();
        let message = request.into_inner();
        let answer = if message.encoded_len() <= self.max_inline_bytes {
            self.workers.run_small(admission, message, true, work).await
        } else {
            let wire = message.encode_to_vec();
            drop(message);
            self.workers
                .run_small(admission, wire, false, move |wire: &Vec<u8>| {
                    let message = M::decode(wire.as_slice()).map_err(|error| {
                        tracing::error!(%error, "a request encoded here did not decode again");
                        Status::internal("internal error while reading the request")
                    })?;
                    work(&message)
                })
                .await
        };
        answer
            .inspect_err(crate::metrics::record_rejection)
            .map(Response::new)
    }
}

fn list_legal_moves(request: &ListLegalMovesRequest) -> Result<ListLegalMovesResponse, Status> {
    let notation = Notation::from_wire(request.san_language, request.castling_notation, "")?;
    let position = convert::position_from_wire(request.position.as_ref(), "position")?;
    Ok(ListLegalMovesResponse {
        moves: convert::legal_moves_to_wire_in(&position, notation.language),
        status: Some(convert::status_to_wire(&position)),
        fen: notation.fen(&position),
    })
}

fn apply_move(request: &ApplyMoveRequest, limits: Limits) -> Result<ApplyMoveResponse, Status> {
    let notation = Notation::from_wire(request.san_language, request.castling_notation, "")?;
    let language = notation.language;
    match &request.subject {
        Some(apply_move_request::Subject::Position(position)) => {
            let position = convert::position_from_wire(Some(position), "position")?;
            let mv = convert::move_from_wire_in(&position, &request.r#move, "move", language)
                .map_err(|error| position_over(&position, &request.r#move, error))?;
            let (played, after) = convert::move_to_wire_in(&position, &mv, language);
            Ok(ApplyMoveResponse {
                fen: notation.fen(&after),
                r#move: Some(played),
                status: Some(convert::status_to_wire(&after)),
                outcome: None,
                claims: Vec::new(),
            })
        }
        Some(apply_move_request::Subject::Game(game)) => {
            // The new move counts against the limit too.
            let max_moves = limits.max_moves.saturating_sub(1);
            let mut game =
                convert::game_from_wire_in(game, "game", max_moves, limits.analysis, language)?;
            let played = convert::play_next_in(&mut game, &request.r#move, "move", None, language)?;
            let after = game.position();
            Ok(ApplyMoveResponse {
                fen: notation.fen(after),
                r#move: Some(played),
                status: Some(convert::status_to_wire(after)),
                outcome: game.outcome().map(|o| convert::outcome_to_wire(&o)),
                claims: convert::claims_to_wire_in(&game, language),
            })
        }
        None => Err(ConvertError::missing(
            "position",
            "a position or a game (fen \"startpos\" for the initial position)",
        )
        .into()),
    }
}

/// The error for a move refused in a position given on its own: when the position is
/// checkmate or stalemate, the game is over there and no move follows (FIDE Laws 5.1.1,
/// 5.2.1), which is what the answer names, rather than why this move in particular fails
/// ("does not parry the check"). Other errors as they are.
fn position_over(
    position: &arbiter_rules::Position,
    text: &str,
    error: ConvertError,
) -> ConvertError {
    if error.kind != convert::ErrorReason::IllegalMove {
        return error;
    }
    match arbiter_rules::Outcome::mate_or_stalemate(position, 0) {
        Some(outcome) => convert::game_over_error(
            &error.field,
            &arbiter_rules::GameOver { outcome },
            text,
            None,
        ),
        None => error,
    }
}

fn apply_moves(request: &ApplyMovesRequest, limits: Limits) -> Result<ApplyMovesResponse, Status> {
    convert::check_move_count(request.moves.len(), limits.max_moves, "moves")?;
    let notation = Notation::from_wire(request.san_language, request.castling_notation, "")?;
    let start = convert::optional_position_from_wire(request.position.as_ref(), "position")?;
    let (game, moves) = convert::play_moves_in(
        start,
        &request.moves,
        "moves",
        limits.max_moves,
        limits.analysis,
        notation.language,
    )?;
    let position = game.position();
    Ok(ApplyMovesResponse {
        fen: notation.fen(position),
        moves,
        status: Some(convert::status_to_wire(position)),
        outcome: game.outcome().map(|o| convert::outcome_to_wire(&o)),
        claims: convert::claims_to_wire_in(&game, notation.language),
    })
}

fn adjudicate_game(
    request: &AdjudicateGameRequest,
    limits: Limits,
) -> Result<AdjudicateGameResponse, Status> {
    match &request.source {
        Some(adjudicate_game_request::Source::Pgn(pgn)) => adjudicate_pgn(pgn, request, limits),
        Some(adjudicate_game_request::Source::Game(_)) => {
            Ok(replay_wire_game(request, limits)?.adjudicate()?)
        }
        None => Err(ConvertError::missing("game", "a game (or pgn)").into()),
    }
}

/// A game given as start position and moves, replayed and ready to be adjudicated: the
/// replay and the verdict are two steps, so that a small call whose verdict needs an analysis
/// hands only the verdict to a worker, not the replay again (see [`Arbiter::adjudicate_game`]).
struct ReplayedGame {
    game: arbiter_rules::Game,
    adjudication: AdjudicationRequest,
    rules: RuleSet,
    incidents: Vec<TimedIncident>,
    notation: Notation,
    /// Warnings about the moves' check suffixes, which come before the verdict's.
    suffixes: Vec<arbiter_pgn::verdict::PgnWarning>,
}

impl ReplayedGame {
    /// Reads and replays `wire` with its `event`, rule set and incidents under `limits` (unary
    /// and streaming calls alike).
    fn read(
        wire: &arbiter_proto::v1::Game,
        event: Option<&arbiter_proto::v1::GameEvent>,
        claim_draw: bool,
        event_rules: EventRules<'_>,
        limits: Limits,
        notation: Notation,
    ) -> Result<Self, ConvertError> {
        let event = convert::event_from_wire(event, "event")?;
        // Incidents' moves are SAN of the game's language, as the game's moves are.
        let (rules, incidents) = event_rules.read(limits, notation.language)?;
        let game = convert::game_from_wire_in(
            wire,
            "game",
            limits.max_moves,
            limits.analysis,
            notation.language,
        )?;
        let suffixes = arbiter_pgn::verdict::check_suffix_warnings(&game, &wire.moves);
        Ok(Self {
            game,
            adjudication: AdjudicationRequest {
                event,
                claim_draw,
                budget: limits.analysis,
            },
            rules,
            incidents,
            notation,
            suffixes,
        })
    }

    /// The game's verdict on the wire, with the rulings on its incidents under its rule set.
    ///
    /// # Errors
    /// An incident that does not fit (field `incidents[i]`), or a move of the record that does
    /// not play what an incident requires (field `game.moves[k]`).
    fn adjudicate(&self) -> Result<AdjudicateGameResponse, ConvertError> {
        let verdict = arbiter_rules::adjudicate_record_located(
            &self.game,
            &self.incidents,
            &self.rules,
            &self.adjudication,
        )
        .map_err(|(place, error)| incident_error(place, &error, "game.moves"))?;
        let mut response = convert::verdict_to_wire(&self.game, &verdict, self.notation);
        // The event sent, when an incident ended the game first, is said not to be applied.
        let after_end = arbiter_pgn::verdict::event_after_end_warning(
            self.adjudication.event,
            false,
            &verdict,
            0,
        );
        // The moves' warnings come before the verdict's, as for PGN input.
        if !self.suffixes.is_empty() || after_end.is_some() {
            response.warnings = self
                .suffixes
                .iter()
                .map(convert::pgn_warning_to_wire)
                .chain(response.warnings)
                .chain(after_end.as_ref().map(convert::pgn_warning_to_wire))
                .collect();
            convert::bound_warnings(&mut response);
        }
        Ok(response)
    }
}

/// The first step of AdjudicateGame for a game given as moves: the replay.
fn replay_wire_game(
    request: &AdjudicateGameRequest,
    limits: Limits,
) -> Result<ReplayedGame, Status> {
    let Some(adjudicate_game_request::Source::Game(game)) = &request.source else {
        return Err(ConvertError::missing("game", "a game (or pgn)").into());
    };
    let notation = Notation::from_wire(request.san_language, request.castling_notation, "")?;
    Ok(ReplayedGame::read(
        game,
        request.event.as_ref(),
        request.claim_draw,
        EventRules {
            rules: request.rules.as_ref(),
            incidents: &request.incidents,
        },
        limits,
        notation,
    )?)
}

fn settings(limits: Limits, claim_draw: bool, rules: RuleSet) -> Settings {
    Settings {
        claim_draw,
        limits,
        notation: Notation::default(),
        rules,
    }
}

/// A request's rule set and incidents, as sent.
#[derive(Clone, Copy)]
struct EventRules<'a> {
    rules: Option<&'a arbiter_proto::v1::RuleSet>,
    incidents: &'a [arbiter_proto::v1::Incident],
}

impl EventRules<'_> {
    /// The rule set (field "rules") and the incidents (field "incidents", at most the server's
    /// move limit of them, their moves in `language`).
    fn read(
        self,
        limits: Limits,
        language: arbiter_rules::SanLanguage,
    ) -> Result<(RuleSet, Vec<TimedIncident>), ConvertError> {
        let rules = convert::rule_set_from_wire(self.rules, "rules")?;
        let incidents = convert::incidents_from_wire(
            self.incidents,
            limits.max_moves,
            "--max-moves",
            "incidents",
            language,
        )?;
        Ok((rules, incidents))
    }
}

/// The error for an incident the referee refused, or a move of the record it refused after an
/// incident (7.5.2, 9.5.3, A.5.2), on the field it came from: `incidents[i]`, or the move at
/// `moves_field[k]` (`game.moves`).
fn incident_error(place: RecordPlace, error: &RefereeError, moves_field: &str) -> ConvertError {
    let field = match place {
        RecordPlace::Incident(index) => format!("incidents[{index}]"),
        RecordPlace::Move(index) => format!("{moves_field}[{index}]"),
    };
    convert::referee_error(&field, error)
}

/// Rejects PGN text above the limit.
fn check_pgn_size(len: usize, limits: Limits, field: &str) -> Result<(), ConvertError> {
    if len > limits.max_pgn_bytes {
        return Err(ConvertError::new(
            field,
            ErrorReason::LimitExceeded,
            format!(
                "{len} bytes of PGN exceed the limit of {} bytes",
                limits.max_pgn_bytes
            ),
        ));
    }
    Ok(())
}

/// AdjudicateGame with `pgn`: exactly one game, read by the reader of the `AdjudicateGames`
/// stream ([`adjudicate::read_games`]). Text that holds more than one game (a second tag section
/// after a blank line, movetext after a termination marker, ...) is INVALID_ARGUMENT on field
/// "pgn" naming the line where each game starts; a read or replay error of the one game is
/// INVALID_ARGUMENT on field "pgn" with the line:column, ply and move.
fn adjudicate_pgn(
    pgn: &str,
    request: &AdjudicateGameRequest,
    limits: Limits,
) -> Result<AdjudicateGameResponse, Status> {
    check_pgn_size(pgn.len(), limits, "pgn")?;
    let event = convert::event_from_wire(request.event.as_ref(), "event")?;
    let notation = Notation::from_wire(request.san_language, request.castling_notation, "")?;
    let (rules, incidents) = EventRules {
        rules: request.rules.as_ref(),
        incidents: &request.incidents,
    }
    // PGN movetext, and so its incidents' moves, is read with English letters.
    .read(limits, arbiter_rules::SanLanguage::English)?;
    let settings = Settings {
        notation,
        ..settings(limits, request.claim_draw, rules)
    };
    let mut games = adjudicate::read_games(pgn.as_bytes(), &settings, Place::default());
    let Some(first) = games.next() else {
        return Err(ConvertError::missing("pgn", "the PGN text of one game").into());
    };
    let mut starts = vec![game_start(&first)];
    starts.extend(games.map(|game| game_start(&game)));
    if starts.len() > 1 {
        const SHOWN: usize = 8;
        let mut lines: Vec<String> = starts.iter().take(SHOWN).map(u32::to_string).collect();
        if starts.len() > SHOWN {
            lines.push("...".to_owned());
        }
        return Err(ConvertError::new(
            "pgn",
            ErrorReason::InvalidValue,
            format!(
                "the text holds {} games (starting at lines {}), not one: AdjudicateGame takes exactly one game; send each game alone, or use AdjudicateGames",
                starts.len(),
                lines.join(", ")
            ),
        )
        .into());
    }
    if let Some(error) = &first.read_error {
        return Err(convert::pgn_error_to_convert(error, "pgn").into());
    }
    let raw = &first.raw;
    arbiter_pgn::verdict::adjudicate_with_incidents(
        raw,
        event,
        &incidents,
        &settings.adjudication(),
    )
    .map(|verdict| convert::pgn_verdict_to_wire(&verdict, settings.notation))
    .map_err(|error| match error {
        VerdictError::Pgn(error) => convert::pgn_error_to_convert(&error, "pgn").into(),
        VerdictError::Incident { place, error } => {
            let mut converted = incident_error(place, &error, "pgn");
            // A move of the main line: the field is the text, the place its line:column.
            if let RecordPlace::Move(index) = place {
                converted.field = "pgn".to_owned();
                if let Some(mv) = raw.moves.get(index) {
                    converted.reason = format!(
                        "line {}:{}: ply {} ({}): {}",
                        mv.line,
                        mv.column,
                        index + 1,
                        mv.text,
                        converted.reason
                    );
                    converted = converted
                        .with_metadata("line", mv.line.to_string())
                        .with_metadata("column", mv.column.to_string())
                        .with_metadata("move", mv.text.to_string());
                }
            }
            converted.into()
        }
    })
}

/// The line where a game read from PGN starts (the error's line when no game started).
fn game_start(game: &adjudicate::ReadGame) -> u32 {
    match (&game.read_error, game.raw.line) {
        (Some(error), 0) => error.line,
        (_, line) => line,
    }
}

/// Answers of an AdjudicateGames stream that wait for the client in the stream's channel;
/// with [`STREAM_BATCH`] in the hands of the stream's task, the most answers a stream has
/// ready ahead of its reader (besides what the transport holds under the answer budget).
const STREAM_BUFFER: usize = 4;

/// Most answers a worker produces for a stream at once, before the stream's task hands them
/// to the client.
const STREAM_BATCH: usize = 8;

/// Most bytes of answers (encoded) a worker produces for a stream at once: a batch ends after
/// the answer that reaches it.
const STREAM_BATCH_BYTES: usize = 64 * 1024;

/// Why answering a stream message stopped early.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum StreamEnd {
    /// The games-per-stream limit is reached.
    TooManyGames,
}

/// The games of one AdjudicateGames message not answered yet: produced a batch at a time as
/// the client reads the answers ([`MessageGames::next_batch`], on a worker), so that a message
/// of thousands of games never has its answers built at once.
enum MessageGames {
    /// A message answered by one response (a game given as moves, or an error).
    One(Option<Box<AdjudicateGamesResponse>>, Option<StreamEnd>),
    /// The games of a PGN text, read one at a time.
    Pgn {
        games: Box<dyn Iterator<Item = adjudicate::ReadGame> + Send>,
        settings: Settings,
        /// Games the stream may still answer.
        remaining: usize,
        end: Option<StreamEnd>,
    },
}

impl MessageGames {
    /// The games of `message`, the first of which is the stream's `first`.
    fn new(message: AdjudicateGamesRequest, first: Place, limits: Limits) -> Self {
        let remaining = limits.max_games_per_stream.saturating_sub(first.index);
        // A message that cannot hold games is answered by one error.
        let single = |result| {
            if remaining == 0 {
                return Self::One(None, Some(StreamEnd::TooManyGames));
            }
            Self::One(
                Some(Box::new(AdjudicateGamesResponse {
                    index: u32::try_from(first.index).unwrap_or(u32::MAX),
                    // A game given as moves has no tags: its place in the stream.
                    number: arbiter_pgn::GameNumber::counted(first.index).to_string(),
                    request_index: u32::try_from(first.request_index).unwrap_or(u32::MAX),
                    result: Some(result),
                    ..AdjudicateGamesResponse::default()
                })),
                None,
            )
        };
        let error = |error: ConvertError| {
            adjudicate_games_response_error(convert::convert_error_to_wire(&error))
        };
        let notation =
            match Notation::from_wire(message.san_language, message.castling_notation, "") {
                Ok(notation) => notation,
                Err(e) => return single(error(e)),
            };
        match message.source {
            Some(adjudicate_games_request::Source::Game(game)) => {
                let verdict = ReplayedGame::read(
                    &game,
                    message.event.as_ref(),
                    message.claim_draw,
                    EventRules {
                        rules: message.rules.as_ref(),
                        incidents: &message.incidents,
                    },
                    limits,
                    notation,
                )
                .and_then(|replayed| replayed.adjudicate());
                single(match verdict {
                    Ok(verdict) => {
                        arbiter_proto::v1::adjudicate_games_response::Result::Verdict(verdict)
                    }
                    Err(e) => error(e),
                })
            }
            Some(adjudicate_games_request::Source::Pgn(pgn)) => {
                if let Err(e) = check_pgn_size(pgn.len(), limits, "pgn") {
                    return single(error(e));
                }
                if message.event.is_some() {
                    return single(error(ConvertError::new(
                        "event",
                        ErrorReason::InvalidValue,
                        "an event is only accepted with game: PGN games infer theirs from their tags",
                    )));
                }
                if !message.incidents.is_empty() {
                    return single(error(ConvertError::new(
                        "incidents",
                        ErrorReason::InvalidValue,
                        "incidents are only accepted with game: a message of PGN text may hold many games, and incidents belong to one; send the game as moves, or as AdjudicateGame with pgn",
                    )));
                }
                let rules = match convert::rule_set_from_wire(message.rules.as_ref(), "rules") {
                    Ok(rules) => rules,
                    Err(e) => return single(error(e)),
                };
                let settings = Settings {
                    notation,
                    ..settings(limits, message.claim_draw, rules)
                };
                let reader = arbiter_pgn::Reader::with_limits(
                    std::io::Cursor::new(pgn.into_bytes()),
                    settings.limits.reader_limits(),
                );
                let games =
                    adjudicate::read_games_from(reader, first, arbiter_pgn::RawGame::default);
                Self::Pgn {
                    games: Box::new(games),
                    settings,
                    remaining,
                    end: None,
                }
            }
            None => single(error(ConvertError::missing("game", "a game or pgn"))),
        }
    }

    /// The next answers, at most [`STREAM_BATCH`] of them or [`STREAM_BATCH_BYTES`] (empty
    /// once the message is answered). Runs on a worker; stops between games once its call has
    /// ended.
    fn next_batch(&mut self) -> Vec<AdjudicateGamesResponse> {
        match self {
            Self::One(response, _) => response
                .take()
                .map(|response| *response)
                .into_iter()
                .collect(),
            Self::Pgn {
                games,
                settings,
                remaining,
                end,
            } => {
                let mut batch = Vec::new();
                let mut bytes = 0;
                while batch.len() < STREAM_BATCH
                    && bytes < STREAM_BATCH_BYTES
                    && end.is_none()
                    && !arbiter_rules::interrupt::interrupted()
                {
                    let Some(game) = games.next() else { break };
                    if game.at.game_index >= *remaining {
                        *end = Some(StreamEnd::TooManyGames);
                        break;
                    }
                    let response = game.adjudicate(settings).response();
                    bytes += prost::Message::encoded_len(&response);
                    batch.push(response);
                }
                batch
            }
        }
    }

    /// Why the stream must end after this message, if it must.
    fn end(&self) -> Option<StreamEnd> {
        match self {
            Self::One(_, end) | Self::Pgn { end, .. } => *end,
        }
    }
}

fn adjudicate_games_response_error(
    error: arbiter_proto::v1::GameError,
) -> arbiter_proto::v1::adjudicate_games_response::Result {
    arbiter_proto::v1::adjudicate_games_response::Result::Error(error)
}

/// The response stream of AdjudicateGames (and of FollowGame, `T` then its response): the
/// responses the stream's task sends, then the status it ended with, if any. The final status
/// travels apart from the responses, so that a stream whose client stopped reading (its
/// response buffer full) can still be ended with a status the client sees when it reads again.
pub struct ResponseStream<T = AdjudicateGamesResponse> {
    responses: mpsc::Receiver<T>,
    end: Option<oneshot::Receiver<Status>>,
}

impl<T> ResponseStream<T> {
    /// The stream of `responses`, then of the status sent on `end`, if any.
    fn new(responses: mpsc::Receiver<T>, end: oneshot::Receiver<Status>) -> Self {
        Self {
            responses,
            end: Some(end),
        }
    }
}

impl<T> Stream for ResponseStream<T> {
    type Item = Result<T, Status>;

    fn poll_next(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        if let Some(response) = std::task::ready!(self.responses.poll_recv(cx)) {
            return Poll::Ready(Some(Ok(response)));
        }
        // The task has ended: its status, if it left one.
        let Some(end) = self.end.as_mut() else {
            return Poll::Ready(None);
        };
        let status = std::task::ready!(Pin::new(end).poll(cx)).ok();
        self.end = None;
        Poll::Ready(status.map(Err))
    }
}

/// The task behind one AdjudicateGames stream. It holds the stream's admission for its whole
/// life (each message's request bytes until that message's last answer is sent, see
/// [`answer_stream`]); reads the request messages, answers each a batch at a time on a worker
/// (at most `times.message` of work per message, interrupted when the client goes away), and
/// sends the answers in order as the client reads them. The stream ends when it makes no
/// progress (no request message received and no answer taken by the client) for
/// `times.idle`: no thread ever waits for a client. The client's deadline, if it sent one,
/// ends the stream with DEADLINE_EXCEEDED wherever it is.
async fn run_stream(
    inbound: Streaming<AdjudicateGamesRequest>,
    service: Arbiter,
    admission: Option<Admission>,
    deadline: Option<CallDeadline>,
    tx: mpsc::Sender<AdjudicateGamesResponse>,
    end: oneshot::Sender<Status>,
) {
    let answering = answer_stream(inbound, &service, admission.as_ref(), &tx);
    let ended = match deadline {
        // Past the client's deadline, the work in progress is dropped (and so interrupted).
        Some(CallDeadline(deadline)) => tokio::time::timeout_at(deadline, answering)
            .await
            .unwrap_or_else(|_| {
                Some(Status::deadline_exceeded(
                    "the call's deadline (grpc-timeout) passed: the stream is closed",
                ))
            }),
        None => answering.await,
    };
    if let Some(status) = ended {
        let _ = end.send(status);
    }
}

/// The messages of one AdjudicateGames stream, answered in order until the stream ends: `None`
/// when it ended cleanly or its client is gone, else the status to end it with.
///
/// The request bytes of each message (under `--max-request-bytes-in-flight`, held by the
/// stream's `admission`) are held until the message's last answer is handed to the client, so
/// that what a message costs stays counted until it is answered; a long stream never holds
/// more than the message being answered and the one arriving (the request body is read only
/// while the task waits for a message).
async fn answer_stream(
    mut inbound: Streaming<AdjudicateGamesRequest>,
    service: &Arbiter,
    admission: Option<&Admission>,
    tx: &mpsc::Sender<AdjudicateGamesResponse>,
) -> Option<Status> {
    let (limits, times) = (service.limits, service.stream_times);
    let idle_secs = times.idle.as_secs_f64();
    let no_progress = || {
        Some(Status::deadline_exceeded(format!(
            "no progress for {idle_secs} s (no request message received and no answer read): \
             the stream is closed"
        )))
    };
    let mut first = Place::default();
    let mut draining = service.draining.clone();
    let mut progress = tokio::time::Instant::now();
    loop {
        let received = tokio::select! {
            // A drain ends the stream between messages, even one whose next message is ready.
            biased;
            () = drained(&mut draining) => break Some(Status::unavailable(STREAM_DRAINED)),
            received = tokio::time::timeout_at(progress + times.idle, inbound.message()) => received,
        };
        let message = match received {
            Ok(Ok(Some(message))) => message,
            Ok(Ok(None)) => break None,
            Ok(Err(status)) => break Some(status),
            Err(_) => break no_progress(),
        };
        progress = tokio::time::Instant::now();
        // Like a unary call's deadline, `--request-timeout` covers a message's work *and* the
        // delivery of its answers: its request bytes are held until its last answer is handed
        // over, so a client that reads a few KiB now and then (never idle, never a slow reader
        // by the piece) would otherwise hold them for hours and starve the calls that wait for
        // request bytes (a fresh review's finding: 8 such streams held the whole budget).
        let message_deadline = progress + times.message;
        let at = first;
        // The oldest complete message held is this one: every earlier one was taken so.
        // Held until its last answer is handed over.
        let message_bytes = admission.and_then(Admission::take_message_bytes);
        let mut games = Some(MessageGames::new(message, at, limits));
        let mut worked = Duration::ZERO;
        let mut count = 0;
        loop {
            let Some(mut batch_games) = games.take() else {
                break;
            };
            let started = tokio::time::Instant::now();
            let work = service.workers.run_patiently((), move || {
                let batch = batch_games.next_batch();
                Ok((batch, batch_games))
            });
            let answered = tokio::select! {
                answered = tokio::time::timeout(times.message.saturating_sub(worked), work) => answered,
                // Dropping the work interrupts it.
                () = tx.closed() => return None,
            };
            worked += started.elapsed();
            let (batch, rest) = match answered {
                Ok(Ok(answered)) => answered,
                Ok(Err(status)) => return Some(status),
                Err(_) => {
                    return Some(Status::deadline_exceeded(format!(
                        "the games of request message {} took more than {} ms",
                        first.request_index,
                        times.message.as_millis()
                    )));
                }
            };
            if batch.is_empty() {
                games = Some(rest);
                break;
            }
            for response in batch {
                let until = (progress + times.idle).min(message_deadline);
                match tokio::time::timeout_at(until, tx.send(response)).await {
                    Ok(Ok(())) => progress = tokio::time::Instant::now(),
                    Ok(Err(_)) => return None, // the client is gone
                    Err(_) if until == message_deadline => {
                        return Some(Status::deadline_exceeded(format!(
                            "the answers of request message {} were not read within {} ms of \
                             its arrival (--request-timeout covers a message's work and the \
                             delivery of its answers): the stream is closed",
                            first.request_index,
                            times.message.as_millis()
                        )));
                    }
                    Err(_) => return no_progress(),
                }
                count += 1;
            }
            games = Some(rest);
        }
        drop(message_bytes);
        first.index += count;
        first.request_index += 1;
        if games.and_then(|games| games.end()) == Some(StreamEnd::TooManyGames) {
            break Some(Status::resource_exhausted(format!(
                "more than {} games on one stream: open another stream for the rest",
                limits.max_games_per_stream
            )));
        }
    }
}

fn validate_position(
    request: &ValidatePositionRequest,
) -> Result<ValidatePositionResponse, Status> {
    let notation = Notation::from_wire(0, request.castling_notation, "")?;
    // A request without a position, with an unknown variant or a Chess960 number out of
    // range is malformed; a position that cannot be read is the answer "invalid".
    let source = convert::position_source_from_wire(request.position.as_ref(), "position")?;
    match source.read("position") {
        Ok(position) => Ok(ValidatePositionResponse {
            valid: true,
            fen: notation.fen(&position),
            reasons: Vec::new(),
            board: Some(convert::board_to_wire(&position)),
            status: Some(convert::status_to_wire(&position)),
            variant: convert::variant_to_wire(position.castling_mode()).into(),
            chess960_number: (position.castling_mode() == CastlingMode::Chess960)
                .then(|| position.chess960_number())
                .flatten(),
            ..ValidatePositionResponse::default()
        }),
        Err(error) => Ok(ValidatePositionResponse {
            valid: false,
            cause: error.metadata_value("cause").unwrap_or_default().to_owned(),
            article: error
                .metadata_value("article")
                .unwrap_or_default()
                .to_owned(),
            field: error.field,
            reasons: vec![error.reason],
            ..ValidatePositionResponse::default()
        }),
    }
}

#[tonic::async_trait]
impl ArbiterService for Arbiter {
    async fn list_legal_moves(
        &self,
        request: Request<ListLegalMovesRequest>,
    ) -> Result<Response<ListLegalMovesResponse>, Status> {
        self.unary(request, list_legal_moves).await
    }

    async fn apply_move(
        &self,
        request: Request<ApplyMoveRequest>,
    ) -> Result<Response<ApplyMoveResponse>, Status> {
        let limits = self.limits;
        self.unary(request, move |request| apply_move(request, limits))
            .await
    }

    async fn apply_moves(
        &self,
        request: Request<ApplyMovesRequest>,
    ) -> Result<Response<ApplyMovesResponse>, Status> {
        let limits = self.limits;
        self.unary(request, move |request| apply_moves(request, limits))
            .await
    }

    /// A small game given as moves is replayed first, then adjudicated, each step on this thread
    /// when there is room for it: where the verdict needs an analysis, only that step goes to a
    /// worker. Any other request is one step, on a worker (see [`Workers::run_small`]).
    async fn adjudicate_game(
        &self,
        request: Request<AdjudicateGameRequest>,
    ) -> Result<Response<AdjudicateGameResponse>, Status> {
        let limits = self.limits;
        let small_game = matches!(
            request.get_ref().source,
            Some(adjudicate_game_request::Source::Game(_))
        ) && prost::Message::encoded_len(request.get_ref())
            <= self.max_inline_bytes;
        let answer = if small_game {
            let admission = request.extensions().get::<Admission>().cloned();
            let replayed = self
                .workers
                .run_small(
                    admission.clone(),
                    request.into_inner(),
                    true,
                    move |request| replay_wire_game(request, limits),
                )
                .await
                .inspect_err(crate::metrics::record_rejection)?;
            self.workers
                .run_small(admission, replayed, true, |replayed| {
                    replayed.adjudicate().map_err(Status::from)
                })
                .await
                .map(Response::new)
        } else {
            self.unary(request, move |request| adjudicate_game(request, limits))
                .await
        };
        answer.inspect(|response| crate::metrics::record_adjudication(response.get_ref()))
    }

    type AdjudicateGamesStream = ResponseStream;

    async fn adjudicate_games(
        &self,
        request: Request<Streaming<AdjudicateGamesRequest>>,
    ) -> Result<Response<Self::AdjudicateGamesStream>, Status> {
        let admission = request.extensions().get::<Admission>().cloned();
        let deadline = request.extensions().get::<CallDeadline>().copied();
        let (tx, responses) = mpsc::channel(STREAM_BUFFER);
        let (end_tx, end) = oneshot::channel();
        tokio::spawn(run_stream(
            request.into_inner(),
            self.clone(),
            admission,
            deadline,
            tx,
            end_tx,
        ));
        Ok(Response::new(ResponseStream {
            responses,
            end: Some(end),
        }))
    }

    type FollowGameStream = ResponseStream<arbiter_proto::v1::FollowGameResponse>;

    /// One game followed while it is played: see [`crate::follow`].
    async fn follow_game(
        &self,
        request: Request<Streaming<arbiter_proto::v1::FollowGameRequest>>,
    ) -> Result<Response<Self::FollowGameStream>, Status> {
        if request
            .extensions()
            .get::<crate::grpc_web::GrpcWebCall>()
            .is_some()
        {
            return Err(Status::unimplemented(crate::follow::NOT_OVER_GRPC_WEB));
        }
        let admission = request.extensions().get::<Admission>().cloned();
        let deadline = request.extensions().get::<CallDeadline>().copied();
        // Never aged when the call came another way (in-process tests without the transport).
        let aged = request
            .extensions()
            .get::<crate::transport::ConnectionAged>()
            .map_or_else(|| watch::channel(false).1, |aged| aged.0.clone());
        let (responses, end) = crate::follow::start_stream(
            request.into_inner(),
            crate::follow::Context {
                limits: self.limits,
                workers: self.workers.clone(),
                message_timeout: self.stream_times.message,
                bounds: self.follow,
                draining: self.draining.clone(),
                aged,
            },
            admission,
            deadline,
        );
        Ok(Response::new(ResponseStream::new(responses, end)))
    }

    async fn validate_position(
        &self,
        request: Request<ValidatePositionRequest>,
    ) -> Result<Response<ValidatePositionResponse>, Status> {
        self.unary(request, validate_position)
            .await
            .inspect(|response| crate::metrics::record_validation(response.get_ref().valid))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tonic::Code;

    fn pgn_request(pgn: &str) -> AdjudicateGameRequest {
        AdjudicateGameRequest {
            source: Some(adjudicate_game_request::Source::Pgn(pgn.to_owned())),
            ..AdjudicateGameRequest::default()
        }
    }

    fn unary(pgn: &str) -> Result<AdjudicateGameResponse, Status> {
        adjudicate_pgn(pgn, &pgn_request(pgn), Limits::default())
    }

    /// The text: two tag sections, one movetext. The reader used to merge them into one
    /// game (R1's players, R2's checkmate); AdjudicateGame must refuse text that is not exactly
    /// one game, on field "pgn", saying why.
    #[test]
    fn adjudicate_game_refuses_text_holding_more_than_one_game() {
        let text = "[Event \"R1\"]\n[White \"A\"]\n[Black \"B\"]\n[Result \"*\"]\n\n\
[Event \"R2\"]\n[White \"C\"]\n[Black \"D\"]\n[Result \"0-1\"]\n\n1. f3 e5 2. g4 Qh4# 0-1\n";
        let status = unary(text).expect_err("two games");
        assert_eq!(status.code(), Code::InvalidArgument);
        assert_eq!(
            status.message(),
            "pgn: the text holds 2 games (starting at lines 1, 6), not one: AdjudicateGame takes exactly one game; send each game alone, or use AdjudicateGames"
        );
        // Two complete games, and a movetext after a termination marker, are refused alike.
        let status = unary("1. e4 *\n\n1. d4 *\n").expect_err("two games");
        assert!(
            status
                .message()
                .contains("holds 2 games (starting at lines 1, 3)"),
            "{}",
            status.message()
        );
        // One game, whatever it has around it (blank lines, a trailing comment), is answered.
        let verdict = unary("\n[Result \"0-1\"]\n\n1. f3 e5 2. g4 Qh4# 0-1\n\n").expect("one game");
        assert_eq!(verdict.outcome.expect("outcome").fide_article, "5.1.1");
        // A single game in error keeps its own error.
        let status = unary("[Event \"x\"]\n\n1. e4 e5 2. Ke3 *\n").expect_err("illegal");
        assert!(
            status.message().contains("line 3:13: ply 3 (Ke3)"),
            "{}",
            status.message()
        );
    }

    /// Issue 26, item 3: the reader skips a game with an error to its end by the rule this
    /// check counts games with (a termination marker, then movetext or a tag section), not to
    /// the next tag section. A bad game followed by a game without tags is two games here, as
    /// it is two records on the stream; a bad game alone is its own error, naming the lines
    /// skipped in the message and the ErrorInfo metadata.
    #[test]
    fn r_a_bad_game_is_counted_as_one_game_and_names_the_lines_skipped() {
        use tonic_types::StatusExt as _;
        let status = unary("1. e4 ) e5\n2. Nf3 *\n\n1. d4 d5 *\n").expect_err("two games");
        assert!(
            status
                .message()
                .contains("holds 2 games (starting at lines 1, 4)"),
            "{}",
            status.message()
        );
        let status = unary("1. e4 ) e5\n2. Nf3 *\n").expect_err("a stray ')'");
        assert_eq!(
            status.message(),
            "pgn: line 1:7: ')' closes no variation (PGN standard 8.2.5); lines 1-2 skipped to the end of the game"
        );
        let info = status.get_details_error_info().expect("ErrorInfo");
        assert_eq!(
            (
                info.reason.as_str(),
                info.metadata.get("skipped_first_line").map(String::as_str),
                info.metadata.get("skipped_last_line").map(String::as_str)
            ),
            ("INVALID_PGN", Some("1"), Some("2"))
        );
        // An illegal move skips nothing: no such metadata.
        let info = unary("1. e4 e5 2. Ke3 *\n")
            .expect_err("illegal")
            .get_details_error_info()
            .expect("ErrorInfo");
        assert_eq!(info.metadata.get("skipped_first_line"), None);
    }

    /// Issue 12, a fresh reviewer's report (F3, F4): the cause and article of a refused position
    /// reached only the statuses of some RPCs. A bad `FEN` tag through AdjudicateGame now
    /// carries them in its ErrorInfo like an illegal move, and ValidatePosition answers an
    /// invalid position with its field, cause and article beside the sentence.
    #[test]
    fn r_refused_positions_carry_cause_and_article_in_adjudicate_game_and_validate_position() {
        use tonic_types::StatusExt as _;
        let two_kings = "[SetUp \"1\"]\n[FEN \"4k3/8/8/8/8/8/8/K3K3 w - - 0 1\"]\n\n1. Ka2 *\n";
        let status = unary(two_kings).expect_err("two white kings");
        assert_eq!(status.code(), Code::InvalidArgument);
        let info = status.get_details_error_info().expect("ErrorInfo");
        assert_eq!(
            (
                info.reason.as_str(),
                info.metadata.get("cause").map(String::as_str),
                info.metadata.get("article").map(String::as_str)
            ),
            ("INVALID_POSITION", Some("KING_COUNT"), Some("2.2"))
        );
        let pinned = "[SetUp \"1\"]\n[FEN \"4k3/8/8/8/1b6/8/3N4/4K3 w - - 0 1\"]\n\n1. Nf3 *\n";
        let info = unary(pinned)
            .expect_err("pinned")
            .get_details_error_info()
            .expect("ErrorInfo");
        assert_eq!(
            (
                info.metadata.get("cause").map(String::as_str),
                info.metadata.get("article").map(String::as_str)
            ),
            (Some("PINNED"), Some("3.9.2"))
        );
        let validate = |fen: &str| {
            validate_position(&ValidatePositionRequest {
                position: Some(arbiter_proto::v1::Position {
                    kind: Some(arbiter_proto::v1::position::Kind::Fen(fen.to_owned())),
                    ..arbiter_proto::v1::Position::default()
                }),
                ..ValidatePositionRequest::default()
            })
            .expect("answered")
        };
        let answer = validate("4k3/8/8/8/8/8/8/K3K3 w - - 0 1");
        assert_eq!(
            (
                answer.valid,
                answer.field.as_str(),
                answer.cause.as_str(),
                answer.article.as_str()
            ),
            (false, "position.fen", "KING_COUNT", "2.2")
        );
        assert_eq!(answer.reasons, ["White has 2 kings, expected exactly one"]);
        // Text that is not a FEN has a field and a sentence, but no cause of the rules.
        let answer = validate("8/8/8 w - - 0 1");
        assert_eq!(
            (answer.valid, answer.field.as_str(), answer.cause.as_str()),
            (false, "position.fen", "")
        );
        let answer = validate("startpos");
        assert!(answer.valid && answer.field.is_empty() && answer.cause.is_empty());
    }

    /// Issue 11 item 5, the same kind in another place: a wrong `+`/`#` was warned about in
    /// PGN only; a game's list of moves read it silently. Now both warn, `line` 0 for a list.
    /// A fresh user's report (issue 11, review of 00676e2): a move ending in a tab or a line
    /// end after its wrong suffix (`"Qxf7+\t"`) was read without the warning a trailing space
    /// gets.
    #[test]
    fn r_wrong_check_suffix_before_trailing_white_space_is_warned() {
        for last in ["Qxf7+ ", "Qxf7+\t", "Qxf7+\n", "Qxf7+\r\n"] {
            let mut moves: Vec<String> = ["e4", "e5", "Qh5", "Nc6", "Bc4", "Nf6"]
                .map(str::to_owned)
                .to_vec();
            moves.push(last.to_owned());
            let request = AdjudicateGameRequest {
                source: Some(adjudicate_game_request::Source::Game(
                    arbiter_proto::v1::Game { start: None, moves },
                )),
                ..AdjudicateGameRequest::default()
            };
            let verdict = adjudicate_game(&request, Limits::default()).expect("verdict");
            let warnings: Vec<(&str, u32)> = verdict
                .warnings
                .iter()
                .map(|w| (w.code.as_str(), w.ply))
                .collect();
            assert_eq!(warnings, [("wrong_check_suffix", 7)], "{last:?}");
        }
    }

    #[test]
    fn wrong_check_suffix_in_a_list_of_moves_is_warned_at_its_ply() {
        let moves = ["e4+", "e5", "Qh5", "Nc6", "Bc4", "Nf6", "Qxf7+", "Kxf7#"];
        let request = AdjudicateGameRequest {
            source: Some(adjudicate_game_request::Source::Game(
                arbiter_proto::v1::Game {
                    start: None,
                    moves: moves[..7].iter().map(|m| (*m).to_owned()).collect(),
                },
            )),
            ..AdjudicateGameRequest::default()
        };
        let verdict = adjudicate_game(&request, Limits::default()).expect("verdict");
        // Qxf7 is mate (Scholar's mate) written with '+'; e4 gives no check.
        assert_eq!(verdict.outcome.expect("outcome").fide_article, "5.1.1");
        let warnings: Vec<(&str, u32, u32)> = verdict
            .warnings
            .iter()
            .map(|w| (w.code.as_str(), w.ply, w.line))
            .collect();
        assert_eq!(
            warnings,
            [("wrong_check_suffix", 1, 0), ("wrong_check_suffix", 7, 0)]
        );
        assert!(
            verdict.warnings[1]
                .message
                .contains("checkmates, so it should have '#'"),
            "{:?}",
            verdict.warnings[1]
        );
        // A move after the end is not read, so not warned about; UCI has no suffix.
        let request = AdjudicateGameRequest {
            source: Some(adjudicate_game_request::Source::Game(
                arbiter_proto::v1::Game {
                    start: None,
                    moves: [
                        "e2e4", "e7e5", "d1h5", "b8c6", "f1c4", "g8f6", "h5f7", "Kxf7#",
                    ]
                    .iter()
                    .map(|m| (*m).to_owned())
                    .collect(),
                },
            )),
            ..AdjudicateGameRequest::default()
        };
        let verdict = adjudicate_game(&request, Limits::default()).expect("verdict");
        let codes: Vec<&str> = verdict.warnings.iter().map(|w| w.code.as_str()).collect();
        assert_eq!(codes, ["moves_after_end"]);
    }

    /// FIDE 5.2.3 (issue 11 item 5): AdjudicateGame with a `game` and an agreed draw before any
    /// move keeps the draw, warns at ply 0 and names the Laws edition.
    #[test]
    fn adjudicate_game_warns_of_an_agreed_draw_before_any_move() {
        let request = AdjudicateGameRequest {
            source: Some(adjudicate_game_request::Source::Game(
                arbiter_proto::v1::Game::default(),
            )),
            event: Some(arbiter_proto::v1::GameEvent {
                kind: arbiter_proto::v1::GameEventKind::AgreedDraw.into(),
                side: arbiter_proto::v1::Color::Unspecified.into(),
            }),
            ..AdjudicateGameRequest::default()
        };
        let verdict = adjudicate_game(&request, Limits::default()).expect("verdict");
        assert_eq!(verdict.outcome.expect("outcome").fide_article, "5.2.3");
        let warnings: Vec<(&str, u32, u32)> = verdict
            .warnings
            .iter()
            .map(|w| (w.code.as_str(), w.ply, w.line))
            .collect();
        assert_eq!(warnings, [("early_agreed_draw", 0, 0)]);
        assert_eq!(verdict.laws, "FIDE Laws of Chess, 2023");
    }

    fn texts(moves: &[&str]) -> Vec<String> {
        moves.iter().map(|mv| (*mv).to_owned()).collect()
    }

    /// The ErrorInfo metadata of an INVALID_ARGUMENT status, with its reason.
    fn error_info(status: &Status) -> (String, std::collections::BTreeMap<String, String>) {
        use tonic_types::StatusExt as _;
        assert_eq!(status.code(), Code::InvalidArgument, "{status:?}");
        let info = status
            .get_error_details()
            .error_info()
            .cloned()
            .expect("ErrorInfo");
        (info.reason, info.metadata.into_iter().collect())
    }

    /// Issue 27 item 9: ApplyMoves answers the outcome and the claims after its last move, as
    /// ApplyMove on a game does, and they reach the JSON of pbjson (`outcome`, `claims`).
    #[test]
    fn r_apply_moves_answers_the_outcome_and_claims_as_apply_move_does() {
        let limits = Limits::default();
        let mate = apply_moves(
            &ApplyMovesRequest {
                moves: texts(&["f3", "e5", "g4", "Qh4#"]),
                ..ApplyMovesRequest::default()
            },
            limits,
        )
        .expect("answered");
        let outcome = mate.outcome.as_ref().expect("the game ended");
        assert_eq!(
            (
                outcome.result_text.as_str(),
                outcome.fide_article.as_str(),
                outcome.ply
            ),
            ("0-1", "5.1.1", 4)
        );
        assert!(mate.claims.is_empty());
        let json = serde_json::to_value(&mate).expect("JSON");
        assert_eq!(json["outcome"]["termination"], "TERMINATION_CHECKMATE");
        assert_eq!(json["outcome"]["fide_article"], "5.1.1");
        assert_eq!(json["claims"], serde_json::json!([]));

        // Ng1 next would repeat the start position a third time: claimable by announcing it,
        // as ApplyMove on the same game says.
        let dance = ["Nf3", "Nf6", "Ng1", "Ng8", "Nf3", "Nf6", "Ng1"];
        let whole = apply_moves(
            &ApplyMovesRequest {
                moves: texts(&dance),
                ..ApplyMovesRequest::default()
            },
            limits,
        )
        .expect("answered");
        let last = apply_move(
            &ApplyMoveRequest {
                subject: Some(apply_move_request::Subject::Game(arbiter_proto::v1::Game {
                    start: None,
                    moves: texts(&dance[..6]),
                })),
                r#move: "Ng1".to_owned(),
                ..ApplyMoveRequest::default()
            },
            limits,
        )
        .expect("answered");
        assert_eq!(whole.outcome, None);
        assert_eq!(whole.claims, last.claims);
        assert_eq!(whole.claims.len(), 1);
        assert_eq!(
            whole.claims[0].r#move.as_ref().map(|mv| mv.san.as_str()),
            Some("Ng8")
        );
        let json = serde_json::to_value(&whole).expect("JSON");
        assert_eq!(json["outcome"], serde_json::Value::Null);
        assert_eq!(json["claims"][0]["kind"], "CLAIM_KIND_THREEFOLD_REPETITION");
        assert_eq!(json["claims"][0]["claimable_now"], false);
    }

    /// Issue 27 item 9: a move after the game's end is refused naming the ending, with cause
    /// GAME_OVER, the ending's article and ply, in ApplyMoves, in ApplyMove on a game and in
    /// ApplyMove on a checkmate position (where it said "does not parry the check").
    #[test]
    fn r_a_move_after_the_end_is_refused_as_game_over_in_apply_move_and_apply_moves() {
        let limits = Limits::default();
        let status = apply_moves(
            &ApplyMovesRequest {
                moves: texts(&["f3", "e5", "g4", "Qh4#", "a3"]),
                ..ApplyMovesRequest::default()
            },
            limits,
        )
        .expect_err("after the mate");
        assert_eq!(
            status.message(),
            "moves[4]: ply 5 (a3): the game ended at ply 4 (checkmate, FIDE Laws 5.1.1)"
        );
        let (reason, metadata) = error_info(&status);
        assert_eq!(reason, "ILLEGAL_MOVE");
        let expected: std::collections::BTreeMap<String, String> = [
            ("article", "5.1.1"),
            ("cause", "GAME_OVER"),
            ("end_ply", "4"),
            ("field", "moves[4]"),
            ("index", "4"),
            ("move", "a3"),
            ("move_error", "game_over"),
            ("ply", "5"),
            ("termination", "TERMINATION_CHECKMATE"),
        ]
        .into_iter()
        .map(|(k, v)| (k.to_owned(), v.to_owned()))
        .collect();
        assert_eq!(metadata, expected);

        let status = apply_move(
            &ApplyMoveRequest {
                subject: Some(apply_move_request::Subject::Game(arbiter_proto::v1::Game {
                    start: None,
                    moves: texts(&["f3", "e5", "g4", "Qh4#"]),
                })),
                r#move: "Ke2".to_owned(),
                ..ApplyMoveRequest::default()
            },
            limits,
        )
        .expect_err("after the mate");
        assert_eq!(
            status.message(),
            "move: Ke2: the game ended at ply 4 (checkmate, FIDE Laws 5.1.1)"
        );
        assert_eq!(error_info(&status).1["cause"], "GAME_OVER");

        let status = apply_move(
            &ApplyMoveRequest {
                subject: Some(apply_move_request::Subject::Position(
                    arbiter_proto::v1::Position {
                        kind: Some(arbiter_proto::v1::position::Kind::Fen(
                            "rnb1kbnr/pppp1ppp/8/4p3/6Pq/5P2/PPPPP2P/RNBQKBNR w KQkq - 1 3"
                                .to_owned(),
                        )),
                        ..arbiter_proto::v1::Position::default()
                    },
                )),
                r#move: "Ke2".to_owned(),
                ..ApplyMoveRequest::default()
            },
            limits,
        )
        .expect_err("checkmate");
        assert_eq!(
            status.message(),
            "move: Ke2: the game is over in its start position (checkmate, FIDE Laws 5.1.1)"
        );
        let (_, metadata) = error_info(&status);
        assert_eq!(
            (metadata["cause"].as_str(), metadata["end_ply"].as_str()),
            ("GAME_OVER", "0")
        );
    }
}
