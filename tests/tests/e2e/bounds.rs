//! Issue 10, "bounded and observable under load and attack", end to end: work ends with its
//! call, an expired deadline is DEADLINE_EXCEEDED, connections and streams are capped and timed
//! out (and counted), a connection's HTTP/2 stream limit holds, SIGTERM under load ends every
//! call, and an overload is counted exactly but logged in a few summary lines.
//!
//! Every loop here is bounded in count and in time, and every wait has a timeout. The tests
//! assert what the server does (refused, closed, counted, status code), never how fast.

use std::{
    sync::{
        Arc,
        atomic::{AtomicUsize, Ordering},
    },
    time::{Duration, Instant},
};

use arbiter_e2e::{sample, server::Server, unended::UNENDED_PLIES, within};
use arbiter_proto::v1::{
    AdjudicateGameRequest, AdjudicateGameResponse, AdjudicateGamesRequest, AdjudicateGamesResponse,
    ApplyMovesRequest, ApplyMovesResponse, Color, Game, GameEvent, GameEventKind,
    ListLegalMovesRequest, ListLegalMovesResponse, Position, adjudicate_game_request,
    adjudicate_games_request, adjudicate_games_response,
    arbiter_service_client::ArbiterServiceClient, position,
};
use bytes::{Buf as _, BufMut as _, Bytes, BytesMut};
use tokio::{io::AsyncReadExt as _, sync::mpsc};
use tonic::{
    Code, Status, Streaming,
    codegen::tokio_stream::wrappers::ReceiverStream,
    transport::{Channel, Endpoint},
};
use tonic_health::pb::{HealthCheckRequest, health_client::HealthClient};

type Client = ArbiterServiceClient<Channel>;

/// A position whose flag-fall adjudication runs the full helpmate search (one analyzer run of
/// a few hundred milliseconds): slow work that does not scale with the request's size.
const SLOW_FEN: &str = "8/pkp5/4p3/8/P5p1/2P3pb/P3P1p1/6K1 b - - 0 1";

/// Longest wait for a state the server must reach by itself (a timeout firing, a summary line,
/// a certificate reloaded): generous, as the machine may be loaded.
pub(super) const SETTLE: Duration = Duration::from_secs(20);

fn fen(text: &str) -> Option<Position> {
    Some(Position {
        kind: Some(position::Kind::Fen(text.to_owned())),
        ..Position::default()
    })
}

/// White's flag fell in [`SLOW_FEN`]: can Black still mate? (The full search says yes.)
fn slow_call() -> AdjudicateGameRequest {
    AdjudicateGameRequest {
        source: Some(adjudicate_game_request::Source::Game(Game {
            start: fen(SLOW_FEN),
            moves: Vec::new(),
        })),
        event: Some(GameEvent {
            kind: GameEventKind::FlagFall.into(),
            side: Color::White.into(),
        }),
        ..AdjudicateGameRequest::default()
    }
}

/// The legal moves of the start position: microseconds of work.
fn fast_call() -> ListLegalMovesRequest {
    ListLegalMovesRequest {
        position: fen("startpos"),
        ..ListLegalMovesRequest::default()
    }
}

/// The first `plies` moves of a legal game that no rule ends (at most
/// [`UNENDED_PLIES`]), answered in full: ApplyMoves refuses a move after
/// the game's end (issue 27 item 9), so knights shuffled out and back stop at ply 16 (fivefold
/// repetition).
pub(super) fn unended(plies: usize) -> ApplyMovesRequest {
    ApplyMovesRequest {
        moves: arbiter_e2e::unended::unended_game(plies),
        ..ApplyMovesRequest::default()
    }
}

/// One AdjudicateGames message with the game 1. f3 e5 2. g4 Qh4#.
pub(super) fn games_message() -> AdjudicateGamesRequest {
    arbiter_e2e::requests::fools_mate_message()
}

/// One AdjudicateGames message holding `games` short PGN games.
fn pgn_message(games: usize) -> AdjudicateGamesRequest {
    let game = "[Event \"e2e\"]\n[White \"A\"]\n[Black \"B\"]\n[Result \"0-1\"]\n\n1. f3 e5 2. g4 Qh4# 0-1\n\n";
    AdjudicateGamesRequest {
        source: Some(adjudicate_games_request::Source::Pgn(game.repeat(games))),
        ..AdjudicateGamesRequest::default()
    }
}

/// `name{labels}` in the server's `/metrics` now, 0 when absent.
pub(super) fn metric(server: &Server, series: &str) -> f64 {
    sample(&server.scrape(), series).unwrap_or(0.0)
}

/// `arbiter_connections_closed_total` of the gRPC listener for `reason`.
fn closed(server: &Server, reason: &str) -> f64 {
    metric(
        server,
        &format!("arbiter_connections_closed_total{{listener=\"grpc\",reason=\"{reason}\"}}"),
    )
}

/// `arbiter_calls_shed_total` for `reason`.
fn shed(server: &Server, reason: &str) -> f64 {
    metric(
        server,
        &format!("arbiter_calls_shed_total{{reason=\"{reason}\"}}"),
    )
}

/// `grpc_server_handled_total` of an `arbiter.v1.ArbiterService` unary method and code.
fn handled(server: &Server, method: &str, code: &str) -> f64 {
    metric(
        server,
        &format!(
            "grpc_server_handled_total{{grpc_type=\"unary\",grpc_service=\"arbiter.v1.ArbiterService\",grpc_method=\"{method}\",grpc_code=\"{code}\"}}"
        ),
    )
}

/// Polls `done` every 20 ms until it holds; panics, naming `what`, after [`SETTLE`].
pub(super) async fn settle(what: &str, mut done: impl FnMut() -> bool) {
    let deadline = Instant::now() + SETTLE;
    while !done() {
        assert!(Instant::now() < deadline, "{what}: not within {SETTLE:?}");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

/// A unary gRPC client on one HTTP/2 connection (the `h2` crate, no tonic channel) that sends
/// `grpc-timeout` and leaves the deadline to the server. tonic's channel enforces the deadline
/// itself and answers CANCELLED when it passes, before the server's answer can arrive: the status
/// seen here is always the server's.
#[derive(Clone)]
struct RawClient {
    send: h2::client::SendRequest<Bytes>,
    authority: String,
}

impl RawClient {
    async fn connect(server: &Server) -> Self {
        let tcp = within("connect", tokio::net::TcpStream::connect(server.addr()))
            .await
            .expect("connect");
        let (send, connection) = within("HTTP/2 handshake", h2::client::handshake(tcp))
            .await
            .expect("HTTP/2 handshake");
        tokio::spawn(async move {
            let _ = connection.await;
        });
        Self {
            send,
            authority: server.addr().to_string(),
        }
    }

    /// Calls `arbiter.v1.ArbiterService/{method}` with `message` and, when given, the
    /// `grpc-timeout` header `timeout` (e.g. "5m"). A transport failure is UNAVAILABLE.
    async fn call<Req: prost::Message, Resp: prost::Message + Default>(
        &self,
        method: &str,
        message: &Req,
        timeout: Option<&str>,
    ) -> Result<Resp, Status> {
        within(method, self.exchange(method, message, timeout)).await
    }

    async fn exchange<Req: prost::Message, Resp: prost::Message + Default>(
        &self,
        method: &str,
        message: &Req,
        timeout: Option<&str>,
    ) -> Result<Resp, Status> {
        let mut call = self.start(method, timeout).await?;
        call.finish(message).await
    }

    /// Starts a call of `method`: the server has it in progress, waiting for the request
    /// message, until [`RawCall::finish`] sends it.
    async fn start(&self, method: &str, timeout: Option<&str>) -> Result<RawCall, Status> {
        let mut request = http::Request::post(format!(
            "http://{}/arbiter.v1.ArbiterService/{method}",
            self.authority
        ))
        .header("content-type", "application/grpc")
        .header("te", "trailers");
        if let Some(timeout) = timeout {
            request = request.header("grpc-timeout", timeout);
        }
        let request = request.body(()).expect("a valid request");
        let mut send = self.send.clone().ready().await.map_err(transport)?;
        let (response, body) = send.send_request(request, false).map_err(transport)?;
        Ok(RawCall { response, body })
    }
}

/// A call of [`RawClient`] whose request message is not sent yet.
struct RawCall {
    response: h2::client::ResponseFuture,
    body: h2::SendStream<Bytes>,
}

impl RawCall {
    /// Sends the request message, ends the request and reads the answer.
    ///
    /// A server may answer before the request has ended (a deadline of 1 ms can expire before
    /// the message is sent) and then reset the stream, so that sending fails: as any gRPC
    /// client does, the answer is still read, and only when there is none is the failure to
    /// send the result.
    async fn finish<Req: prost::Message, Resp: prost::Message + Default>(
        &mut self,
        message: &Req,
    ) -> Result<Resp, Status> {
        let sent = self.send(grpc_frame(message), true);
        let answer = self.answer().await;
        match (sent, answer) {
            (Err(unsent), Err(status)) if status.code() == Code::Unavailable => Err(unsent),
            (_, answer) => answer,
        }
    }

    /// Sends `data` as request body bytes (any part of the gRPC framing), ending the request
    /// when `end`.
    fn send(&mut self, data: Bytes, end: bool) -> Result<(), Status> {
        self.body.send_data(data, end).map_err(transport)
    }

    /// Reads the answer (the request must have ended, or the server must answer early).
    async fn answer<Resp: prost::Message + Default>(&mut self) -> Result<Resp, Status> {
        let (head, mut body) = (&mut self.response).await.map_err(transport)?.into_parts();
        // Trailers-only: the status is in the headers.
        if let Some(status) = grpc_status(&head.headers) {
            return Err(status);
        }
        let mut data = BytesMut::new();
        while let Some(chunk) = body.data().await {
            let chunk = chunk.map_err(transport)?;
            let _ = body.flow_control().release_capacity(chunk.len());
            data.extend_from_slice(&chunk);
        }
        let trailers = body.trailers().await.map_err(transport)?;
        match trailers.as_ref().and_then(grpc_status) {
            Some(status) => Err(status),
            None => Err(Status::internal("no grpc-status trailer")),
        }
        .or_else(|status| {
            if status.code() != Code::Ok {
                return Err(status);
            }
            let mut data = data.freeze();
            if data.len() < 5 {
                return Err(Status::internal("no response message"));
            }
            data.advance(1);
            let len = usize::try_from(data.get_u32()).expect("usize");
            Resp::decode(data.slice(..len.min(data.len())))
                .map_err(|error| Status::internal(error.to_string()))
        })
    }
}

impl RawCall {
    /// Reads every response message of a streaming answer and its final status (the request
    /// must have ended, or the server must end the call).
    async fn answers<Resp: prost::Message + Default>(&mut self) -> (Vec<Resp>, Status) {
        let head = match (&mut self.response).await {
            Ok(response) => response,
            Err(error) => return (Vec::new(), transport(error)),
        };
        let (head, mut body) = head.into_parts();
        if let Some(status) = grpc_status(&head.headers) {
            return (Vec::new(), status);
        }
        let (mut data, mut answers) = (BytesMut::new(), Vec::new());
        while let Some(chunk) = body.data().await {
            let chunk = match chunk {
                Ok(chunk) => chunk,
                Err(error) => return (answers, transport(error)),
            };
            let _ = body.flow_control().release_capacity(chunk.len());
            data.extend_from_slice(&chunk);
            while data.len() >= 5 {
                let len =
                    usize::try_from(u32::from_be_bytes(data[1..5].try_into().expect("4 bytes")))
                        .expect("usize");
                if data.len() < 5 + len {
                    break;
                }
                let message = data.split_to(5 + len).freeze().slice(5..);
                answers.push(Resp::decode(message).expect("a response message"));
            }
        }
        let status = match body.trailers().await {
            Ok(trailers) => trailers
                .as_ref()
                .and_then(grpc_status)
                .unwrap_or_else(|| Status::internal("no grpc-status trailer")),
            Err(error) => transport(error),
        };
        (answers, status)
    }
}

/// A one-game AdjudicateGames message under 256 bytes whose answer takes about a millisecond
/// of work: White's flag fell in a pawn ending, and the full search finds Black's mate (0-1,
/// FIDE 6.9).
fn small_slow_message() -> Bytes {
    let pgn = "[Result \"0-1\"]\n[SetUp \"1\"]\n[FEN \"8/pkp5/4p3/8/P7/2P5/P3P3/6K1 b - - 0 1\"]\n[Termination \"time forfeit\"]\n\n0-1\n";
    let message = grpc_frame(&AdjudicateGamesRequest {
        source: Some(adjudicate_games_request::Source::Pgn(pgn.to_owned())),
        ..AdjudicateGamesRequest::default()
    });
    assert!(
        message.len() < 256,
        "a small message: {} bytes",
        message.len()
    );
    message
}

/// Sends `count` copies of `message` on `call` without reading any answer, each in its own
/// DATA frame, `burst` at a time with `pause` between bursts, and ends the request.
async fn send_ahead(
    call: &mut RawCall,
    message: &Bytes,
    count: usize,
    burst: usize,
    pause: Duration,
) -> Result<(), Status> {
    for sent in 1..=count {
        call.send(message.clone(), sent == count)?;
        if sent % burst == 0 {
            tokio::time::sleep(pause).await;
        }
    }
    Ok(())
}

/// Reads the answers of a stream that sent `count` copies of [`small_slow_message`] and checks
/// that every one came, in order, with its verdict: 0-1 by FIDE 6.9.
fn assert_all_answered(answers: &[AdjudicateGamesResponse], status: &Status, count: usize) {
    assert_eq!(status.code(), Code::Ok, "{status:?}");
    assert_eq!(answers.len(), count);
    for (at, answer) in answers.iter().enumerate() {
        assert_eq!(
            (answer.index as usize, answer.request_index as usize),
            (at, at)
        );
        let Some(adjudicate_games_response::Result::Verdict(verdict)) = &answer.result else {
            panic!("game {at}: {answer:?}");
        };
        let outcome = verdict.outcome.as_ref().expect("an outcome");
        assert_eq!(
            (outcome.result_text.as_str(), outcome.fide_article.as_str()),
            ("0-1", "6.9"),
            "game {at}"
        );
    }
}

/// `message` with its gRPC header (uncompressed, big-endian length).
pub(super) fn grpc_frame<Req: prost::Message>(message: &Req) -> Bytes {
    let mut frame = BytesMut::new();
    frame.put_u8(0);
    frame.put_u32(u32::try_from(message.encoded_len()).expect("a small message"));
    message.encode(&mut frame).expect("encode");
    frame.freeze()
}

/// A transport failure of [`RawClient`], as UNAVAILABLE.
fn transport(error: h2::Error) -> Status {
    Status::unavailable(format!("HTTP/2: {error}"))
}

/// The `grpc-status` (and `grpc-message`, percent-decoded) of `headers`, OK included.
fn grpc_status(headers: &http::HeaderMap) -> Option<Status> {
    Status::from_header_map(headers)
}

/// Issue 10 item 2: work ends with its call. With one worker, calls whose slow work outlived
/// their deadline must not keep it: the queued ones never start, the running one is abandoned,
/// and a fast call is served behind them within `--max-queue-wait` (had the abandoned work run,
/// it would wait longer than that and be shed). Four analyses at once: the 20 calls are within
/// the bound of calls away from their worker (4 + 16), so none is refused.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn abandoned_slow_calls_give_the_worker_back() {
    let server = Server::start_with(&[
        "--workers",
        "1",
        "--max-analyses",
        "4",
        "--max-queue-wait",
        "5s",
        "--request-timeout",
        "300s",
    ]);
    let client = RawClient::connect(&server).await;
    // 20 slow calls: seconds of work if it all ran, far more than the queue wait.
    let calls: Vec<_> = (0..20)
        .map(|_| {
            let client = client.clone();
            tokio::spawn(async move {
                client
                    .call::<_, AdjudicateGameResponse>("AdjudicateGame", &slow_call(), Some("200m"))
                    .await
            })
        })
        .collect();
    for call in calls {
        let status = call.await.expect("join").expect_err("past its deadline");
        assert_eq!(status.code(), Code::DeadlineExceeded, "{status:?}");
    }
    let answer = client
        .call::<_, ListLegalMovesResponse>("ListLegalMoves", &fast_call(), None)
        .await
        .expect("a fast call is served once the slow ones are abandoned");
    assert_eq!(answer.moves.len(), 20);
    assert_eq!(shed(&server, "queue_timeout"), 0.0);
    assert_eq!(handled(&server, "AdjudicateGame", "DeadlineExceeded"), 20.0);
    assert_eq!(handled(&server, "AdjudicateGame", "Canceled"), 0.0);
    // Abandoned work winds down (an analyzer run under way ends by its own limits); then the
    // slow work itself is sound: given time, it answers.
    settle("abandoned analyses wound down", || {
        metric(&server, "arbiter_analysis_calls_away") == 0.0
    })
    .await;
    let verdict = client
        .call::<_, AdjudicateGameResponse>("AdjudicateGame", &slow_call(), None)
        .await
        .expect("the slow call, without a deadline");
    assert!(!verdict.evidence.is_empty(), "{verdict:?}");
}

/// Issue 10 item 1, a fresh user's finding: calls waiting for one of `--max-analyses` slots
/// held their worker while they waited, so with one worker a few analysis-heavy calls made every
/// cheap call queue behind seconds of analysis and be shed after `--max-queue-wait`. Analyses
/// now give their worker up while they wait and run: with one worker, one analysis slot and
/// five slow calls under way, a cheap call is served, and every slow call still gets its answer.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn r_waiting_analyses_do_not_hold_the_workers_cheap_calls_need() {
    // A long queue wait: every analysis waits its turn for the slot (none is refused).
    let server = Server::start_with(&[
        "--workers",
        "1",
        "--max-analyses",
        "1",
        "--max-queue-wait",
        "60s",
        "--request-timeout",
        "300s",
    ]);
    let client = RawClient::connect(&server).await;
    let slow: Vec<_> = (0..5)
        .map(|_| {
            let client = client.clone();
            tokio::spawn(async move {
                client
                    .call::<_, AdjudicateGameResponse>("AdjudicateGame", &slow_call(), None)
                    .await
            })
        })
        .collect();
    settle("an analysis under way", || {
        metric(&server, "arbiter_analyses_running") >= 1.0
    })
    .await;
    for _ in 0..3 {
        let answer = client
            .call::<_, ListLegalMovesResponse>("ListLegalMoves", &fast_call(), None)
            .await
            .expect("a cheap call is served beside the analyses");
        assert_eq!(answer.moves.len(), 20);
    }
    for call in slow {
        let verdict = call
            .await
            .expect("join")
            .expect("every analysis is answered");
        assert!(!verdict.evidence.is_empty(), "{verdict:?}");
    }
    assert_eq!(shed(&server, "queue_timeout"), 0.0);
    assert_eq!(metric(&server, "arbiter_analyses_running"), 0.0);
}

/// Issue 10 item 1, a fresh user's finding: beyond the bound of calls away from their worker
/// for analyses (`--max-analyses` + 16 × `--workers`: 17 here), a call kept its worker while it
/// waited for an analysis slot, so a flood of analyses still made cheap calls queue behind
/// seconds of analysis and be shed. Such a call is now refused at once (RESOURCE_EXHAUSTED,
/// counted as `reason="analysis_queue"`), never answered "undetermined": of 24 slow calls with
/// one worker, those past the bound are refused, cheap calls are served meanwhile, and the
/// others are answered or reach their deadline.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn r_analyses_past_the_bound_of_calls_away_are_refused_not_seated() {
    const SLOW_CALLS: usize = 24;
    // A long queue wait, so that only the bound of calls away refuses (not the wait for the
    // analysis slot, which has a test of its own).
    let server = Server::start_with(&[
        "--workers",
        "1",
        "--max-analyses",
        "1",
        "--max-queue-wait",
        "60s",
        "--request-timeout",
        "300s",
    ]);
    let client = RawClient::connect(&server).await;
    let slow: Vec<_> = (0..SLOW_CALLS)
        .map(|_| {
            let client = client.clone();
            tokio::spawn(async move {
                client
                    .call::<_, AdjudicateGameResponse>("AdjudicateGame", &slow_call(), Some("3S"))
                    .await
            })
        })
        .collect();
    settle("an analysis under way", || {
        metric(&server, "arbiter_analyses_running") >= 1.0
    })
    .await;
    for _ in 0..3 {
        let answer = client
            .call::<_, ListLegalMovesResponse>("ListLegalMoves", &fast_call(), None)
            .await
            .expect("a cheap call is served beside the flood of analyses");
        assert_eq!(answer.moves.len(), 20);
    }
    let mut refused = 0;
    for call in slow {
        match call.await.expect("join") {
            Ok(verdict) => assert!(!verdict.evidence.is_empty(), "{verdict:?}"),
            Err(status) if status.code() == Code::ResourceExhausted => {
                assert!(status.message().contains("analysis"), "{status:?}");
                refused += 1;
            }
            Err(status) => assert_eq!(status.code(), Code::DeadlineExceeded, "{status:?}"),
        }
    }
    assert!(refused >= 1, "none past the bound of 17 calls away");
    assert!(
        refused <= SLOW_CALLS - 17,
        "{refused} refused within the bound"
    );
    assert_eq!(shed(&server, "analysis_queue"), refused as f64);
    assert_eq!(shed(&server, "queue_timeout"), 0.0);
    settle("every analysis ended", || {
        metric(&server, "arbiter_analyses_running") == 0.0
    })
    .await;
}

/// Issue 10 item 7: an expired client deadline is DEADLINE_EXCEEDED, never CANCELLED, wherever
/// it expires (waiting for a worker, working, answering). 200 calls with deadlines of 1 to 5 ms
/// on work of about that length, from 4 tasks at once.
///
/// Issue 26 item 1: the deadline also covers delivering the answer. An answer built in time
/// but not read in time cannot be followed by a status (trailers go after the data), so its
/// stream is reset with CANCEL, as grpc-go does (a client, whose own deadline has passed too,
/// reports DEADLINE_EXCEEDED), and the server counts it as DeadlineExceeded too.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn expired_deadlines_are_deadline_exceeded_never_cancelled() {
    let server = Server::start_with(&[]);
    let client = RawClient::connect(&server).await;
    let tasks: Vec<_> = (0..4)
        .map(|task| {
            let client = client.clone();
            tokio::spawn(async move {
                let mut codes = Vec::new();
                for call in 0..50 {
                    let timeout = format!("{}m", 1 + (task + call) % 5);
                    let result = client
                        .call::<_, ApplyMovesResponse>(
                            "ApplyMoves",
                            &unended(UNENDED_PLIES),
                            Some(&timeout),
                        )
                        .await;
                    codes.push(result.map_or_else(
                        |status| {
                            // RawClient says UNAVAILABLE for a reset; CANCEL reads so.
                            if status.code() == Code::Unavailable
                                && status.message().contains("stream no longer needed")
                            {
                                Code::Cancelled
                            } else {
                                status.code()
                            }
                        },
                        |_| Code::Ok,
                    ));
                }
                codes
            })
        })
        .collect();
    let mut codes = Vec::new();
    for task in tasks {
        codes.extend(task.await.expect("join"));
    }
    assert_eq!(codes.len(), 200);
    let odd: Vec<_> = codes
        .iter()
        .filter(|code| !matches!(code, Code::Ok | Code::DeadlineExceeded | Code::Cancelled))
        .collect();
    assert!(
        odd.is_empty(),
        "not OK, DEADLINE_EXCEEDED nor reset with CANCEL: {odd:?}"
    );
    // A reset with CANCEL is an expired deadline too, counted so on the server.
    let expired = codes
        .iter()
        .filter(|code| matches!(code, Code::DeadlineExceeded | Code::Cancelled))
        .count();
    assert!(expired > 0, "no deadline expired: the test proves nothing");
    assert_eq!(handled(&server, "ApplyMoves", "Canceled"), 0.0);
    #[allow(clippy::cast_precision_loss)]
    let expired = expired as f64;
    assert_eq!(handled(&server, "ApplyMoves", "DeadlineExceeded"), expired);
}

/// Issue 10 item 3: connections are bounded. Beyond `--max-connections`, a connection is closed
/// at once (before the handshake timeout could fire for any); connections that never send the
/// HTTP/2 preface are closed at the handshake timeout; both are counted by reason; and while the
/// gRPC port is full, the plaintext health listener still answers SERVING.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn connections_beyond_the_limit_are_refused_and_silent_ones_time_out() {
    let server = Server::start_with(&["--max-connections", "8", "--handshake-timeout", "2s"]);
    let ended = Arc::new(AtomicUsize::new(0));
    let mut readers = Vec::new();
    for _ in 0..20 {
        let mut tcp = within("connect", tokio::net::TcpStream::connect(server.addr()))
            .await
            .expect("the kernel accepts the connection");
        let ended = Arc::clone(&ended);
        readers.push(tokio::spawn(async move {
            // Nothing is ever sent: the server can only close the connection. (It sends nothing
            // either: it waits for the first bytes, to tell HTTP/2 from HTTP/1.1.)
            let mut received = Vec::new();
            let _ = within("read", (&mut tcp).take(4096).read_to_end(&mut received)).await;
            ended.fetch_add(1, Ordering::SeqCst);
        }));
    }
    settle("12 connections closed by the limit", || {
        ended.load(Ordering::SeqCst) >= 12
    })
    .await;
    assert_eq!(closed(&server, "limit"), 12.0);
    assert_eq!(
        ended.load(Ordering::SeqCst),
        12,
        "only those beyond the limit"
    );
    // The health listener answers while the 8 connections are held.
    let health = Endpoint::from_shared(format!(
        "http://{}",
        server.health_addr().expect("a health listener")
    ))
    .expect("url")
    .connect_timeout(Duration::from_secs(5));
    let channel = within("connect to health", health.connect())
        .await
        .expect("the health port has room");
    let status = within(
        "Health/Check",
        HealthClient::new(channel).check(HealthCheckRequest::default()),
    )
    .await
    .expect("Health/Check")
    .into_inner()
    .status();
    assert_eq!(status, tonic_health::ServingStatus::Serving.into());
    assert_eq!(
        closed(&server, "handshake_timeout"),
        0.0,
        "the 8 connections were held during the health check"
    );
    // Then the silent connections reach the handshake timeout.
    for reader in readers {
        within("reader", reader).await.expect("join");
    }
    // The server counts a connection after closing it: a client may see the end first.
    settle("8 connections closed by the handshake timeout", || {
        closed(&server, "handshake_timeout") >= 8.0
    })
    .await;
    assert_eq!(closed(&server, "handshake_timeout"), 8.0);
    assert_eq!(closed(&server, "limit"), 12.0);
    let text = server.scrape();
    assert_eq!(
        sample(
            &text,
            "arbiter_connections_accepted_total{listener=\"grpc\"}"
        ),
        Some(8.0),
        "{text}"
    );
    assert_eq!(
        sample(&text, "arbiter_connections_open{listener=\"grpc\"}"),
        Some(0.0),
        "{text}"
    );
}

/// Issue 10 item 3: a connection with no call in progress for `--connection-idle-timeout` is
/// closed (counted as "idle"), and the client's next call reconnects.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn idle_connections_are_closed_and_clients_reconnect() {
    let server = Server::start_with(&["--connection-idle-timeout", "500ms"]);
    let mut client = server.client().await;
    within("ListLegalMoves", client.list_legal_moves(fast_call()))
        .await
        .expect("a call");
    settle("the idle connection closed", || {
        closed(&server, "idle") >= 1.0
    })
    .await;
    within("ListLegalMoves", client.list_legal_moves(fast_call()))
        .await
        .expect("a call on the same channel, on a new connection");
    assert_eq!(
        metric(
            &server,
            "arbiter_connections_accepted_total{listener=\"grpc\"}"
        ),
        2.0
    );
}

/// Issue 10 item 3: `--max-concurrent-streams` reaches the client in the HTTP/2 SETTINGS and
/// holds: 10 concurrent calls on one connection all succeed, but the server never has more than
/// 2 of them in progress (calls started minus calls handled, sampled while they run; with one
/// worker, calls that were let in would queue on the server and show up).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_connection_gets_at_most_max_concurrent_streams_calls_at_once() {
    let server = Server::start_with(&["--max-concurrent-streams", "2", "--workers", "1"]);
    let mut client = server.client().await;
    // The SETTINGS have been exchanged once a call has been answered.
    within("ApplyMoves", client.apply_moves(unended(10)))
        .await
        .expect("a first call");
    let started = "grpc_server_started_total{grpc_type=\"unary\",grpc_service=\"arbiter.v1.ArbiterService\",grpc_method=\"ApplyMoves\"}";
    let calls: Vec<_> = (0..10)
        .map(|_| {
            let mut client = client.clone();
            tokio::spawn(async move {
                within("ApplyMoves", client.apply_moves(unended(UNENDED_PLIES)))
                    .await
                    .map(|response| response.into_inner().moves.len())
            })
        })
        .collect();
    let mut most = 0.0_f64;
    let deadline = Instant::now() + SETTLE;
    while !calls.iter().all(tokio::task::JoinHandle::is_finished) && Instant::now() < deadline {
        let text = server.scrape();
        let in_progress = sample(&text, started).unwrap_or(0.0)
            - ["OK", "ResourceExhausted", "DeadlineExceeded", "Unavailable"]
                .iter()
                .map(|code| {
                    sample(&text, &format!("grpc_server_handled_total{{grpc_type=\"unary\",grpc_service=\"arbiter.v1.ArbiterService\",grpc_method=\"ApplyMoves\",grpc_code=\"{code}\"}}")).unwrap_or(0.0)
                })
                .sum::<f64>();
        most = most.max(in_progress);
        tokio::time::sleep(Duration::from_millis(2)).await;
    }
    for call in calls {
        assert_eq!(
            call.await.expect("join").expect("every call succeeds"),
            UNENDED_PLIES
        );
    }
    assert!(most <= 2.0, "{most} calls in progress on one connection");
    assert_eq!(handled(&server, "ApplyMoves", "OK"), 11.0);
    assert_eq!(
        metric(
            &server,
            "arbiter_connections_accepted_total{listener=\"grpc\"}"
        ),
        1.0,
        "all on one connection"
    );
}

/// An open AdjudicateGames stream: the sender of its request messages (the stream stays open
/// while it lives) and its responses.
struct OpenStream {
    requests: mpsc::Sender<AdjudicateGamesRequest>,
    responses: Streaming<AdjudicateGamesResponse>,
}

/// Opens an AdjudicateGames stream on `client`; its request side stays open until the sender
/// is dropped. Err: the status the server refused it with.
async fn open_stream(client: &mut Client) -> Result<OpenStream, Status> {
    let (requests, rx) = mpsc::channel(4);
    let responses = within(
        "AdjudicateGames",
        client.adjudicate_games(ReceiverStream::new(rx)),
    )
    .await?
    .into_inner();
    Ok(OpenStream {
        requests,
        responses,
    })
}

impl OpenStream {
    /// Sends one game and reads its verdict.
    async fn round_trip(&mut self) -> AdjudicateGamesResponse {
        self.requests
            .send(games_message())
            .await
            .expect("the stream is open");
        within("a stream response", self.responses.message())
            .await
            .expect("a response")
            .expect("not the end")
    }

    /// Closes the request side and reads the stream to its end (the server's task has then
    /// ended and given back its slot).
    async fn close(self) {
        let Self {
            requests,
            mut responses,
        } = self;
        drop(requests);
        while within("the end of the stream", responses.message())
            .await
            .expect("a clean end")
            .is_some()
        {}
    }
}

/// Issue 10 item 4: streams are bounded. With `--max-streams 3`, 3 open AdjudicateGames streams
/// are served, 2 more are refused with RESOURCE_EXHAUSTED and counted, and once one of the 3
/// has ended a new stream is admitted.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn streams_beyond_the_limit_are_refused_until_one_ends() {
    let server = Server::start_with(&["--max-streams", "3"]);
    let mut client = server.client().await;
    let mut open = Vec::new();
    for _ in 0..3 {
        let mut stream = open_stream(&mut client).await.expect("admitted");
        stream.round_trip().await;
        open.push(stream);
    }
    for _ in 0..2 {
        let status = open_stream(&mut client)
            .await
            .err()
            .expect("a fourth stream is refused");
        assert_eq!(status.code(), Code::ResourceExhausted, "{status:?}");
    }
    assert_eq!(shed(&server, "stream_limit"), 2.0);
    // The open streams are still served.
    for stream in &mut open {
        stream.round_trip().await;
    }
    open.pop().expect("three").close().await;
    let mut admitted = open_stream(&mut client)
        .await
        .expect("admitted once a stream ended");
    admitted.round_trip().await;
    assert_eq!(shed(&server, "stream_limit"), 2.0);
}

/// Issue 10 item 4: a stream that sends no request message for `--stream-idle-timeout` is ended
/// with DEADLINE_EXCEEDED, and its slot is free again.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_silent_stream_is_ended_with_deadline_exceeded() {
    let server = Server::start_with(&["--stream-idle-timeout", "1s", "--max-streams", "1"]);
    let mut client = server.client().await;
    let mut silent = open_stream(&mut client).await.expect("admitted");
    let status = within("the silent stream's end", silent.responses.message())
        .await
        .expect_err("ended by the server");
    assert_eq!(status.code(), Code::DeadlineExceeded, "{status:?}");
    let mut next = open_stream(&mut client).await.expect("the slot is free");
    next.round_trip().await;
}

/// Issue 10 item 7: a client's deadline covers the whole call, streams included. A stream
/// still open when its `grpc-timeout` passes is ended by the server with DEADLINE_EXCEEDED (tonic
/// enforces the deadline only until the response headers: the status seen is the server's),
/// however long `--stream-idle-timeout` is, and its slot is free again.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_stream_past_its_client_deadline_is_ended_with_deadline_exceeded() {
    let server = Server::start_with(&["--max-streams", "1"]);
    let mut client = server.client().await;
    let (requests, rx) = mpsc::channel(4);
    let mut request = tonic::Request::new(ReceiverStream::new(rx));
    request.set_timeout(Duration::from_millis(500));
    let mut responses = within("AdjudicateGames", client.adjudicate_games(request))
        .await
        .expect("admitted")
        .into_inner();
    requests.send(games_message()).await.expect("open");
    within("a response", responses.message())
        .await
        .expect("a verdict before the deadline")
        .expect("not the end");
    let status = within("the end at the deadline", responses.message())
        .await
        .expect_err("ended by the server");
    assert_eq!(status.code(), Code::DeadlineExceeded, "{status:?}");
    drop(requests);
    let mut next = open_stream(&mut client).await.expect("the slot is free");
    next.round_trip().await;
}

/// Issue 10 item 4: a client that sends games but reads no response cannot hold a stream (and
/// its buffers) forever. Its stream is ended after `--stream-idle-timeout` without a read: the
/// stream slot is free again (a new stream is admitted under `--max-streams 1`), and when the
/// client finally reads, it gets the responses already sent, then DEADLINE_EXCEEDED.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_stream_whose_client_stops_reading_is_ended_and_frees_its_slot() {
    const GAMES: usize = 2000;
    let server = Server::start_with(&["--stream-idle-timeout", "1s", "--max-streams", "1"]);
    // Small HTTP/2 windows, so that the unread responses fill them quickly.
    let channel = within(
        "connect",
        Endpoint::from_shared(server.url())
            .expect("url")
            .initial_stream_window_size(65_535)
            .initial_connection_window_size(65_535)
            .connect(),
    )
    .await
    .expect("connect");
    let mut client = Client::new(channel);
    let mut stalled = open_stream(&mut client).await.expect("admitted");
    stalled
        .requests
        .send(pgn_message(GAMES))
        .await
        .expect("the stream is open");
    // Without a read, the server ends the stream: its slot comes back.
    let mut other = server.client().await;
    let deadline = Instant::now() + SETTLE;
    let mut next = loop {
        match open_stream(&mut other).await {
            Ok(stream) => break stream,
            Err(status) if status.code() == Code::ResourceExhausted => {
                assert!(
                    Instant::now() < deadline,
                    "the stalled stream kept its slot"
                );
                tokio::time::sleep(Duration::from_millis(100)).await;
            }
            Err(status) => panic!("{status:?}"),
        }
    };
    next.round_trip().await;
    // Now the stalled client reads: what was sent, then the status.
    let mut received = 0_usize;
    let status = loop {
        match within("a stalled stream response", stalled.responses.message()).await {
            Ok(Some(response)) => {
                assert_eq!(response.index as usize, received, "in order, no gap");
                received += 1;
            }
            Ok(None) => panic!("ended without a status after {received} responses"),
            Err(status) => break status,
        }
    };
    assert_eq!(status.code(), Code::DeadlineExceeded, "{status:?}");
    assert!(
        received > 0 && received < GAMES,
        "{received} of {GAMES} responses before the end"
    );
}

/// How a call of the SIGTERM test ended.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Outcome {
    /// Answered OK.
    Ok,
    /// Never reached the server: the connection was refused or closed (tonic says UNAVAILABLE,
    /// or CANCELLED for a request still queued in its own connection when the server closed it
    /// after the GOAWAY: tonic maps hyper's "canceled" so; or INTERNAL "h2 protocol error" for a
    /// request written while the server's GOAWAY and close were on their way). The test checks
    /// on the server's own counters that it took none of them.
    NotSent,
    /// Any other status.
    Failed(Code, String),
    /// No answer in time.
    Hung,
}

/// Whether an error in the chain of `status`'s sources is of type `E` (tonic may wrap the h2
/// error of a connection the server closed in hyper's or its own transport error).
fn caused_by<E: std::error::Error + 'static>(status: &Status) -> bool {
    let mut source = std::error::Error::source(status);
    while let Some(error) = source {
        if error.is::<E>() {
            return true;
        }
        source = error.source();
    }
    false
}

fn outcome(result: Result<(), Status>) -> Outcome {
    match result {
        Ok(()) => Outcome::Ok,
        Err(status)
            if status.code() == Code::Unavailable
                || (status.code() == Code::Cancelled
                    && caused_by::<tonic::transport::Error>(&status))
                || (status.code() == Code::Internal
                    && (caused_by::<h2::Error>(&status)
                        || status.message().starts_with("h2 protocol error"))) =>
        {
            Outcome::NotSent
        }
        Err(status) => Outcome::Failed(status.code(), status.message().to_owned()),
    }
}

/// Issue 10 item 8: SIGTERM under load. Unary calls in flight from several tasks, a call whose
/// request is still arriving, and two open streams: every call the server took completes OK and
/// none hangs; calls made after the drain are not taken (UNAVAILABLE); the streams are ended
/// with UNAVAILABLE; the drain finishes by itself once the last call has completed, and the
/// process exits 0 within `--drain-timeout` (plus slack for the exit itself).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sigterm_under_load_ends_every_call_and_exits_zero() {
    const DRAIN: Duration = Duration::from_secs(5);
    let mut server = Server::start_with(&["--lame-duck", "300ms", "--drain-timeout", "5s"]);
    let calls_made = Arc::new(AtomicUsize::new(0));
    let mut clients = Vec::new();
    let mut tasks = Vec::new();
    for _ in 0..4 {
        let client = server.client().await;
        clients.push(client.clone());
        let calls_made = Arc::clone(&calls_made);
        tasks.push(tokio::spawn(async move {
            let mut outcomes = Vec::new();
            // Until the first call that fails (the drain), at most 2,000 calls or 30 s.
            let deadline = Instant::now() + Duration::from_secs(30);
            while outcomes.len() < 2000 && Instant::now() < deadline {
                let mut client = client.clone();
                let call = client.apply_moves(unended(2000));
                let ended = match tokio::time::timeout(SETTLE, call).await {
                    Ok(result) => outcome(result.map(drop)),
                    Err(_) => Outcome::Hung,
                };
                calls_made.fetch_add(1, Ordering::SeqCst);
                outcomes.push(ended.clone());
                if ended != Outcome::Ok {
                    break;
                }
            }
            outcomes
        }));
    }
    let mut streams = Vec::new();
    for client in clients.iter_mut().take(2) {
        let mut stream = open_stream(client).await.expect("admitted");
        stream.round_trip().await;
        streams.push(stream);
    }
    // A call in progress (its request message held back) keeps the drain going, so that
    // /metrics can still be read after the load has stopped.
    let held = RawClient::connect(&server).await;
    let mut held = held.start("ListLegalMoves", None).await.expect("started");
    settle("the held call in progress", || {
        metric(
            &server,
            "grpc_server_started_total{grpc_type=\"unary\",grpc_service=\"arbiter.v1.ArbiterService\",grpc_method=\"ListLegalMoves\"}",
        ) >= 1.0
    })
    .await;
    settle("calls under way", || {
        calls_made.load(Ordering::SeqCst) >= 20
    })
    .await;
    server.signal("TERM");

    let mut answered = 0_u32;
    for task in tasks {
        let outcomes = within("a load task", task).await.expect("join");
        let (last, before) = outcomes.split_last().expect("calls were made");
        assert!(
            before.iter().all(|outcome| *outcome == Outcome::Ok),
            "{outcomes:?}"
        );
        assert_eq!(*last, Outcome::NotSent, "after the drain: {outcomes:?}");
        answered += u32::try_from(before.len()).expect("a few");
    }
    // The held call keeps the drain going: the server still answers /metrics. Every
    // ApplyMoves call it took was answered OK, and it took no other.
    let text = server.scrape();
    let apply_moves =
        "grpc_type=\"unary\",grpc_service=\"arbiter.v1.ArbiterService\",grpc_method=\"ApplyMoves\"";
    assert_eq!(
        sample(
            &text,
            &format!("grpc_server_started_total{{{apply_moves}}}")
        ),
        Some(f64::from(answered)),
        "{text}"
    );
    assert_eq!(
        sample(
            &text,
            &format!("grpc_server_handled_total{{{apply_moves},grpc_code=\"OK\"}}")
        ),
        Some(f64::from(answered)),
        "{text}"
    );
    // The open streams, waiting for their next game, are ended by the server with UNAVAILABLE
    // (retry elsewhere) once the lame-duck period is over, so the drain need not time out.
    for mut stream in streams {
        let end = tokio::time::timeout(SETTLE, async {
            loop {
                match stream.responses.message().await {
                    Ok(Some(_)) => {}
                    Ok(None) => break None,
                    Err(status) => break Some(status),
                }
            }
        })
        .await
        .expect("the stream ends");
        let status = end.expect("a stream ended by the drain ends with a status");
        assert_eq!(status.code(), Code::Unavailable, "{status:?}");
    }
    // The held call, still in progress, completes.
    let moves: ListLegalMovesResponse = held
        .finish(&fast_call())
        .await
        .expect("a call in progress completes during the drain");
    assert_eq!(moves.moves.len(), 20);
    let status = server.exited(DRAIN + Duration::from_secs(10)).await;
    assert_eq!(status.code(), Some(0), "{}", server.stderr_tail());
    assert_eq!(
        server.log_count("drained: all calls finished"),
        1,
        "{}",
        server.stderr_tail()
    );
    assert_eq!(server.log_count("drain timeout reached"), 0);
    // After the drain, calls are refused.
    for client in &mut clients {
        let status = within(
            "a call after the drain",
            client.list_legal_moves(fast_call()),
        )
        .await
        .expect_err("no server");
        assert_eq!(status.code(), Code::Unavailable, "{status:?}");
    }
}

/// Issue 10 item 5: quiet overload. A flood on a server that can run one call at a time sheds
/// most calls with RESOURCE_EXHAUSTED; every shed call is counted in `arbiter_calls_shed_total`
/// (exactly the RESOURCE_EXHAUSTED answers the clients saw), but the log gets one summary line
/// per second at most, not a line per shed call.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_overload_is_counted_exactly_but_logged_in_summaries() {
    const CALLS: usize = 2048;
    const TASKS: usize = 64;
    let server = Server::start_with(&[
        "--concurrency-limit",
        "1",
        "--max-queue-wait",
        "1ms",
        "--workers",
        "1",
    ]);
    let mut channels = Vec::new();
    for _ in 0..4 {
        channels.push(server.client().await);
    }
    // 32 bursts of 64 calls at once, 60 ms apart: a flood spanning two summary intervals or so.
    let burst = Arc::new(tokio::sync::Barrier::new(TASKS));
    let flood_started = Instant::now();
    let tasks: Vec<_> = (0..TASKS)
        .map(|task| {
            let mut client = channels[task % channels.len()].clone();
            let burst = Arc::clone(&burst);
            tokio::spawn(async move {
                let mut codes = Vec::new();
                for _ in 0..CALLS / TASKS {
                    within("the next burst", burst.wait()).await;
                    let result =
                        within("ListLegalMoves", client.list_legal_moves(fast_call())).await;
                    codes.push(result.map_or_else(|status| status.code(), |_| Code::Ok));
                    tokio::time::sleep(Duration::from_millis(60)).await;
                }
                codes
            })
        })
        .collect();
    let mut codes = Vec::new();
    for task in tasks {
        codes.extend(within("a flood task", task).await.expect("join"));
    }
    let flood = flood_started.elapsed();
    let odd: Vec<_> = codes
        .iter()
        .filter(|code| !matches!(code, Code::Ok | Code::ResourceExhausted))
        .collect();
    assert!(odd.is_empty(), "{odd:?}");
    let refused = codes
        .iter()
        .filter(|code| **code == Code::ResourceExhausted)
        .count();
    assert!(
        refused >= 10,
        "only {refused} of {} calls shed",
        codes.len()
    );
    let text = server.scrape();
    let counted: f64 = [
        "concurrency_limit",
        "queue_timeout",
        "stream_limit",
        "request_bytes",
    ]
    .iter()
    .map(|reason| {
        sample(
            &text,
            &format!("arbiter_calls_shed_total{{reason=\"{reason}\"}}"),
        )
        .unwrap_or(0.0)
    })
    .sum();
    #[allow(clippy::cast_precision_loss)]
    let refused_f = refused as f64;
    assert_eq!(counted, refused_f, "{text}");
    // The last summary comes within a second of the flood's end.
    settle("an overload summary", || server.log_count("overload") >= 1).await;
    tokio::time::sleep(Duration::from_millis(1500)).await;
    let bound = usize::try_from(flood.as_secs()).expect("seconds") + 1 + 2;
    // (" shed": not "finished".)
    for word in ["overload", " shed"] {
        let lines = server.log_count(word);
        assert!(
            lines <= bound,
            "{lines} log lines mention {word:?} for {refused} shed calls in {flood:?}"
        );
    }
}

/// The HTTP/2 client connection preface and an empty SETTINGS frame: what a peer sends before
/// anything else.
fn http2_preface() -> Vec<u8> {
    let mut bytes = b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n".to_vec();
    bytes.extend(http2_frame(0x4, 0, 0, &[]));
    bytes
}

/// One HTTP/2 frame (RFC 9113 section 4.1): 24-bit length, type, flags, stream id, payload.
fn http2_frame(kind: u8, flags: u8, stream: u32, payload: &[u8]) -> Vec<u8> {
    let len = u32::try_from(payload.len()).expect("a small frame");
    let mut frame = len.to_be_bytes()[1..].to_vec();
    frame.extend([kind, flags]);
    frame.extend(stream.to_be_bytes());
    frame.extend(payload);
    frame
}

/// Reads from `tcp` until the server closes it (or [`SETTLE`] passes); returns what was read.
async fn read_until_closed(tcp: &mut tokio::net::TcpStream) -> Vec<u8> {
    let mut received = Vec::new();
    let _ =
        tokio::time::timeout(SETTLE, (&mut *tcp).take(1 << 20).read_to_end(&mut received)).await;
    received
}

/// Issue 10 fresh-user finding: a peer that never answers the server's keepalive PINGs is closed
/// after `--http2-keepalive-timeout`, and counted as `keepalive_timeout`, not as a client close.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn r_a_peer_ignoring_keepalive_pings_is_closed_as_keepalive_timeout() {
    use tokio::io::AsyncWriteExt as _;
    let server = Server::start_with(&[
        "--http2-keepalive-interval",
        "200ms",
        "--http2-keepalive-timeout",
        "200ms",
    ]);
    let mut tcp = within("connect", tokio::net::TcpStream::connect(server.addr()))
        .await
        .expect("connect");
    // The preface, then silence: the server's PINGs are read but never acknowledged.
    within("write", tcp.write_all(&http2_preface()))
        .await
        .expect("write the preface");
    let received = read_until_closed(&mut tcp).await;
    assert!(
        received.windows(2).any(|w| w == [0x6, 0x0]),
        "a PING frame (type 6) came before the close"
    );
    settle("the close counted", || {
        closed(&server, "keepalive_timeout") == 1.0
    })
    .await;
    assert_eq!(closed(&server, "client"), 0.0);
}

/// Issue 10 fresh-user finding: a peer opening streams and resetting them at once (the HTTP/2
/// "rapid reset" attack) gets a GOAWAY from the HTTP/2 layer; the close is counted as
/// `flood_guard` and leaves no per-connection WARN line in the log (h2's own warning is
/// filtered out by default).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn r_rapid_resets_are_counted_as_flood_guard_and_not_logged_per_connection() {
    use tokio::io::AsyncWriteExt as _;
    let server = Server::start_with(&[]);
    // HPACK (RFC 7541), no dynamic table: :method POST, :scheme http, :path /, and :authority
    // as a literal without indexing.
    let mut headers = vec![0x83, 0x86, 0x84, 0x01, 0x09];
    headers.extend(b"localhost");
    for _ in 0..3 {
        let mut bytes = http2_preface();
        for stream in (1..400u32).step_by(2) {
            bytes.extend(http2_frame(0x1, 0x4, stream, &headers)); // HEADERS, END_HEADERS
            bytes.extend(http2_frame(0x3, 0, stream, &8u32.to_be_bytes())); // RST_STREAM CANCEL
        }
        let mut tcp = within("connect", tokio::net::TcpStream::connect(server.addr()))
            .await
            .expect("connect");
        // The server may close before everything is written.
        let _ = within("write", tcp.write_all(&bytes)).await;
        let received = read_until_closed(&mut tcp).await;
        // GOAWAY (type 7) with ENHANCE_YOUR_CALM (0xb): 8 bytes of payload after the header.
        let goaway = received
            .windows(17)
            .any(|w| w[3] == 0x7 && w[13..17] == 0xbu32.to_be_bytes());
        assert!(goaway, "GOAWAY ENHANCE_YOUR_CALM received");
    }
    settle("three closes counted", || {
        closed(&server, "flood_guard") == 3.0
    })
    .await;
    assert_eq!(closed(&server, "client"), 0.0);
    assert_eq!(closed(&server, "protocol_error"), 0.0);
    assert_eq!(
        server.log_count("reached limit"),
        0,
        "{}",
        server.stderr_tail()
    );
}

/// Issue 10 fresh-user finding: a second SIGTERM (or Ctrl-C) during a long drain did nothing.
/// It now ends the process at once, logged, with 128 + 15 as a shell reports a SIGTERM kill.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn r_a_second_signal_during_the_drain_exits_at_once() {
    let mut server = Server::start_with(&["--lame-duck", "60s", "--drain-timeout", "60s"]);
    server.signal("TERM");
    settle("the first SIGTERM logged", || {
        server.log_count("SIGTERM received") == 1
    })
    .await;
    server.signal("TERM");
    let status = server.exited(SETTLE).await;
    assert_eq!(status.code(), Some(143), "{}", server.stderr_tail());
    assert_eq!(
        server.log_count("second signal (SIGTERM) during the drain"),
        1
    );
}

/// Request bytes held by calls in the whole server now (`arbiter_request_bytes_in_flight`).
fn bytes_in_flight(server: &Server) -> f64 {
    metric(server, "arbiter_request_bytes_in_flight")
}

/// Knights out and back for `plies` plies, in UCI (6 bytes a move on the wire).
fn knights(plies: usize) -> Game {
    Game {
        start: None,
        moves: ["g1f3", "g8f6", "f3g1", "f6g8"]
            .iter()
            .cycle()
            .take(plies)
            .map(|mv| (*mv).to_owned())
            .collect(),
    }
}

/// AdjudicateGame of [`knights`]`(plies)`: a large request, a small answer.
fn long_game(plies: usize) -> AdjudicateGameRequest {
    AdjudicateGameRequest {
        source: Some(adjudicate_game_request::Source::Game(knights(plies))),
        ..AdjudicateGameRequest::default()
    }
}

/// Issue 10, "bounded whatever clients send": request bytes in flight are bounded. With a budget
/// of 64 KiB, a call whose 54 KB request is still arriving holds all of it (a message takes its
/// whole size when its header arrives); 8 concurrent calls of 36 KB each cannot get room, wait
/// `--max-queue-wait`, and are refused with
/// RESOURCE_EXHAUSTED naming the bytes (counted as `reason="request_bytes"`). Meanwhile health
/// on the same port still answers (it is not under the budget). Once the held call has
/// finished, its bytes are back: a large call is served, and nothing is held any more.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn requests_beyond_the_byte_budget_are_refused_and_the_bytes_come_back() {
    const CALLS: usize = 8;
    let server = Server::start_with(&[
        "--max-request-bytes-in-flight",
        "65536",
        "--max-message-bytes",
        "60000",
        "--max-queue-wait",
        "300ms",
    ]);
    let held_message = grpc_frame(&long_game(9000));
    assert!(held_message.len() > 50_000 && held_message.len() < 60_000);
    let raw = RawClient::connect(&server).await;
    let mut held = raw.start("AdjudicateGame", None).await.expect("started");
    held.send(held_message.slice(..45_000), false)
        .expect("the first part");
    #[allow(clippy::cast_precision_loss)]
    let held_bytes = held_message.len() as f64;
    settle("the held call's bytes in flight", || {
        bytes_in_flight(&server) >= held_bytes
    })
    .await;
    assert_eq!(bytes_in_flight(&server), held_bytes);

    let client = server.client().await;
    let calls: Vec<_> = (0..CALLS)
        .map(|_| {
            let mut client = client.clone();
            // 36 KB each, more than the 11 KB left.
            tokio::spawn(async move {
                within("AdjudicateGame", client.adjudicate_game(long_game(6000))).await
            })
        })
        .collect();
    // Health on the gRPC port is not under the budget.
    let status = within(
        "Health/Check",
        HealthClient::new(client_channel(&server).await).check(HealthCheckRequest::default()),
    )
    .await
    .expect("Health/Check while the budget is spent")
    .into_inner()
    .status();
    assert_eq!(status, tonic_health::ServingStatus::Serving.into());
    for call in calls {
        let status = call
            .await
            .expect("join")
            .expect_err("no room for its bytes");
        assert_eq!(status.code(), Code::ResourceExhausted, "{status:?}");
        assert!(
            status.message().contains("request bytes in flight"),
            "{status:?}"
        );
    }
    #[allow(clippy::cast_precision_loss)]
    let refused = CALLS as f64;
    assert_eq!(shed(&server, "request_bytes"), refused);
    assert_eq!(
        handled(&server, "AdjudicateGame", "ResourceExhausted"),
        refused
    );
    assert_eq!(
        bytes_in_flight(&server),
        held_bytes,
        "the refused calls hold nothing"
    );

    // The held call completes, and gives its bytes back when its work has ended.
    held.send(held_message.slice(45_000..), true)
        .expect("the rest");
    let verdict: AdjudicateGameResponse = within("the held call", held.answer())
        .await
        .expect("the held call is served");
    assert_eq!(verdict.ply_count, 9000, "{verdict:?}");
    settle("every byte given back", || bytes_in_flight(&server) == 0.0).await;
    let mut client = client;
    let verdict = within("AdjudicateGame", client.adjudicate_game(long_game(6000)))
        .await
        .expect("room again")
        .into_inner();
    assert_eq!(verdict.ply_count, 6000, "{verdict:?}");
    assert_eq!(shed(&server, "request_bytes"), refused);
    settle("every byte given back", || bytes_in_flight(&server) == 0.0).await;
}

/// Issue 10, a fresh user's finding: a message took its whole declared size from the budget as
/// soon as its header arrived, so clients that sent only headers declaring large messages held
/// the whole budget until their deadlines and every other call was shed. Promises (bytes taken
/// for a message not arrived yet) now have a bound of their own, half the budget or the largest
/// message: with a 64 KiB budget and 30,000-byte messages, of four calls that each declare
/// 30,000 bytes and send nothing more, one holds 30,005 bytes and three are refused holding
/// nothing, and a real call whose message arrives with its header is served beside them.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn r_headers_declaring_large_messages_cannot_hold_the_byte_budget() {
    let server = Server::start_with(&[
        "--max-request-bytes-in-flight",
        "65536",
        "--max-message-bytes",
        "30000",
        "--max-queue-wait",
        "300ms",
    ]);
    let raw = RawClient::connect(&server).await;
    let mut liars = Vec::new();
    for _ in 0..4 {
        let mut call = raw.start("AdjudicateGame", None).await.expect("started");
        let mut header = BytesMut::new();
        header.put_u8(0);
        header.put_u32(30_000);
        call.send(header.freeze(), false).expect("a header");
        liars.push(call);
    }
    settle("three liars refused", || {
        shed(&server, "request_bytes") == 3.0
    })
    .await;
    assert_eq!(bytes_in_flight(&server), 30_005.0);
    let mut client = server.client().await;
    let request = long_game(2000);
    assert!(grpc_frame(&request).len() > 10_000);
    let verdict = within("AdjudicateGame", client.adjudicate_game(request))
        .await
        .expect("served beside the liar")
        .into_inner();
    assert_eq!(verdict.ply_count, 2000, "{verdict:?}");
    assert_eq!(shed(&server, "request_bytes"), 3.0);
    drop(liars);
    settle("every byte given back", || bytes_in_flight(&server) == 0.0).await;
}

/// Issue 10, a fresh user's finding: two AdjudicateGames streams that sent all but the last
/// 10 bytes of their 4 MiB messages and then stalled held the whole 8 MiB budget until the
/// stream idle timeout (60 s), and every other call was shed. A message must now arrive within
/// `--request-timeout` of waiting for it: with a 220,000-byte budget, two streams stall 10
/// bytes short of 100,005-byte messages (200,010 bytes held, too little left for a 20 KB call);
/// both end with DEADLINE_EXCEEDED naming what arrived, and the budget is free again for the
/// call. (The stream idle timeout stays 60 s: the old server left them open.)
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn r_stalled_messages_cannot_hold_the_byte_budget() {
    let server = Server::start_with(&[
        "--max-request-bytes-in-flight",
        "220000",
        "--max-message-bytes",
        "100000",
        "--max-queue-wait",
        "300ms",
        "--request-timeout",
        "5s",
    ]);
    let raw = RawClient::connect(&server).await;
    let mut stalled = Vec::new();
    for held in [100_000.0, 200_010.0] {
        let mut stream = raw.start("AdjudicateGames", None).await.expect("started");
        let mut almost = BytesMut::new();
        almost.put_u8(0);
        almost.put_u32(100_000);
        almost.put_bytes(b'x', 100_000 - 10);
        stream
            .send(almost.freeze(), false)
            .expect("all but 10 bytes");
        // The first stream's bytes are in before the second promises its own.
        settle("the stalled message held", || {
            bytes_in_flight(&server) >= held
        })
        .await;
        stalled.push(stream);
    }
    let request = long_game(4000);
    assert!(
        grpc_frame(&request).len() > 20_000,
        "more than the room left"
    );
    for mut stream in stalled {
        let status = within(
            "the stalled stream's end",
            stream.answer::<AdjudicateGamesResponse>(),
        )
        .await
        .expect_err("ended, not answered");
        assert_eq!(status.code(), Code::DeadlineExceeded, "{status:?}");
        assert!(
            status
                .message()
                .contains("99995 bytes arrived, 100005 declared"),
            "{status:?}"
        );
    }
    settle("every byte given back", || bytes_in_flight(&server) == 0.0).await;
    let mut client = server.client().await;
    let verdict = within("AdjudicateGame", client.adjudicate_game(request))
        .await
        .expect("room again")
        .into_inner();
    assert_eq!(verdict.ply_count, 4000, "{verdict:?}");
}

/// A channel to the server's gRPC port (not its health listener).
async fn client_channel(server: &Server) -> Channel {
    within(
        "connect",
        Endpoint::from_shared(server.url()).expect("url").connect(),
    )
    .await
    .expect("connect")
}

/// One AdjudicateGames message with [`knights`]`(plies)`.
fn long_game_message(plies: usize) -> AdjudicateGamesRequest {
    AdjudicateGamesRequest {
        source: Some(adjudicate_games_request::Source::Game(knights(plies))),
        ..AdjudicateGamesRequest::default()
    }
}

/// Issue 10: a stream gives back each message's request bytes once that message is answered,
/// so a stream may send, over its life, far more than the budget. Under a 64 KiB budget, one
/// stream sends 100 messages of ~24 KB (2.4 MB in all, sent as fast as the server reads them)
/// and gets a verdict for each; nothing is refused, and nothing is held once it has ended.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_stream_may_send_far_more_than_the_byte_budget_over_its_life() {
    const MESSAGES: usize = 100;
    let server = Server::start_with(&[
        "--max-request-bytes-in-flight",
        "65536",
        "--max-message-bytes",
        "60000",
        "--max-queue-wait",
        "300ms",
    ]);
    let message = long_game_message(4000);
    assert!(grpc_frame(&message).len() > 20_000);
    let mut client = server.client().await;
    let (requests, rx) = mpsc::channel(MESSAGES);
    let mut responses = within(
        "AdjudicateGames",
        client.adjudicate_games(ReceiverStream::new(rx)),
    )
    .await
    .expect("admitted")
    .into_inner();
    for _ in 0..MESSAGES {
        requests.send(message.clone()).await.expect("open");
    }
    drop(requests);
    let mut answered = 0;
    while let Some(response) = within("a stream response", responses.message())
        .await
        .expect("no status: every message has room in turn")
    {
        assert_eq!(response.index as usize, answered, "in order");
        assert!(
            matches!(
                response.result,
                Some(arbiter_proto::v1::adjudicate_games_response::Result::Verdict(_))
            ),
            "{response:?}"
        );
        answered += 1;
    }
    assert_eq!(answered, MESSAGES);
    assert_eq!(shed(&server, "request_bytes"), 0.0);
    settle("every byte given back", || bytes_in_flight(&server) == 0.0).await;
}

/// `--max-request-bytes-in-flight` must hold one largest message (`--max-message-bytes` plus
/// its 5-byte header), and `--max-answer-bytes-in-flight` one largest answer (issue 26: plus the
/// header and the 1 KiB kept per call, 1029 bytes): below, the server refuses to start, as a
/// command line error (exit status 64), and says why.
#[test]
fn a_byte_budget_below_the_message_size_is_refused_at_startup() {
    for (budget, needed) in [
        ("--max-request-bytes-in-flight", "100005"),
        ("--max-answer-bytes-in-flight", "101029"),
    ] {
        let output = arbiter_e2e::command::run(
            std::process::Command::new(arbiter_e2e::binary::arbiter()).args([
                "serve",
                "--grpc-addr",
                "127.0.0.1:0",
                "--metrics-addr",
                "off",
                "--health-addr",
                "off",
                "--max-message-bytes",
                "100000",
                budget,
                "100000",
            ]),
            Duration::from_secs(20),
        );
        assert_eq!(output.status.code(), Some(64), "{budget}");
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(
            stderr.contains(budget) && stderr.contains(needed),
            "{budget}: {stderr}"
        );
    }
}

/// Issue 10 fresh-user review: a client that resets its stream counted as a server error
/// (`Internal` when it reset while sending, `Unknown` when it closed the connection) or not at
/// all (reset while the server worked: started but never handled), so clients could fire the
/// error-ratio alert and skew every ratio. A client going away is `Canceled`, and every started
/// call is handled.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn r_calls_the_client_abandons_are_handled_as_canceled() {
    let server = Server::start();
    let client = RawClient::connect(&server).await;
    // 1. Reset while sending the request: half a message, then RST_STREAM(CANCEL).
    let mut call = client.start("ListLegalMoves", None).await.expect("start");
    call.body
        .send_data(Bytes::from_static(&[0, 0, 0, 0, 100, 10]), false)
        .expect("half a message");
    call.body.send_reset(h2::Reason::CANCEL);
    // 2. Reset while the server works on a slow call.
    let mut call = client.start("AdjudicateGame", None).await.expect("start");
    call.body
        .send_data(grpc_frame(&slow_call()), true)
        .expect("the request");
    tokio::time::sleep(Duration::from_millis(50)).await;
    call.body.send_reset(h2::Reason::CANCEL);
    // 3. Half a message, then the connection closes.
    let other = RawClient::connect(&server).await;
    let mut call = other.start("ApplyMove", None).await.expect("start");
    call.body
        .send_data(Bytes::from_static(&[0, 0, 0, 0, 100, 10]), false)
        .expect("half a message");
    // Let the frames leave before the client goes.
    tokio::time::sleep(Duration::from_millis(100)).await;
    drop(call);
    drop(other);
    let count = |method: &str, code: &str| handled(&server, method, code);
    settle("three calls handled", || {
        count("ListLegalMoves", "Canceled")
            + count("AdjudicateGame", "Canceled")
            + count("ApplyMove", "Canceled")
            == 3.0
    })
    .await;
    for method in ["ListLegalMoves", "AdjudicateGame", "ApplyMove"] {
        for code in ["Internal", "Unknown"] {
            assert_eq!(count(method, code), 0.0, "{method} {code}");
        }
    }
}

/// Issue 10 fresh-user review: after the lame duck the health listener stopped answering while
/// the process still drained calls, although the README promised `liveness` SERVING until exit
/// (a kubelet would count failed liveness probes during every long drain). The probes' listener
/// now answers until the gRPC port has drained.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn r_liveness_answers_on_the_health_port_until_the_drain_ends() {
    let mut server = Server::start_with(&["--lame-duck", "200ms", "--drain-timeout", "20s"]);
    let client = RawClient::connect(&server).await;
    // A call in progress (its message never sent) holds the drain open.
    let held = client
        .start("ListLegalMoves", Some("15S"))
        .await
        .expect("start");
    server.signal("TERM");
    settle("the lame duck over", || {
        server.log_count("lame-duck period over") == 1
    })
    .await;
    let health = Endpoint::from_shared(format!(
        "http://{}",
        server.health_addr().expect("a health listener")
    ))
    .expect("url")
    .connect_timeout(Duration::from_secs(5));
    let channel = within("connect to health while draining", health.connect())
        .await
        .expect("the health port still accepts connections");
    let liveness = within(
        "Health/Check liveness",
        HealthClient::new(channel).check(HealthCheckRequest {
            service: "liveness".to_owned(),
        }),
    )
    .await
    .expect("liveness answered")
    .into_inner()
    .status();
    assert_eq!(liveness, tonic_health::ServingStatus::Serving.into());
    drop(held);
    drop(client);
    let status = server.exited(SETTLE).await;
    assert_eq!(status.code(), Some(0), "{}", server.stderr_tail());
}

/// Issue 10, a fresh user's finding: request bodies a client gets wrong were INTERNAL, the
/// server's own fault, so any client could fire the error-ratio alert: a body that ends inside
/// a message, an empty body, a compression flag without `grpc-encoding`. Each is now
/// INVALID_ARGUMENT, and none is counted as Internal.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn r_malformed_request_bodies_are_invalid_argument_not_internal() {
    let server = Server::start();
    let raw = RawClient::connect(&server).await;
    let message = grpc_frame(&fast_call());
    let mut compressed = BytesMut::from(&message[..]);
    compressed[0] = 1;
    let bodies = [
        (
            "a body that ends inside its message",
            message.slice(..message.len() - 3),
        ),
        ("an empty body", Bytes::new()),
        (
            "a compression flag without grpc-encoding",
            compressed.freeze(),
        ),
    ];
    for (what, body) in bodies {
        let mut call = raw.start("ListLegalMoves", None).await.expect("started");
        call.send(body, true).expect("sent");
        let status = within(what, call.answer::<ListLegalMovesResponse>())
            .await
            .expect_err(what);
        assert_eq!(status.code(), Code::InvalidArgument, "{what}: {status:?}");
    }
    assert_eq!(handled(&server, "ListLegalMoves", "InvalidArgument"), 3.0);
    assert_eq!(handled(&server, "ListLegalMoves", "Internal"), 0.0);
}

/// Issue 10, a fresh user's finding: connections to the health port that never make a call were
/// closed only after `--connection-idle-timeout` (5 minutes), so `--health-max-connections`
/// idle connections locked the kubelet's probes out long enough for liveness to fail. The
/// health port closes a connection without a call after 10 s; the probes then get through.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn r_idle_connections_cannot_hold_the_health_port() {
    let server = Server::start_with(&["--health-max-connections", "2"]);
    let health = server.health_addr().expect("a health listener");
    let mut idle = Vec::new();
    for _ in 0..2 {
        let tcp = within("connect", tokio::net::TcpStream::connect(health))
            .await
            .expect("connect");
        let (send, connection) = within("HTTP/2 handshake", h2::client::handshake(tcp))
            .await
            .expect("HTTP/2 handshake");
        idle.push((send, tokio::spawn(connection)));
    }
    let health_closed = |reason: &str| {
        metric(
            &server,
            &format!("arbiter_connections_closed_total{{listener=\"health\",reason=\"{reason}\"}}"),
        )
    };
    settle("the idle health connections closed", || {
        health_closed("idle") == 2.0
    })
    .await;
    let channel = within(
        "connect to health",
        Endpoint::from_shared(format!("http://{health}"))
            .expect("url")
            .connect(),
    )
    .await
    .expect("the health port has room again");
    let status = within(
        "Health/Check",
        HealthClient::new(channel).check(HealthCheckRequest::default()),
    )
    .await
    .expect("Health/Check")
    .into_inner()
    .status();
    assert_eq!(status, tonic_health::ServingStatus::Serving.into());
    assert_eq!(health_closed("limit"), 0.0);
}

/// Issue 11, third review: a client that sent many one-game messages (under 256 bytes each) on
/// an AdjudicateGames stream faster than the server answered them lost its connection: the
/// stream reads a message when it has answered the previous one, the unread messages piled up
/// as small DATA frames in the HTTP/2 layer, and its flood guard (h2 >= 0.4.16: unread frames
/// under 256 bytes, each costing 256 minus its size, against half the connection window) sent
/// GOAWAY ENHANCE_YOUR_CALM after about 220 of them with 64 KiB windows. With a 16 KiB call
/// window and a 1 MiB connection window, a call's window of such messages costs less than the
/// guard's budget: 1,200 sent 20 at a time every 5 ms (about 4 per millisecond; each takes about
/// a millisecond to answer) are all answered, in order, and no connection is closed.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn small_messages_sent_ahead_of_their_answers_keep_their_connection() {
    const MESSAGES: usize = 1_200;
    let server = Server::start();
    let client = RawClient::connect(&server).await;
    let mut call = client.start("AdjudicateGames", None).await.expect("start");
    let message = small_slow_message();
    let pause = Duration::from_millis(5);
    within(
        "send the messages",
        send_ahead(&mut call, &message, MESSAGES, 20, pause),
    )
    .await
    .expect("every message sent");
    let (answers, status) = within(
        "read the answers",
        call.answers::<AdjudicateGamesResponse>(),
    )
    .await;
    assert_all_answered(&answers, &status, MESSAGES);
    assert_eq!(closed(&server, "flood_guard"), 0.0);
    assert_eq!(closed(&server, "protocol_error"), 0.0);
    // Fresh review of issue 11 (B4): the message counters counted DATA frames, and tonic packs
    // several response messages of a stream into one frame (1,000 answers were counted 952).
    let labels = "grpc_type=\"bidi_stream\",grpc_service=\"arbiter.v1.ArbiterService\",grpc_method=\"AdjudicateGames\"";
    for counter in [
        "grpc_server_msg_received_total",
        "grpc_server_msg_sent_total",
    ] {
        assert_eq!(
            metric(&server, &format!("{counter}{{{labels}}}")),
            MESSAGES as f64,
            "{counter}"
        );
    }
}

/// The same messages written all at once: with the default windows they are all answered; with
/// the windows of before (64 KiB per call and per connection) the HTTP/2 flood guard closes the
/// connection, counted as `flood_guard` (not as a client's close or a protocol error). This pins
/// what the windows are for (docs/operations.md, "Streaming many small games"): if an HTTP/2 upgrade changes
/// the guard, this test says so.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_burst_of_small_messages_fits_the_windows_and_trips_the_guard_with_wider_ones() {
    const MESSAGES: usize = 1_200;
    let message = small_slow_message();
    let burst = |server: Server| {
        let message = message.clone();
        async move {
            let client = RawClient::connect(&server).await;
            let mut call = client.start("AdjudicateGames", None).await.expect("start");
            let sent = within(
                "send the burst",
                send_ahead(&mut call, &message, MESSAGES, MESSAGES, Duration::ZERO),
            )
            .await;
            let (answers, status) = within(
                "read the answers",
                call.answers::<AdjudicateGamesResponse>(),
            )
            .await;
            (server, sent, answers, status)
        }
    };
    let (default, sent, answers, status) = burst(Server::start()).await;
    sent.expect("every message sent");
    assert_all_answered(&answers, &status, MESSAGES);
    assert_eq!(closed(&default, "flood_guard"), 0.0);
    let (wide, _, answers, status) = burst(Server::start_with(&[
        "--http2-stream-window-bytes",
        "65536",
        "--http2-connection-window-bytes",
        "65536",
    ]))
    .await;
    assert_eq!(status.code(), Code::Unavailable, "{status:?}");
    assert!(answers.len() < MESSAGES, "{} answers", answers.len());
    settle("the close counted", || closed(&wide, "flood_guard") == 1.0).await;
    assert_eq!(closed(&wide, "client"), 0.0);
    assert_eq!(closed(&wide, "protocol_error"), 0.0);
}
