//! The `arbiter.v1.ArbiterService` handlers: thin adapters between the wire conversions of
//! `arbiter-proto` and the rules of `arbiter-rules`.

use arbiter_proto::convert::{self, ConvertError, ErrorReason};
use arbiter_proto::v1::{
    AdjudicateGameRequest, AdjudicateGameResponse, ApplyMoveRequest, ApplyMoveResponse,
    ApplyMovesRequest, ApplyMovesResponse, ListLegalMovesRequest, ListLegalMovesResponse,
    ValidatePositionRequest, ValidatePositionResponse, adjudicate_game_request, apply_move_request,
    arbiter_service_server::ArbiterService,
};
use tonic::{Request, Response, Status};

/// Request limits enforced by the handlers.
#[derive(Debug, Clone, Copy)]
pub struct Limits {
    /// Most moves accepted in one request or game.
    pub max_moves: usize,
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

#[tonic::async_trait]
impl ArbiterService for Arbiter {
    async fn list_legal_moves(
        &self,
        request: Request<ListLegalMovesRequest>,
    ) -> Result<Response<ListLegalMovesResponse>, Status> {
        let request = request.into_inner();
        let position = convert::position_from_wire(request.position.as_ref(), "position")?;
        Ok(Response::new(ListLegalMovesResponse {
            moves: convert::legal_moves_to_wire(&position),
            status: Some(convert::status_to_wire(&position)),
            fen: position.to_fen(),
        }))
    }

    async fn apply_move(
        &self,
        request: Request<ApplyMoveRequest>,
    ) -> Result<Response<ApplyMoveResponse>, Status> {
        let request = request.into_inner();
        match request.subject {
            Some(apply_move_request::Subject::Position(position)) => {
                let position = convert::position_from_wire(Some(&position), "position")?;
                let mv = convert::move_from_wire(&position, &request.r#move, "move")?;
                let (played, after) = convert::move_to_wire(&position, &mv);
                Ok(Response::new(ApplyMoveResponse {
                    fen: after.to_fen(),
                    r#move: Some(played),
                    status: Some(convert::status_to_wire(&after)),
                    outcome: None,
                    claims: Vec::new(),
                }))
            }
            Some(apply_move_request::Subject::Game(game)) => {
                // The new move counts against the limit too.
                let max_moves = self.limits.max_moves.saturating_sub(1);
                let mut game = convert::game_from_wire(&game, "game", max_moves)?;
                if let Some(ended) = game.outcome() {
                    return Err(ConvertError::new(
                        "move",
                        ErrorReason::IllegalMove,
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
                Ok(Response::new(ApplyMoveResponse {
                    fen: after.to_fen(),
                    r#move: Some(played),
                    status: Some(convert::status_to_wire(after)),
                    outcome: game.outcome().map(|o| convert::outcome_to_wire(&o)),
                    claims: convert::claims_to_wire(&game),
                }))
            }
            None => Err(ConvertError::missing(
                "position",
                "a position or a game (fen \"startpos\" for the initial position)",
            )
            .into()),
        }
    }

    async fn apply_moves(
        &self,
        request: Request<ApplyMovesRequest>,
    ) -> Result<Response<ApplyMovesResponse>, Status> {
        let request = request.into_inner();
        convert::check_move_count(request.moves.len(), self.limits.max_moves, "moves")?;
        let start = convert::optional_position_from_wire(request.position.as_ref(), "position")?;
        let (position, moves) =
            convert::play_moves(start, &request.moves, "moves", self.limits.max_moves)?;
        Ok(Response::new(ApplyMovesResponse {
            fen: position.to_fen(),
            moves,
            status: Some(convert::status_to_wire(&position)),
        }))
    }

    async fn adjudicate_game(
        &self,
        request: Request<AdjudicateGameRequest>,
    ) -> Result<Response<AdjudicateGameResponse>, Status> {
        let request = request.into_inner();
        match request.source {
            Some(adjudicate_game_request::Source::Pgn(_)) => Err(Status::unimplemented(
                "PGN input is not implemented yet: send game.start and game.moves",
            )),
            Some(adjudicate_game_request::Source::Game(game)) => {
                let game = convert::game_from_wire(&game, "game", self.limits.max_moves)?;
                Ok(Response::new(convert::adjudicate(
                    &game,
                    request.claim_draw,
                )))
            }
            None => Err(ConvertError::missing("game", "a game (or pgn)").into()),
        }
    }

    async fn validate_position(
        &self,
        request: Request<ValidatePositionRequest>,
    ) -> Result<Response<ValidatePositionResponse>, Status> {
        let request = request.into_inner();
        let response = match convert::position_from_wire(request.position.as_ref(), "position") {
            Ok(position) => ValidatePositionResponse {
                valid: true,
                fen: position.to_fen(),
                reasons: Vec::new(),
                board: Some(convert::board_to_wire(&position)),
                status: Some(convert::status_to_wire(&position)),
            },
            // A missing position is a malformed request, not an invalid position.
            Err(error) if error.field == "position" => return Err(error.into()),
            Err(error) => ValidatePositionResponse {
                valid: false,
                reasons: vec![error.reason],
                ..ValidatePositionResponse::default()
            },
        };
        Ok(Response::new(response))
    }
}
