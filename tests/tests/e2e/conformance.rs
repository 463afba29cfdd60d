//! Issue 26 item 5, end to end over raw HTTP/2 (the `h2` crate, so that the requests can break
//! the gRPC protocol as no gRPC library would): a deadline that has already passed is
//! DEADLINE_EXCEEDED and the call is not run, a malformed `grpc-timeout` is INTERNAL with HTTP
//! 400, a second message in a unary body is INTERNAL, and `application/grpc+json` is read as
//! protobuf. Each test cites the server whose answer it follows (grpc-go, grpc-java); the
//! gRPC-Web side of the same checks is in `grpc_web`.

use arbiter_e2e::requests::{fools_mate, fools_mate_pgn_message};
use arbiter_e2e::{sample, server::Server, within};
use arbiter_proto::v1::{
    AdjudicateGameResponse, ListLegalMovesRequest, ListLegalMovesResponse, Position, position,
};
use bytes::{Buf as _, BufMut as _, Bytes, BytesMut};
use http::StatusCode;
use prost::Message as _;
use tonic::{Code, Status};

const SERVICE: &str = "arbiter.v1.ArbiterService";

/// The message of a unary call whose body holds a second message.
const SECOND_MESSAGE: &str = "cardinality violation: a unary call's request body holds more \
                              than one message, and gRPC allows exactly one";

/// An answer read off the wire: the HTTP status and content type, the response messages, and
/// the gRPC status (from the headers of a trailers-only answer, or from the trailers).
#[derive(Debug)]
struct Answer {
    http: StatusCode,
    content_type: Option<String>,
    messages: Vec<Bytes>,
    status: Status,
}

/// Calls `arbiter.v1.ArbiterService/{method}` on a fresh HTTP/2 connection with `headers`
/// (`content-type: application/grpc` unless they give one) and a request body of `frames`,
/// each sent as one DATA frame, the last one ending the request.
async fn call(server: &Server, method: &str, headers: &[(&str, &str)], frames: &[Bytes]) -> Answer {
    let tcp = within("connect", tokio::net::TcpStream::connect(server.addr()))
        .await
        .expect("connect");
    let (send, connection) = within("HTTP/2 handshake", h2::client::handshake(tcp))
        .await
        .expect("HTTP/2 handshake");
    tokio::spawn(async move {
        let _ = connection.await;
    });
    let mut request = http::Request::post(format!("http://{}/{SERVICE}/{method}", server.addr()))
        .header("te", "trailers");
    if !headers.iter().any(|(name, _)| *name == "content-type") {
        request = request.header("content-type", "application/grpc");
    }
    for (name, value) in headers {
        request = request.header(*name, *value);
    }
    let request = request.body(()).expect("a request");
    let mut send = within("ready", send.ready()).await.expect("ready");
    let (response, mut body) = send.send_request(request, false).expect("a stream");
    for (at, frame) in frames.iter().enumerate() {
        // The server may answer and reset the stream before the last frame: the answer counts.
        if body
            .send_data(frame.clone(), at + 1 == frames.len())
            .is_err()
        {
            break;
        }
    }
    let (head, mut body) = within(method, response)
        .await
        .expect("an answer")
        .into_parts();
    let content_type = head
        .headers
        .get("content-type")
        .map(|value| value.to_str().expect("ASCII").to_owned());
    if let Some(status) = Status::from_header_map(&head.headers) {
        return Answer {
            http: head.status,
            content_type,
            messages: Vec::new(),
            status,
        };
    }
    let mut data = BytesMut::new();
    while let Some(chunk) = within("the answer's body", body.data()).await {
        let chunk = chunk.expect("the answer's body");
        let _ = body.flow_control().release_capacity(chunk.len());
        data.extend_from_slice(&chunk);
    }
    let trailers = within("trailers", body.trailers())
        .await
        .expect("trailers")
        .expect("a trailers frame");
    let mut messages = Vec::new();
    let mut data = data.freeze();
    while data.len() >= 5 {
        data.advance(1);
        let len = usize::try_from(data.get_u32()).expect("usize");
        messages.push(data.split_to(len));
    }
    Answer {
        http: head.status,
        content_type,
        messages,
        status: Status::from_header_map(&trailers).expect("grpc-status"),
    }
}

/// `message` with its gRPC header (uncompressed).
fn framed<M: prost::Message>(message: &M) -> Bytes {
    let mut frame = BytesMut::new();
    frame.put_u8(0);
    frame.put_u32(u32::try_from(message.encoded_len()).expect("small"));
    message.encode(&mut frame).expect("encode");
    frame.freeze()
}

fn fen(text: &str) -> Option<Position> {
    Some(Position {
        kind: Some(position::Kind::Fen(text.to_owned())),
        ..Position::default()
    })
}

fn start_moves() -> ListLegalMovesRequest {
    ListLegalMovesRequest {
        position: fen("startpos"),
        ..ListLegalMovesRequest::default()
    }
}

/// `name{labels}` in the server's `/metrics` now, 0 when absent.
fn metric(server: &Server, series: &str) -> f64 {
    sample(&server.scrape(), series).unwrap_or(0.0)
}

/// `grpc_server_handled_total` of an `arbiter.v1.ArbiterService` method of `kind` (`unary` or
/// `bidi_stream`) and `code`.
fn handled(server: &Server, kind: &str, method: &str, code: &str) -> f64 {
    metric(
        server,
        &format!(
            "grpc_server_handled_total{{grpc_type=\"{kind}\",grpc_service=\"{SERVICE}\",grpc_method=\"{method}\",grpc_code=\"{code}\"}}"
        ),
    )
}

const CHECKMATES: &str =
    "arbiter_games_adjudicated_total{result=\"0-1\",termination=\"checkmate\"}";

/// Issue 26 item 5: `grpc-timeout: 0n` was answered OK. grpc-go answers DEADLINE_EXCEEDED
/// without running the handler (its stream's context is done before the handler reads the
/// request; internal/transport/http2_server.go `operateHeaders` sets the deadline from
/// `decodeTimeout`). Here a small AdjudicateGame (answered in the call's first poll, which
/// tokio's `timeout` makes before it reads the clock) and an AdjudicateGames stream, each with
/// a deadline of 0: DEADLINE_EXCEEDED, counted `DeadlineExceeded`, and no game adjudicated.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn r_a_deadline_of_zero_is_deadline_exceeded_and_the_call_is_not_run() {
    let server = Server::start();
    let unary = call(
        &server,
        "AdjudicateGame",
        &[("grpc-timeout", "0n")],
        &[framed(&fools_mate())],
    )
    .await;
    assert_eq!(unary.status.code(), Code::DeadlineExceeded, "{unary:?}");
    assert_eq!(
        unary.status.message(),
        "the call's deadline (grpc-timeout of 0ns) had passed before it started: it was not run"
    );
    let stream = call(
        &server,
        "AdjudicateGames",
        &[("grpc-timeout", "0m")],
        &[framed(&fools_mate_pgn_message())],
    )
    .await;
    assert_eq!(stream.status.code(), Code::DeadlineExceeded, "{stream:?}");
    assert!(stream.messages.is_empty(), "{stream:?}");
    assert_eq!(metric(&server, CHECKMATES), 0.0, "no handler ran");
    assert_eq!(
        handled(&server, "unary", "AdjudicateGame", "DeadlineExceeded"),
        1.0
    );
    assert_eq!(
        handled(
            &server,
            "bidi_stream",
            "AdjudicateGames",
            "DeadlineExceeded"
        ),
        1.0
    );
    // With time left, the same calls are answered.
    let unary = call(
        &server,
        "AdjudicateGame",
        &[("grpc-timeout", "5S")],
        &[framed(&fools_mate())],
    )
    .await;
    assert_eq!(unary.status.code(), Code::Ok, "{unary:?}");
    let verdict = AdjudicateGameResponse::decode(unary.messages[0].clone()).expect("decodes");
    assert_eq!(verdict.outcome.expect("an outcome").result_text, "0-1");
    let stream = call(
        &server,
        "AdjudicateGames",
        &[("grpc-timeout", "5S")],
        &[framed(&fools_mate_pgn_message())],
    )
    .await;
    assert_eq!(
        (stream.status.code(), stream.messages.len()),
        (Code::Ok, 1),
        "{stream:?}"
    );
    assert_eq!(metric(&server, CHECKMATES), 1.0);
}

/// Issue 26 item 5: a malformed `grpc-timeout` was silently replaced by the server's default
/// deadline. grpc-go (internal/transport/http2_server.go, `operateHeaders`: `decodeTimeout`
/// in http_util.go fails, and the stream is aborted early with `http.StatusBadRequest` and
/// `codes.Internal` "malformed grpc-timeout: ...") refuses it before any handler; so does
/// arbiter, for unary calls and streams, and counts it `Internal`.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn r_a_malformed_grpc_timeout_is_internal_with_http_400_as_grpc_go_answers() {
    let server = Server::start();
    let unary = call(
        &server,
        "ListLegalMoves",
        &[("grpc-timeout", "5s")],
        &[framed(&start_moves())],
    )
    .await;
    assert_eq!(unary.http, StatusCode::BAD_REQUEST);
    assert_eq!(unary.status.code(), Code::Internal, "{unary:?}");
    assert_eq!(
        unary.status.message(),
        "malformed grpc-timeout: \"5s\" has an unknown unit (H, M, S, m, u or n)"
    );
    for value in ["", "S", "+5S", "123456789S"] {
        let stream = call(
            &server,
            "AdjudicateGames",
            &[("grpc-timeout", value)],
            &[framed(&fools_mate_pgn_message())],
        )
        .await;
        assert_eq!(stream.http, StatusCode::BAD_REQUEST, "{value:?}");
        assert_eq!(
            stream.status.code(),
            Code::Internal,
            "{value:?}: {stream:?}"
        );
        assert!(
            stream
                .status
                .message()
                .starts_with("malformed grpc-timeout: "),
            "{value:?}: {stream:?}"
        );
        assert!(stream.messages.is_empty());
    }
    assert_eq!(handled(&server, "unary", "ListLegalMoves", "Internal"), 1.0);
    assert_eq!(
        handled(&server, "bidi_stream", "AdjudicateGames", "Internal"),
        4.0
    );
}

/// Issue 26 item 5: a unary request body holding two messages was answered from the first
/// (tonic's `Grpc::unary` decodes one message and drops the rest while looking for trailers).
/// grpc-java answers INTERNAL "Too many requests"
/// (stub/src/main/java/io/grpc/stub/ServerCalls.java, `UnaryServerCallListener.onMessage`) and
/// grpc-go's main branch INTERNAL "cardinality violation: received multiple request messages
/// for non-client-streaming RPC" (stream.go, `serverStream.RecvMsg`); so does arbiter, whether
/// the second message comes in the first message's DATA frame or in a frame of its own, and
/// the request bytes all come back.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn r_a_second_message_in_a_unary_body_is_internal() {
    let server = Server::start();
    let one = framed(&start_moves());
    let both: Bytes = [one.clone(), one.clone()].concat().into();
    for frames in [vec![both], vec![one.clone(), one.clone()]] {
        let answer = call(&server, "ListLegalMoves", &[], &frames).await;
        assert_eq!(answer.status.code(), Code::Internal, "{answer:?}");
        assert_eq!(answer.status.message(), SECOND_MESSAGE);
        assert!(answer.messages.is_empty());
    }
    assert_eq!(handled(&server, "unary", "ListLegalMoves", "Internal"), 2.0);
    assert_eq!(metric(&server, "arbiter_request_bytes_in_flight"), 0.0);
    // One message: answered.
    let answer = call(&server, "ListLegalMoves", &[], &[one]).await;
    assert_eq!(answer.status.code(), Code::Ok, "{answer:?}");
    assert_eq!(answer.content_type.as_deref(), Some("application/grpc"));
    let moves = ListLegalMovesResponse::decode(answer.messages[0].clone()).expect("decodes");
    assert_eq!(moves.moves.len(), 20);
}

/// Issue 26 item 5: `application/grpc+json` stays decoded as protobuf, as released grpc-go
/// does: its server.go `(*Server).getCodec` falls back to the proto codec for a content
/// subtype without a registered codec, and grpc-go registers none for `json`. A protobuf body
/// is answered (content type `application/grpc`: tonic's, where grpc-go echoes the request's),
/// and a JSON body is not protobuf (INVALID_ARGUMENT, as any undecodable message here).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn grpc_json_content_is_read_as_protobuf_as_released_grpc_go_reads_it() {
    let server = Server::start();
    let json = [("content-type", "application/grpc+json")];
    let answer = call(&server, "ListLegalMoves", &json, &[framed(&start_moves())]).await;
    assert_eq!(answer.status.code(), Code::Ok, "{answer:?}");
    assert_eq!(answer.content_type.as_deref(), Some("application/grpc"));
    let moves = ListLegalMovesResponse::decode(answer.messages[0].clone()).expect("decodes");
    assert_eq!(moves.moves.len(), 20);

    let text = br#"{"position":{"fen":"startpos"}}"#;
    let mut body = BytesMut::new();
    body.put_u8(0);
    body.put_u32(u32::try_from(text.len()).expect("small"));
    body.put_slice(text);
    let answer = call(&server, "ListLegalMoves", &json, &[body.freeze()]).await;
    assert_eq!(answer.status.code(), Code::InvalidArgument, "{answer:?}");
    assert!(
        answer
            .status
            .message()
            .starts_with("failed to decode Protobuf message"),
        "{answer:?}"
    );
}
