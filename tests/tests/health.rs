//! gRPC health (`grpc.health.v1`), the `arbiter health-check` subcommand, and graceful shutdown
//! on SIGTERM: health turns NOT_SERVING while calls are still answered, then the process exits
//! with code 0 within the drain timeout.

use std::{
    process::Command,
    time::{Duration, Instant},
};

use arbiter_e2e::{binary, command, server::Server, within};
use arbiter_proto::v1::{ListLegalMovesRequest, Position, position};
use tonic::{Code, transport::Channel};
use tonic_health::pb::{
    HealthCheckRequest, health_check_response::ServingStatus, health_client::HealthClient,
};

/// Asks for the health of `service` ("" is the whole server).
async fn check(client: &mut HealthClient<Channel>, service: &str) -> Result<ServingStatus, Code> {
    within(
        "Health/Check",
        client.check(HealthCheckRequest {
            service: service.to_owned(),
        }),
    )
    .await
    .map(|response| response.into_inner().status())
    .map_err(|status| status.code())
}

/// Runs `arbiter health-check --addr URL ARGS...` and returns (exit code, stdout).
fn health_check_command(url: &str, args: &[&str]) -> (Option<i32>, String) {
    let output = command::run(
        Command::new(binary::arbiter())
            .args(["health-check", "--addr", url, "--timeout", "3s"])
            .args(args),
        Duration::from_secs(20),
    );
    (
        output.status.code(),
        String::from_utf8_lossy(&output.stdout).into_owned(),
    )
}

#[tokio::test]
async fn health_reports_serving() {
    let server = Server::start();
    let mut health = HealthClient::new(server.channel().await);
    for service in ["", "arbiter.v1.ArbiterService", "liveness", "readiness"] {
        assert_eq!(
            check(&mut health, service).await,
            Ok(ServingStatus::Serving),
            "{service:?}"
        );
    }
    // A name that was never registered is NOT_FOUND, not SERVING.
    assert_eq!(
        check(&mut health, "arbiter.v1.NoSuchService").await,
        Err(Code::NotFound)
    );
}

#[tokio::test]
async fn health_check_subcommand() {
    let server = Server::start();
    let url = server.url();
    assert_eq!(
        health_check_command(&url, &[]),
        (Some(0), "SERVING\n".to_owned())
    );
    assert_eq!(
        health_check_command(&url, &["--service", "arbiter.v1.ArbiterService"]),
        (Some(0), "SERVING\n".to_owned())
    );
    let (code, stdout) = health_check_command(&url, &["--service", "arbiter.v1.NoSuchService"]);
    assert_eq!((code, stdout.as_str()), (Some(1), ""));
}

#[tokio::test]
async fn sigterm_drains_then_exits_zero() {
    // Lame duck 1 s inside a drain timeout of 5 s.
    let drain_timeout = Duration::from_secs(5);
    let mut server = Server::start_with(&["--lame-duck", "1s", "--drain-timeout", "5s"]);
    let url = server.url();
    let channel = server.channel().await;
    let mut health = HealthClient::new(channel.clone());
    let mut client = arbiter_proto::v1::arbiter_service_client::ArbiterServiceClient::new(channel);
    assert_eq!(check(&mut health, "").await, Ok(ServingStatus::Serving));

    let signalled = Instant::now();
    server.signal("TERM");

    // Readiness turns NOT_SERVING at once; liveness stays SERVING so that a liveness probe does
    // not kill a process that is shutting down cleanly.
    let deadline = signalled + Duration::from_millis(900);
    loop {
        match check(&mut health, "").await {
            Ok(ServingStatus::NotServing) => break,
            Ok(ServingStatus::Serving) if Instant::now() < deadline => {
                tokio::time::sleep(Duration::from_millis(20)).await;
            }
            other => panic!(
                "health \"\" is {other:?} {:?} after SIGTERM",
                signalled.elapsed()
            ),
        }
    }
    assert_eq!(
        check(&mut health, "arbiter.v1.ArbiterService").await,
        Ok(ServingStatus::NotServing)
    );
    assert_eq!(
        check(&mut health, "readiness").await,
        Ok(ServingStatus::NotServing)
    );
    assert_eq!(
        check(&mut health, "liveness").await,
        Ok(ServingStatus::Serving)
    );
    // The health-check subcommand (a new connection) sees NOT_SERVING and exits 1.
    assert_eq!(health_check_command(&url, &[]).0, Some(1));

    // Calls are still answered during the lame-duck period.
    let answer = within(
        "ListLegalMoves",
        client.list_legal_moves(ListLegalMovesRequest {
            position: Some(Position {
                kind: Some(position::Kind::Fen("startpos".to_owned())),
                ..Position::default()
            }),
            ..ListLegalMovesRequest::default()
        }),
    )
    .await
    .expect("calls are answered while draining");
    assert_eq!(answer.into_inner().moves.len(), 20);
    assert!(
        signalled.elapsed() < Duration::from_secs(1),
        "the checks above ran inside the lame-duck period ({:?})",
        signalled.elapsed()
    );
    drop(client);
    drop(health);

    let status = server.exited(drain_timeout + Duration::from_secs(3)).await;
    let took = signalled.elapsed();
    assert_eq!(
        status.code(),
        Some(0),
        "exit status {status}\n{}",
        server.stderr_tail()
    );
    assert!(
        took >= Duration::from_secs(1),
        "exited after {took:?}, before the lame-duck period ended"
    );
    assert!(took < drain_timeout, "exited after {took:?}");

    // Gone: the subcommand now fails (connection refused).
    assert_eq!(health_check_command(&url, &[]).0, Some(1));
}

#[tokio::test]
async fn sigint_also_stops_the_server() {
    let mut server = Server::start_with(&["--lame-duck", "0s", "--drain-timeout", "5s"]);
    // Serving, so the signal handlers are installed (they are not yet when the address is
    // printed: a signal right after the "listening" line kills the process by default action).
    let mut health = HealthClient::new(server.channel().await);
    assert_eq!(check(&mut health, "").await, Ok(ServingStatus::Serving));
    drop(health);
    server.signal("INT");
    let status = server.exited(Duration::from_secs(8)).await;
    assert_eq!(
        status.code(),
        Some(0),
        "exit status {status}\n{}",
        server.stderr_tail()
    );
}
