//! The rules of the gRPC protocol the guard checks on a call's request before its handler runs,
//! where tonic itself lets them pass, answered as grpc-go and grpc-java answer them (issue 26,
//! item 5):
//!
//! - **`grpc-timeout`** is "up to 8 ASCII digits and a unit" (`H`, `M`, `S`, `m`, `u`, `n`;
//!   [PROTOCOL-HTTP2]). A value that is not ([`client_timeout`]: empty, not ASCII, a sign or
//!   another non-digit, more than 8 digits, an unknown unit) is answered `INTERNAL` with HTTP
//!   status 400 and the message `malformed grpc-timeout: ...` saying why, as grpc-go does
//!   (`internal/transport/http2_server.go`, `operateHeaders`: `decodeTimeout` fails, the stream
//!   is aborted early with `http.StatusBadRequest` and `codes.Internal`; the same in
//!   `handler_server.go`, `NewServerHandlerTransport`). It is not replaced by the server's own
//!   deadline: the client asked for a deadline the server cannot read. HTTP 400 tells the
//!   proxies and access logs in front that the request was at fault; every gRPC client reads
//!   the answer as INTERNAL either way (grpc-go's client maps HTTP 400 to INTERNAL; tonic's
//!   reads `grpc-status`).
//! - **A deadline that has already passed** (a `grpc-timeout` of 0, or one that is over before
//!   the call starts) is answered `DEADLINE_EXCEEDED` without running the handler, for unary
//!   calls and streams alike ([`expired`]), as grpc-go does: its stream's context is done
//!   before the handler reads the request, so reading it fails with `DEADLINE_EXCEEDED`.
//!   tokio's `timeout` polls the work once before it looks at the clock, so without this a
//!   call small enough to be answered in that first poll was answered OK past its deadline.
//! - **A unary call's request body holds exactly one message.** tonic decodes the first
//!   message and reads the rest of the body only to find its trailers, dropping any further
//!   message; grpc-java answers a second one `INTERNAL` "Too many requests"
//!   (`stub/src/main/java/io/grpc/stub/ServerCalls.java`, `UnaryServerCallListener.onMessage`)
//!   and grpc-go's main branch `INTERNAL` "cardinality violation: received multiple request
//!   messages for non-client-streaming RPC" (`stream.go`, `serverStream.RecvMsg`; grpc-go pull
//!   request 8385). [`one_message`] wraps the body: at the first byte after the end of the
//!   first message it ends with `INTERNAL` naming the violation, so the handler never runs and
//!   the extra bytes are neither kept nor charged to the request-byte budget. It holds no data
//!   of its own (the framing state only). gRPC-Web calls reach it translated, so it holds for
//!   them too.
//!
//! [PROTOCOL-HTTP2]: https://github.com/grpc/grpc/blob/master/doc/PROTOCOL-HTTP2.md

use std::{
    pin::Pin,
    task::{Context, Poll, ready},
    time::Duration,
};

use bytes::Bytes;
use http::{HeaderMap, Response, StatusCode};
use http_body::Frame;
use tonic::{Status, body::Body};

use super::request_bytes::Framing;

/// The most digits of a `grpc-timeout` value ([PROTOCOL-HTTP2]'s `TimeoutValue`).
///
/// [PROTOCOL-HTTP2]: https://github.com/grpc/grpc/blob/master/doc/PROTOCOL-HTTP2.md
pub(crate) const MAX_TIMEOUT_DIGITS: usize = 8;

/// Why a `grpc-timeout` header is not one: the text after `malformed grpc-timeout: `.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct MalformedTimeout(String);

impl MalformedTimeout {
    /// The status of a call with this header: `INTERNAL`, as grpc-go answers it.
    pub(crate) fn status(&self) -> Status {
        Status::internal(format!("malformed grpc-timeout: {}", self.0))
    }

    /// The answer: [`MalformedTimeout::status`], trailers-only, with HTTP status 400 as grpc-go
    /// gives it.
    pub(crate) fn into_response(self) -> Response<Body> {
        let mut response = self.status().into_http();
        *response.status_mut() = StatusCode::BAD_REQUEST;
        response
    }
}

/// Reads the client's `grpc-timeout` (every value of the header, the last one wins, as in
/// grpc-go): `None` without the header.
///
/// # Errors
///
/// [`MalformedTimeout`] saying why when a value is not `<1 to 8 ASCII digits><unit>`.
pub(crate) fn client_timeout(headers: &HeaderMap) -> Result<Option<Duration>, MalformedTimeout> {
    let mut timeout = None;
    for value in headers.get_all("grpc-timeout") {
        timeout = Some(read_timeout(value.as_bytes())?);
    }
    Ok(timeout)
}

/// One `grpc-timeout` value.
fn read_timeout(value: &[u8]) -> Result<Duration, MalformedTimeout> {
    let shown = || {
        if value.len() <= MAX_TIMEOUT_DIGITS + 1 {
            format!("{:?}", String::from_utf8_lossy(value))
        } else {
            format!("a value of {} bytes", value.len())
        }
    };
    let malformed = |why: String| Err(MalformedTimeout(why));
    let Some((&unit, digits)) = value.split_last() else {
        return malformed(
            "the value is empty (expected up to 8 digits and a unit, e.g. 250m)".into(),
        );
    };
    // Digits alone are a value without its unit, not a unit without digits.
    if unit.is_ascii_digit() {
        return malformed(format!(
            "{} has no unit (H, M, S, m, u or n) after its digits",
            shown()
        ));
    }
    if digits.is_empty() {
        return malformed(format!("{} has no digits before its unit", shown()));
    }
    if digits.len() > MAX_TIMEOUT_DIGITS {
        return malformed(format!(
            "{} has {} digits, at most {MAX_TIMEOUT_DIGITS} are allowed",
            shown(),
            digits.len()
        ));
    }
    if !digits.iter().all(u8::is_ascii_digit) {
        return malformed(format!(
            "{} is not a number of ASCII digits and a unit",
            shown()
        ));
    }
    let amount: u64 = digits
        .iter()
        .fold(0, |amount, digit| amount * 10 + u64::from(digit - b'0'));
    Ok(match unit {
        b'H' => Duration::from_secs(amount * 3600),
        b'M' => Duration::from_secs(amount * 60),
        b'S' => Duration::from_secs(amount),
        b'm' => Duration::from_millis(amount),
        b'u' => Duration::from_micros(amount),
        b'n' => Duration::from_nanos(amount),
        _ => {
            return malformed(format!(
                "{} has an unknown unit (H, M, S, m, u or n)",
                shown()
            ));
        }
    })
}

/// The answer to a call whose deadline (its `grpc-timeout` of `timeout`) had passed before it
/// started: `DEADLINE_EXCEEDED`; the handler is not run.
pub(crate) fn expired(timeout: Duration) -> Response<Body> {
    Status::deadline_exceeded(format!(
        "the call's deadline (grpc-timeout of {timeout:?}) had passed before it started: it was \
         not run"
    ))
    .into_http()
}

/// The message of a unary call whose request body holds more than one message.
pub(crate) const SECOND_MESSAGE: &str = "cardinality violation: a unary call's request body \
     holds more than one message, and gRPC allows exactly one";

/// Wraps the request body of a unary call: it ends with `INTERNAL` ([`SECOND_MESSAGE`]) at the
/// first byte after the end of its first message (see the module's documentation).
pub(crate) fn one_message(body: Body) -> Body {
    Body::new(OneMessage {
        inner: body,
        framing: Framing::START,
        first_ended: false,
        failed: false,
    })
}

/// See [`one_message`].
struct OneMessage {
    inner: Body,
    framing: Framing,
    /// The first message has ended: any further byte is a second message.
    first_ended: bool,
    /// The body has ended with the violation's error.
    failed: bool,
}

impl OneMessage {
    /// Reads `data` through the framing: whether a byte in it follows the end of the first
    /// message.
    fn goes_past_the_first(&mut self, mut data: &[u8]) -> bool {
        while !data.is_empty() {
            if self.first_ended {
                return true;
            }
            let (used, ended) = self.framing.consume(data);
            self.first_ended = ended;
            data = &data[used..];
        }
        false
    }
}

impl http_body::Body for OneMessage {
    type Data = Bytes;
    type Error = Status;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, Status>>> {
        if self.failed {
            return Poll::Ready(None);
        }
        let frame = ready!(Pin::new(&mut self.inner).poll_frame(cx));
        let data = match &frame {
            Some(Ok(frame)) => frame.data_ref(),
            _ => None,
        };
        if let Some(data) = data
            && self.goes_past_the_first(data)
        {
            self.failed = true;
            return Poll::Ready(Some(Err(Status::internal(SECOND_MESSAGE))));
        }
        Poll::Ready(frame)
    }

    fn is_end_stream(&self) -> bool {
        self.failed || self.inner.is_end_stream()
    }

    fn size_hint(&self) -> http_body::SizeHint {
        self.inner.size_hint()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use http::HeaderValue;
    use http_body_util::BodyExt as _;

    fn headers(values: &[&'static [u8]]) -> HeaderMap {
        let mut map = HeaderMap::new();
        for value in values {
            map.append(
                "grpc-timeout",
                HeaderValue::from_bytes(value).expect("a header value"),
            );
        }
        map
    }

    fn timeout(value: &'static [u8]) -> Result<Option<Duration>, String> {
        client_timeout(&headers(&[value])).map_err(|error| error.status().message().to_owned())
    }

    /// PROTOCOL-HTTP2's `TimeoutValue TimeoutUnit`, every unit, 1 to 8 digits (leading zeros
    /// are digits too), and 0: a deadline that has already passed.
    #[test]
    fn grpc_timeout_values_of_up_to_eight_digits_and_a_unit_are_read() {
        for (value, expected) in [
            (&b"5S"[..], Duration::from_secs(5)),
            (b"250m", Duration::from_millis(250)),
            (b"2H", Duration::from_secs(7200)),
            (b"3M", Duration::from_secs(180)),
            (b"7u", Duration::from_micros(7)),
            (b"9n", Duration::from_nanos(9)),
            (b"0n", Duration::ZERO),
            (b"00000000S", Duration::ZERO),
            (b"99999999H", Duration::from_secs(99_999_999 * 3600)),
        ] {
            assert_eq!(timeout(value), Ok(Some(expected)), "{value:?}");
        }
        assert_eq!(client_timeout(&HeaderMap::new()), Ok(None));
        // Several values: the last one, as grpc-go reads them.
        assert_eq!(
            client_timeout(&headers(&[b"5S", b"20m"])),
            Ok(Some(Duration::from_millis(20)))
        );
    }

    /// Issue 26 item 5: a malformed `grpc-timeout` was silently replaced by the server's
    /// default. grpc-go's `decodeTimeout` (internal/transport/http_util.go) refuses a value
    /// shorter than 2 bytes, longer than 9, with an unknown unit or with digits `ParseUint`
    /// does not read; each is INTERNAL "malformed grpc-timeout: ..." saying why.
    #[test]
    fn r_malformed_grpc_timeouts_are_named_and_why() {
        for (value, why) in [
            (&b""[..], "malformed grpc-timeout: the value is empty"),
            (
                b"S",
                "malformed grpc-timeout: \"S\" has no digits before its unit",
            ),
            // A fresh review's finding: "5" was said to have no digits.
            (
                b"5",
                "malformed grpc-timeout: \"5\" has no unit (H, M, S, m, u or n) after its digits",
            ),
            (
                b"250",
                "malformed grpc-timeout: \"250\" has no unit (H, M, S, m, u or n) after its digits",
            ),
            (
                b"123456789S",
                "malformed grpc-timeout: a value of 10 bytes has 9 digits, at most 8 are allowed",
            ),
            (b"5x", "malformed grpc-timeout: \"5x\" has an unknown unit"),
            (b"5s", "malformed grpc-timeout: \"5s\" has an unknown unit"),
            (b"+5S", "malformed grpc-timeout: \"+5S\" is not a number"),
            (b"-1S", "malformed grpc-timeout: \"-1S\" is not a number"),
            (b" 5S", "malformed grpc-timeout: \" 5S\" is not a number"),
            (b"1.5S", "malformed grpc-timeout: \"1.5S\" is not a number"),
            (
                b"\xc3\xa9S",
                "malformed grpc-timeout: \"\u{e9}S\" is not a number",
            ),
        ] {
            let message = timeout(value).expect_err("malformed");
            assert!(message.starts_with(why), "{value:?}: {message}");
        }
        // One malformed value among good ones is enough.
        assert!(client_timeout(&headers(&[b"5S", b"5x"])).is_err());
    }

    /// The answer to a malformed `grpc-timeout`: INTERNAL, trailers-only, HTTP 400 as grpc-go's
    /// `earlyAbortStream` (`httpStatus: http.StatusBadRequest`).
    #[test]
    fn a_malformed_grpc_timeout_is_answered_internal_with_http_400() {
        let error = client_timeout(&headers(&[b"5x"])).expect_err("malformed");
        let response = error.into_response();
        assert_eq!(response.status(), StatusCode::BAD_REQUEST);
        assert_eq!(response.headers()["grpc-status"], "13");
        assert_eq!(response.headers()["content-type"], "application/grpc");
    }

    /// `bytes` as one request body cut into DATA frames of `size` bytes (the last one
    /// shorter).
    fn body_of(bytes: &[u8], size: usize) -> Body {
        let frames: Vec<Result<Frame<Bytes>, Status>> = bytes
            .chunks(size)
            .map(|chunk| Ok(Frame::data(Bytes::copy_from_slice(chunk))))
            .collect();
        Body::new(http_body_util::StreamBody::new(tokio_stream::iter(frames)))
    }

    fn message(len: usize) -> Vec<u8> {
        let mut bytes = vec![0];
        bytes.extend_from_slice(&u32::try_from(len).expect("small").to_be_bytes());
        bytes.resize(5 + len, 7);
        bytes
    }

    /// Reads a unary body through [`one_message`]: its bytes, or the status it ended with.
    async fn read(bytes: &[u8], size: usize) -> Result<usize, Status> {
        let collected = one_message(body_of(bytes, size)).collect().await?;
        Ok(collected.to_bytes().len())
    }

    /// One message, however the frames cut it, passes whole (an empty message too).
    #[tokio::test]
    async fn a_unary_body_of_one_message_passes_whole() {
        for len in [0, 1, 40] {
            for size in [1, 3, 5, 6, 64] {
                assert_eq!(read(&message(len), size).await.ok(), Some(5 + len));
            }
        }
    }

    /// Issue 26 item 5: a unary body holding two messages was answered from the first. As
    /// grpc-java (`ServerCalls.UnaryServerCallListener.onMessage`, "Too many requests") and
    /// grpc-go's main branch (`serverStream.RecvMsg`) answer INTERNAL, the body ends with
    /// INTERNAL at the first byte after the first message: a whole second message, an empty
    /// one, or a single stray byte, in the same frame or the next.
    #[tokio::test]
    async fn r_a_second_message_in_a_unary_body_is_internal() {
        for extra in [message(10), message(0), vec![0]] {
            let mut bytes = message(20);
            bytes.extend_from_slice(&extra);
            for size in [1, 7, 25, 26, bytes.len()] {
                let status = read(&bytes, size).await.expect_err("two messages");
                assert_eq!(status.code(), tonic::Code::Internal, "{size}");
                assert_eq!(status.message(), SECOND_MESSAGE);
            }
        }
    }
}
