//! The process-wide budget of request bytes in flight (`--max-request-bytes-in-flight`).
//!
//! A decoded request takes up to ~12 times its size on the wire (a `repeated string` of empty
//! moves: 2 bytes each on the wire, a 24-byte `String` each decoded), so counting calls does not
//! bound memory; counting their bytes does. A body wrapper (`BudgetedBody`) wraps the request
//! body of every admitted call: before it hands a DATA chunk of `n` bytes to tonic's decoder it
//! takes `n` permits of the budget (a [`Semaphore`] of one permit per byte), and the call keeps
//! them in its held bytes:
//!
//! - a unary call gives them back when its [`super::Admission`] is dropped, that is when its work
//!   has really stopped (the decoded message lives until then);
//! - an AdjudicateGames stream gives back each message's bytes when that message's work has
//!   stopped ([`super::Admission::take_message_bytes`]), so a long stream holds at most the
//!   messages it has sent but that are not answered yet, and the one still arriving.
//!
//! To know where messages end, the wrapper reads the gRPC length-prefixed framing (a 1-byte
//! compression flag and a 4-byte big-endian length before each message), and it splits a DATA
//! frame that holds the end of one message and the start of the next into two chunks, so that
//! every chunk's permits belong to one message. Bytes are counted as they are on the wire, the
//! 5-byte header included.
//!
//! A message takes its whole size at once, when its header has arrived (the chunk that
//! completes the header takes the permits of the rest of the message too; the message's later
//! chunks take none). Taking them frame by frame instead lets many calls each hold the first
//! frames of a large message while none can finish: under 1,000 concurrent 60 KB calls and a
//! 4 MiB budget, 224 of 5,000 calls got through against 2,400 without a budget. A message
//! declaring more than the largest accepted size takes only its header's bytes: tonic refuses
//! it once it has read the header.
//!
//! Bytes taken for a message that has not arrived yet are a *promise*, and a client can
//! promise without sending: two streams whose headers declare 4 MiB each and which then send
//! nothing would hold a whole 8 MiB budget until their deadlines, and every other call would be
//! shed. So promises have a bound of their own: half the budget, or the largest message if that
//! is more (a second semaphore). A message whose rest does not arrive with its header waits for
//! room there first (at most `--max-queue-wait`, like any wait for the budget), then takes its
//! whole size from the budget; its promise shrinks as its bytes arrive. Whatever clients
//! declare, the rest of the budget is held only by bytes that have really arrived, and a message
//! that arrives whole with its header (most requests: one DATA frame) needs no promise at all.
//! Taking large messages' bytes frame by frame when promises ran out was tried and brought back
//! the starvation above (20 concurrent 1 MB calls: 60 of 200 shed instead of none).
//!
//! Bytes that have arrived are real memory, and a client can hold them without finishing its
//! message: two streams that send all but the last bytes of 4 MiB messages and then stall
//! would hold an 8 MiB budget until their idle timeout. So a message, once begun, must arrive
//! in whole within the *arrival bound* (`--request-timeout`, the longest a unary call may take
//! anyway): the time counted is the time the body waits for the client's bytes, not the time
//! the server leaves it unread (a stream reads its next message only when the previous one is
//! answered, and HTTP/2 flow control holds the client meanwhile). Past the bound the body ends
//! with `DEADLINE_EXCEEDED`, naming the bytes that arrived, and the call's bytes go back.
//!
//! When the budget has no room, the body waits for it (backpressure: HTTP/2 flow control then
//! holds the client), at most `--max-queue-wait` per chunk; past that it ends with
//! `RESOURCE_EXHAUSTED`, which tonic's decoder returns as the call's status, and the call is
//! counted in `arbiter_calls_shed_total{reason="request_bytes"}`. The bytes held in the process
//! are the gauge `arbiter_request_bytes_in_flight`.

use std::{
    collections::VecDeque,
    future::Future,
    pin::Pin,
    sync::{Arc, Mutex, PoisonError},
    task::{Context, Poll, ready},
    time::Duration,
};

use bytes::Bytes;
use http_body::Frame;
use tokio::sync::{AcquireError, OwnedSemaphorePermit, Semaphore};
use tonic::{Status, body::Body};

use crate::overload::{ShedReason, record_shed};

/// The gauge of the request bytes held by calls in the whole process.
pub const BYTES_IN_FLIGHT_GAUGE: &str = "arbiter_request_bytes_in_flight";

/// Length of the header of a gRPC message: a compression flag and a big-endian `u32` length.
pub const MESSAGE_HEADER_BYTES: usize = 5;

/// The budget of request bytes in flight shared by every call of a server: cheap to clone.
#[derive(Debug, Clone)]
pub struct RequestBytes {
    permits: Arc<Semaphore>,
    total: usize,
    max_message: usize,
    max_wait: Duration,
    /// The bound on promises: bytes taken for messages whose header has arrived but not these
    /// bytes yet (see the module's documentation). Permits taken from it are forgotten and
    /// added back as the promised bytes arrive.
    promises: Arc<Semaphore>,
    max_promised: usize,
    /// The longest a message may take to arrive, from its first byte to its last, counting
    /// only the time spent waiting for the client (see the module's documentation).
    arrival: Duration,
}

impl RequestBytes {
    /// A budget of `bytes` bytes of requests in flight (capped at [`Semaphore::MAX_PERMITS`]);
    /// a call waits at most `max_wait` for room for each chunk of its request before it fails
    /// with `RESOURCE_EXHAUSTED`. Messages of up to the whole budget less their header are
    /// taken at once when their header arrives (see [`RequestBytes::with_max_message`]).
    #[must_use]
    pub fn new(bytes: u64, max_wait: Duration) -> Self {
        let total = usize::try_from(bytes)
            .unwrap_or(usize::MAX)
            .min(Semaphore::MAX_PERMITS);
        metrics::describe_gauge!(
            BYTES_IN_FLIGHT_GAUGE,
            metrics::Unit::Bytes,
            "Bytes of request messages (their gRPC headers included) held by calls now, under \
             --max-request-bytes-in-flight."
        );
        metrics::gauge!(BYTES_IN_FLIGHT_GAUGE).set(0.0);
        Self {
            permits: Arc::new(Semaphore::new(total)),
            total,
            max_message: total.saturating_sub(MESSAGE_HEADER_BYTES),
            max_wait,
            promises: Arc::new(Semaphore::new(total / 2)),
            max_promised: total / 2,
            arrival: crate::limits::default_duration(crate::limits::DEFAULT_REQUEST_TIMEOUT),
        }
        .with_promises()
    }

    /// Sets the bound on promises for the budget and largest message: half the budget, or the
    /// largest message if that is more (it must be able to wait for room), never more than the
    /// budget.
    fn with_promises(mut self) -> Self {
        self.max_promised = (self.total / 2).max(self.max_message).min(self.total);
        self.promises = Arc::new(Semaphore::new(self.max_promised));
        self
    }

    /// Bytes promised now to messages whose header has arrived but not these bytes.
    #[cfg(test)]
    fn promised(&self) -> usize {
        self.max_promised - self.promises.available_permits()
    }

    /// Ends the promise of `bytes` (they arrived, or will not).
    fn unpromise(&self, bytes: usize) {
        if bytes > 0 {
            self.promises.add_permits(bytes);
        }
    }

    /// The largest message the server accepts (`--max-message-bytes`, the payload without its
    /// header, in bytes): a message declaring more takes only its header's permits, as tonic
    /// refuses it once it has read the header; never more than the budget less a header.
    #[must_use]
    pub fn with_max_message(mut self, bytes: usize) -> Self {
        self.max_message = bytes.min(self.total.saturating_sub(MESSAGE_HEADER_BYTES));
        self.with_promises()
    }

    /// The arrival bound: a message that has begun must arrive in whole after at most
    /// `bound` of waiting for the client's bytes, else the body ends with
    /// `DEADLINE_EXCEEDED` (default: the default `--request-timeout`, [`crate::limits::DEFAULT_REQUEST_TIMEOUT`]; the server uses the flag's value).
    #[must_use]
    pub fn with_arrival_bound(mut self, bound: Duration) -> Self {
        self.arrival = bound;
        self
    }

    /// The size of the budget, in bytes.
    #[must_use]
    pub fn total(&self) -> usize {
        self.total
    }

    /// The bytes of the budget not held by any call now.
    #[must_use]
    pub fn available(&self) -> usize {
        self.permits.available_permits()
    }

    /// Wraps `body`: its chunks take permits of this budget, which are kept in `held`.
    pub(crate) fn wrap(&self, body: Body, held: Arc<Mutex<Held>>) -> Body {
        Body::new(BudgetedBody {
            inner: body,
            budget: self.clone(),
            held,
            framing: Framing::START,
            reserved: 0,
            promising: None,
            promise_wait: None,
            pending: Bytes::new(),
            waiting: None,
            failed: false,
            arrival: Arrival::default(),
        })
    }
}

/// Permits of the budget, counted in [`BYTES_IN_FLIGHT_GAUGE`] while they exist.
#[derive(Debug)]
struct BytePermit(Option<OwnedSemaphorePermit>);

impl BytePermit {
    fn new(permit: OwnedSemaphorePermit) -> Self {
        #[allow(clippy::cast_precision_loss)] // exact below 2^53 bytes
        metrics::gauge!(BYTES_IN_FLIGHT_GAUGE).increment(permit.num_permits() as f64);
        Self(Some(permit))
    }

    fn len(&self) -> usize {
        self.0.as_ref().map_or(0, OwnedSemaphorePermit::num_permits)
    }

    /// Adds `other`'s permits to these (the same budget's).
    fn merge(&mut self, mut other: Self) {
        match (&mut self.0, other.0.take()) {
            (Some(mine), Some(theirs)) => mine.merge(theirs),
            (mine @ None, theirs) => *mine = theirs,
            (Some(_), None) => {}
        }
    }
}

impl Drop for BytePermit {
    fn drop(&mut self) {
        #[allow(clippy::cast_precision_loss)] // exact below 2^53 bytes
        let len = self.len() as f64;
        if len > 0.0 {
            metrics::gauge!(BYTES_IN_FLIGHT_GAUGE).decrement(len);
        }
    }
}

/// The request bytes of one complete request message, given back to the budget when dropped.
/// A stream hands them to the work on its message ([`super::Admission::take_message_bytes`]).
#[derive(Debug)]
pub struct MessageBytes(BytePermit);

impl MessageBytes {
    /// The message's size on the wire, header included, in bytes.
    #[must_use]
    pub fn wire_bytes(&self) -> usize {
        self.0.len()
    }
}

/// The request bytes a call holds: one entry per complete message not yet given back (oldest
/// first), and the bytes of the message still arriving.
#[derive(Debug, Default)]
pub(crate) struct Held {
    complete: VecDeque<BytePermit>,
    partial: Option<BytePermit>,
}

impl Held {
    /// Adds the permits of a chunk of the current message; `ends` when the message ends with it.
    fn add(&mut self, permit: BytePermit, ends: bool) {
        let message = match self.partial.take() {
            Some(mut partial) => {
                partial.merge(permit);
                partial
            }
            None => permit,
        };
        if ends {
            self.complete.push_back(message);
        } else {
            self.partial = Some(message);
        }
    }

    /// Takes the bytes of the oldest complete message.
    pub(crate) fn take_oldest(&mut self) -> Option<MessageBytes> {
        self.complete.pop_front().map(MessageBytes)
    }

    /// Every byte held, complete messages and the partial one.
    #[cfg(test)]
    fn total(&self) -> usize {
        self.complete.iter().map(BytePermit::len).sum::<usize>()
            + self.partial.as_ref().map_or(0, BytePermit::len)
    }
}

/// Locks `held`; a panic while it was locked leaves consistent data (every change is one push or
/// pop), so a poisoned lock is used as is.
pub(crate) fn lock(held: &Mutex<Held>) -> std::sync::MutexGuard<'_, Held> {
    held.lock().unwrap_or_else(PoisonError::into_inner)
}

/// Where a body is in the gRPC length-prefixed framing (a request's, here; the metrics count the
/// messages of both directions with it).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Framing {
    /// In a message's header: `got` of its bytes seen so far, in `header`.
    Header {
        got: usize,
        header: [u8; MESSAGE_HEADER_BYTES],
    },
    /// In a message's body: `remaining` bytes of it to come.
    Body { remaining: usize },
}

impl Framing {
    /// Before the first byte of a message.
    pub(crate) const START: Self = Self::Header {
        got: 0,
        header: [0; MESSAGE_HEADER_BYTES],
    };

    /// Reads the first bytes of `data` that belong to the current message, up to its end:
    /// returns how many, and whether the message ended with them. At least one byte is read
    /// when `data` is not empty.
    pub(crate) fn consume(&mut self, data: &[u8]) -> (usize, bool) {
        let mut used = 0;
        loop {
            match self {
                Self::Header { got, header } => {
                    let take = (MESSAGE_HEADER_BYTES - *got).min(data.len() - used);
                    header[*got..*got + take].copy_from_slice(&data[used..used + take]);
                    *got += take;
                    used += take;
                    if *got < MESSAGE_HEADER_BYTES {
                        return (used, false);
                    }
                    let length = u32::from_be_bytes([header[1], header[2], header[3], header[4]]);
                    *self = Self::Body {
                        remaining: usize::try_from(length).unwrap_or(usize::MAX),
                    };
                }
                Self::Body { remaining } => {
                    let take = (*remaining).min(data.len() - used);
                    *remaining -= take;
                    used += take;
                    if *remaining > 0 {
                        return (used, false);
                    }
                    *self = Self::START;
                    return (used, true);
                }
            }
        }
    }

    /// Reads all of `data`: the number of messages that ended in it (an empty message ends
    /// with its header).
    pub(crate) fn messages_ended(&mut self, mut data: &[u8]) -> u64 {
        let mut ended = 0;
        while !data.is_empty() {
            let (used, end) = self.consume(data);
            ended += u64::from(end);
            data = &data[used..];
        }
        ended
    }
}

type Acquire = Pin<
    Box<
        dyn Future<
                Output = Result<
                    Result<OwnedSemaphorePermit, AcquireError>,
                    tokio::time::error::Elapsed,
                >,
            > + Send,
    >,
>;

/// A request body whose chunks take permits of a [`RequestBytes`] budget before tonic's
/// decoder sees them (see the module's documentation).
struct BudgetedBody {
    inner: Body,
    budget: RequestBytes,
    held: Arc<Mutex<Held>>,
    framing: Framing,
    /// Permits already held for the bytes of the current message still to come (all of them
    /// promised).
    reserved: usize,
    /// The promise taken for the message whose header is in the chunk waiting for its budget
    /// permits (its permits are forgotten: they are added back when it ends).
    promising: Option<usize>,
    /// The wait for room among the promises, when there was none.
    promise_wait: Option<Acquire>,
    /// Bytes received from `inner` and not handed on yet (they have no permits yet).
    pending: Bytes,
    /// The wait for the permits of the next chunk of `pending`, when there was no room.
    waiting: Option<Acquire>,
    /// The body has ended with the budget's error.
    failed: bool,
    /// The clock of the current message's arrival.
    arrival: Arrival,
}

/// How long the current message has waited for its client's bytes (see the module's
/// documentation): the time left of the arrival bound, and the timer of the wait in progress.
#[derive(Default)]
struct Arrival {
    /// Waiting time left for the message in progress; `None` between messages.
    left: Option<Duration>,
    /// The wait for the client in progress: when it began, and when it runs out.
    waiting: Option<(tokio::time::Instant, Pin<Box<tokio::time::Sleep>>)>,
    /// Bytes of the message in progress that have arrived, and its declared size (header
    /// included) once its header has arrived.
    arrived: usize,
    declared: Option<usize>,
}

impl Arrival {
    /// The body got bytes from its client: the wait in progress (if any) is counted.
    fn got_bytes(&mut self) {
        if let (Some((began, _)), Some(left)) = (self.waiting.take(), self.left.as_mut()) {
            *left = left.saturating_sub(began.elapsed());
        }
    }

    /// `n` bytes of the current message were handed on; it `ends` with them, and `declared`
    /// is its whole size on the wire when its header is known.
    fn handed(&mut self, bound: Duration, n: usize, ends: bool, declared: Option<usize>) {
        if ends {
            *self = Self::default();
            return;
        }
        self.left.get_or_insert(bound);
        self.arrived += n;
        if declared.is_some() {
            self.declared = declared;
        }
    }

    /// The body waits for its client: ready (the bound is spent) when a message is in progress
    /// and its time has run out.
    fn poll_expired(&mut self, cx: &mut Context<'_>) -> Poll<()> {
        let Some(left) = self.left else {
            return Poll::Pending;
        };
        let (_, sleep) = self.waiting.get_or_insert_with(|| {
            let now = tokio::time::Instant::now();
            (now, Box::pin(tokio::time::sleep_until(now + left)))
        });
        sleep.as_mut().poll(cx)
    }

    /// The status of a message that did not arrive within `bound`.
    fn expired(&self, bound: Duration) -> Status {
        let declared = self.declared.map_or_else(
            || "its header did not arrive".to_owned(),
            |declared| format!("{declared} declared"),
        );
        Status::deadline_exceeded(format!(
            "a request message did not arrive in whole within {} ms of waiting for it: {} bytes \
             arrived, {declared} (send each message within --request-timeout)",
            bound.as_millis(),
            self.arrived,
        ))
    }
}

/// Takes `n` permits of `semaphore`: at once when there is room, else waiting (in `waiting`,
/// polled again on each call) at most `max_wait`. `Err(true)` when the wait timed out,
/// `Err(false)` when the semaphore is closed.
fn poll_permits(
    semaphore: &Arc<Semaphore>,
    waiting: &mut Option<Acquire>,
    max_wait: Duration,
    cx: &mut Context<'_>,
    n: usize,
) -> Poll<Result<OwnedSemaphorePermit, bool>> {
    let count = u32::try_from(n).unwrap_or(u32::MAX);
    let wait = match waiting {
        Some(wait) => wait,
        None => match Arc::clone(semaphore).try_acquire_many_owned(count) {
            Ok(permit) => return Poll::Ready(Ok(permit)),
            Err(tokio::sync::TryAcquireError::Closed) => return Poll::Ready(Err(false)),
            Err(tokio::sync::TryAcquireError::NoPermits) => {
                let acquire = Arc::clone(semaphore).acquire_many_owned(count);
                waiting.insert(Box::pin(tokio::time::timeout(max_wait, acquire)))
            }
        },
    };
    let acquired = ready!(wait.as_mut().poll(cx));
    *waiting = None;
    Poll::Ready(match acquired {
        Ok(Ok(permit)) => Ok(permit),
        Ok(Err(_closed)) => Err(false),
        Err(_elapsed) => Err(true),
    })
}

impl BudgetedBody {
    /// Takes `n` permits of the budget: at once when there is room, else waiting at most the
    /// budget's wait.
    fn acquire(&mut self, cx: &mut Context<'_>, n: usize) -> Poll<Result<BytePermit, Status>> {
        let max_wait = self.budget.max_wait;
        let acquired = ready!(poll_permits(
            &self.budget.permits,
            &mut self.waiting,
            max_wait,
            cx,
            n
        ));
        Poll::Ready(
            acquired
                .map(BytePermit::new)
                .map_err(|timed_out| self.refusal(timed_out)),
        )
    }

    /// Takes room for a promise of `n` bytes (forgetting the permits: they are added back as
    /// the bytes arrive), waiting at most the budget's wait.
    fn promise(&mut self, cx: &mut Context<'_>, n: usize) -> Poll<Result<(), Status>> {
        let max_wait = self.budget.max_wait;
        let acquired = ready!(poll_permits(
            &self.budget.promises,
            &mut self.promise_wait,
            max_wait,
            cx,
            n
        ));
        Poll::Ready(
            acquired
                .map(OwnedSemaphorePermit::forget)
                .map_err(|timed_out| self.refusal(timed_out)),
        )
    }

    /// The status of a call that got no room: RESOURCE_EXHAUSTED (counted) after a wait that
    /// timed out, UNAVAILABLE when the budget is closed.
    fn refusal(&self, timed_out: bool) -> Status {
        if !timed_out {
            return closed();
        }
        record_shed(ShedReason::RequestBytes);
        Status::resource_exhausted(format!(
            "server overloaded: the request bytes in flight reached the server's limit of \
             {} bytes, and no room was freed within {} ms",
            self.budget.total,
            self.budget.max_wait.as_millis()
        ))
    }
}

impl Drop for BudgetedBody {
    fn drop(&mut self) {
        // The bytes promised and not arrived never will: their permits go back with the
        // call's held bytes, the promise now.
        let promised = self.reserved + self.promising.take().unwrap_or(0);
        self.budget.unpromise(promised);
    }
}

/// The budget's semaphore is never closed; should it be, the server is going away.
fn closed() -> Status {
    Status::unavailable("the server is shutting down")
}

impl http_body::Body for BudgetedBody {
    type Data = Bytes;
    type Error = Status;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, Status>>> {
        let this = &mut *self;
        loop {
            if this.failed {
                return Poll::Ready(None);
            }
            if !this.pending.is_empty() {
                // The next chunk: up to the end of the current message, and never more than the
                // whole budget (a chunk larger than that could never get its permits).
                let limit = this.pending.len().min(this.budget.total.max(1));
                let mut framing = this.framing;
                let (n, ends) = framing.consume(&this.pending[..limit]);
                let covered = n.min(this.reserved);
                let mut need = n - covered;
                let mut reserved = this.reserved - covered;
                // The header has just arrived: the rest of the message is promised (waiting for
                // room among the promises) and taken now.
                if let (Framing::Header { .. }, Framing::Body { remaining }) =
                    (this.framing, framing)
                    && remaining > 0
                    && remaining <= this.budget.max_message
                {
                    if this.promising.is_none() {
                        if let Err(status) = ready!(this.promise(cx, remaining)) {
                            this.failed = true;
                            this.pending = Bytes::new();
                            return Poll::Ready(Some(Err(status)));
                        }
                        this.promising = Some(remaining);
                    }
                    need += remaining;
                    reserved += remaining;
                }
                let permit = match ready!(this.acquire(cx, need)) {
                    Ok(permit) => permit,
                    Err(status) => {
                        this.budget.unpromise(this.promising.take().unwrap_or(0));
                        this.failed = true;
                        this.pending = Bytes::new();
                        return Poll::Ready(Some(Err(status)));
                    }
                };
                this.promising = None;
                this.budget.unpromise(covered);
                let declared = match (this.framing, framing) {
                    (Framing::Header { .. }, Framing::Body { remaining }) => {
                        Some(this.arrival.arrived + n + remaining)
                    }
                    _ => None,
                };
                this.arrival.handed(this.budget.arrival, n, ends, declared);
                this.framing = framing;
                this.reserved = reserved;
                lock(&this.held).add(permit, ends);
                return Poll::Ready(Some(Ok(Frame::data(this.pending.split_to(n)))));
            }
            let polled = Pin::new(&mut this.inner).poll_frame(cx);
            if polled.is_pending() {
                // Waiting for the client: a message in progress must arrive within its bound.
                if this.arrival.poll_expired(cx).is_ready() {
                    let status = this.arrival.expired(this.budget.arrival);
                    this.failed = true;
                    return Poll::Ready(Some(Err(status)));
                }
                return Poll::Pending;
            }
            this.arrival.got_bytes();
            match ready!(polled) {
                Some(Ok(frame)) => match frame.into_data() {
                    Ok(data) if data.is_empty() => {}
                    Ok(data) => this.pending = data,
                    Err(frame) => return Poll::Ready(Some(Ok(frame))),
                },
                other => return Poll::Ready(other),
            }
        }
    }

    fn is_end_stream(&self) -> bool {
        self.failed || (self.pending.is_empty() && self.inner.is_end_stream())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use http_body_util::BodyExt as _;

    /// A gRPC message of `len` payload bytes, header included.
    fn message(len: usize, fill: u8) -> Vec<u8> {
        let mut bytes = vec![0];
        bytes.extend_from_slice(&u32::try_from(len).expect("small").to_be_bytes());
        bytes.extend(std::iter::repeat_n(fill, len));
        bytes
    }

    /// Reads `data` split at `cuts` through a fresh [`Framing`]: the message lengths (header
    /// included) completed, in order, and the bytes of the unfinished one.
    fn messages_of(data: &[u8], cuts: &[usize]) -> (Vec<usize>, usize) {
        let mut framing = Framing::START;
        let mut done = Vec::new();
        let mut current = 0;
        let mut start = 0;
        for end in cuts.iter().copied().chain([data.len()]) {
            let mut chunk = &data[start..end];
            start = end;
            while !chunk.is_empty() {
                let (n, ends) = framing.consume(chunk);
                assert!(n > 0);
                chunk = &chunk[n..];
                current += n;
                if ends {
                    done.push(current);
                    current = 0;
                }
            }
        }
        (done, current)
    }

    #[test]
    fn framing_finds_messages_however_the_frames_cut_them() {
        let mut data = message(3, b'a');
        data.extend(message(0, 0));
        data.extend(message(10, b'b'));
        // One frame, a cut in each header, a cut after each header, a frame per byte.
        let per_byte: Vec<usize> = (1..data.len()).collect();
        for cuts in [
            &[][..],
            &[2, 9, 12][..],
            &[5, 13, 18][..],
            &[1, 2, 3, 4][..],
            &per_byte[..],
        ] {
            assert_eq!(messages_of(&data, cuts), (vec![8, 5, 15], 0), "{cuts:?}");
        }
        // An unfinished message: part of a header, then part of a body.
        assert_eq!(messages_of(&data[..10], &[]), (vec![8], 2));
        assert_eq!(messages_of(&data[..16], &[]), (vec![8, 5], 3));
    }

    /// The metrics count messages with [`Framing::messages_ended`]: several messages in one
    /// chunk, a message cut across chunks, a header cut in two, an empty message.
    #[test]
    fn framing_counts_the_messages_that_end_in_each_chunk() {
        let mut data = message(3, 1);
        data.extend(message(0, 0));
        data.extend(message(10, 2));
        data.extend(message(2, 3));
        // 8 + 5 + 15 + 7 bytes: cut inside the third message's header and inside its body.
        let mut framing = Framing::START;
        let counts: Vec<u64> = [&data[..15], &data[15..20], &data[20..30], &data[30..]]
            .iter()
            .map(|chunk| framing.messages_ended(chunk))
            .collect();
        assert_eq!(counts, [2, 0, 1, 1]);
        assert_eq!(framing, Framing::START);
    }

    #[test]
    fn framing_reads_no_further_than_the_current_message() {
        let mut data = message(2, b'x');
        data.extend(message(4, b'y'));
        let mut framing = Framing::START;
        assert_eq!(framing.consume(&data), (7, true));
        assert_eq!(framing.consume(&data[7..9]), (2, false));
        assert_eq!(framing.consume(&data[9..]), (7, true));
        assert_eq!(framing, Framing::START);
    }

    #[test]
    fn a_large_length_is_read_as_a_large_message() {
        let header = [0, 0xff, 0xff, 0xff, 0xff];
        let mut framing = Framing::START;
        assert_eq!(framing.consume(&header), (5, false));
        assert_eq!(
            framing,
            Framing::Body {
                remaining: usize::try_from(u32::MAX).expect("64-bit")
            }
        );
    }

    /// A body of the given DATA frames.
    fn body_of(frames: Vec<Vec<u8>>) -> Body {
        let frames = frames
            .into_iter()
            .map(|frame| Ok::<_, Status>(Frame::data(Bytes::from(frame))));
        Body::new(http_body_util::StreamBody::new(tokio_stream::iter(
            frames.collect::<Vec<_>>(),
        )))
    }

    /// Reads `body` to its end: the chunks handed on, or the error it ended with.
    async fn read_all(body: Body) -> Result<Vec<Bytes>, Status> {
        let mut body = body;
        let mut chunks = Vec::new();
        while let Some(frame) = body.frame().await {
            if let Ok(data) = frame?.into_data() {
                chunks.push(data);
            }
        }
        Ok(chunks)
    }

    #[tokio::test]
    async fn chunks_end_at_message_boundaries_and_every_byte_is_held() {
        let budget = RequestBytes::new(1024, Duration::from_secs(5));
        let held = Arc::new(Mutex::new(Held::default()));
        let mut first = message(3, b'a');
        let second = message(6, b'b');
        // One frame with the first message and half the second's header, then the rest.
        first.extend_from_slice(&second[..2]);
        let body = budget.wrap(
            body_of(vec![first, second[2..].to_vec()]),
            Arc::clone(&held),
        );
        let chunks = read_all(body).await.expect("room enough");
        let lengths: Vec<usize> = chunks.iter().map(Bytes::len).collect();
        assert_eq!(lengths, [8, 2, 9]);
        assert_eq!(budget.available(), 1024 - 19, "held after the body is gone");
        let mut held = lock(&held);
        assert_eq!(held.total(), 19);
        assert_eq!(held.take_oldest().map(|m| m.wire_bytes()), Some(8));
        assert_eq!(held.take_oldest().map(|m| m.wire_bytes()), Some(11));
        assert!(held.take_oldest().is_none());
        assert_eq!(budget.available(), 1024);
    }

    /// A message whose header has arrived holds its whole size, though its body is still
    /// arriving; it is not complete, so it cannot be taken.
    #[tokio::test]
    async fn an_unfinished_message_holds_its_whole_size_and_is_not_taken() {
        let budget = RequestBytes::new(1024, Duration::from_secs(5));
        let held = Arc::new(Mutex::new(Held::default()));
        let mut data = message(1, b'a');
        data.extend_from_slice(&message(100, b'b')[..50]);
        read_all(budget.wrap(body_of(vec![data]), Arc::clone(&held)))
            .await
            .expect("room enough");
        let mut held = lock(&held);
        assert_eq!(held.take_oldest().map(|m| m.wire_bytes()), Some(6));
        assert!(held.take_oldest().is_none(), "the second is unfinished");
        assert_eq!(held.total(), 105);
        drop(held);
        assert_eq!(budget.available(), 1024 - 105);
    }

    /// A message takes its whole size when its header arrives, so its later frames go through
    /// even when the budget has no room left: calls never hold half a message while waiting.
    #[tokio::test]
    async fn a_message_takes_its_whole_size_at_its_header() {
        let budget = RequestBytes::new(210, Duration::from_millis(20));
        let held = Arc::new(Mutex::new(Held::default()));
        let data = message(100, b'a');
        let frames = vec![
            data[..3].to_vec(),
            data[3..40].to_vec(),
            data[40..70].to_vec(),
            data[70..].to_vec(),
        ];
        let mut body = budget.wrap(body_of(frames), Arc::clone(&held));
        let mut lengths = Vec::new();
        while let Some(frame) = body.frame().await {
            let data = frame.expect("no wait").into_data().expect("data");
            lengths.push(data.len());
            if lengths.len() == 2 {
                assert_eq!(budget.available(), 105, "taken at the header");
                assert_eq!(budget.promised(), 100 - 35);
            }
        }
        assert_eq!(lengths, [3, 37, 30, 35]);
        assert_eq!(budget.promised(), 0, "all arrived");
        assert_eq!(lock(&held).take_oldest().map(|m| m.wire_bytes()), Some(105));
        assert_eq!(budget.available(), 210);
    }

    /// Issue 10, a fresh user's finding: headers alone took the whole size of the messages
    /// they declared, so two streams declaring 4 MiB each and sending nothing more held an
    /// 8 MiB budget and every other call was shed. Promises now have a bound of their own (half
    /// the budget here): a second liar waits for room there and is refused, holding nothing,
    /// and calls whose message arrives whole with its header need no promise and are served.
    #[tokio::test]
    async fn r_headers_alone_can_promise_at_most_half_the_budget() {
        let budget = RequestBytes::new(1000, Duration::from_millis(20)).with_max_message(400);
        let header = |len: usize| message(len, 0)[..MESSAGE_HEADER_BYTES].to_vec();
        let held = Arc::new(Mutex::new(Held::default()));
        let mut liar = budget.wrap(body_of(vec![header(400)]), Arc::clone(&held));
        let chunk = liar.frame().await.expect("a frame").expect("room");
        assert_eq!(chunk.into_data().map(|data| data.len()).ok(), Some(5));
        assert_eq!(budget.promised(), 400);
        assert_eq!(budget.available(), 1000 - 405);
        // A second liar finds no room among the promises within the wait.
        let second = Arc::new(Mutex::new(Held::default()));
        let status = read_all(budget.wrap(body_of(vec![header(400)]), Arc::clone(&second)))
            .await
            .expect_err("no room for a second promise");
        assert_eq!(status.code(), tonic::Code::ResourceExhausted);
        assert_eq!(lock(&second).total(), 0, "a refused liar holds nothing");
        assert_eq!(budget.available(), 1000 - 405);
        // A real call of 400 bytes that arrives whole with its header promises nothing.
        let real = Arc::new(Mutex::new(Held::default()));
        let chunks = read_all(budget.wrap(body_of(vec![message(395, b'r')]), Arc::clone(&real)))
            .await
            .expect("room left by the liar");
        assert_eq!(chunks.iter().map(Bytes::len).sum::<usize>(), 400);
        drop(real);
        // A message in three frames needs a promise: it is served once the liar is gone.
        let data = message(200, b'x');
        let frames = || {
            vec![
                data[..5].to_vec(),
                data[5..105].to_vec(),
                data[105..].to_vec(),
            ]
        };
        let framed = Arc::new(Mutex::new(Held::default()));
        let status = read_all(budget.wrap(body_of(frames()), Arc::clone(&framed)))
            .await
            .expect_err("the liar holds the promises");
        assert_eq!(status.code(), tonic::Code::ResourceExhausted);
        // A call that ends with its promise unfulfilled ends the promise; its bytes go back
        // with the call.
        drop(liar);
        drop(held);
        assert_eq!(budget.promised(), 0);
        assert_eq!(budget.available(), 1000);
        let chunks = read_all(budget.wrap(body_of(frames()), Arc::clone(&framed)))
            .await
            .expect("room for its promise now");
        assert_eq!(
            chunks.iter().map(Bytes::len).collect::<Vec<_>>(),
            [5, 100, 100]
        );
        assert_eq!(budget.promised(), 0, "arrived in full");
        assert_eq!(
            lock(&framed).take_oldest().map(|m| m.wire_bytes()),
            Some(205)
        );
    }

    /// A body whose frames are sent by the test, as a client would send them.
    fn channel_body() -> (tokio::sync::mpsc::Sender<Vec<u8>>, Body) {
        let (tx, rx) = tokio::sync::mpsc::channel::<Vec<u8>>(8);
        let frames = tokio_stream::StreamExt::map(
            tokio_stream::wrappers::ReceiverStream::new(rx),
            |frame| Ok::<_, Status>(Frame::data(Bytes::from(frame))),
        );
        (tx, Body::new(http_body_util::StreamBody::new(frames)))
    }

    /// Issue 10, a fresh user's finding: two streams that sent all but the last bytes of
    /// 4 MiB messages and then stalled held an 8 MiB budget for the stream idle timeout (60 s).
    /// A message must now arrive within its bound of waiting for the client: here one stalls
    /// for 10 s with 10 of its bytes missing, and its body ends with DEADLINE_EXCEEDED, naming
    /// what arrived; its bytes go back with the call.
    #[tokio::test(start_paused = true)]
    async fn r_a_message_stalled_before_its_last_bytes_ends_at_its_arrival_bound() {
        let budget = RequestBytes::new(1000, Duration::from_secs(1))
            .with_arrival_bound(Duration::from_secs(10));
        let held = Arc::new(Mutex::new(Held::default()));
        let (client, body) = channel_body();
        let data = message(400, b's');
        client.send(data[..395].to_vec()).await.expect("open");
        let reading = tokio::spawn(read_all(budget.wrap(body, Arc::clone(&held))));
        tokio::time::sleep(Duration::from_secs(9)).await;
        assert!(!reading.is_finished(), "within its bound");
        assert_eq!(budget.available(), 1000 - 405);
        let status = tokio::time::timeout(Duration::from_secs(60), reading)
            .await
            .expect("ended at its bound, not left open")
            .expect("joins")
            .expect_err("stalled past its bound");
        assert_eq!(status.code(), tonic::Code::DeadlineExceeded);
        assert!(
            status.message().contains("395 bytes arrived, 405 declared"),
            "{status:?}"
        );
        drop(client);
        drop(held);
        assert_eq!(budget.available(), 1000, "every byte back with the call");
        assert_eq!(budget.promised(), 0);
    }

    /// The arrival bound counts the time spent waiting for the client, summed over a
    /// message's frames: a message whose frames come 4 s apart (8 s of waiting, bound 10 s)
    /// arrives, and the next message has a bound of its own.
    #[tokio::test(start_paused = true)]
    async fn a_slow_message_within_its_arrival_bound_arrives_and_the_next_starts_afresh() {
        let budget = RequestBytes::new(1000, Duration::from_secs(1))
            .with_arrival_bound(Duration::from_secs(10));
        let held = Arc::new(Mutex::new(Held::default()));
        let (client, body) = channel_body();
        let reading = tokio::spawn(read_all(budget.wrap(body, Arc::clone(&held))));
        let first = message(100, b'a');
        let second = message(100, b'b');
        for (i, part) in [&first[..3], &first[3..50], &first[50..], &second[..50]]
            .into_iter()
            .enumerate()
        {
            if i > 0 {
                tokio::time::sleep(Duration::from_secs(4)).await;
            }
            client.send(part.to_vec()).await.expect("open");
        }
        // The second message began 4 s after the first: 8 s more of waiting are within its own
        // bound, though 20 s have passed since the first message began.
        tokio::time::sleep(Duration::from_secs(8)).await;
        client.send(second[50..].to_vec()).await.expect("open");
        drop(client);
        let chunks = reading
            .await
            .expect("joins")
            .expect("each within its bound");
        assert_eq!(chunks.iter().map(Bytes::len).sum::<usize>(), 210);
        assert_eq!(lock(&held).take_oldest().map(|m| m.wire_bytes()), Some(105));
        assert_eq!(lock(&held).take_oldest().map(|m| m.wire_bytes()), Some(105));
    }

    /// Time the server leaves a body unread is not the client's: a stream reads its next
    /// message only once it has answered the last. A message whose last bytes have been
    /// waiting for 30 s when the body is read again arrives.
    #[tokio::test(start_paused = true)]
    async fn time_the_server_leaves_a_body_unread_does_not_count_against_its_client() {
        let budget = RequestBytes::new(1000, Duration::from_secs(1))
            .with_arrival_bound(Duration::from_secs(10));
        let held = Arc::new(Mutex::new(Held::default()));
        let (client, body) = channel_body();
        let mut body = budget.wrap(body, Arc::clone(&held));
        let data = message(100, b'u');
        client.send(data[..60].to_vec()).await.expect("open");
        client.send(data[60..].to_vec()).await.expect("open");
        let first = body.frame().await.expect("a frame").expect("room");
        assert_eq!(first.into_data().map(|data| data.len()).ok(), Some(60));
        tokio::time::sleep(Duration::from_secs(30)).await; // the server works on something else
        let rest = body
            .frame()
            .await
            .expect("a frame")
            .expect("still within its bound");
        assert_eq!(rest.into_data().map(|data| data.len()).ok(), Some(45));
    }

    /// A message declaring more than the largest accepted size takes only its header: tonic
    /// refuses it then, and it must not wait for (or hold) room it will never use.
    #[tokio::test]
    async fn a_message_above_the_largest_size_takes_only_what_arrived() {
        let budget = RequestBytes::new(1000, Duration::from_millis(20)).with_max_message(50);
        let held = Arc::new(Mutex::new(Held::default()));
        let mut body = budget.wrap(
            body_of(vec![message(500, b'a')[..20].to_vec()]),
            Arc::clone(&held),
        );
        let first = body
            .frame()
            .await
            .expect("a frame")
            .expect("no error")
            .into_data()
            .expect("data");
        assert_eq!(first.len(), 20);
        assert_eq!(budget.available(), 980);
    }

    #[tokio::test]
    async fn a_chunk_waits_for_room_and_gets_it_when_bytes_are_given_back() {
        let budget = RequestBytes::new(16, Duration::from_secs(30));
        let first = Arc::new(Mutex::new(Held::default()));
        read_all(budget.wrap(body_of(vec![message(7, b'a')]), Arc::clone(&first)))
            .await
            .expect("room enough");
        assert_eq!(budget.available(), 4);
        let second = Arc::new(Mutex::new(Held::default()));
        let reading = tokio::spawn(read_all(
            budget.wrap(body_of(vec![message(7, b'b')]), Arc::clone(&second)),
        ));
        tokio::task::yield_now().await;
        assert!(!reading.is_finished(), "waits for room");
        drop(lock(&first).take_oldest());
        let chunks = reading.await.expect("joins").expect("room freed in time");
        assert_eq!(chunks.iter().map(Bytes::len).sum::<usize>(), 12);
        assert_eq!(budget.available(), 4);
    }

    #[tokio::test]
    async fn a_chunk_that_waits_too_long_ends_the_body_with_resource_exhausted() {
        let budget = RequestBytes::new(16, Duration::from_millis(20));
        let first = Arc::new(Mutex::new(Held::default()));
        read_all(budget.wrap(body_of(vec![message(7, b'a')]), Arc::clone(&first)))
            .await
            .expect("room enough");
        let second = Arc::new(Mutex::new(Held::default()));
        let status = read_all(budget.wrap(body_of(vec![message(7, b'b')]), Arc::clone(&second)))
            .await
            .expect_err("no room in time");
        assert_eq!(status.code(), tonic::Code::ResourceExhausted);
        assert!(
            status.message().contains("request bytes in flight"),
            "{status:?}"
        );
        assert_eq!(lock(&second).total(), 0, "nothing held");
        assert_eq!(budget.available(), 4);
    }

    /// A message larger than the whole budget (tonic refuses it once it has read the header:
    /// the budget is at least `--max-message-bytes`) must reach the decoder's size check rather
    /// than wait for permits that cannot exist.
    #[tokio::test]
    async fn a_message_larger_than_the_budget_reaches_the_decoder_in_budget_sized_chunks() {
        let budget = RequestBytes::new(8, Duration::from_secs(30));
        let held = Arc::new(Mutex::new(Held::default()));
        let mut body = budget.wrap(body_of(vec![message(100, b'a')]), Arc::clone(&held));
        let first = body
            .frame()
            .await
            .expect("a frame")
            .expect("no error")
            .into_data()
            .expect("data");
        assert_eq!(first.len(), 8, "the header and what the budget holds");
        assert_eq!(budget.available(), 0);
        drop(body);
        drop(held);
        assert_eq!(budget.available(), 8);
    }
}
