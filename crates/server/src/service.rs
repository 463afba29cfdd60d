//! The `arbiter.v1.ArbiterService` handlers: thin adapters between the wire conversions of
//! `arbiter-proto` and the rules of `arbiter-rules`.
//!
//! The chess work of every call runs on tokio's blocking pool, so that a long analysis never
//! stalls the threads that answer health checks and accept connections, and the call deadline of
//! [`crate::guard`] can answer on time.

use arbiter_proto::convert::{self, ConvertError};
use arbiter_proto::v1::{
    AdjudicateGameRequest, AdjudicateGameResponse, ApplyMoveRequest, ApplyMoveResponse,
    ApplyMovesRequest, ApplyMovesResponse, ListLegalMovesRequest, ListLegalMovesResponse,
    ValidatePositionRequest, ValidatePositionResponse, adjudicate_game_request, apply_move_request,
    arbiter_service_server::ArbiterService,
};
use arbiter_rules::{AdjudicationRequest, AnalysisBudget};
use tonic::{Request, Response, Status};

/// Request limits enforced by the handlers.
#[derive(Debug, Clone, Copy)]
pub struct Limits {
    /// Most moves accepted in one request or game.
    pub max_moves: usize,
    /// How much analysis dead positions and "can the opponent still mate?" may use.
    pub analysis: AnalysisBudget,
}

impl Default for Limits {
    fn default() -> Self {
        Self {
            max_moves: 10_000,
            analysis: AnalysisBudget::Full,
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
        Ok(result) => result.map(Response::new),
        Err(error) => {
            tracing::error!(%error, "handler failed");
            Err(Status::internal("internal error while applying the rules"))
        }
    }
}

fn list_legal_moves(request: &ListLegalMovesRequest) -> Result<ListLegalMovesResponse, Status> {
    let position = convert::position_from_wire(request.position.as_ref(), "position")?;
    Ok(ListLegalMovesResponse {
        moves: convert::legal_moves_to_wire(&position),
        status: Some(convert::status_to_wire(&position)),
        fen: position.to_fen(),
    })
}

fn apply_move(request: &ApplyMoveRequest, limits: Limits) -> Result<ApplyMoveResponse, Status> {
    match &request.subject {
        Some(apply_move_request::Subject::Position(position)) => {
            let position = convert::position_from_wire(Some(position), "position")?;
            let mv = convert::move_from_wire(&position, &request.r#move, "move")?;
            let (played, after) = convert::move_to_wire(&position, &mv);
            Ok(ApplyMoveResponse {
                fen: after.to_fen(),
                r#move: Some(played),
                status: Some(convert::status_to_wire(&after)),
                outcome: None,
                claims: Vec::new(),
            })
        }
        Some(apply_move_request::Subject::Game(game)) => {
            // The new move counts against the limit too.
            let max_moves = limits.max_moves.saturating_sub(1);
            let mut game = convert::game_from_wire(game, "game", max_moves, limits.analysis)?;
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
            let mv = convert::move_from_wire(&before, &request.r#move, "move")?;
            let (played, _) = convert::move_to_wire(&before, &mv);
            game.play(mv);
            let after = game.position();
            Ok(ApplyMoveResponse {
                fen: after.to_fen(),
                r#move: Some(played),
                status: Some(convert::status_to_wire(after)),
                outcome: game.outcome().map(|o| convert::outcome_to_wire(&o)),
                claims: convert::claims_to_wire(&game),
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
    let start = convert::optional_position_from_wire(request.position.as_ref(), "position")?;
    let (position, moves) = convert::play_moves(start, &request.moves, "moves", limits.max_moves)?;
    Ok(ApplyMovesResponse {
        fen: position.to_fen(),
        moves,
        status: Some(convert::status_to_wire(&position)),
    })
}

fn adjudicate_game(
    request: &AdjudicateGameRequest,
    limits: Limits,
) -> Result<AdjudicateGameResponse, Status> {
    match &request.source {
        Some(adjudicate_game_request::Source::Pgn(_)) => Err(Status::unimplemented(
            "PGN input is not implemented yet: send game.start and game.moves",
        )),
        Some(adjudicate_game_request::Source::Game(game)) => {
            let event = convert::event_from_wire(request.event.as_ref(), "event")?;
            let game = convert::game_from_wire(game, "game", limits.max_moves, limits.analysis)?;
            let adjudication = AdjudicationRequest {
                event,
                claim_draw: request.claim_draw,
                budget: limits.analysis,
            };
            Ok(convert::adjudicate(&game, &adjudication))
        }
        None => Err(ConvertError::missing("game", "a game (or pgn)").into()),
    }
}

fn validate_position(
    request: &ValidatePositionRequest,
) -> Result<ValidatePositionResponse, Status> {
    match convert::position_from_wire(request.position.as_ref(), "position") {
        Ok(position) => Ok(ValidatePositionResponse {
            valid: true,
            fen: position.to_fen(),
            reasons: Vec::new(),
            board: Some(convert::board_to_wire(&position)),
            status: Some(convert::status_to_wire(&position)),
        }),
        // A missing position is a malformed request, not an invalid position.
        Err(error) if error.field == "position" => Err(error.into()),
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
        blocking(move || adjudicate_game(&request, limits)).await
    }

    async fn validate_position(
        &self,
        request: Request<ValidatePositionRequest>,
    ) -> Result<Response<ValidatePositionResponse>, Status> {
        let request = request.into_inner();
        blocking(move || validate_position(&request)).await
    }
}
