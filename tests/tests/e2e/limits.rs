//! Limits of the real binary under real work: the process-wide concurrency limit answers
//! RESOURCE_EXHAUSTED at once, `--request-timeout` answers DEADLINE_EXCEEDED, and SIGTERM lets
//! a call in flight finish before the process exits 0.

use std::time::{Duration, Instant};

use arbiter_e2e::{sample, server::Server, within};
use arbiter_proto::v1::{
    AdjudicateGameRequest, Game, ListLegalMovesRequest, Position, adjudicate_game_request, position,
};
use tonic::Code;

/// The slow call: AdjudicateGame of knights shuffled out and back for [`SLOW_PLIES`] plies.
/// Fivefold repetition ends the game at ply 16 (FIDE Laws 9.6.1), and AdjudicateGame, which
/// reads score sheets, replays and counts every move recorded after the end; ApplyMoves refuses
/// them (issue 27 item 9), so no ApplyMoves call is this long.
fn slow_call() -> AdjudicateGameRequest {
    AdjudicateGameRequest {
        source: Some(adjudicate_game_request::Source::Game(Game {
            start: None,
            moves: ["Nf3", "Nf6", "Ng1", "Ng8"]
                .iter()
                .cycle()
                .take(SLOW_PLIES)
                .map(|mv| (*mv).to_owned())
                .collect(),
        })),
        ..AdjudicateGameRequest::default()
    }
}

/// Flags that admit [`SLOW_PLIES`] moves in one call (the budgets of request and answer bytes in
/// flight must hold one largest message, its header and, for answers, the 1 KiB kept per call).
const BIG: [&str; 8] = [
    "--max-moves",
    "2000000",
    "--max-message-bytes",
    "1000000000",
    "--max-request-bytes-in-flight",
    "1000000005",
    "--max-answer-bytes-in-flight",
    "1000001029",
];

/// Plies of the slow call: real work of a second or so (decode a request of megabytes, read and
/// play every move), far more than the 20 ms request timeout below.
const SLOW_PLIES: usize = 1_000_000;

/// The counter of AdjudicateGame calls that reached the server (counted outside the limits).
const SLOW_CALLS_STARTED: &str = "grpc_server_started_total{grpc_type=\"unary\",grpc_service=\"arbiter.v1.ArbiterService\",grpc_method=\"AdjudicateGame\"}";

/// A fast call: the legal moves of the start position.
async fn fast_call(client: &mut Client) -> Result<(), tonic::Status> {
    within(
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
    .map(drop)
}

/// Waits (up to a minute) until the server has counted `calls` slow calls as started, or
/// `slow` has finished.
async fn wait_until_started<T>(server: &Server, calls: u32, slow: &tokio::task::JoinHandle<T>) {
    let deadline = Instant::now() + Duration::from_secs(60);
    while !slow.is_finished()
        && Instant::now() < deadline
        && sample(&server.scrape(), SLOW_CALLS_STARTED).unwrap_or(0.0) < f64::from(calls)
    {
        tokio::time::sleep(Duration::from_millis(2)).await;
    }
}

type Client =
    arbiter_proto::v1::arbiter_service_client::ArbiterServiceClient<tonic::transport::Channel>;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn calls_over_the_concurrency_limit_are_shed() {
    // A long request timeout: on a loaded machine the slow call may take more than the default.
    let mut flags = vec!["--concurrency-limit", "1", "--request-timeout", "300s"];
    flags.extend(BIG);
    let server = Server::start_with(&flags);
    let mut client = server.client().await;
    // The fast calls start once the server has counted the slow call as started (the metrics
    // layer is outside the limit): with nothing else in flight it then holds the only slot. If
    // a fast call still comes first on a loaded machine, the slow one is shed (correctly, but
    // that is not what this test looks at) and the attempt is repeated.
    let mut attempts: u32 = 0;
    let (shed, took) = loop {
        attempts += 1;
        let mut slow_client = big_client(&server).await;
        let slow = tokio::spawn(async move {
            let started = Instant::now();
            let result = slow_client.adjudicate_game(slow_call()).await;
            (
                result.map(|response| response.into_inner().ply_count as usize),
                started.elapsed(),
            )
        });
        wait_until_started(&server, attempts, &slow).await;
        // While the slow call is in flight, a fast one must be shed at once.
        let mut shed = None;
        let deadline = Instant::now() + Duration::from_secs(60);
        while !slow.is_finished() && Instant::now() < deadline {
            let asked = Instant::now();
            match fast_call(&mut client).await {
                Err(status) if status.code() == Code::ResourceExhausted => {
                    shed = Some(asked.elapsed());
                    break;
                }
                Err(status) => panic!("unexpected {status:?}"),
                Ok(_) => tokio::time::sleep(Duration::from_millis(5)).await,
            }
        }
        let (result, took) = within("slow AdjudicateGame", slow).await.expect("join");
        match result {
            Err(status) if status.code() == Code::ResourceExhausted && attempts < 5 => continue,
            result => assert_eq!(result.expect("the slow call succeeds"), SLOW_PLIES),
        }
        break (shed, took);
    };
    let shed = shed.unwrap_or_else(|| {
        panic!("no RESOURCE_EXHAUSTED while a {took:?} call held the only slot")
    });
    assert!(
        shed < Duration::from_secs(1),
        "shed after {shed:?}: not at once"
    );
    // Once the slot is free, calls are admitted again.
    fast_call(&mut client)
        .await
        .expect("admitted after the slow call");
    let text = server.scrape();
    assert!(
        sample(
            &text,
            "grpc_server_handled_total{grpc_type=\"unary\",grpc_service=\"arbiter.v1.ArbiterService\",grpc_method=\"ListLegalMoves\",grpc_code=\"ResourceExhausted\"}"
        )
        .is_some_and(|count| count >= 1.0),
        "{text}"
    );
}

#[tokio::test]
async fn calls_past_the_request_timeout_get_deadline_exceeded() {
    let mut flags = vec!["--request-timeout", "20ms"];
    flags.extend(BIG);
    let server = Server::start_with(&flags);
    let mut client = big_client(&server).await;
    let started = Instant::now();
    let status = within("AdjudicateGame", client.adjudicate_game(slow_call()))
        .await
        .expect_err("past the deadline");
    assert_eq!(status.code(), Code::DeadlineExceeded, "{status:?}");
    assert!(started.elapsed() < Duration::from_secs(20));
    // Fast calls still succeed.
    fast_call(&mut client).await.expect("a fast call");
    let text = server.scrape();
    assert_eq!(
        sample(
            &text,
            "grpc_server_handled_total{grpc_type=\"unary\",grpc_service=\"arbiter.v1.ArbiterService\",grpc_method=\"AdjudicateGame\",grpc_code=\"DeadlineExceeded\"}"
        ),
        Some(1.0),
        "{text}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sigterm_lets_calls_in_flight_finish() {
    let mut flags = vec![
        "--lame-duck",
        "200ms",
        "--drain-timeout",
        "60s",
        "--request-timeout",
        "300s",
    ];
    flags.extend(BIG);
    let mut server = Server::start_with(&flags);
    let mut client = big_client(&server).await;
    let slow = tokio::spawn(async move {
        client
            .adjudicate_game(slow_call())
            .await
            .map(|response| response.into_inner().ply_count as usize)
    });
    // Let the call reach the server (its request alone is megabytes: the server counts it as
    // started once it has arrived), then ask to stop.
    wait_until_started(&server, 1, &slow).await;
    server.signal("TERM");
    let moves = within("slow AdjudicateGame", slow).await.expect("join");
    assert_eq!(moves.expect("the call in flight completes"), SLOW_PLIES);
    let status = server.exited(Duration::from_secs(30)).await;
    assert_eq!(status.code(), Some(0), "{}", server.stderr_tail());
}

#[tokio::test]
async fn sigterm_right_after_startup_drains() {
    // The signal listeners exist before the listening line: an immediate SIGTERM drains.
    let mut server = Server::start_with(&["--lame-duck", "0s"]);
    server.signal("TERM");
    let started = Instant::now();
    let status = server.exited(Duration::from_secs(20)).await;
    assert_eq!(status.code(), Some(0), "{}", server.stderr_tail());
    // No task keeps the runtime alive after "arbiter stopped".
    assert!(
        started.elapsed() < Duration::from_millis(900),
        "took {:?}",
        started.elapsed()
    );
}

/// A client that accepts the big answer of the slow call.
async fn big_client(server: &Server) -> Client {
    server
        .client()
        .await
        .max_decoding_message_size(1 << 30)
        .max_encoding_message_size(1 << 30)
}
