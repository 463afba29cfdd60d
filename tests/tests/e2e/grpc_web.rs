//! Issue 14, part 2: gRPC-Web on the gRPC port. Every unary RPC answers through `buf curl
//! --protocol grpcweb` (HTTP/1.1 and HTTP/2) as it does over gRPC, errors and their details
//! included; CORS allows exactly the configured origins; the metrics see a gRPC-Web call's real
//! method and status (a preflight creates no series); and the connection bounds hold for
//! HTTP/1.1 connections (cap, slow headers, idle keep-alive, age, drain, message size).
//!
//! HTTP/1.1 is spoken here by hyper's client on one connection, or by hand over a socket where
//! the client must misbehave (headers sent a byte at a time).

use std::time::{Duration, Instant};

use arbiter_e2e::{
    buf::{self, Protocol},
    sample,
    server::Server,
    within,
};
use arbiter_proto::v1::{
    AdjudicateGameRequest, ApplyMovesRequest, ApplyMovesResponse, Color, Game, GameEvent,
    GameEventKind, ListLegalMovesRequest, ListLegalMovesResponse, Position,
    adjudicate_game_request, position,
};
use base64::Engine as _;
use bytes::{Buf as _, BufMut as _, Bytes, BytesMut};
use http::{HeaderMap, StatusCode};
use http_body_util::{BodyExt as _, Full};
use prost::Message as _;
use serde_json::Value;
use tokio::io::{AsyncReadExt as _, AsyncWriteExt as _};

const SERVICE: &str = "arbiter.v1.ArbiterService";

/// Longest wait for a state the server must reach by itself (a timeout firing).
const SETTLE: Duration = Duration::from_secs(20);

/// The content type browsers' gRPC-Web clients send (connect-web, grpc-web).
const GRPC_WEB: &str = "application/grpc-web+proto";

/// Every unary RPC of the API with a request that succeeds and one that fails, and what buf
/// exits with (8 × the gRPC code: 0 OK, 24 INVALID_ARGUMENT, 40 NOT_FOUND). Issue 27 item 9:
/// ApplyMoves with its `outcome`, and refusing a move after the mate (cause GAME_OVER), alike
/// over every protocol.
const CALLS: [(&str, &str, i32); 14] = [
    (
        "arbiter.v1.ArbiterService/ListLegalMoves",
        r#"{"position":{"fen":"startpos"}}"#,
        0,
    ),
    (
        "arbiter.v1.ArbiterService/ListLegalMoves",
        r#"{"position":{"fen":"8/8/8/8/8/8/8/K7 w - - 0 1"}}"#,
        24,
    ),
    (
        "arbiter.v1.ArbiterService/ApplyMove",
        r#"{"position":{"fen":"startpos"},"move":"e4"}"#,
        0,
    ),
    (
        "arbiter.v1.ArbiterService/ApplyMove",
        r#"{"position":{"fen":"startpos"},"move":"e5"}"#,
        24,
    ),
    (
        "arbiter.v1.ArbiterService/ApplyMoves",
        r#"{"moves":["e4","e5","Nf3","Nc6","Bb5"]}"#,
        0,
    ),
    (
        "arbiter.v1.ArbiterService/ApplyMoves",
        r#"{"position":{"fen":"4k3/8/8/8/1b6/8/3N4/4K3 w - - 0 1"},"moves":["Nf3"]}"#,
        24,
    ),
    (
        "arbiter.v1.ArbiterService/ApplyMoves",
        r#"{"moves":["f3","e5","g4","Qh4#"]}"#,
        0,
    ),
    (
        "arbiter.v1.ArbiterService/ApplyMoves",
        r#"{"moves":["f3","e5","g4","Qh4#","a3"]}"#,
        24,
    ),
    (
        "arbiter.v1.ArbiterService/AdjudicateGame",
        r#"{"pgn":"1. f3 e5 2. g4 Qh4# 0-1"}"#,
        0,
    ),
    (
        "arbiter.v1.ArbiterService/AdjudicateGame",
        r#"{"game":{"moves":["e4","e4"]}}"#,
        24,
    ),
    (
        "arbiter.v1.ArbiterService/ValidatePosition",
        r#"{"position":{"fen":"8/8/8/8/8/8/8/K7 w - - 0 1"}}"#,
        0,
    ),
    ("arbiter.v1.ArbiterService/ValidatePosition", "{}", 24),
    ("grpc.health.v1.Health/Check", r#"{"service":""}"#, 0),
    (
        "grpc.health.v1.Health/Check",
        r#"{"service":"no.such.Service"}"#,
        40,
    ),
];

/// One error detail as `buf curl` prints it (`{"type", "value"}`), decoded: the `ErrorInfo`
/// metadata is a map, whose encoding's order differs from call to call.
#[derive(Debug, PartialEq)]
enum Detail {
    BadRequest(tonic_types::pb::BadRequest),
    ErrorInfo(tonic_types::pb::ErrorInfo),
}

/// The decoded details of the error `buf curl` printed.
fn details(error: &Value) -> Vec<Detail> {
    let base64 = base64::engine::GeneralPurpose::new(
        &base64::alphabet::STANDARD,
        base64::engine::GeneralPurposeConfig::new()
            .with_decode_padding_mode(base64::engine::DecodePaddingMode::Indifferent),
    );
    error["details"]
        .as_array()
        .map(Vec::as_slice)
        .unwrap_or_default()
        .iter()
        .map(|detail| {
            let value = base64
                .decode(detail["value"].as_str().expect("a value"))
                .expect("base64");
            match detail["type"].as_str() {
                Some("google.rpc.BadRequest") => Detail::BadRequest(
                    tonic_types::pb::BadRequest::decode(&value[..]).expect("BadRequest"),
                ),
                Some("google.rpc.ErrorInfo") => Detail::ErrorInfo(
                    tonic_types::pb::ErrorInfo::decode(&value[..]).expect("ErrorInfo"),
                ),
                other => panic!("unexpected detail type {other:?}"),
            }
        })
        .collect()
}

/// `grpc_server_handled_total` of a unary method (`service/method`) and code, 0 when absent.
fn handled(text: &str, method: &str, code: &str) -> f64 {
    let (service, method) = method.split_once('/').expect("service/method");
    sample(
        text,
        &format!(
            "grpc_server_handled_total{{grpc_type=\"unary\",grpc_service=\"{service}\",grpc_method=\"{method}\",grpc_code=\"{code}\"}}"
        ),
    )
    .unwrap_or(0.0)
}

/// Issue 14: every unary RPC answers through gRPC-Web as over gRPC, with the same JSON, the
/// same status code and message, and the same error details (`google.rpc.BadRequest`,
/// `ErrorInfo`), over HTTP/1.1 (the schema from a file: reflection needs HTTP/2) and over
/// HTTP/2 (the schema from server reflection, itself called over gRPC-Web). The metrics count
/// each call under its own method and code, whatever the protocol.
#[test]
fn every_unary_rpc_answers_over_grpc_web_as_over_grpc() {
    let Some(buf) = buf::binary("every_unary_rpc_answers_over_grpc_web_as_over_grpc") else {
        return;
    };
    let server = Server::start();
    let protocols = [
        Protocol::Grpc,
        Protocol::GrpcWebHttp1(buf::served_schema()),
        Protocol::GrpcWebHttp2,
    ];
    for (method, data, exit) in CALLS {
        let grpc = buf::curl_over(&buf, Protocol::Grpc, &server.url(), method, data);
        assert_eq!(
            grpc.exit_code,
            Some(exit),
            "{method} {data}: {}",
            grpc.stderr
        );
        if exit == 0 {
            assert_ne!(grpc.body, Value::Null, "{method} {data}");
        } else if method.starts_with(SERVICE) {
            assert_eq!(
                details(&grpc.error).len(),
                2,
                "{method} {data}: {}",
                grpc.stderr
            );
        }
        for protocol in &protocols[1..] {
            let web = buf::curl_over(&buf, *protocol, &server.url(), method, data);
            let what = format!("{method} {data} over {protocol:?}");
            assert_eq!(web.exit_code, grpc.exit_code, "{what}: {}", web.stderr);
            assert_eq!(web.body, grpc.body, "{what}");
            assert_eq!(web.error["code"], grpc.error["code"], "{what}");
            assert_eq!(web.error["message"], grpc.error["message"], "{what}");
            assert_eq!(details(&web.error), details(&grpc.error), "{what}");
        }
    }
    // Each call was made once per protocol.
    let text = server.scrape();
    for (method, _, exit) in CALLS {
        let code = match exit {
            0 => "OK",
            24 => "InvalidArgument",
            _ => "NotFound",
        };
        let made = CALLS
            .iter()
            .filter(|(other, _, other_exit)| *other == method && *other_exit == exit)
            .count();
        #[allow(clippy::cast_precision_loss)] // a few calls
        let expected = (made * protocols.len()) as f64;
        assert_eq!(handled(&text, method, code), expected, "{method} {code}");
    }
}

/// A gRPC-Web message frame: `message` with its 5-byte header (uncompressed).
fn frame<M: prost::Message>(message: &M) -> Bytes {
    let encoded = message.encode_to_vec();
    let mut frame = BytesMut::with_capacity(5 + encoded.len());
    frame.put_u8(0);
    frame.put_u32(u32::try_from(encoded.len()).expect("small"));
    frame.put_slice(&encoded);
    frame.freeze()
}

/// A gRPC-Web answer: HTTP status and headers, its messages, and the trailers of its trailers
/// frame.
#[derive(Debug)]
struct Answer {
    status: StatusCode,
    headers: HeaderMap,
    messages: Vec<Bytes>,
    trailers: Vec<(String, String)>,
}

impl Answer {
    /// The value of a trailer of the trailers frame.
    fn trailer(&self, name: &str) -> Option<&str> {
        self.trailers
            .iter()
            .find(|(key, _)| key == name)
            .map(|(_, value)| value.as_str())
    }

    /// The gRPC status code, from the trailers frame (never from the headers: see the server's
    /// `grpc_web` module).
    fn grpc_status(&self) -> Option<i32> {
        assert!(
            !self.headers.contains_key("grpc-status"),
            "the status is in the trailers frame, not the headers: {:?}",
            self.headers
        );
        self.trailer("grpc-status")
            .map(|code| code.parse().expect("a number"))
    }

    /// A response header as text.
    fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .get(name)
            .map(|value| value.to_str().expect("text"))
    }
}

/// Splits a gRPC-Web body into its messages and the trailers of its trailers frame (flag 0x80,
/// `name:value\r\n` lines).
fn read_grpc_web(mut body: Bytes) -> (Vec<Bytes>, Vec<(String, String)>) {
    let mut messages = Vec::new();
    let mut trailers = Vec::new();
    while body.len() >= 5 {
        let flag = body.get_u8();
        let len = usize::try_from(body.get_u32()).expect("length");
        let data = body.split_to(len);
        if flag & 0x80 == 0 {
            messages.push(data);
        } else {
            for line in String::from_utf8(data.to_vec())
                .expect("text")
                .split("\r\n")
            {
                if let Some((name, value)) = line.split_once(':') {
                    trailers.push((name.trim().to_ascii_lowercase(), value.trim().to_owned()));
                }
            }
        }
    }
    assert!(body.is_empty(), "a truncated gRPC-Web frame: {body:?}");
    (messages, trailers)
}

/// An HTTP/1.1 connection to the server (hyper's client), for gRPC-Web calls and preflights.
struct Http1 {
    send: hyper::client::conn::http1::SendRequest<Full<Bytes>>,
    /// Ends when the server closes the connection.
    connection: tokio::task::JoinHandle<()>,
    authority: String,
}

impl Http1 {
    async fn connect(server: &Server) -> Self {
        let tcp = within("connect", tokio::net::TcpStream::connect(server.addr()))
            .await
            .expect("connect");
        let (send, connection) = within(
            "HTTP/1.1 handshake",
            hyper::client::conn::http1::handshake(hyper_util::rt::TokioIo::new(tcp)),
        )
        .await
        .expect("HTTP/1.1 handshake");
        Self {
            send,
            connection: tokio::spawn(async move {
                let _ = connection.await;
            }),
            authority: server.addr().to_string(),
        }
    }

    /// Sends `method` `path` with `headers` and `body`; the whole answer, its body read as
    /// gRPC-Web frames.
    async fn request(
        &mut self,
        method: &str,
        path: &str,
        headers: &[(&str, &str)],
        body: Bytes,
    ) -> Answer {
        let (status, headers, body) = self.exchange(method, path, headers, body).await;
        let (messages, trailers) = read_grpc_web(body);
        Answer {
            status,
            headers,
            messages,
            trailers,
        }
    }

    /// Sends `method` `path` with `headers` and `body`; the answer's status, headers and body.
    async fn exchange(
        &mut self,
        method: &str,
        path: &str,
        headers: &[(&str, &str)],
        body: Bytes,
    ) -> (StatusCode, HeaderMap, Bytes) {
        let mut request = http::Request::builder()
            .method(method)
            .uri(format!("http://{}{path}", self.authority))
            .header("host", &self.authority);
        for (name, value) in headers {
            request = request.header(*name, *value);
        }
        let request = request.body(Full::new(body)).expect("request");
        within("ready", self.send.ready()).await.expect("ready");
        let response = within(path, self.send.send_request(request))
            .await
            .expect("an answer");
        let (parts, body) = response.into_parts();
        let body = within("body", body.collect())
            .await
            .expect("the whole body")
            .to_bytes();
        (parts.status, parts.headers, body)
    }

    /// A gRPC-Web call of `arbiter.v1.ArbiterService/{method}` with `message` and `headers`.
    async fn call<M: prost::Message>(
        &mut self,
        method: &str,
        message: &M,
        headers: &[(&str, &str)],
    ) -> Answer {
        let mut all = vec![("content-type", GRPC_WEB), ("x-grpc-web", "1")];
        all.extend_from_slice(headers);
        self.request(
            "POST",
            &format!("/{SERVICE}/{method}"),
            &all,
            frame(message),
        )
        .await
    }

    /// A CORS preflight of a gRPC-Web call from `origin`, as a browser sends it.
    async fn preflight(&mut self, origin: &str) -> Answer {
        self.request(
            "OPTIONS",
            &format!("/{SERVICE}/ListLegalMoves"),
            &[
                ("origin", origin),
                ("access-control-request-method", "POST"),
                (
                    "access-control-request-headers",
                    "content-type,x-grpc-web,x-user-agent,grpc-timeout",
                ),
            ],
            Bytes::new(),
        )
        .await
    }

    /// Waits until the server has closed the connection.
    async fn closed(self) {
        let Self { connection, .. } = self;
        tokio::time::timeout(SETTLE, connection)
            .await
            .expect("the server closes the connection")
            .expect("join");
    }
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

/// A position without a Black king: INVALID_ARGUMENT.
fn no_black_king() -> ListLegalMovesRequest {
    ListLegalMovesRequest {
        position: fen("8/8/8/8/8/8/8/K7 w - - 0 1"),
        ..ListLegalMovesRequest::default()
    }
}

/// White's flag fell where the full search needs a few hundred milliseconds to find Black's
/// mate (as in `bounds`): slow work.
fn slow_call() -> AdjudicateGameRequest {
    AdjudicateGameRequest {
        source: Some(adjudicate_game_request::Source::Game(Game {
            start: fen("8/pkp5/4p3/8/P5p1/2P3pb/P3P1p1/6K1 b - - 0 1"),
            moves: Vec::new(),
        })),
        event: Some(GameEvent {
            kind: GameEventKind::FlagFall.into(),
            side: Color::White.into(),
        }),
        ..AdjudicateGameRequest::default()
    }
}

/// The exact CORS answer headers for a gRPC-Web client.
const ALLOW_HEADERS: &str = "content-type,x-grpc-web,x-user-agent,grpc-timeout,x-request-id";
const EXPOSE_HEADERS: &str = "grpc-status,grpc-message,grpc-status-details-bin,x-request-id";

/// Issue 14: no browser origin is allowed unless configured. Without the flag, a preflight from
/// any origin gets no `Access-Control-Allow-Origin`, so the browser sends no call.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn without_the_flag_no_origin_is_allowed() {
    let server = Server::start();
    let mut http1 = Http1::connect(&server).await;
    for origin in ["http://a.example", "http://127.0.0.1:8080", "null"] {
        let preflight = http1.preflight(origin).await;
        assert_eq!(preflight.status, StatusCode::OK, "{origin}");
        assert_eq!(
            preflight.header("access-control-allow-origin"),
            None,
            "{origin}"
        );
    }
    // A call sent anyway (by a client that is not a browser) is answered, without CORS
    // headers that would let a browser read it.
    let answer = http1
        .call(
            "ListLegalMoves",
            &start_moves(),
            &[("origin", "http://a.example")],
        )
        .await;
    assert_eq!(answer.grpc_status(), Some(0));
    assert_eq!(answer.header("access-control-allow-origin"), None);
}

/// Issue 14: `--cors-allowed-origins` allows exactly its origins: their preflight gets the
/// origin back with the method and the request headers gRPC-Web clients send, their calls the
/// headers a page must read (status, message, details, request id); another origin gets none.
/// Preflights never reach the metrics (no series, not even `unknown`), and gRPC without an
/// `Origin` gets no CORS header at all.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn cors_allows_exactly_the_configured_origins() {
    let server = Server::start_with(&[
        "--cors-allowed-origins",
        "http://a.example, http://127.0.0.1:8080",
    ]);
    let mut http1 = Http1::connect(&server).await;
    for origin in ["http://a.example", "http://127.0.0.1:8080"] {
        let preflight = http1.preflight(origin).await;
        assert_eq!(preflight.status, StatusCode::OK);
        assert_eq!(
            preflight.header("access-control-allow-origin"),
            Some(origin)
        );
        assert_eq!(
            preflight.header("access-control-allow-methods"),
            Some("POST")
        );
        assert_eq!(
            preflight.header("access-control-allow-headers"),
            Some(ALLOW_HEADERS)
        );
        assert_eq!(preflight.header("access-control-max-age"), Some("7200"));
    }
    for origin in [
        "http://b.example",
        "http://a.example:8080",
        "https://a.example",
    ] {
        let preflight = http1.preflight(origin).await;
        assert_eq!(
            preflight.header("access-control-allow-origin"),
            None,
            "{origin}"
        );
    }

    let allowed = http1
        .call(
            "ListLegalMoves",
            &start_moves(),
            &[("origin", "http://a.example"), ("x-request-id", "page-1")],
        )
        .await;
    assert_eq!(allowed.status, StatusCode::OK);
    assert_eq!(allowed.header("content-type"), Some(GRPC_WEB));
    assert_eq!(
        allowed.header("access-control-allow-origin"),
        Some("http://a.example")
    );
    assert_eq!(
        allowed.header("access-control-expose-headers"),
        Some(EXPOSE_HEADERS)
    );
    assert_eq!(allowed.header("x-request-id"), Some("page-1"));
    assert_eq!(allowed.grpc_status(), Some(0));
    assert_eq!(allowed.messages.len(), 1);
    let moves = ListLegalMovesResponse::decode(allowed.messages[0].clone()).expect("decodes");
    assert_eq!(moves.moves.len(), 20);

    let other = http1
        .call(
            "ListLegalMoves",
            &no_black_king(),
            &[("origin", "http://b.example")],
        )
        .await;
    assert_eq!(other.header("access-control-allow-origin"), None);
    assert_eq!(other.grpc_status(), Some(3));
    assert!(other.trailer("grpc-status-details-bin").is_some());

    // Seven preflights and two calls: the metrics saw the two calls only.
    let text = server.scrape();
    let started: f64 = text
        .lines()
        .filter(|line| line.starts_with("grpc_server_started_total{"))
        .filter_map(|line| line.rsplit_once(' ')?.1.parse::<f64>().ok())
        .sum();
    assert_eq!(started, 2.0, "{text}");
    assert_eq!(
        sample(
            &text,
            "grpc_server_started_total{grpc_type=\"unary\",grpc_service=\"unknown\",grpc_method=\"unknown\"}"
        )
        .unwrap_or(0.0),
        0.0
    );

    // gRPC (no Origin): no CORS header, not even `vary`.
    let mut client = server.client().await;
    let response = within("ListLegalMoves", client.list_legal_moves(start_moves()))
        .await
        .expect("ListLegalMoves");
    let metadata = response.metadata();
    for name in [
        "vary",
        "access-control-allow-origin",
        "access-control-expose-headers",
    ] {
        assert!(metadata.get(name).is_none(), "{name}: {metadata:?}");
    }
}

/// Issue 26 item 5: CORS preflights appeared in no metric (they are answered before the
/// metrics layer, and are no gRPC calls). They are counted in
/// `arbiter_cors_preflights_total{outcome}`, both outcomes at 0 from the start: `allowed` when
/// the answer lets the browser send its call, `refused` for an origin not listed or an
/// `OPTIONS` request without `Origin`.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn r_cors_preflights_are_counted_by_outcome() {
    let server = Server::start_with(&["--cors-allowed-origins", "http://a.example"]);
    let preflights = |text: &str, outcome: &str| {
        sample(
            text,
            &format!("arbiter_cors_preflights_total{{outcome=\"{outcome}\"}}"),
        )
    };
    let text = server.scrape();
    assert_eq!(preflights(&text, "allowed"), Some(0.0), "{text}");
    assert_eq!(preflights(&text, "refused"), Some(0.0), "{text}");
    assert!(
        text.contains("# HELP arbiter_cors_preflights_total CORS preflights"),
        "{text}"
    );
    let mut http1 = Http1::connect(&server).await;
    for origin in ["http://a.example", "http://b.example", "http://a.example"] {
        let answer = http1.preflight(origin).await;
        assert_eq!(answer.status, StatusCode::OK, "{origin}");
    }
    let bare = http1
        .request(
            "OPTIONS",
            &format!("/{SERVICE}/ListLegalMoves"),
            &[],
            Bytes::new(),
        )
        .await;
    assert_eq!(bare.header("access-control-allow-origin"), None);
    let text = server.scrape();
    assert_eq!(preflights(&text, "allowed"), Some(2.0), "{text}");
    assert_eq!(preflights(&text, "refused"), Some(2.0), "{text}");
    assert!(
        !text.contains("grpc_server_started_total{"),
        "a preflight is no gRPC call: {text}"
    );
}

/// Issue 26 item 5: a gRPC-Web call is translated before the guard, so it gets the same
/// protocol checks as a gRPC call (see `conformance`): a second message in a unary body is
/// INTERNAL (as grpc-java's `ServerCalls` and grpc-go's `serverStream.RecvMsg` answer), a
/// malformed `grpc-timeout` INTERNAL with HTTP 400 and a deadline of 0 DEADLINE_EXCEEDED (as
/// grpc-go answers both), each with its status in the trailers frame.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn r_grpc_web_calls_get_the_protocol_checks_of_grpc_calls() {
    let server = Server::start();
    let mut http1 = Http1::connect(&server).await;
    let one = frame(&start_moves());
    let two = http1
        .request(
            "POST",
            &format!("/{SERVICE}/ListLegalMoves"),
            &[("content-type", GRPC_WEB), ("x-grpc-web", "1")],
            [one.clone(), one].concat().into(),
        )
        .await;
    assert_eq!(two.status, StatusCode::OK);
    assert_eq!(two.grpc_status(), Some(13), "{two:?}");
    assert!(
        two.trailer("grpc-message")
            .is_some_and(|message| message.starts_with("cardinality%20violation")),
        "{two:?}"
    );
    assert!(two.messages.is_empty());

    let mut http1 = Http1::connect(&server).await;
    let malformed = http1
        .call("ListLegalMoves", &start_moves(), &[("grpc-timeout", "5x")])
        .await;
    assert_eq!(malformed.status, StatusCode::BAD_REQUEST);
    assert_eq!(malformed.grpc_status(), Some(13), "{malformed:?}");
    assert!(
        malformed
            .trailer("grpc-message")
            .is_some_and(|message| message.starts_with("malformed%20grpc-timeout")),
        "{malformed:?}"
    );

    let mut http1 = Http1::connect(&server).await;
    let expired = http1
        .call("ListLegalMoves", &start_moves(), &[("grpc-timeout", "0n")])
        .await;
    assert_eq!(expired.status, StatusCode::OK);
    assert_eq!(expired.grpc_status(), Some(4), "{expired:?}");

    let text = server.scrape();
    for (code, count) in [("Internal", 2.0), ("DeadlineExceeded", 1.0)] {
        let method = format!("{SERVICE}/ListLegalMoves");
        assert_eq!(handled(&text, &method, code), count, "{code}");
    }
}

/// The value of `name{labels}` in `text`, 0 when absent.
fn value(text: &str, series: &str) -> f64 {
    sample(text, series).unwrap_or(0.0)
}

/// Issue 14: the gRPC-Web translation sits in front of the metrics, so they see a gRPC-Web
/// call's real method and status, errors, load shedding and deadlines included, and its
/// messages; the request id is echoed.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn metrics_see_the_real_method_and_status_of_grpc_web_calls() {
    let server = Server::start_with(&["--concurrency-limit", "1", "--workers", "1"]);
    let mut http1 = Http1::connect(&server).await;
    let ok = http1
        .call(
            "ListLegalMoves",
            &start_moves(),
            &[("x-request-id", "web-ok")],
        )
        .await;
    assert_eq!(ok.grpc_status(), Some(0));
    assert_eq!(ok.header("x-request-id"), Some("web-ok"));
    let invalid = http1.call("ListLegalMoves", &no_black_king(), &[]).await;
    assert_eq!(invalid.grpc_status(), Some(3));
    // A slow call holds the one place; a call beside it is shed.
    let mut slow = Http1::connect(&server).await;
    let holder = tokio::spawn(async move { slow.call("AdjudicateGame", &slow_call(), &[]).await });
    let deadline = Instant::now() + SETTLE;
    while value(
        &server.scrape(),
        "grpc_server_started_total{grpc_type=\"unary\",grpc_service=\"arbiter.v1.ArbiterService\",grpc_method=\"AdjudicateGame\"}",
    ) < 1.0
    {
        assert!(Instant::now() < deadline, "the slow call did not start");
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    let shed = http1.call("ListLegalMoves", &start_moves(), &[]).await;
    assert_eq!(shed.grpc_status(), Some(8), "{shed:?}");
    assert_eq!(
        within("the slow call", holder)
            .await
            .expect("join")
            .grpc_status(),
        Some(0)
    );

    // Its place is back once its work has stopped (with its request bytes); then a slow call
    // past its deadline.
    while value(&server.scrape(), "arbiter_request_bytes_in_flight") > 0.0 {
        assert!(
            Instant::now() < deadline,
            "the slow call's place did not come back"
        );
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    let late = http1
        .call("AdjudicateGame", &slow_call(), &[("grpc-timeout", "20m")])
        .await;
    assert_eq!(late.grpc_status(), Some(4), "{late:?}");

    let text = server.scrape();
    let method = |method: &str| format!("{SERVICE}/{method}");
    assert_eq!(handled(&text, &method("ListLegalMoves"), "OK"), 1.0);
    assert_eq!(
        handled(&text, &method("ListLegalMoves"), "InvalidArgument"),
        1.0
    );
    assert_eq!(
        handled(&text, &method("ListLegalMoves"), "ResourceExhausted"),
        1.0
    );
    assert_eq!(
        handled(&text, &method("AdjudicateGame"), "DeadlineExceeded"),
        1.0
    );
    assert_eq!(handled(&text, &method("AdjudicateGame"), "OK"), 1.0);
    assert_eq!(
        value(
            &text,
            "arbiter_calls_shed_total{reason=\"concurrency_limit\"}"
        ),
        1.0
    );
    let labels = "grpc_type=\"unary\",grpc_service=\"arbiter.v1.ArbiterService\",grpc_method=\"ListLegalMoves\"";
    // Two requests read (the shed one was not), one answer message (the OK call's).
    assert_eq!(
        value(
            &text,
            &format!("grpc_server_msg_received_total{{{labels}}}")
        ),
        2.0
    );
    assert_eq!(
        value(&text, &format!("grpc_server_msg_sent_total{{{labels}}}")),
        1.0
    );
}

/// `arbiter_connections_closed_total` of the gRPC listener for `reason`.
fn closed(server: &Server, reason: &str) -> f64 {
    value(
        &server.scrape(),
        &format!("arbiter_connections_closed_total{{listener=\"grpc\",reason=\"{reason}\"}}"),
    )
}

/// Waits until the gRPC listener has counted `expected` connections closed for `reason` (the
/// server counts a connection after closing it: its client may see the close first), then
/// checks that it is exactly that many.
async fn counted(server: &Server, reason: &str, expected: f64) {
    let deadline = Instant::now() + SETTLE;
    while closed(server, reason) < expected {
        assert!(
            Instant::now() < deadline,
            "{reason}: {} closed, not {expected}",
            closed(server, reason)
        );
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    assert_eq!(closed(server, reason), expected, "{reason}");
}

/// Reads from `tcp` until the server closes it (or [`SETTLE`] passes); returns what was read.
async fn read_until_closed(tcp: &mut tokio::net::TcpStream) -> Vec<u8> {
    let mut received = Vec::new();
    let _ = tokio::time::timeout(SETTLE, tcp.read_to_end(&mut received)).await;
    received
}

/// Issue 14 (the bounds of issue 10 over HTTP/1.1): HTTP/1.1 connections count against
/// `--max-connections`. Two kept-alive gRPC-Web connections fill a cap of 2; a third
/// connection is closed at once and counted; the two still serve calls. The health port stays
/// HTTP/2 only (probes speak gRPC).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn http1_connections_count_against_the_connection_cap() {
    let server = Server::start_with(&["--max-connections", "2"]);
    let mut first = Http1::connect(&server).await;
    let mut second = Http1::connect(&server).await;
    for http1 in [&mut first, &mut second] {
        let answer = http1.call("ListLegalMoves", &start_moves(), &[]).await;
        assert_eq!(answer.grpc_status(), Some(0));
    }
    let mut third = within("connect", tokio::net::TcpStream::connect(server.addr()))
        .await
        .expect("the kernel accepts it");
    let _ = third
        .write_all(b"OPTIONS / HTTP/1.1\r\nHost: arbiter\r\n\r\n")
        .await;
    assert_eq!(
        read_until_closed(&mut third).await,
        b"",
        "closed unanswered"
    );
    assert_eq!(closed(&server, "limit"), 1.0);
    for http1 in [&mut first, &mut second] {
        let answer = http1.call("ListLegalMoves", &start_moves(), &[]).await;
        assert_eq!(answer.grpc_status(), Some(0));
    }

    let mut health = within(
        "connect to health",
        tokio::net::TcpStream::connect(server.health_addr().expect("a health port")),
    )
    .await
    .expect("connect");
    health
        .write_all(b"POST /grpc.health.v1.Health/Check HTTP/1.1\r\nHost: arbiter\r\nContent-Type: application/grpc-web\r\nContent-Length: 5\r\n\r\n\0\0\0\0\0")
        .await
        .expect("send");
    let answer = read_until_closed(&mut health).await;
    assert!(
        !answer.starts_with(b"HTTP/1.1"),
        "the health port answered HTTP/1.1: {}",
        String::from_utf8_lossy(&answer)
    );
}

/// The head of a gRPC-Web request up to one unfinished header, as a browser would start it.
const SLOW_HEAD: &[u8] = b"POST /arbiter.v1.ArbiterService/ListLegalMoves HTTP/1.1\r\nHost: arbiter\r\nContent-Type: application/grpc-web+proto\r\nX-Slow: ";

/// Sends `tcp` one byte every 100 ms, at most 100, until the server closes it; returns whether
/// it did.
async fn trickle(tcp: &mut tokio::net::TcpStream) -> bool {
    for _ in 0..100 {
        tokio::time::sleep(Duration::from_millis(100)).await;
        if tcp.write_all(b"a").await.is_err() {
            return true;
        }
        let mut byte = [0; 1];
        if let Ok(read) = tokio::time::timeout(Duration::from_millis(1), tcp.read(&mut byte)).await
        {
            // Closed (0) or reset: the server gave up on it.
            if read.map_or(true, |read| read == 0) {
                return true;
            }
        }
    }
    false
}

/// A gRPC-Web request whose whole head and body are sent at once.
fn whole_request<M: prost::Message>(message: &M) -> Vec<u8> {
    let body = frame(message);
    let mut request = format!(
        "POST /{SERVICE}/ListLegalMoves HTTP/1.1\r\nHost: arbiter\r\nContent-Type: {GRPC_WEB}\r\nContent-Length: {}\r\n\r\n",
        body.len()
    )
    .into_bytes();
    request.extend_from_slice(&body);
    request
}

/// Issue 14 (slow-header attack over HTTP/1.1): a request whose headers trickle in is closed
/// at `--handshake-timeout`, counted as `handshake_timeout`: the first request of a
/// connection, and a later request on a kept-alive connection (timed from its first byte).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn http1_headers_that_trickle_in_are_closed_at_the_handshake_timeout() {
    let server = Server::start_with(&["--handshake-timeout", "1s"]);
    let mut tcp = within("connect", tokio::net::TcpStream::connect(server.addr()))
        .await
        .expect("connect");
    tcp.write_all(SLOW_HEAD).await.expect("send");
    assert!(
        trickle(&mut tcp).await,
        "the first request's slow head was not cut"
    );
    counted(&server, "handshake_timeout", 1.0).await;

    // A whole call first, then a head that trickles in on the same connection.
    let mut tcp = within("connect", tokio::net::TcpStream::connect(server.addr()))
        .await
        .expect("connect");
    tcp.write_all(&whole_request(&start_moves()))
        .await
        .expect("send");
    let mut answer = Vec::new();
    let mut chunk = [0; 4096];
    while !answer.ends_with(b"0\r\n\r\n") {
        let read = within("the answer", tcp.read(&mut chunk))
            .await
            .expect("read");
        assert_ne!(read, 0, "closed before the answer: {answer:?}");
        answer.extend_from_slice(&chunk[..read]);
    }
    assert!(answer.starts_with(b"HTTP/1.1 200 OK"), "{answer:?}");
    // Kept alive longer than the handshake timeout before the next request starts.
    tokio::time::sleep(Duration::from_millis(1500)).await;
    tcp.write_all(SLOW_HEAD)
        .await
        .expect("the connection is still open");
    assert!(
        trickle(&mut tcp).await,
        "the later request's slow head was not cut"
    );
    counted(&server, "handshake_timeout", 2.0).await;
    assert_eq!(closed(&server, "idle"), 0.0);
}

/// Issue 14: an HTTP/1.1 keep-alive connection without a call is closed at
/// `--connection-idle-timeout` (counted `idle`), not at the shorter handshake timeout; a
/// connection past `--max-connection-age` is closed after its answer (counted `max_age`).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn idle_and_old_http1_connections_are_closed() {
    let server = Server::start_with(&[
        "--connection-idle-timeout",
        "2s",
        "--handshake-timeout",
        "500ms",
    ]);
    let mut http1 = Http1::connect(&server).await;
    let answer = http1.call("ListLegalMoves", &start_moves(), &[]).await;
    assert_eq!(answer.grpc_status(), Some(0));
    http1.closed().await;
    counted(&server, "idle", 1.0).await;
    assert_eq!(closed(&server, "handshake_timeout"), 0.0);

    let server = Server::start_with(&["--max-connection-age", "1s"]);
    let mut http1 = Http1::connect(&server).await;
    let answer = http1.call("ListLegalMoves", &start_moves(), &[]).await;
    assert_eq!(answer.grpc_status(), Some(0));
    http1.closed().await;
    counted(&server, "max_age", 1.0).await;
    assert_eq!(closed(&server, "idle"), 0.0);
}

/// Issue 14: a kept-alive HTTP/1.1 connection does not hold up a graceful shutdown: on SIGTERM
/// it is closed after the lame-duck period and the process exits 0, long before
/// `--drain-timeout`.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_idle_http1_connection_does_not_hold_up_the_drain() {
    let mut server = Server::start_with(&["--lame-duck", "100ms", "--drain-timeout", "60s"]);
    let mut http1 = Http1::connect(&server).await;
    let answer = http1.call("ListLegalMoves", &start_moves(), &[]).await;
    assert_eq!(answer.grpc_status(), Some(0));
    server.signal("TERM");
    http1.closed().await;
    assert!(server.exited(SETTLE).await.success());
}

/// Issue 14: the message size limit applies to a gRPC-Web body as to gRPC: a request message
/// above `--max-message-bytes` is RESOURCE_EXHAUSTED (in the trailers frame), counted so.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_message_size_limit_holds_for_grpc_web_bodies() {
    let server = Server::start_with(&["--max-message-bytes", "1024"]);
    let mut http1 = Http1::connect(&server).await;
    let large = ApplyMovesRequest {
        moves: ["Nf3", "Nf6", "Ng1", "Ng8"]
            .iter()
            .cycle()
            .take(400)
            .map(|mv| (*mv).to_owned())
            .collect(),
        ..ApplyMovesRequest::default()
    };
    assert!(large.encoded_len() > 1024);
    let answer = http1.call("ApplyMoves", &large, &[]).await;
    assert_eq!(answer.grpc_status(), Some(8), "{answer:?}");
    // A small request whose answer (every move written back) is small too.
    let small = ApplyMovesRequest {
        moves: large.moves[..4].to_vec(),
        ..ApplyMovesRequest::default()
    };
    assert_eq!(
        http1.call("ApplyMoves", &small, &[]).await.grpc_status(),
        Some(0)
    );
    let text = server.scrape();
    let method = format!("{SERVICE}/ApplyMoves");
    assert_eq!(handled(&text, &method, "ResourceExhausted"), 1.0);
    assert_eq!(handled(&text, &method, "OK"), 1.0);
}

/// Issue 27 item 9, the gRPC-Web path as a browser takes it (HTTP/1.1): ApplyMoves answers the
/// outcome after its last move, and a move after the mate is INVALID_ARGUMENT naming the end
/// (FIDE Laws 5.1.1) in the trailers frame, with its ErrorInfo (cause GAME_OVER).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn r_apply_moves_over_grpc_web_names_the_end_of_the_game() {
    let server = Server::start();
    let mut http1 = Http1::connect(&server).await;
    let moves = |list: &[&str]| ApplyMovesRequest {
        moves: list.iter().map(|mv| (*mv).to_owned()).collect(),
        ..ApplyMovesRequest::default()
    };
    let answer = http1
        .call("ApplyMoves", &moves(&["f3", "e5", "g4", "Qh4#"]), &[])
        .await;
    assert_eq!(answer.grpc_status(), Some(0), "{answer:?}");
    let response =
        ApplyMovesResponse::decode(answer.messages[0].clone()).expect("an ApplyMovesResponse");
    let outcome = response.outcome.expect("the game ended");
    assert_eq!(
        (
            outcome.fide_article.as_str(),
            outcome.ply,
            outcome.result_text.as_str()
        ),
        ("5.1.1", 4, "0-1")
    );
    let answer = http1
        .call("ApplyMoves", &moves(&["f3", "e5", "g4", "Qh4#", "a3"]), &[])
        .await;
    assert_eq!(answer.grpc_status(), Some(3), "{answer:?}");
    // The trailers as tonic reads them: the message percent-decoded, the details decoded.
    let mut trailers = HeaderMap::new();
    for (name, value) in &answer.trailers {
        trailers.insert(
            http::HeaderName::from_bytes(name.as_bytes()).expect("a name"),
            value.parse().expect("a value"),
        );
    }
    let status = tonic::Status::from_header_map(&trailers).expect("a status");
    assert_eq!(
        status.message(),
        "moves[4]: ply 5 (a3): the game ended at ply 4 (checkmate, FIDE Laws 5.1.1)"
    );
    let info = tonic_types::StatusExt::get_error_details(&status)
        .error_info()
        .cloned()
        .expect("ErrorInfo");
    assert_eq!(
        (
            info.metadata.get("cause").map(String::as_str),
            info.metadata.get("article").map(String::as_str),
            info.metadata.get("end_ply").map(String::as_str)
        ),
        (Some("GAME_OVER"), Some("5.1.1"), Some("4"))
    );
}

/// Issue 14: an HTTP/1.1 request the server cannot parse, or whose headers exceed the 16 KiB
/// of headers HTTP/2 connections get, is refused and its connection closed, counted as
/// `protocol_error` (not as the client's own close).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn unparsable_or_oversized_http1_requests_are_protocol_errors() {
    let server = Server::start();
    let mut large =
        b"POST /arbiter.v1.ArbiterService/ListLegalMoves HTTP/1.1\r\nHost: arbiter\r\nX-Large: "
            .to_vec();
    large.extend(std::iter::repeat_n(b'a', 20 * 1024));
    large.extend_from_slice(b"\r\n\r\n");
    for (request, answer) in [
        (
            &b"GET / HTTP/1.1\r\nHost arbiter\r\n\r\n"[..],
            &b"HTTP/1.1 400"[..],
        ),
        (&large[..], b"HTTP/1.1 431"),
    ] {
        let mut tcp = within("connect", tokio::net::TcpStream::connect(server.addr()))
            .await
            .expect("connect");
        tcp.write_all(request).await.expect("send");
        let received = read_until_closed(&mut tcp).await;
        assert!(
            received.starts_with(answer),
            "{}",
            String::from_utf8_lossy(&received)
        );
    }
    counted(&server, "protocol_error", 2.0).await;
    assert_eq!(closed(&server, "client"), 0.0);
}

/// Issue 14: the budget of request bytes in flight holds a gRPC-Web body as it holds a gRPC
/// one. A call whose message header declares 1,000 bytes and whose body then stalls holds the
/// 1,005 bytes of its message (header included) until `--request-timeout`, is ended with
/// DEADLINE_EXCEEDED (in the trailers frame), and its bytes go back.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_stalled_grpc_web_body_holds_request_bytes_until_its_deadline() {
    let server = Server::start_with(&["--request-timeout", "2s"]);
    let mut tcp = within("connect", tokio::net::TcpStream::connect(server.addr()))
        .await
        .expect("connect");
    let mut request = format!(
        "POST /{SERVICE}/ListLegalMoves HTTP/1.1\r\nHost: arbiter\r\nContent-Type: {GRPC_WEB}\r\nContent-Length: 1005\r\n\r\n"
    )
    .into_bytes();
    request.extend_from_slice(&[0, 0, 0, 0x03, 0xe8]);
    request.extend_from_slice(&[0; 100]);
    tcp.write_all(&request).await.expect("send");
    let held = || value(&server.scrape(), "arbiter_request_bytes_in_flight");
    let deadline = Instant::now() + SETTLE;
    while held() < 1005.0 {
        assert!(Instant::now() < deadline, "{} bytes held, not 1005", held());
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    assert_eq!(held(), 1005.0);
    let text = arbiter_e2e::read_chunked_answer(&mut tcp).await;
    assert!(text.starts_with("HTTP/1.1 200 OK"), "{text}");
    assert!(text.contains("grpc-status:4\r\n"), "{text}");
    assert!(
        !text.contains("\r\ngrpc-status: "),
        "not in the headers: {text}"
    );
    while held() > 0.0 {
        assert!(Instant::now() < deadline, "{} bytes still held", held());
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    let text = server.scrape();
    assert_eq!(
        handled(
            &text,
            &format!("{SERVICE}/ListLegalMoves"),
            "DeadlineExceeded"
        ),
        1.0
    );
}

/// Issue 14: a gRPC-Web body the server cannot translate (malformed base64 of
/// `application/grpc-web-text`) is the client's fault: INVALID_ARGUMENT (`tonic-web` says
/// INTERNAL), counted as `Canceled` like any request body that broke (never a server error that
/// would fire the error alert), while a well-formed text call is answered OK in text.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_untranslatable_grpc_web_body_is_the_clients_fault() {
    let server = Server::start();
    let mut http1 = Http1::connect(&server).await;
    let text = "application/grpc-web-text";
    let path = format!("/{SERVICE}/ListLegalMoves");
    let encoded = base64::engine::general_purpose::STANDARD.encode(frame(&start_moves()));
    let (status, headers, body) = http1
        .exchange(
            "POST",
            &path,
            &[("content-type", text), ("accept", text)],
            Bytes::from(encoded),
        )
        .await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(headers["content-type"], "application/grpc-web-text+proto");
    // Each frame is base64 of its own, padded: decode them one by one.
    let mut decoded = BytesMut::new();
    for piece in String::from_utf8(body.to_vec())
        .expect("base64 text")
        .split_inclusive('=')
        .filter(|piece| *piece != "=")
    {
        let piece = piece.trim_end_matches('=');
        decoded.extend_from_slice(
            &base64::engine::general_purpose::STANDARD_NO_PAD
                .decode(piece)
                .expect("base64"),
        );
    }
    let (messages, trailers) = read_grpc_web(decoded.freeze());
    assert_eq!(messages.len(), 1);
    assert_eq!(
        ListLegalMovesResponse::decode(messages[0].clone())
            .expect("decodes")
            .moves
            .len(),
        20
    );
    assert_eq!(trailers, [("grpc-status".to_owned(), "0".to_owned())]);

    let broken = http1
        .request(
            "POST",
            &path,
            &[("content-type", text)],
            Bytes::from_static(b"AAAAAAIKAA=\n"),
        )
        .await;
    assert_eq!(broken.grpc_status(), Some(3), "{broken:?}");
    let text = server.scrape();
    let method = format!("{SERVICE}/ListLegalMoves");
    assert_eq!(handled(&text, &method, "Internal"), 0.0);
    assert_eq!(handled(&text, &method, "Canceled"), 1.0);
}
