//! In-process tests of the gRPC server over a real socket: the arbiter service, error details,
//! limits, health, reflection and the graceful drain.

use std::time::Duration;

use arbiter_proto::v1::{
    AdjudicateGameRequest, ApplyMoveRequest, ApplyMovesRequest, Board, Color, Game, GameEvent,
    GameEventKind, ListLegalMovesRequest, Position, Result as GameResult, Termination,
    ValidatePositionRequest, adjudicate_game_request, apply_move_request,
    arbiter_service_client::ArbiterServiceClient, position,
};
use arbiter_server::{
    cli::{Cli, Command},
    serve::{Bound, ServeConfig},
};
use clap::Parser as _;
use tokio::sync::oneshot;
use tonic::{Code, transport::Channel};
use tonic_health::pb::{
    HealthCheckRequest, health_check_response::ServingStatus, health_client::HealthClient,
};
use tonic_types::StatusExt as _;

pub(crate) struct Running {
    pub(crate) channel: Channel,
    pub(crate) addr: std::net::SocketAddr,
    pub(crate) stop: Option<oneshot::Sender<()>>,
    pub(crate) server: tokio::task::JoinHandle<()>,
}

fn config(extra: &[&str]) -> ServeConfig {
    let mut argv = vec![
        "arbiter",
        "serve",
        "--grpc-addr",
        "127.0.0.1:0",
        "--lame-duck",
        "300ms",
        "--drain-timeout",
        "3s",
        // One process, many servers: the global metrics recorder is for the binary's tests.
        "--metrics-addr",
        "off",
        "--health-addr",
        "off",
    ];
    argv.extend_from_slice(extra);
    match Cli::try_parse_from(argv).expect("valid flags").command {
        Command::Serve(args) => args.config().expect("consistent flags"),
        other => panic!("expected serve, got {other:?}"),
    }
}

pub(crate) async fn start(extra: &[&str]) -> Running {
    let bound = Bound::bind(config(extra)).await.expect("bind");
    let addr = bound.local_addr().expect("local addr");
    let (stop, stopped) = oneshot::channel::<()>();
    let server = tokio::spawn(async move {
        bound
            .serve(async {
                let _ = stopped.await;
            })
            .await
            .expect("server runs");
    });
    let channel = Channel::from_shared(format!("http://{addr}"))
        .expect("uri")
        .connect()
        .await
        .expect("connect");
    Running {
        channel,
        addr,
        stop: Some(stop),
        server,
    }
}

pub(crate) fn fen(text: &str) -> Option<Position> {
    Some(Position {
        kind: Some(position::Kind::Fen(text.to_owned())),
        ..Position::default()
    })
}

pub(crate) fn strings(moves: &[&str]) -> Vec<String> {
    moves.iter().map(|m| (*m).to_owned()).collect()
}

async fn health(channel: &Channel, service: &str) -> ServingStatus {
    let response = HealthClient::new(channel.clone())
        .check(HealthCheckRequest {
            service: service.to_owned(),
        })
        .await
        .expect("health answers")
        .into_inner();
    ServingStatus::try_from(response.status).expect("known status")
}

#[tokio::test]
async fn legal_moves_of_the_start_position() {
    let running = start(&[]).await;
    let mut client = ArbiterServiceClient::new(running.channel.clone());
    let response = client
        .list_legal_moves(ListLegalMovesRequest {
            position: fen("startpos"),
            ..ListLegalMovesRequest::default()
        })
        .await
        .expect("answer")
        .into_inner();
    assert_eq!(response.moves.len(), 20);
    assert_eq!(response.status.expect("status").legal_move_count, 20);
    assert_eq!(
        response.fen,
        "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"
    );
}

#[tokio::test]
async fn illegal_ply_is_an_invalid_argument_with_field_violation() {
    let running = start(&[]).await;
    let mut client = ArbiterServiceClient::new(running.channel.clone());
    let status = client
        .apply_moves(ApplyMovesRequest {
            position: None,
            moves: strings(&["e4", "e5", "Nf3", "Nf3"]),
            ..ApplyMovesRequest::default()
        })
        .await
        .expect_err("illegal move");
    assert_eq!(status.code(), Code::InvalidArgument);
    assert!(status.message().contains("ply 4"), "{}", status.message());
    let details = status.get_error_details();
    let violation = &details.bad_request().expect("bad request").field_violations[0];
    assert_eq!(violation.field, "moves[3]");
    assert!(violation.description.starts_with("ply 4 (Nf3): "));
}

#[tokio::test]
async fn limits_are_enforced() {
    let running = start(&["--max-moves", "3", "--max-message-bytes", "2048"]).await;
    let mut client = ArbiterServiceClient::new(running.channel.clone());
    let status = client
        .apply_moves(ApplyMovesRequest {
            position: None,
            moves: strings(&["e4", "e5", "Nf3", "Nc6"]),
            ..ApplyMovesRequest::default()
        })
        .await
        .expect_err("too many moves");
    assert_eq!(status.code(), Code::InvalidArgument);
    let details = status.get_error_details();
    assert_eq!(
        details.bad_request().expect("bad request").field_violations[0].field,
        "moves"
    );

    let status = client
        .apply_moves(ApplyMovesRequest {
            position: None,
            moves: vec!["e4".to_owned(); 1000],
            ..ApplyMovesRequest::default()
        })
        .await
        .expect_err("message too large");
    assert_eq!(status.code(), Code::ResourceExhausted, "{status:?}");
}

#[tokio::test]
async fn validation_failure_is_a_normal_answer() {
    let running = start(&[]).await;
    let mut client = ArbiterServiceClient::new(running.channel.clone());
    let response = client
        .validate_position(ValidatePositionRequest {
            position: fen("8/8/8/8/8/8/8/8 w - - 0 1"),
            ..ValidatePositionRequest::default()
        })
        .await
        .expect("answer")
        .into_inner();
    assert!(!response.valid);
    assert!(!response.reasons.is_empty());
}

#[tokio::test]
async fn pgn_and_moves_adjudicate_alike() {
    let running = start(&[]).await;
    let mut client = ArbiterServiceClient::new(running.channel.clone());
    let from_pgn = client
        .adjudicate_game(AdjudicateGameRequest {
            source: Some(adjudicate_game_request::Source::Pgn(
                "1. f3 e5 2. g4 Qh4# 0-1".to_owned(),
            )),
            claim_draw: false,
            event: None,
            ..AdjudicateGameRequest::default()
        })
        .await
        .expect("pgn adjudicated")
        .into_inner();
    assert_eq!(from_pgn.declared_result, "0-1");

    let outcome = client
        .adjudicate_game(AdjudicateGameRequest {
            source: Some(adjudicate_game_request::Source::Game(Game {
                start: None,
                moves: strings(&["f3", "e5", "g4", "Qh4#"]),
            })),
            claim_draw: false,
            event: None,
            ..AdjudicateGameRequest::default()
        })
        .await
        .expect("answer")
        .into_inner()
        .outcome
        .expect("outcome");
    assert_eq!(outcome.fide_article, "5.1.1");
    assert_eq!(from_pgn.outcome, Some(outcome));
}

#[tokio::test]
async fn reflection_lists_every_service_in_both_versions() {
    use tokio_stream::StreamExt as _;
    let running = start(&[]).await;

    let mut v1 = tonic_reflection::pb::v1::server_reflection_client::ServerReflectionClient::new(
        running.channel.clone(),
    );
    let request = tonic_reflection::pb::v1::ServerReflectionRequest {
        host: String::new(),
        message_request: Some(
            tonic_reflection::pb::v1::server_reflection_request::MessageRequest::ListServices(
                String::new(),
            ),
        ),
    };
    let mut stream = v1
        .server_reflection_info(tokio_stream::iter([request]))
        .await
        .expect("reflection v1")
        .into_inner();
    let response = stream.next().await.expect("one answer").expect("ok");
    let Some(
        tonic_reflection::pb::v1::server_reflection_response::MessageResponse::ListServicesResponse(
            list,
        ),
    ) = response.message_response
    else {
        panic!("unexpected answer {response:?}");
    };
    let names: Vec<&str> = list.service.iter().map(|s| s.name.as_str()).collect();
    assert!(names.contains(&"arbiter.v1.ArbiterService"), "{names:?}");
    assert!(names.contains(&"grpc.health.v1.Health"), "{names:?}");

    let mut v1alpha =
        tonic_reflection::pb::v1alpha::server_reflection_client::ServerReflectionClient::new(
            running.channel.clone(),
        );
    let request = tonic_reflection::pb::v1alpha::ServerReflectionRequest {
        host: String::new(),
        message_request: Some(
            tonic_reflection::pb::v1alpha::server_reflection_request::MessageRequest::FileContainingSymbol(
                "arbiter.v1.ArbiterService".to_owned(),
            ),
        ),
    };
    let mut stream = v1alpha
        .server_reflection_info(tokio_stream::iter([request]))
        .await
        .expect("reflection v1alpha")
        .into_inner();
    let response = stream.next().await.expect("one answer").expect("ok");
    assert!(matches!(
        response.message_response,
        Some(tonic_reflection::pb::v1alpha::server_reflection_response::MessageResponse::FileDescriptorResponse(_))
    ));
}

#[tokio::test]
async fn health_turns_not_serving_while_draining() {
    let mut running = start(&[]).await;
    for name in ["", "arbiter.v1.ArbiterService", "liveness", "readiness"] {
        assert_eq!(health(&running.channel, name).await, ServingStatus::Serving);
    }
    let _ = running.stop.take().expect("not stopped yet").send(());
    tokio::time::sleep(Duration::from_millis(100)).await;
    // Lame-duck period: still answering, but not ready.
    assert_eq!(
        health(&running.channel, "readiness").await,
        ServingStatus::NotServing
    );
    assert_eq!(
        health(&running.channel, "").await,
        ServingStatus::NotServing
    );
    assert_eq!(
        health(&running.channel, "liveness").await,
        ServingStatus::Serving
    );
    drop(running.channel);
    tokio::time::timeout(Duration::from_secs(5), running.server)
        .await
        .expect("drained in time")
        .expect("server task");
}

#[tokio::test]
async fn board_without_side_to_move_is_an_invalid_position() {
    let running = start(&[]).await;
    let mut client = ArbiterServiceClient::new(running.channel.clone());
    let response = client
        .validate_position(ValidatePositionRequest {
            position: Some(Position {
                kind: Some(position::Kind::Board(Board::default())),
                ..Position::default()
            }),
            ..ValidatePositionRequest::default()
        })
        .await
        .expect("answer")
        .into_inner();
    assert!(!response.valid);

    let status = client
        .validate_position(ValidatePositionRequest::default())
        .await
        .expect_err("no position");
    assert_eq!(status.code(), Code::InvalidArgument);
}

#[tokio::test]
async fn apply_move_on_a_game_reports_outcome_and_claims() {
    let running = start(&[]).await;
    let mut client = ArbiterServiceClient::new(running.channel.clone());
    let game = |moves: &[&str]| {
        Some(apply_move_request::Subject::Game(Game {
            start: None,
            moves: strings(moves),
        }))
    };

    let mate = client
        .apply_move(ApplyMoveRequest {
            subject: game(&["f3", "e5", "g4"]),
            r#move: "Qh4".to_owned(),
            ..ApplyMoveRequest::default()
        })
        .await
        .expect("answer")
        .into_inner();
    assert_eq!(mate.r#move.expect("move").san, "Qh4#");
    assert_eq!(mate.outcome.expect("game over").fide_article, "5.1.1");

    let repeat = client
        .apply_move(ApplyMoveRequest {
            subject: game(&["Nf3", "Nf6", "Ng1", "Ng8", "Nf3", "Nf6", "Ng1"]),
            r#move: "Ng8".to_owned(),
            ..ApplyMoveRequest::default()
        })
        .await
        .expect("answer")
        .into_inner();
    assert!(repeat.outcome.is_none());
    assert!(repeat.claims.iter().any(|claim| claim.claimable_now));

    let status = client
        .apply_move(ApplyMoveRequest {
            subject: game(&["f3", "e5", "g4", "Qh4#"]),
            r#move: "a3".to_owned(),
            ..ApplyMoveRequest::default()
        })
        .await
        .expect_err("game over");
    assert_eq!(status.code(), Code::InvalidArgument);
    let details = status.get_error_details();
    assert_eq!(
        details.bad_request().expect("bad request").field_violations[0].field,
        "move"
    );
}

#[tokio::test]
async fn resignation_is_a_loss_with_a_mating_line_as_evidence() {
    let running = start(&[]).await;
    let mut client = ArbiterServiceClient::new(running.channel.clone());
    let response = client
        .adjudicate_game(AdjudicateGameRequest {
            source: Some(adjudicate_game_request::Source::Game(Game {
                start: fen("4k3/8/8/8/8/8/8/R3K3 w - - 0 1"),
                moves: Vec::new(),
            })),
            claim_draw: false,
            event: Some(GameEvent {
                kind: GameEventKind::Resignation.into(),
                side: Color::Black.into(),
            }),
            ..AdjudicateGameRequest::default()
        })
        .await
        .expect("answer")
        .into_inner();
    let outcome = response.outcome.expect("outcome");
    assert_eq!(outcome.result, i32::from(GameResult::WhiteWins));
    assert_eq!(outcome.termination, i32::from(Termination::Resignation));
    assert_eq!(outcome.fide_article, "5.1.2");
    assert!(!response.explanation.is_empty());
    let last = response.evidence.last().expect("a mating line");
    assert!(last.is_checkmate, "{:?}", response.evidence);
}
