//! The `arbiter.v1.ArbiterService` handlers: thin adapters between the wire conversions of
//! `arbiter-proto` and the rules of `arbiter-rules`.

use arbiter_proto::v1::{
    AdjudicateGameRequest, AdjudicateGameResponse, ApplyMoveRequest, ApplyMoveResponse,
    ApplyMovesRequest, ApplyMovesResponse, ListLegalMovesRequest, ListLegalMovesResponse,
    ValidatePositionRequest, ValidatePositionResponse, arbiter_service_server::ArbiterService,
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
        _request: Request<ListLegalMovesRequest>,
    ) -> Result<Response<ListLegalMovesResponse>, Status> {
        Err(Status::unimplemented("not yet"))
    }

    async fn apply_move(
        &self,
        _request: Request<ApplyMoveRequest>,
    ) -> Result<Response<ApplyMoveResponse>, Status> {
        Err(Status::unimplemented("not yet"))
    }

    async fn apply_moves(
        &self,
        _request: Request<ApplyMovesRequest>,
    ) -> Result<Response<ApplyMovesResponse>, Status> {
        Err(Status::unimplemented("not yet"))
    }

    async fn adjudicate_game(
        &self,
        _request: Request<AdjudicateGameRequest>,
    ) -> Result<Response<AdjudicateGameResponse>, Status> {
        Err(Status::unimplemented("not yet"))
    }

    async fn validate_position(
        &self,
        _request: Request<ValidatePositionRequest>,
    ) -> Result<Response<ValidatePositionResponse>, Status> {
        Err(Status::unimplemented("not yet"))
    }
}
