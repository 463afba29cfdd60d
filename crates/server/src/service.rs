//! The `arbiter.v1.ArbiterService` handlers: thin adapters between the wire conversions of
//! `arbiter-proto` and the rules of `arbiter-rules`.
//!
//! The chess work of every call runs on tokio's blocking pool, so that a long analysis never
//! stalls the threads that answer health checks and accept connections, and the call deadline of
//! [`crate::guard`] can answer on time.

use arbiter_proto::convert::{self, ConvertError, Notation};
use arbiter_proto::v1::{
    AdjudicateGameRequest, AdjudicateGameResponse, ApplyMoveRequest, ApplyMoveResponse,
    ApplyMovesRequest, ApplyMovesResponse, ListLegalMovesRequest, ListLegalMovesResponse,
    ValidatePositionRequest, ValidatePositionResponse, adjudicate_game_request, apply_move_request,
    arbiter_service_server::ArbiterService,
};
use std::pin::Pin;

use arbiter_pgn::{RawGame, Reader};
use arbiter_proto::convert::ErrorReason;
use arbiter_proto::v1::{
    AdjudicateGamesRequest, AdjudicateGamesResponse, adjudicate_games_request,
};
use arbiter_rules::{AdjudicationRequest, AnalysisBudget, CastlingMode};
use tokio::sync::mpsc;
use tokio_stream::{Stream, wrappers::ReceiverStream};
use tonic::{Request, Response, Status, Streaming};

use crate::adjudicate::{self, Place, Settings};

/// Request limits enforced by the handlers.
#[derive(Debug, Clone, Copy)]
pub struct Limits {
    /// Most moves accepted in one request or game.
    pub max_moves: usize,
    /// How much analysis dead positions and "can the opponent still mate?" may use.
    pub analysis: AnalysisBudget,
    /// Largest PGN text of one request message, in bytes.
    pub max_pgn_bytes: usize,
    /// Most games answered on one `AdjudicateGames` stream.
    pub max_games_per_stream: usize,
}

impl Default for Limits {
    fn default() -> Self {
        Self {
            max_moves: 10_000,
            analysis: AnalysisBudget::Full,
            max_pgn_bytes: 1 << 20,
            max_games_per_stream: 10_000,
        }
    }
}

/// The arbiter service implementation.
#[derive(Debug, Clone)]
pub struct Arbiter {
    limits: Limits,
}

impl Arbiter {
    /// A service enforcing `limits`.
    #[must_use]
    pub fn new(limits: Limits) -> Self {
        Self { limits }
    }

    /// The limits this service enforces.
    #[must_use]
    pub fn limits(&self) -> Limits {
        self.limits
    }
}

/// Runs `work` on the blocking pool; a panic in it becomes INTERNAL instead of a lost call.
async fn blocking<T: Send + 'static>(
    work: impl FnOnce() -> Result<T, Status> + Send + 'static,
) -> Result<Response<T>, Status> {
    match tokio::task::spawn_blocking(work).await {
        Ok(result) => result
            .inspect_err(crate::metrics::record_rejection)
            .map(Response::new),
        Err(error) => {
            tracing::error!(%error, "handler failed");
            Err(Status::internal("internal error while applying the rules"))
        }
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
            let mv = convert::move_from_wire_in(&position, &request.r#move, "move", language)?;
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
            if let Some(ended) = game.outcome() {
                return Err(ConvertError::new(
                    "move",
                    convert::ErrorReason::IllegalMove,
                    format!(
                        "the game already ended at ply {} by {} (FIDE {})",
                        ended.ply,
                        ended.termination.description(),
                        ended.article()
                    ),
                )
                .into());
            }
            let before = game.position().clone();
            let mv = convert::move_from_wire_in(&before, &request.r#move, "move", language)?;
            let (played, _) = convert::move_to_wire_in(&before, &mv, language);
            game.play(mv);
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

fn apply_moves(request: &ApplyMovesRequest, limits: Limits) -> Result<ApplyMovesResponse, Status> {
    convert::check_move_count(request.moves.len(), limits.max_moves, "moves")?;
    let notation = Notation::from_wire(request.san_language, request.castling_notation, "")?;
    let start = convert::optional_position_from_wire(request.position.as_ref(), "position")?;
    let (position, moves) = convert::play_moves_in(
        start,
        &request.moves,
        "moves",
        limits.max_moves,
        notation.language,
    )?;
    Ok(ApplyMovesResponse {
        fen: notation.fen(&position),
        moves,
        status: Some(convert::status_to_wire(&position)),
    })
}

fn adjudicate_game(
    request: &AdjudicateGameRequest,
    limits: Limits,
) -> Result<AdjudicateGameResponse, Status> {
    match &request.source {
        Some(adjudicate_game_request::Source::Pgn(pgn)) => adjudicate_pgn(pgn, request, limits),
        Some(adjudicate_game_request::Source::Game(game)) => {
            let notation =
                Notation::from_wire(request.san_language, request.castling_notation, "")?;
            Ok(adjudicate_wire_game(
                game,
                request.event.as_ref(),
                request.claim_draw,
                limits,
                notation,
            )?)
        }
        None => Err(ConvertError::missing("game", "a game (or pgn)").into()),
    }
}

/// How PGN games of a call with `claim_draw` are adjudicated under `limits`.
/// Adjudicates a game given as start position and moves (unary and streaming calls alike).
fn adjudicate_wire_game(
    game: &arbiter_proto::v1::Game,
    event: Option<&arbiter_proto::v1::GameEvent>,
    claim_draw: bool,
    limits: Limits,
    notation: Notation,
) -> Result<AdjudicateGameResponse, ConvertError> {
    let event = convert::event_from_wire(event, "event")?;
    let game = convert::game_from_wire_in(
        game,
        "game",
        limits.max_moves,
        limits.analysis,
        notation.language,
    )?;
    let adjudication = AdjudicationRequest {
        event,
        claim_draw,
        budget: limits.analysis,
    };
    Ok(convert::adjudicate_with(&game, &adjudication, notation))
}

fn settings(limits: Limits, claim_draw: bool) -> Settings {
    Settings {
        claim_draw,
        analysis: limits.analysis,
        max_moves: limits.max_moves,
        max_game_bytes: limits.max_pgn_bytes,
        notation: Notation::default(),
    }
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

/// AdjudicateGame with `pgn`: exactly one game; a read or replay error is INVALID_ARGUMENT on
/// field "pgn" with the line:column, ply and move.
fn adjudicate_pgn(
    pgn: &str,
    request: &AdjudicateGameRequest,
    limits: Limits,
) -> Result<AdjudicateGameResponse, Status> {
    check_pgn_size(pgn.len(), limits, "pgn")?;
    let event = convert::event_from_wire(request.event.as_ref(), "event")?;
    let notation = Notation::from_wire(request.san_language, request.castling_notation, "")?;
    let settings = Settings {
        notation,
        ..settings(limits, request.claim_draw)
    };
    let mut reader = Reader::with_limits(pgn.as_bytes(), settings.reader_limits());
    let mut raw = RawGame::default();
    match reader.read_game(&mut raw) {
        Ok(true) => {}
        Ok(false) => return Err(ConvertError::missing("pgn", "the PGN text of one game").into()),
        Err(error) => return Err(adjudicate::pgn_error_to_convert(&error, "pgn").into()),
    }
    if !matches!(reader.read_game(&mut RawGame::default()), Ok(false)) {
        return Err(ConvertError::new(
            "pgn",
            ErrorReason::InvalidValue,
            "the text holds more than one game: send one game, or use AdjudicateGames",
        )
        .into());
    }
    adjudicate::adjudicate_raw(&raw, event, &settings)
        .map(|verdict| verdict.response)
        .map_err(|error| adjudicate::pgn_error_to_convert(&error, "pgn").into())
}

/// The response stream of AdjudicateGames.
pub type AdjudicateGamesStream =
    Pin<Box<dyn Stream<Item = Result<AdjudicateGamesResponse, Status>> + Send + 'static>>;

/// Responses an AdjudicateGames stream buffers before it waits for the client to read them.
const STREAM_BUFFER: usize = 16;

/// Why answering a stream message stopped early.
enum StreamEnd {
    /// The client is gone: nobody reads the responses.
    ClientGone,
    /// The games-per-stream limit is reached.
    TooManyGames,
}

/// Answers one message of an AdjudicateGames stream: one response per game on `tx`, in order.
/// Returns the number of responses sent.
fn stream_message(
    message: &AdjudicateGamesRequest,
    first: Place,
    limits: Limits,
    tx: &mpsc::Sender<Result<AdjudicateGamesResponse, Status>>,
) -> Result<usize, StreamEnd> {
    let remaining = limits.max_games_per_stream.saturating_sub(first.index);
    let send = |response: AdjudicateGamesResponse| {
        tx.blocking_send(Ok(response))
            .map_err(|_| StreamEnd::ClientGone)
    };
    // A message that cannot hold games is answered by one error.
    let single = |result| {
        if remaining == 0 {
            return Err(StreamEnd::TooManyGames);
        }
        send(AdjudicateGamesResponse {
            index: u32::try_from(first.index).unwrap_or(u32::MAX),
            request_index: u32::try_from(first.request_index).unwrap_or(u32::MAX),
            result: Some(result),
            ..AdjudicateGamesResponse::default()
        })
        .map(|()| 1)
    };
    let error = |error: ConvertError| {
        adjudicate_games_response_error(adjudicate::convert_error_to_wire(&error))
    };
    let notation = match Notation::from_wire(message.san_language, message.castling_notation, "") {
        Ok(notation) => notation,
        Err(e) => return single(error(e)),
    };
    match &message.source {
        Some(adjudicate_games_request::Source::Game(game)) => {
            let verdict = adjudicate_wire_game(
                game,
                message.event.as_ref(),
                message.claim_draw,
                limits,
                notation,
            );
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
            let settings = Settings {
                notation,
                ..settings(limits, message.claim_draw)
            };
            let mut outcome = Ok(());
            let count = adjudicate::for_each_game(pgn.as_bytes(), &settings, first, |item| {
                if item.at.game_index >= remaining {
                    outcome = Err(StreamEnd::TooManyGames);
                    return false;
                }
                outcome = send(item.response());
                outcome.is_ok()
            });
            outcome.map(|()| count)
        }
        None => single(error(ConvertError::missing("game", "a game or pgn"))),
    }
}

fn adjudicate_games_response_error(
    error: arbiter_proto::v1::GameError,
) -> arbiter_proto::v1::adjudicate_games_response::Result {
    arbiter_proto::v1::adjudicate_games_response::Result::Error(error)
}

/// Reads the request stream, answers its messages one after the other on the blocking pool, and
/// sends the responses in order; stops at the first stream-level error.
async fn run_stream(
    mut inbound: Streaming<AdjudicateGamesRequest>,
    limits: Limits,
    tx: mpsc::Sender<Result<AdjudicateGamesResponse, Status>>,
) {
    let mut first = Place::default();
    loop {
        let message = match inbound.message().await {
            Ok(Some(message)) => message,
            Ok(None) => return,
            Err(status) => {
                let _ = tx.send(Err(status)).await;
                return;
            }
        };
        let sender = tx.clone();
        let at = first;
        let answered =
            tokio::task::spawn_blocking(move || stream_message(&message, at, limits, &sender))
                .await;
        match answered {
            Ok(Ok(count)) => {
                first.index += count;
                first.request_index += 1;
            }
            Ok(Err(StreamEnd::ClientGone)) => return,
            Ok(Err(StreamEnd::TooManyGames)) => {
                let status = Status::resource_exhausted(format!(
                    "more than {} games on one stream: open another stream for the rest",
                    limits.max_games_per_stream
                ));
                let _ = tx.send(Err(status)).await;
                return;
            }
            Err(error) => {
                tracing::error!(%error, "stream handler failed");
                let _ = tx
                    .send(Err(Status::internal(
                        "internal error while applying the rules",
                    )))
                    .await;
                return;
            }
        }
    }
}

fn validate_position(
    request: &ValidatePositionRequest,
) -> Result<ValidatePositionResponse, Status> {
    let notation = Notation::from_wire(0, request.castling_notation, "")?;
    match convert::position_from_wire(request.position.as_ref(), "position") {
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
        }),
        // A missing position is a malformed request, not an invalid position.
        // So are an unknown variant and a Chess960 number out of range.
        Err(error)
            if error.field == "position"
                || error.field == "position.variant"
                || error.field == "position.chess960_number" =>
        {
            Err(error.into())
        }
        Err(error) => Ok(ValidatePositionResponse {
            valid: false,
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
        let request = request.into_inner();
        blocking(move || list_legal_moves(&request)).await
    }

    async fn apply_move(
        &self,
        request: Request<ApplyMoveRequest>,
    ) -> Result<Response<ApplyMoveResponse>, Status> {
        let (request, limits) = (request.into_inner(), self.limits);
        blocking(move || apply_move(&request, limits)).await
    }

    async fn apply_moves(
        &self,
        request: Request<ApplyMovesRequest>,
    ) -> Result<Response<ApplyMovesResponse>, Status> {
        let (request, limits) = (request.into_inner(), self.limits);
        blocking(move || apply_moves(&request, limits)).await
    }

    async fn adjudicate_game(
        &self,
        request: Request<AdjudicateGameRequest>,
    ) -> Result<Response<AdjudicateGameResponse>, Status> {
        let (request, limits) = (request.into_inner(), self.limits);
        blocking(move || adjudicate_game(&request, limits))
            .await
            .inspect(|response| crate::metrics::record_adjudication(response.get_ref()))
    }

    type AdjudicateGamesStream = AdjudicateGamesStream;

    async fn adjudicate_games(
        &self,
        request: Request<Streaming<AdjudicateGamesRequest>>,
    ) -> Result<Response<Self::AdjudicateGamesStream>, Status> {
        let (tx, rx) = mpsc::channel(STREAM_BUFFER);
        tokio::spawn(run_stream(request.into_inner(), self.limits, tx));
        Ok(Response::new(Box::pin(ReceiverStream::new(rx))))
    }

    async fn validate_position(
        &self,
        request: Request<ValidatePositionRequest>,
    ) -> Result<Response<ValidatePositionResponse>, Status> {
        let request = request.into_inner();
        blocking(move || validate_position(&request))
            .await
            .inspect(|response| crate::metrics::record_validation(response.get_ref().valid))
    }
}
