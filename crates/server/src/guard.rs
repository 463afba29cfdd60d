//! A tower layer that admits and bounds every call of the arbiter service: a process-wide
//! concurrency limit for unary calls and a separate limit for streams, both shedding at once
//! with `RESOURCE_EXHAUSTED` (counted in `arbiter_calls_shed_total{reason}` and summarised in the
//! log by [`crate::overload`], never one line per call), and a deadline that answers
//! `DEADLINE_EXCEEDED`. It also reports oversized request messages as `RESOURCE_EXHAUSTED`, as
//! the gRPC spec asks, and undecodable ones as `INVALID_ARGUMENT` (not `INTERNAL`: the client's
//! fault must not page the operator).
//!
//! With a [`RequestBytes`] budget ([`GuardLayer::with_request_bytes`], `--max-request-bytes-in-flight`),
//! the request body of every admitted call takes a share of the process-wide budget of request
//! bytes for each chunk it receives, waiting for room at most `--max-queue-wait` (see
//! [`request_bytes`]): memory then follows the bytes of the requests in flight, not only their
//! number.
//!
//! The admission permit travels with the request (an [`Admission`] extension): the handler hands
//! it to the work, so that a unary call's permit and request bytes are held until its work has
//! really stopped, and a stream's permit for the whole life of the stream (not only until its
//! response headers exist); a stream gives back each message's bytes when that message's work
//! has stopped ([`Admission::take_message_bytes`]).
//!
//! Only the services this layer wraps are bounded so: the server wraps `arbiter.v1` and leaves
//! gRPC health and reflection out, so that probes and tools get through however loaded it is
//! (their requests are a few bytes, and the health service also has its own listener).
//!
//! tonic's own `Server::timeout` answers `CANCELLED`, and tower's `LoadShed` error is not a gRPC
//! status, so both are done here, as a layer that always answers with a gRPC response. The
//! server's accept loop does not add tonic's `grpc-timeout` layer, so this is the only deadline
//! and an expired one is always `DEADLINE_EXCEEDED`.
//!
//! Before admission, the layer checks what the gRPC protocol asks of a request and tonic lets
//! pass (the private `protocol` module, issue 26): a malformed `grpc-timeout` is answered
//! `INTERNAL` with HTTP 400 and a deadline that has already passed `DEADLINE_EXCEEDED`, neither
//! running the handler, as grpc-go answers them; and a unary call's request body must hold
//! exactly one message (a second one is `INTERNAL`, as grpc-java and grpc-go answer it).

use std::{
    convert::Infallible,
    future::Future,
    pin::Pin,
    sync::{Arc, Mutex},
    task::{Context, Poll},
    time::Duration,
};

use bytes::Bytes;
use http::{HeaderMap, HeaderValue, Request, Response};
use http_body::Frame;
use tokio::sync::{OwnedSemaphorePermit, Semaphore};
use tonic::{Status, body::Body, server::NamedService};
use tower::{Layer, Service, ServiceExt as _};

use crate::{
    delivery::Delivery,
    overload::{ShedReason, record_shed},
};

pub mod answer_bytes;
mod protocol;
pub mod request_bytes;

pub use answer_bytes::{AnswerBody, AnswerBytes};
pub use request_bytes::{MessageBytes, RequestBytes};

/// A call's admission: a share of the concurrency limit (unary calls) or of the stream limit
/// (streams), and the request bytes the call holds under the budget of request bytes in flight,
/// all given back when the last clone is dropped.
#[derive(Debug, Clone)]
pub struct Admission(Arc<Admitted>);

/// What an [`Admission`] holds.
#[derive(Debug)]
struct Admitted {
    _permit: OwnedSemaphorePermit,
    /// The call's request bytes, shared with its request body; `None` without a budget.
    bytes: Option<Arc<Mutex<request_bytes::Held>>>,
}

impl Admission {
    /// Takes the request bytes of the oldest complete request message this call still holds,
    /// so that they are given back when the returned value is dropped rather than when the call
    /// ends. A stream hands them to the work on that message: they must be taken once per
    /// message received, in order. `None` without a budget, or when no complete message is held.
    #[must_use]
    pub fn take_message_bytes(&self) -> Option<MessageBytes> {
        let held = self.0.bytes.as_ref()?;
        request_bytes::lock(held).take_oldest()
    }
}

/// The client's deadline of a stream (its `grpc-timeout`, from the moment the call arrived): the
/// stream's task ends the stream with `DEADLINE_EXCEEDED` when it passes. Unary calls get their
/// deadline here, in the layer.
#[derive(Debug, Clone, Copy)]
pub struct CallDeadline(pub tokio::time::Instant);

/// Limits applied by [`GuardLayer`].
#[derive(Debug, Clone)]
pub struct GuardLayer {
    permits: Arc<Semaphore>,
    streams: Arc<Semaphore>,
    stream_paths: Arc<[String]>,
    pools: Arc<[StreamPool]>,
    timeout: Duration,
    bytes: Option<RequestBytes>,
    answers: Option<AnswerBytes>,
    streams_held_by_answers: bool,
}

/// A cap of streams of their own, for the calls of some paths (see
/// [`GuardLayer::with_stream_pool`]).
#[derive(Debug)]
struct StreamPool {
    paths: Vec<String>,
    permits: Arc<Semaphore>,
    /// What they are, in the refusal: "FollowGame streams".
    what: &'static str,
}

impl GuardLayer {
    /// A layer admitting at most `max_in_flight` unary calls at once (across every service it
    /// wraps) and at most `max_streams` calls whose path is one of `stream_paths` (e.g.
    /// `/arbiter.v1.ArbiterService/AdjudicateGames`), and giving each unary call at most
    /// `timeout`.
    #[must_use]
    pub fn new(
        max_in_flight: usize,
        max_streams: usize,
        stream_paths: Vec<String>,
        timeout: Duration,
    ) -> Self {
        Self {
            permits: Arc::new(Semaphore::new(max_in_flight.min(Semaphore::MAX_PERMITS))),
            streams: Arc::new(Semaphore::new(max_streams.min(Semaphore::MAX_PERMITS))),
            stream_paths: stream_paths.into(),
            pools: Arc::new([]),
            timeout,
            bytes: None,
            answers: None,
            streams_held_by_answers: false,
        }
    }

    /// Admits at most `max` calls at once whose path is one of `paths`, as streams, in a pool of
    /// their own beside the layer's `max_streams` (e.g. FollowGame's, whose streams last as long
    /// as a game: they must not hold AdjudicateGames out, nor be held out by them). A call beyond
    /// it is refused at once with RESOURCE_EXHAUSTED naming `what` (counted as `stream_limit`).
    #[must_use]
    pub fn with_stream_pool(mut self, max: usize, paths: Vec<String>, what: &'static str) -> Self {
        let mut pools: Vec<StreamPool> = self
            .pools
            .iter()
            .map(|pool| StreamPool {
                paths: pool.paths.clone(),
                permits: Arc::clone(&pool.permits),
                what: pool.what,
            })
            .collect();
        pools.push(StreamPool {
            paths,
            permits: Arc::new(Semaphore::new(max.min(Semaphore::MAX_PERMITS))),
            what,
        });
        self.pools = pools.into();
        self
    }

    /// Bounds the answer bytes in flight by `budget`, shared by every service the layer wraps
    /// (see [`answer_bytes`]; without it, answers are bounded only by the message size limit
    /// and the deadline).
    #[must_use]
    pub fn with_answer_bytes(mut self, budget: AnswerBytes) -> Self {
        self.answers = Some(budget);
        self
    }

    /// Keeps a stream's place under `max_streams` until its answer's body is dropped, for
    /// services whose handler returns before its stream ends and holds no [`Admission`] itself
    /// (reflection's). Needs [`GuardLayer::with_answer_bytes`] (the answer's body holds it).
    #[must_use]
    pub fn streams_held_by_answers(mut self) -> Self {
        self.streams_held_by_answers = true;
        self
    }

    /// Bounds the request bytes in flight by `budget`, shared by every service the layer wraps
    /// (without it, request bytes are not bounded beyond the message size limit).
    #[must_use]
    pub fn with_request_bytes(mut self, budget: RequestBytes) -> Self {
        self.bytes = Some(budget);
        self
    }

    /// The budget of request bytes in flight, if any.
    #[must_use]
    pub fn request_bytes(&self) -> Option<&RequestBytes> {
        self.bytes.as_ref()
    }

    /// Unary calls that could be admitted now.
    #[must_use]
    pub fn available(&self) -> usize {
        self.permits.available_permits()
    }

    /// Streams that could be admitted now.
    #[must_use]
    pub fn available_streams(&self) -> usize {
        self.streams.available_permits()
    }
}

impl<S> Layer<S> for GuardLayer {
    type Service = Guard<S>;

    fn layer(&self, inner: S) -> Self::Service {
        Guard {
            inner,
            permits: Arc::clone(&self.permits),
            streams: Arc::clone(&self.streams),
            stream_paths: Arc::clone(&self.stream_paths),
            pools: Arc::clone(&self.pools),
            timeout: self.timeout,
            bytes: self.bytes.clone(),
            answers: self.answers.clone(),
            streams_held_by_answers: self.streams_held_by_answers,
        }
    }
}

/// The service made by [`GuardLayer`].
#[derive(Debug, Clone)]
pub struct Guard<S> {
    inner: S,
    permits: Arc<Semaphore>,
    streams: Arc<Semaphore>,
    stream_paths: Arc<[String]>,
    pools: Arc<[StreamPool]>,
    timeout: Duration,
    bytes: Option<RequestBytes>,
    answers: Option<AnswerBytes>,
    streams_held_by_answers: bool,
}

impl<S: NamedService> NamedService for Guard<S> {
    const NAME: &'static str = S::NAME;
}

type BoxFuture<T> = Pin<Box<dyn Future<Output = T> + Send + 'static>>;

impl<S> Service<Request<Body>> for Guard<S>
where
    S: Service<Request<Body>, Response = Response<Body>, Error = Infallible>
        + Clone
        + Send
        + 'static,
    S::Future: Send + 'static,
{
    type Response = Response<Body>;
    type Error = Infallible;
    type Future = BoxFuture<Result<Response<Body>, Infallible>>;

    fn poll_ready(&mut self, _cx: &mut Context<'_>) -> Poll<Result<(), Self::Error>> {
        // Readiness of the inner service is awaited per call, inside the deadline.
        Poll::Ready(Ok(()))
    }

    fn call(&mut self, mut request: Request<Body>) -> Self::Future {
        // The protocol's own checks come before admission (see [`protocol`]): a malformed
        // `grpc-timeout` is INTERNAL, a deadline already passed DEADLINE_EXCEEDED, and neither
        // takes a share of any limit nor runs the handler.
        let arrived = tokio::time::Instant::now();
        let client = match protocol::client_timeout(request.headers()) {
            Ok(client) => client,
            Err(malformed) => {
                let answer = malformed.into_response();
                return Box::pin(async move { Ok(answer) });
            }
        };
        if let Some(client) = client.filter(Duration::is_zero) {
            let answer = protocol::expired(client);
            return Box::pin(async move { Ok(answer) });
        }
        let client_deadline = client.map(|client| (client, arrived + client));
        let path = request.uri().path();
        let own_pool = self
            .pools
            .iter()
            .find(|pool| pool.paths.iter().any(|p| p == path));
        let stream = own_pool.is_some() || self.stream_paths.iter().any(|p| p == path);
        let (pool, reason, what) = match own_pool {
            Some(own) => (&own.permits, ShedReason::StreamLimit, own.what),
            None if stream => (&self.streams, ShedReason::StreamLimit, "streams"),
            None => (&self.permits, ShedReason::ConcurrencyLimit, "calls"),
        };
        // An answer needs room in the answer budget once built: when there is none and none
        // can be made, the call is refused before any work.
        if let Some(answers) = &self.answers
            && !answers.has_room()
        {
            record_shed(ShedReason::AnswerBytes);
            return Box::pin(async move {
                Ok(Status::resource_exhausted(
                    "server overloaded: no room for answers (--max-answer-bytes-in-flight)",
                )
                .into_http())
            });
        }
        let Ok(permit) = Arc::clone(pool).try_acquire_owned() else {
            record_shed(reason);
            return Box::pin(async move {
                Ok(Status::resource_exhausted(format!(
                    "server overloaded: too many {what} in flight"
                ))
                .into_http())
            });
        };
        // A unary body holds one message: any byte after it ends the body with INTERNAL before
        // the budget below sees it.
        if !stream {
            let body = std::mem::take(request.body_mut());
            *request.body_mut() = protocol::one_message(body);
        }
        // Only admitted calls read their bodies, so only they take request bytes.
        let bytes = self.bytes.as_ref().map(|budget| {
            let held = Arc::new(Mutex::new(request_bytes::Held::default()));
            let body = std::mem::take(request.body_mut());
            *request.body_mut() = budget.wrap(body, Arc::clone(&held));
            held
        });
        let admission = Admission(Arc::new(Admitted {
            _permit: permit,
            bytes,
        }));
        request.extensions_mut().insert(admission.clone());
        if stream && let Some((_, deadline)) = client_deadline {
            request.extensions_mut().insert(CallDeadline(deadline));
        }
        // A stream's handler returns at once; the stream bounds its own messages' work and idle
        // time, and its client's deadline ([`CallDeadline`], see `service`), so the deadline here
        // covers unary calls only.
        let timeout =
            (!stream).then(|| client.map_or(self.timeout, |client| client.min(self.timeout)));
        // The deadline covers delivering the answer too (see [`crate::delivery`]): the
        // transport's record of it, or one of the call's own where the transport keeps none.
        let delivery = request
            .extensions()
            .get::<Arc<Delivery>>()
            .cloned()
            .unwrap_or_default();
        let deadline = match timeout {
            Some(timeout) => Some(arrived + timeout),
            None => request.extensions().get::<CallDeadline>().map(|at| at.0),
        };
        if let Some(deadline) = deadline {
            delivery.set_deadline(deadline);
        }
        let answers = self.answers.clone();
        // Where the handler returns before its stream ends without holding the admission
        // (reflection's), the answer's body holds it until dropped, so that the stream keeps
        // its place under `--max-streams` for as long as it lives.
        let held = (stream && self.streams_held_by_answers).then(|| admission.clone());
        // A unary answer is built and charged as soon as the handler returns (see
        // [`AnswerBody::prepare`]); a stream's answers are charged as its client reads them.
        let answer = async move |mut response: Response<Body>| {
            if let Some(answers) = answers {
                let body = std::mem::take(response.body_mut());
                let mut body = AnswerBody::new(body, answers, delivery).holding(held);
                if !stream {
                    body.prepare().await;
                }
                *response.body_mut() = Body::new(body);
            }
            response
        };
        let inner = self.inner.clone();
        Box::pin(async move {
            let _admission = admission;
            // A deadline that passed before the call could start (a few nanoseconds): not run.
            if let Some((client, deadline)) = client_deadline
                && tokio::time::Instant::now() >= deadline
            {
                return Ok(protocol::expired(client));
            }
            let Some(timeout) = timeout else {
                let Ok(mut response) = inner.oneshot(request).await;
                client_faults_are_named(&mut response);
                return Ok(answer(response).await);
            };
            let response = match tokio::time::timeout(timeout, inner.oneshot(request)).await {
                Ok(Ok(mut response)) => {
                    client_faults_are_named(&mut response);
                    response
                }
                Ok(Err(never)) => match never {},
                Err(_) => Status::deadline_exceeded(format!(
                    "call did not finish within {} ms",
                    timeout.as_millis()
                ))
                .into_http(),
            };
            Ok(answer(response).await)
        })
    }
}

/// Gives the client's own faults in the request message the status that says so, where tonic
/// answers otherwise. The status is in the headers of a trailers-only answer or in the trailers,
/// so both are rewritten (by [`rewrite_client_faults`]).
fn client_faults_are_named(response: &mut Response<Body>) {
    rewrite_client_faults(response.headers_mut());
    let body = std::mem::take(response.body_mut());
    *response.body_mut() = Body::new(RewriteClientFaults { inner: body });
}

/// The statuses tonic gives to faults of the request message, and the ones given instead:
/// - a message above the size limit: tonic says `OUT_OF_RANGE` (11), the gRPC spec
///   `RESOURCE_EXHAUSTED` (8), as other gRPC servers answer;
/// - a message that is not valid protobuf: tonic (like grpc-go) says `INTERNAL` (13), which is
///   the server's fault and feeds the error-ratio alert, so any client could page the operator;
///   it is `INVALID_ARGUMENT` (3) here, as Connect's servers answer; so are the other faults
///   of the request body tonic calls `INTERNAL`: a body that ends inside a message, a unary
///   body without a message, a bad compression flag.
///
/// Each is matched by its code and the start of tonic's message (`grpc-message` is
/// percent-encoded on the wire).
const CLIENT_FAULTS: [(&str, &[u8], &str, &str); 6] = [
    (
        "11",
        b"Error, decoded message length too large",
        "Error,%20decoded%20message%20length%20too%20large",
        "8",
    ),
    (
        "13",
        b"failed to decode Protobuf message",
        "failed%20to%20decode%20Protobuf%20message",
        "3",
    ),
    // A request body that ends inside a message (its header promised more bytes).
    (
        "13",
        b"Unexpected EOF decoding stream",
        "Unexpected%20EOF%20decoding%20stream",
        "3",
    ),
    // A unary request without a message (an empty body).
    (
        "13",
        b"Missing request message",
        "Missing%20request%20message",
        "3",
    ),
    // A message whose compression flag is set without a `grpc-encoding`, or is neither 0 nor
    // 1: tonic says "protocol error: received message with ..." only for these.
    (
        "13",
        b"protocol error: received message with",
        "protocol%20error:%20received%20message%20with",
        "3",
    ),
    // A gRPC-Web body `tonic-web` cannot translate (malformed base64 of
    // `application/grpc-web-text`, trailers in a request), or one that broke on the client's
    // side, which the metrics count as `Canceled` (see `crate::metrics`).
    ("13", b"tonic-web: ", "tonic-web:%20", "3"),
];

/// Rewrites the `grpc-status` of `headers` (headers or trailers) by [`CLIENT_FAULTS`].
fn rewrite_client_faults(headers: &mut HeaderMap) {
    let Some(code) = headers.get("grpc-status") else {
        return;
    };
    let message = headers
        .get("grpc-message")
        .map_or(&b""[..], HeaderValue::as_bytes);
    let rewritten = CLIENT_FAULTS
        .iter()
        .find(|(from, plain, encoded, _)| {
            code == *from && (message.starts_with(plain) || message.starts_with(encoded.as_bytes()))
        })
        .map(|(_, _, _, to)| *to);
    if let Some(to) = rewritten {
        headers.insert("grpc-status", HeaderValue::from_static(to));
    }
}

/// A response body whose trailers go through [`rewrite_client_faults`].
struct RewriteClientFaults {
    inner: Body,
}

impl http_body::Body for RewriteClientFaults {
    type Data = Bytes;
    type Error = Status;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, Status>>> {
        Pin::new(&mut self.inner).poll_frame(cx).map(|frame| {
            frame.map(|frame| {
                frame.map(|frame| match frame.into_trailers() {
                    Ok(mut trailers) => {
                        rewrite_client_faults(&mut trailers);
                        Frame::trailers(trailers)
                    }
                    Err(frame) => frame,
                })
            })
        })
    }

    fn is_end_stream(&self) -> bool {
        self.inner.is_end_stream()
    }

    fn size_hint(&self) -> http_body::SizeHint {
        self.inner.size_hint()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Issue 14: a gRPC-Web body that cannot be translated (malformed base64) is the client's
    /// fault: `tonic-web` says INTERNAL, which would page the operator; it is INVALID_ARGUMENT.
    #[test]
    fn an_untranslatable_grpc_web_body_is_invalid_argument() {
        for message in [
            "tonic-web: malformed base64 request",
            "tonic-web:%20malformed%20base64%20request",
        ] {
            let mut map = HeaderMap::new();
            map.insert("grpc-status", HeaderValue::from_static("13"));
            map.insert(
                "grpc-message",
                HeaderValue::from_str(message).expect("value"),
            );
            rewrite_client_faults(&mut map);
            assert_eq!(map["grpc-status"], "3", "{message}");
        }
        let mut map = HeaderMap::new();
        map.insert("grpc-status", HeaderValue::from_static("13"));
        map.insert("grpc-message", HeaderValue::from_static("internal error"));
        rewrite_client_faults(&mut map);
        assert_eq!(map["grpc-status"], "13", "a server fault stays INTERNAL");
    }

    #[derive(Clone)]
    struct Slow(Duration);

    impl Service<Request<Body>> for Slow {
        type Response = Response<Body>;
        type Error = Infallible;
        type Future = BoxFuture<Result<Response<Body>, Infallible>>;

        fn poll_ready(&mut self, _cx: &mut Context<'_>) -> Poll<Result<(), Infallible>> {
            Poll::Ready(Ok(()))
        }

        fn call(&mut self, _request: Request<Body>) -> Self::Future {
            let delay = self.0;
            Box::pin(async move {
                tokio::time::sleep(delay).await;
                Ok(Response::new(Body::default()))
            })
        }
    }

    fn grpc_status(response: &Response<Body>) -> Option<&str> {
        response.headers().get("grpc-status")?.to_str().ok()
    }

    #[tokio::test]
    async fn slow_calls_get_deadline_exceeded() {
        let mut service = GuardLayer::new(4, 4, Vec::new(), Duration::from_millis(20))
            .layer(Slow(Duration::from_secs(5)));
        let response = service.call(Request::new(Body::default())).await;
        let Ok(response) = response;
        assert_eq!(grpc_status(&response), Some("4"));
    }

    #[tokio::test]
    async fn calls_beyond_the_limit_are_shed() {
        let layer = GuardLayer::new(1, 1, Vec::new(), Duration::from_secs(5));
        let mut first = layer.layer(Slow(Duration::from_millis(200)));
        let mut second = layer.layer(Slow(Duration::ZERO));
        let pending = first.call(Request::new(Body::default()));
        let Ok(shed) = second.call(Request::new(Body::default())).await;
        assert_eq!(grpc_status(&shed), Some("8"));
        let Ok(done) = pending.await;
        assert_eq!(grpc_status(&done), None);
        let Ok(after) = second.call(Request::new(Body::default())).await;
        assert_eq!(grpc_status(&after), None);
    }

    /// A service that counts the calls that reach it and answers each at once with OK, as a
    /// small call answered without a worker does.
    #[derive(Clone, Default)]
    struct Counts(Arc<std::sync::atomic::AtomicUsize>);

    impl Counts {
        fn calls(&self) -> usize {
            self.0.load(std::sync::atomic::Ordering::Relaxed)
        }
    }

    impl Service<Request<Body>> for Counts {
        type Response = Response<Body>;
        type Error = Infallible;
        type Future = BoxFuture<Result<Response<Body>, Infallible>>;

        fn poll_ready(&mut self, _cx: &mut Context<'_>) -> Poll<Result<(), Infallible>> {
            Poll::Ready(Ok(()))
        }

        fn call(&mut self, _request: Request<Body>) -> Self::Future {
            self.0.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            Box::pin(async { Ok(Response::new(Body::default())) })
        }
    }

    /// A call of `path` (`/s` is the stream) with the `grpc-timeout` header `value`.
    fn with_timeout(path: &str, value: &'static str) -> Request<Body> {
        Request::builder()
            .uri(path)
            .header("grpc-timeout", value)
            .body(Body::default())
            .expect("request")
    }

    /// A unary call (`/u`) and a stream (`/s`), each admitted at most once at a time.
    fn unary_and_stream(inner: Counts) -> (GuardLayer, Guard<Counts>) {
        let layer = GuardLayer::new(1, 1, vec!["/s".to_owned()], Duration::from_secs(5));
        let service = layer.layer(inner);
        (layer, service)
    }

    /// Issue 26 item 5: `grpc-timeout: 0n` was answered OK (tokio's timeout polls the work
    /// once before it reads the clock, and a small call is answered in that poll). grpc-go
    /// answers DEADLINE_EXCEEDED without running the handler (its stream's context is done
    /// before the handler reads the request); so does the guard, for unary calls and
    /// AdjudicateGames streams, every unit, without taking a share of any limit.
    #[tokio::test]
    async fn r_a_deadline_of_zero_is_deadline_exceeded_and_never_runs() {
        let counts = Counts::default();
        let (layer, mut service) = unary_and_stream(counts.clone());
        for path in ["/u", "/s"] {
            for value in ["0n", "0u", "0m", "0S", "0M", "0H", "00000000n"] {
                let Ok(response) = service.call(with_timeout(path, value)).await;
                assert_eq!(grpc_status(&response), Some("4"), "{path} {value}");
            }
        }
        assert_eq!(counts.calls(), 0);
        assert_eq!((layer.available(), layer.available_streams()), (1, 1));
        // With time left, the handler runs.
        for path in ["/u", "/s"] {
            let Ok(response) = service.call(with_timeout(path, "1S")).await;
            assert_eq!(grpc_status(&response), None, "{path}");
        }
        assert_eq!(counts.calls(), 2);
    }

    /// Issue 26 item 5: a deadline that passes between the call's arrival and its start (1 ns,
    /// on tokio's paused clock advanced by 1 µs) is DEADLINE_EXCEEDED too, and never runs.
    #[tokio::test(start_paused = true)]
    async fn r_a_deadline_that_passes_before_the_call_starts_never_runs() {
        let counts = Counts::default();
        let (_layer, mut service) = unary_and_stream(counts.clone());
        for path in ["/u", "/s"] {
            let pending = service.call(with_timeout(path, "1n"));
            tokio::time::advance(Duration::from_micros(1)).await;
            let Ok(response) = pending.await;
            assert_eq!(grpc_status(&response), Some("4"), "{path}");
        }
        assert_eq!(counts.calls(), 0);
    }

    /// Issue 26 item 5: a malformed `grpc-timeout` was silently replaced by the server's own
    /// deadline. grpc-go (internal/transport/http2_server.go, `operateHeaders`) aborts such a
    /// stream before any handler with HTTP 400 and INTERNAL "malformed grpc-timeout: ..."; so
    /// does the guard, for unary calls and streams.
    #[tokio::test]
    async fn r_a_malformed_grpc_timeout_is_internal_with_http_400_and_never_runs() {
        let counts = Counts::default();
        let (layer, mut service) = unary_and_stream(counts.clone());
        for path in ["/u", "/s"] {
            for value in ["", "S", "5x", "5s", "+5S", "123456789S"] {
                let Ok(response) = service.call(with_timeout(path, value)).await;
                assert_eq!(response.status(), http::StatusCode::BAD_REQUEST, "{value}");
                assert_eq!(grpc_status(&response), Some("13"), "{path} {value:?}");
                let message = message(&response);
                assert!(
                    message.starts_with("malformed grpc-timeout: "),
                    "{value:?}: {message}"
                );
            }
        }
        assert_eq!(counts.calls(), 0);
        assert_eq!((layer.available(), layer.available_streams()), (1, 1));
    }

    /// Issue 26 item 5: a unary request body holding two messages was answered from the
    /// first (tonic's `Grpc::unary` decodes one message and drops the rest while it looks for
    /// trailers). As grpc-java (`ServerCalls.UnaryServerCallListener.onMessage`: INTERNAL
    /// "Too many requests") and grpc-go's main branch (`serverStream.RecvMsg`: INTERNAL
    /// "cardinality violation") answer, the body ends with INTERNAL, and neither message is
    /// charged to the request-byte budget. A stream's body may hold any number.
    #[tokio::test]
    async fn r_a_second_message_in_a_unary_body_is_internal_and_holds_no_bytes() {
        let budget = RequestBytes::new(1000, Duration::from_secs(5));
        let kept = ReadsBody::default();
        let mut service = budgeted(&budget, vec!["/s".to_owned()], kept.clone());
        let Ok(response) = service.call(Request::new(grpc_body(2, 95))).await;
        assert_eq!(grpc_status(&response), Some("13"));
        assert_eq!(message(&response), protocol::SECOND_MESSAGE);
        assert_eq!(
            budget.available(),
            1000,
            "nothing charged while the call lives"
        );
        let Ok(one) = service.call(Request::new(grpc_body(1, 95))).await;
        assert_eq!(grpc_status(&one), None);
        let stream = Request::builder()
            .uri("/s")
            .body(grpc_body(2, 95))
            .expect("request");
        let Ok(two) = service.call(stream).await;
        assert_eq!(grpc_status(&two), None);
    }

    /// The `grpc-message` of a trailers-only answer, percent-decoded.
    fn message(response: &Response<Body>) -> String {
        Status::from_header_map(response.headers())
            .map(|status| status.message().to_owned())
            .unwrap_or_default()
    }

    /// A service that keeps the admission of each call, as the stream handler moves it into the
    /// stream's task, and answers at once.
    #[derive(Clone, Default)]
    struct KeepsAdmission(Arc<std::sync::Mutex<Vec<Admission>>>);

    impl Service<Request<Body>> for KeepsAdmission {
        type Response = Response<Body>;
        type Error = Infallible;
        type Future = BoxFuture<Result<Response<Body>, Infallible>>;

        fn poll_ready(&mut self, _cx: &mut Context<'_>) -> Poll<Result<(), Infallible>> {
            Poll::Ready(Ok(()))
        }

        fn call(&mut self, request: Request<Body>) -> Self::Future {
            if let Some(admission) = request.extensions().get::<Admission>() {
                self.0.lock().expect("not poisoned").push(admission.clone());
            }
            Box::pin(async { Ok(Response::new(Body::default())) })
        }
    }

    /// Issue 10 item 4: a stream's share of the stream limit is held for the stream's life, not
    /// only until its response headers exist (the handler returns at once).
    #[tokio::test]
    async fn a_stream_holds_its_admission_until_it_ends() {
        let kept = KeepsAdmission::default();
        let layer = GuardLayer::new(8, 1, vec!["/s".to_owned()], Duration::from_secs(5));
        let mut service = layer.layer(kept.clone());
        let stream = || {
            Request::builder()
                .uri("/s")
                .body(Body::default())
                .expect("request")
        };
        let Ok(first) = service.call(stream()).await;
        assert_eq!(grpc_status(&first), None);
        let Ok(second) = service.call(stream()).await;
        assert_eq!(
            grpc_status(&second),
            Some("8"),
            "the first stream is still open"
        );
        // Unary calls have their own limit.
        let Ok(unary) = service.call(Request::new(Body::default())).await;
        assert_eq!(grpc_status(&unary), None);
        kept.0.lock().expect("not poisoned").clear(); // the first stream ends
        let Ok(third) = service.call(stream()).await;
        assert_eq!(grpc_status(&third), None);
    }

    /// A service that reads its request body to the end, as tonic's decoder does, and keeps the
    /// call's admission, as a handler hands it to the work.
    #[derive(Clone, Default)]
    struct ReadsBody(Arc<std::sync::Mutex<Vec<Admission>>>);

    impl Service<Request<Body>> for ReadsBody {
        type Response = Response<Body>;
        type Error = Infallible;
        type Future = BoxFuture<Result<Response<Body>, Infallible>>;

        fn poll_ready(&mut self, _cx: &mut Context<'_>) -> Poll<Result<(), Infallible>> {
            Poll::Ready(Ok(()))
        }

        fn call(&mut self, request: Request<Body>) -> Self::Future {
            let kept = Arc::clone(&self.0);
            Box::pin(async move {
                let (parts, body) = request.into_parts();
                if let Some(admission) = parts.extensions.get::<Admission>() {
                    kept.lock().expect("not poisoned").push(admission.clone());
                }
                let read = http_body_util::BodyExt::collect(body).await;
                Ok(match read {
                    Ok(_) => Response::new(Body::default()),
                    Err(status) => status.into_http(),
                })
            })
        }
    }

    /// `messages` gRPC messages of `len` payload bytes each, as one request body.
    fn grpc_body(messages: usize, len: usize) -> Body {
        let mut bytes = Vec::new();
        for _ in 0..messages {
            bytes.push(0);
            bytes.extend_from_slice(&u32::try_from(len).expect("small").to_be_bytes());
            bytes.resize(bytes.len() + len, 7);
        }
        Body::new(http_body_util::Full::new(Bytes::from(bytes)))
    }

    fn budgeted(budget: &RequestBytes, paths: Vec<String>, inner: ReadsBody) -> Guard<ReadsBody> {
        GuardLayer::new(8, 8, paths, Duration::from_secs(5))
            .with_request_bytes(budget.clone())
            .layer(inner)
    }

    /// A unary call's request bytes are held while its admission lives (the work keeps it until
    /// it has stopped), not only while its body is read.
    #[tokio::test]
    async fn a_calls_request_bytes_come_back_when_its_admission_is_dropped() {
        let budget = RequestBytes::new(1000, Duration::from_secs(5));
        let kept = ReadsBody::default();
        let mut service = budgeted(&budget, Vec::new(), kept.clone());
        let Ok(response) = service.call(Request::new(grpc_body(1, 95))).await;
        assert_eq!(grpc_status(&response), None);
        assert_eq!(
            budget.available(),
            900,
            "the body is gone, the admission lives"
        );
        kept.0.lock().expect("not poisoned").clear(); // the work has stopped
        assert_eq!(budget.available(), 1000);
    }

    /// A stream gives back each message's bytes on its own (the stream's task takes them for the
    /// work on that message), oldest first, while its admission lives on.
    #[tokio::test]
    async fn a_stream_gives_back_each_messages_bytes_when_taken() {
        let budget = RequestBytes::new(1000, Duration::from_secs(5));
        let kept = ReadsBody::default();
        let mut service = budgeted(&budget, vec!["/s".to_owned()], kept.clone());
        let request = Request::builder()
            .uri("/s")
            .body(grpc_body(3, 95))
            .expect("request");
        let Ok(response) = service.call(request).await;
        assert_eq!(grpc_status(&response), None);
        assert_eq!(budget.available(), 700);
        let admission = kept.0.lock().expect("not poisoned")[0].clone();
        for left in [800, 900, 1000] {
            let message = admission.take_message_bytes().expect("a complete message");
            assert_eq!(message.wire_bytes(), 100);
            drop(message); // its work has stopped
            assert_eq!(budget.available(), left);
        }
        assert!(admission.take_message_bytes().is_none());
    }

    /// A call that finds no room for its request bytes within the wait is answered
    /// RESOURCE_EXHAUSTED (its body's error, as tonic's decoder returns it) and holds nothing;
    /// once the bytes of the call in the way are back, the next call gets through.
    #[tokio::test]
    async fn a_call_without_room_for_its_bytes_is_refused_with_resource_exhausted() {
        let budget = RequestBytes::new(150, Duration::from_millis(20));
        let kept = ReadsBody::default();
        let mut service = budgeted(&budget, Vec::new(), kept.clone());
        let Ok(first) = service.call(Request::new(grpc_body(1, 95))).await;
        assert_eq!(grpc_status(&first), None);
        let Ok(second) = service.call(Request::new(grpc_body(1, 95))).await;
        assert_eq!(grpc_status(&second), Some("8"));
        kept.0.lock().expect("not poisoned").clear();
        assert_eq!(budget.available(), 150, "the refused call holds nothing");
        let Ok(third) = service.call(Request::new(grpc_body(1, 95))).await;
        assert_eq!(grpc_status(&third), None);
    }
}
