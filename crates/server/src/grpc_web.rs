//! gRPC-Web on the gRPC port: browsers (and `buf curl --protocol grpcweb`) call the same
//! services, translated to gRPC by `tonic-web`, with the browser origins allowed by CORS
//! (`tower-http`) given by `--cors-allowed-origins`.
//!
//! [`GrpcWebLayer`] sits *outside* the metrics layer: a gRPC-Web call is translated first, so the
//! metrics, the request id, the logs, admission, load shedding, deadlines, the message size limit
//! and the request-byte budget see it as the gRPC call it is (its method, its status read from the
//! trailers before they are written into the body as gRPC-Web's trailers frame). An answer
//! without a message (an error, a call shed or past its deadline), which gRPC sends as
//! "trailers-only" with its status in the headers, gets its status, message and error details
//! in the trailers frame too ([`StatusInTrailers`]): a gRPC-Web client finds the status of every
//! answer in the same place. A request that
//! carries an `Origin` header, and every `OPTIONS` request, goes through CORS first; a CORS
//! preflight is answered there and never reaches the metrics layer (no `grpc_server_*` series,
//! not even `unknown`): it is counted in `arbiter_cors_preflights_total{outcome}` instead
//! ([`PREFLIGHTS_COUNTER`]: `allowed` or `refused`).
//! Requests without `Origin` (gRPC clients, `buf curl`) skip CORS, so a gRPC answer carries no
//! CORS headers.
//!
//! CORS only tells a browser whether a page of another origin may read the answer: a client that
//! is not a browser is not bound by it, and every bound of the server applies to a gRPC-Web call
//! whatever its origin. With no origin configured (the default), no browser page of another origin
//! can call the server (its preflight gets no `Access-Control-Allow-Origin`).
//!
//! Over HTTP/1.1 (plaintext `http://` from a browser), anything that is not a gRPC-Web `POST` or a
//! CORS preflight is answered `400 Bad Request` by `tonic-web` (`405` for a gRPC-Web content type
//! with another method), before the metrics; gRPC itself needs HTTP/2.

use std::{
    convert::Infallible,
    fmt,
    future::Future,
    pin::Pin,
    task::{Context, Poll},
    time::Duration,
};

use bytes::Bytes;
use http::{HeaderName, HeaderValue, Method, Request, Response, header};
use http_body::Frame;
use tonic::body::Body;
use tower::{Layer, Service, ServiceExt as _};
use tower_http::cors::{AllowOrigin, Cors, CorsLayer};

/// How long a browser may cache the answer to a preflight (`Access-Control-Max-Age`): 2 hours,
/// the most Chromium honours, so a page does not send a preflight before each call.
pub const PREFLIGHT_MAX_AGE: Duration = Duration::from_secs(7200);

/// The request headers a page may send (`Access-Control-Allow-Headers`): those of gRPC-Web
/// clients (connect-web's gRPC-Web transport, grpc-web), and the request id the logs and the
/// answer carry.
pub const ALLOWED_REQUEST_HEADERS: [&str; 5] = [
    "content-type",
    "x-grpc-web",
    "x-user-agent",
    "grpc-timeout",
    crate::logging::REQUEST_ID_HEADER,
];

/// The response headers a page may read (`Access-Control-Expose-Headers`): the status of an
/// answer without a message (gRPC-Web puts it in the headers then, as gRPC's trailers-only
/// answer), its error details (`google.rpc.BadRequest`, `ErrorInfo`), and the request id.
pub const EXPOSED_RESPONSE_HEADERS: [&str; 4] = [
    "grpc-status",
    "grpc-message",
    "grpc-status-details-bin",
    crate::logging::REQUEST_ID_HEADER,
];

/// The browser origins allowed to call over gRPC-Web (`--cors-allowed-origins`).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub enum AllowedOrigins {
    /// Only these origins, each `scheme://host[:port]` as a browser writes it in `Origin`
    /// (lowercase, without its scheme's default port). Empty: no origin (the default).
    #[default]
    None,
    /// Exactly these origins (never empty).
    List(Vec<String>),
    /// `*`: any origin. Any page loaded in a browser that can reach the server may call it.
    Any,
}

impl AllowedOrigins {
    /// Parses the flag's value: origins separated by commas (spaces around them and empty
    /// entries ignored; `""` allows none), or `*` alone for any origin.
    ///
    /// # Errors
    ///
    /// A message naming the entry when one is not an origin `http(s)://host[:port]` (a path, a
    /// query, user info, another scheme, `null`), or when `*` is mixed with origins.
    pub fn parse(text: &str) -> Result<Self, String> {
        let entries: Vec<&str> = text
            .split(',')
            .map(str::trim)
            .filter(|entry| !entry.is_empty())
            .collect();
        if entries.contains(&"*") {
            return if entries.len() == 1 {
                Ok(Self::Any)
            } else {
                Err("\"*\" allows any origin: give it alone, or list origins without it".to_owned())
            };
        }
        let mut origins = Vec::with_capacity(entries.len());
        for entry in entries {
            let origin = parse_origin(entry)?;
            if !origins.contains(&origin) {
                origins.push(origin);
            }
        }
        Ok(if origins.is_empty() {
            Self::None
        } else {
            Self::List(origins)
        })
    }

    /// The CORS layer that allows these origins (and no other), for gRPC-Web calls.
    pub fn cors(&self) -> CorsLayer {
        let allow_origin = match self {
            Self::None => AllowOrigin::list([]),
            Self::Any => AllowOrigin::any(),
            Self::List(origins) => AllowOrigin::list(
                origins
                    .iter()
                    .filter_map(|origin| HeaderValue::from_str(origin).ok()),
            ),
        };
        CorsLayer::new()
            .allow_origin(allow_origin)
            .allow_methods([Method::POST])
            .allow_headers(ALLOWED_REQUEST_HEADERS.map(HeaderName::from_static))
            .expose_headers(EXPOSED_RESPONSE_HEADERS.map(HeaderName::from_static))
            .max_age(PREFLIGHT_MAX_AGE)
    }
}

impl fmt::Display for AllowedOrigins {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::None => f.write_str(""),
            Self::Any => f.write_str("*"),
            Self::List(origins) => f.write_str(&origins.join(",")),
        }
    }
}

/// One origin of the flag, as a browser writes it in `Origin`: scheme and host in lowercase,
/// the scheme's default port left out (a browser at `http://a.example:80` sends
/// `http://a.example`, which must match).
fn parse_origin(text: &str) -> Result<String, String> {
    let refuse = |why: &str| {
        Err(format!(
            "{text:?} is not a browser origin ({why}): write scheme://host[:port], e.g. \
             http://127.0.0.1:8080 or https://app.example.com"
        ))
    };
    if text.eq_ignore_ascii_case("null") {
        return refuse(
            "\"null\" is the origin of local files and sandboxed pages: any page can send it",
        );
    }
    let lower = text.to_ascii_lowercase();
    let Some((scheme, authority)) = lower.split_once("://") else {
        return refuse("no scheme");
    };
    let default_port = match scheme {
        "http" => 80,
        "https" => 443,
        _ => return refuse("the scheme must be http or https"),
    };
    if authority.is_empty() {
        return refuse("no host");
    }
    if authority.contains(['/', '?', '#', '@', ' ']) {
        return refuse("an origin has no path, query, user or spaces");
    }
    let Ok(parsed) = authority.parse::<http::uri::Authority>() else {
        return refuse("not a host[:port]");
    };
    // A port after the host (after the brackets of an IPv6 address) must be a number to 65535.
    let port_written = authority
        .rsplit_once(']')
        .map_or(authority, |(_, rest)| rest)
        .contains(':');
    if parsed.host().is_empty() || (port_written && parsed.port_u16().is_none()) {
        return refuse("not a host[:port]");
    }
    let origin = match parsed.port_u16() {
        Some(port) if port == default_port => format!("{scheme}://{}", parsed.host()),
        Some(0) => return refuse("port 0"),
        // As a browser writes it: `:08080` is `:8080`.
        Some(port) => format!("{scheme}://{}:{port}", parsed.host()),
        None => format!("{scheme}://{}", parsed.host()),
    };
    if HeaderValue::from_str(&origin).is_err() {
        return refuse("not a header value");
    }
    Ok(origin)
}

/// The layer that answers gRPC-Web and CORS preflights in front of the metrics layer (see the
/// module docs).
#[derive(Debug, Clone)]
pub struct GrpcWebLayer {
    cors: CorsLayer,
}

impl GrpcWebLayer {
    /// gRPC-Web with CORS allowing `origins`.
    #[must_use]
    pub fn new(origins: &AllowedOrigins) -> Self {
        Self {
            cors: origins.cors(),
        }
    }
}

impl<S: Clone> Layer<S> for GrpcWebLayer {
    type Service = GrpcWeb<S>;

    fn layer(&self, inner: S) -> Self::Service {
        let dispatch = Dispatch {
            web: tonic_web::GrpcWebLayer::new().layer(StatusInTrailers {
                inner: inner.clone(),
            }),
            other: tonic_web::GrpcWebLayer::new().layer(inner),
        };
        GrpcWeb {
            browser: self.cors.layer(dispatch.clone()),
            plain: dispatch,
        }
    }
}

/// The service made by [`GrpcWebLayer`].
#[derive(Debug, Clone)]
pub struct GrpcWeb<S> {
    /// Requests from browsers (with `Origin`) and every `OPTIONS`: CORS first.
    browser: Cors<Dispatch<S>>,
    /// Every other request.
    plain: Dispatch<S>,
}

type BoxFuture<T> = Pin<Box<dyn Future<Output = T> + Send + 'static>>;

impl<S> Service<Request<Body>> for GrpcWeb<S>
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
        // The service called is driven ready in `call`.
        Poll::Ready(Ok(()))
    }

    fn call(&mut self, request: Request<Body>) -> Self::Future {
        if request.method() == Method::OPTIONS {
            let preflight = self.browser.clone().oneshot(request);
            Box::pin(async move {
                let Ok(answer) = preflight.await;
                count_preflight(&answer);
                Ok(answer)
            })
        } else if request.headers().contains_key(header::ORIGIN) {
            Box::pin(self.browser.clone().oneshot(request))
        } else {
            self.plain.call(request)
        }
    }
}

/// The counter of CORS preflights answered, by `outcome`: `allowed` (the answer carries
/// `Access-Control-Allow-Origin`: the browser may send the call) or `refused` (it does not: an
/// origin not listed in `--cors-allowed-origins`, or an `OPTIONS` request without `Origin`).
/// Preflights never reach the metrics layer (no `grpc_server_*` series), so this is where they
/// show. [`crate::metrics::install`] makes both series, at 0.
pub const PREFLIGHTS_COUNTER: &str = "arbiter_cors_preflights_total";

/// The `outcome` label values of [`PREFLIGHTS_COUNTER`].
pub const PREFLIGHT_OUTCOMES: [&str; 2] = ["allowed", "refused"];

/// Counts `answer`, the CORS layer's answer to an `OPTIONS` request (tower-http answers every
/// `OPTIONS` request as a preflight and never passes it on), in [`PREFLIGHTS_COUNTER`].
fn count_preflight<B>(answer: &Response<B>) {
    let [allowed, refused] = PREFLIGHT_OUTCOMES;
    let outcome = if answer
        .headers()
        .contains_key(header::ACCESS_CONTROL_ALLOW_ORIGIN)
    {
        allowed
    } else {
        refused
    };
    metrics::counter!(PREFLIGHTS_COUNTER, "outcome" => outcome).increment(1);
}

/// The content types of gRPC-Web requests, as `tonic-web` recognises them.
const GRPC_WEB_CONTENT_TYPES: [&str; 4] = [
    "application/grpc-web",
    "application/grpc-web+proto",
    "application/grpc-web-text",
    "application/grpc-web-text+proto",
];

/// Sends a gRPC-Web request to the translation that moves a trailers-only status into the
/// trailers frame, and anything else (gRPC, which `tonic-web` passes through; HTTP/1.1 that is
/// not gRPC-Web, which it refuses) to the plain translation.
#[derive(Debug, Clone)]
pub struct Dispatch<S> {
    web: tonic_web::GrpcWebService<StatusInTrailers<S>>,
    other: tonic_web::GrpcWebService<S>,
}

impl<S> Service<Request<Body>> for Dispatch<S>
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
        // The service called is driven ready in `call`.
        Poll::Ready(Ok(()))
    }

    fn call(&mut self, request: Request<Body>) -> Self::Future {
        let web = request
            .headers()
            .get(header::CONTENT_TYPE)
            .is_some_and(|value| GRPC_WEB_CONTENT_TYPES.iter().any(|web| value == *web));
        if web {
            Box::pin(self.web.clone().oneshot(request))
        } else {
            Box::pin(self.other.clone().oneshot(request))
        }
    }
}

/// Marks a call that came as gRPC-Web (a request extension), for the handlers that cannot
/// answer it: FollowGame, a bidirectional stream, which a browser cannot hold open (its request
/// body is sent whole before any answer is read).
#[derive(Debug, Clone, Copy)]
pub struct GrpcWebCall;

/// The headers of a gRPC status, moved into the trailers of a trailers-only answer.
const STATUS_HEADERS: [&str; 3] = ["grpc-status", "grpc-message", "grpc-status-details-bin"];

/// Inside the translation of a gRPC-Web call: an answer without a message (an error, a call
/// shed or past its deadline: gRPC's trailers-only answer, its status in the headers) gets its
/// status as trailers instead, which `tonic-web` writes as the body's trailers frame. So a
/// gRPC-Web client reads the status and error details of every answer in the same place, the
/// trailers frame, as gRPC-Web clients expect, and never depends on CORS exposing headers for
/// them.
#[derive(Debug, Clone)]
pub struct StatusInTrailers<S> {
    inner: S,
}

impl<S> Service<Request<Body>> for StatusInTrailers<S>
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

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), Self::Error>> {
        self.inner.poll_ready(cx)
    }

    fn call(&mut self, mut request: Request<Body>) -> Self::Future {
        request.extensions_mut().insert(GrpcWebCall);
        let future = self.inner.call(request);
        Box::pin(async move {
            let Ok(response) = future.await;
            Ok(status_in_trailers(response))
        })
    }
}

/// `response` with the status headers of a trailers-only answer moved into trailers (an answer
/// with a body is left as it is: its status is in its trailers already).
fn status_in_trailers(mut response: Response<Body>) -> Response<Body> {
    if !response.headers().contains_key(STATUS_HEADERS[0]) {
        return response;
    }
    let mut trailers = http::HeaderMap::new();
    for name in STATUS_HEADERS {
        if let Some(value) = response.headers_mut().remove(name) {
            trailers.insert(name, value);
        }
    }
    // The router's answer for an unknown service says `content-length: 0`: kept, it would end
    // the answer before the trailers frame (HTTP/1.1: no status at all; HTTP/2: more than
    // declared).
    response.headers_mut().remove(http::header::CONTENT_LENGTH);
    // A trailers-only answer has no message: its body is empty. A body of unknown size (the
    // translation takes the size of the body it wraps for its own: an exact 0 would make the
    // answer `content-length: 0`, without the trailers frame).
    *response.body_mut() = Body::new(http_body_util::StreamBody::new(tokio_stream::once(Ok::<
        _,
        Infallible,
    >(
        Frame::<Bytes>::trailers(trailers),
    ))));
    response
}

#[cfg(test)]
mod tests {
    use super::*;
    use http_body_util::BodyExt as _;
    use std::sync::{
        Arc,
        atomic::{AtomicUsize, Ordering},
    };

    /// [`GrpcWebLayer`] over a service that answers every call with a trailers-only
    /// INVALID_ARGUMENT and counts the calls that reach it.
    fn failing() -> (
        GrpcWeb<
            impl Service<
                Request<Body>,
                Response = Response<Body>,
                Error = Infallible,
                Future = impl Send,
            > + Clone
            + Send
            + 'static,
        >,
        Arc<AtomicUsize>,
    ) {
        let calls = Arc::new(AtomicUsize::new(0));
        let counted = Arc::clone(&calls);
        let inner = tower::service_fn(move |_: Request<Body>| {
            counted.fetch_add(1, Ordering::Relaxed);
            async { Ok::<_, Infallible>(tonic::Status::invalid_argument("bad").into_http()) }
        });
        let origins = AllowedOrigins::parse("http://a.example").expect("an origin");
        (GrpcWebLayer::new(&origins).layer(inner), calls)
    }

    /// Fresh review of issue 14: the router's UNIMPLEMENTED for an unknown service comes with
    /// `content-length: 0`, which must not survive the move of the status into trailers.
    #[tokio::test]
    async fn an_unknown_service_gets_its_status_in_trailers_without_a_zero_length() {
        let mut answer = tonic::Status::unimplemented("").into_http::<Body>();
        answer.headers_mut().insert(
            http::header::CONTENT_LENGTH,
            http::HeaderValue::from_static("0"),
        );
        let response = status_in_trailers(answer);
        assert!(
            !response
                .headers()
                .contains_key(http::header::CONTENT_LENGTH)
        );
        assert!(!response.headers().contains_key("grpc-status"));
        let trailers = response
            .into_body()
            .collect()
            .await
            .expect("a body")
            .trailers()
            .cloned()
            .expect("a trailers frame");
        assert_eq!(
            trailers.get("grpc-status").map(|v| v.as_bytes()),
            Some(&b"12"[..])
        );
    }

    fn request(method: Method, content_type: &str) -> Request<Body> {
        let mut request = Request::new(Body::empty());
        *request.method_mut() = method;
        *request.uri_mut() = "/arbiter.v1.ArbiterService/ListLegalMoves"
            .parse()
            .expect("uri");
        *request.version_mut() = http::Version::HTTP_2;
        request.headers_mut().insert(
            header::CONTENT_TYPE,
            HeaderValue::from_str(content_type).expect("value"),
        );
        request
    }

    /// A gRPC-Web answer without a message carries its status in the trailers frame of the
    /// body, not in headers a browser may not be allowed to read; a gRPC answer is left as it
    /// is.
    #[tokio::test]
    async fn a_grpc_web_error_carries_its_status_in_the_trailers_frame() {
        let (service, _) = failing();
        let response = service
            .clone()
            .oneshot(request(Method::POST, "application/grpc-web+proto"))
            .await
            .expect("infallible");
        assert!(!response.headers().contains_key("grpc-status"));
        let body = response
            .into_body()
            .collect()
            .await
            .expect("body")
            .to_bytes();
        assert_eq!(body[0], 0x80, "a trailers frame");
        let text = String::from_utf8_lossy(&body[5..]).to_ascii_lowercase();
        assert!(text.contains("grpc-status:3\r\n"), "{text}");
        assert!(text.contains("grpc-message:bad\r\n"), "{text}");

        let response = service
            .oneshot(request(Method::POST, "application/grpc"))
            .await
            .expect("infallible");
        assert_eq!(
            response
                .headers()
                .get("grpc-status")
                .map(HeaderValue::as_bytes),
            Some(&b"3"[..])
        );
    }

    /// A CORS preflight is answered before the services (and their metrics): it never reaches
    /// them, allowed origin or not.
    #[tokio::test]
    async fn preflights_never_reach_the_services() {
        let (service, calls) = failing();
        for origin in ["http://a.example", "http://b.example"] {
            let mut preflight = request(Method::OPTIONS, "text/plain");
            preflight
                .headers_mut()
                .insert(header::ORIGIN, HeaderValue::from_static(origin));
            preflight.headers_mut().insert(
                header::ACCESS_CONTROL_REQUEST_METHOD,
                HeaderValue::from_static("POST"),
            );
            let response = service
                .clone()
                .oneshot(preflight)
                .await
                .expect("infallible");
            assert_eq!(
                response
                    .headers()
                    .get(header::ACCESS_CONTROL_ALLOW_ORIGIN)
                    .is_some(),
                origin == "http://a.example",
                "{origin}"
            );
        }
        assert_eq!(calls.load(Ordering::Relaxed), 0);
    }

    /// Issue 26 item 5: CORS preflights were in no metric. Each answer of the CORS layer to an
    /// `OPTIONS` request is counted by outcome: `allowed` when it carries
    /// `Access-Control-Allow-Origin`, `refused` otherwise (an origin not listed, or no
    /// `Origin` at all).
    #[tokio::test]
    async fn preflights_are_counted_by_outcome() {
        let (service, _) = failing();
        let mut answers = Vec::new();
        for origin in [
            Some("http://a.example"),
            Some("http://b.example"),
            Some("http://a.example"),
            None,
        ] {
            let mut preflight = request(Method::OPTIONS, "text/plain");
            if let Some(origin) = origin {
                preflight
                    .headers_mut()
                    .insert(header::ORIGIN, HeaderValue::from_static(origin));
            }
            preflight.headers_mut().insert(
                header::ACCESS_CONTROL_REQUEST_METHOD,
                HeaderValue::from_static("POST"),
            );
            answers.push(
                service
                    .clone()
                    .oneshot(preflight)
                    .await
                    .expect("infallible"),
            );
        }
        let recorder = metrics_exporter_prometheus::PrometheusBuilder::new().build_recorder();
        let handle = recorder.handle();
        metrics::with_local_recorder(&recorder, || answers.iter().for_each(count_preflight));
        let text = handle.render();
        for (outcome, count) in [("allowed", 2), ("refused", 2)] {
            let line = format!("{PREFLIGHTS_COUNTER}{{outcome=\"{outcome}\"}} {count}");
            assert!(text.lines().any(|l| l == line), "{line} in {text}");
        }
    }

    #[test]
    fn origins_are_read_as_a_browser_writes_them() {
        assert_eq!(AllowedOrigins::parse(""), Ok(AllowedOrigins::None));
        assert_eq!(AllowedOrigins::parse(" , "), Ok(AllowedOrigins::None));
        assert_eq!(AllowedOrigins::parse("*"), Ok(AllowedOrigins::Any));
        assert_eq!(
            AllowedOrigins::parse(
                "http://127.0.0.1:8080, HTTPS://App.Example.com:443,http://a.example:80,\
                 http://[::1]:3000,http://127.0.0.1:8080,http://b.example:08080"
            ),
            Ok(AllowedOrigins::List(vec![
                "http://127.0.0.1:8080".to_owned(),
                "https://app.example.com".to_owned(),
                "http://a.example".to_owned(),
                "http://[::1]:3000".to_owned(),
                // Fresh review of issue 14: a browser writes the port without leading zeros.
                "http://b.example:8080".to_owned(),
            ]))
        );
        assert_eq!(
            AllowedOrigins::parse("https://a.example:8443").map(|origins| origins.to_string()),
            Ok("https://a.example:8443".to_owned())
        );
    }

    /// An entry that can never equal a browser's `Origin` would silently allow nothing; one
    /// that any page can send (`null`) would allow everything: both are refused at startup.
    #[test]
    fn entries_that_are_not_origins_are_refused() {
        for bad in [
            "http://a.example/",
            "http://a.example/app",
            "http://a.example?x=1",
            "http://user@a.example",
            "a.example",
            "ftp://a.example",
            "http://",
            "http://a.example:",
            "http://a.example:99999",
            "http://a.example:0",
            "null",
            "*,http://a.example",
        ] {
            let error = AllowedOrigins::parse(bad).expect_err(bad);
            assert!(
                error.contains(&format!("{bad:?}")) || bad.contains('*'),
                "{bad}: {error}"
            );
        }
    }
}
