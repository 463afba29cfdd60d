//! The process-wide budget of answer bytes in flight (`--max-answer-bytes-in-flight`).
//!
//! An answer is memory the server holds for a client until the client has read it, and a client
//! decides how fast it reads: one that opens HTTP/2 streams with a flow-control window of 0
//! and never grants more can make the server keep every answer it asks for. So answers take
//! room in a budget, as requests do (see [`super::request_bytes`]):
//!
//! - **when**: an answer's bytes take room as the answer's body produces them (tonic encodes
//!   the message when the transport first asks for the body, right after the handler returned),
//!   each chunk before it is handed on, plus [`ANSWER_OVERHEAD_BYTES`] once per call for what
//!   the transport keeps of a call while it waits (its stream, its task). They stay taken until
//!   the transport has taken the chunk and the one after it (at most two chunks of a call are
//!   ever held), or the body is dropped. Chunks are handed on in pieces of at most
//!   [`PIECE_BYTES`], so that "the client took it" is known piece by piece;
//! - **room is not reserved before the call runs**: the size of an answer is known only once
//!   it is built, and reserving the largest possible answer (`--max-message-bytes`) for every
//!   call would let the budget admit a handful of calls. A call that finds the budget empty is
//!   refused at once, before any work (`RESOURCE_EXHAUSTED`); one whose answer, once built,
//!   finds no room waits for it at most `--max-queue-wait` and is then answered
//!   `RESOURCE_EXHAUSTED` instead (its answer is dropped). Answers waiting for room are
//!   memory too: at most half the budget's worth of them wait at once, or a single answer
//!   larger than that (so built answers never hold more than twice the budget, and at the
//!   default sizes one and a half), and one beyond that is refused at once. Both count in
//!   `arbiter_calls_shed_total{reason="answer_bytes"}`;
//! - **eviction**: when an answer needs room, the answer that has waited longest for its client
//!   to take a piece, if it has waited longer than `--max-queue-wait`, gives its room up: its
//!   delivery is cancelled ([`crate::delivery`]: on HTTP/2 its stream is reset with `CANCEL`,
//!   on HTTP/1.1 its connection is closed) and counted in
//!   `arbiter_answers_abandoned_total{reason="evicted"}`. A client that reads its answers
//!   takes each piece within milliseconds, so only clients that stopped reading lose answers,
//!   and well-behaved clients keep being served while others hold the budget;
//! - the bytes held are the gauge `arbiter_answer_bytes_in_flight`.
//!
//! Besides: a body whose call's deadline has passed ends the call (see
//! [`crate::delivery::Delivery`]) at the next chance it gets; the answer body also holds what
//! the transport needs to know about the call's delivery.

use std::{
    collections::VecDeque,
    future::Future,
    pin::Pin,
    sync::Arc,
    task::{Context, Poll},
    time::Duration,
};

use bytes::Bytes;
use http::{HeaderMap, HeaderValue};
use http_body::Frame;
use tokio::sync::{OwnedSemaphorePermit, Semaphore};
use tonic::{Status, body::Body};

use crate::{
    delivery::{Abandoned, Delivery, Registry},
    overload::{ShedReason, record_shed},
};

/// The gauge of the answer bytes held in the whole process.
pub const ANSWER_BYTES_GAUGE: &str = "arbiter_answer_bytes_in_flight";

/// The largest piece of an answer handed to the transport at once, in bytes: HTTP/2's default
/// largest frame, so that pieces cost no extra framing.
pub const PIECE_BYTES: usize = 16 * 1024;

/// Bytes charged once per answer, besides its own, for what the transport keeps of a call whose
/// answer waits (the HTTP/2 stream's state, the task serving it, the buffers around the body):
/// about 1 KiB measured per waiting stream. Without it, answers of a few bytes would let the
/// budget hold hundreds of thousands of waiting calls.
pub const ANSWER_OVERHEAD_BYTES: usize = 1024;

/// The budget of answer bytes in flight shared by every call of a server: cheap to clone.
#[derive(Debug, Clone)]
pub struct AnswerBytes {
    permits: Arc<Semaphore>,
    total: usize,
    max_wait: Duration,
    /// The deliveries of the answers holding room: the candidates for eviction.
    holders: Arc<Registry>,
    /// Bytes of answers built and waiting for room (not charged to `permits` yet): at most
    /// half the budget, an answer larger than that taking all of it.
    waiting: Arc<Semaphore>,
}

impl AnswerBytes {
    /// A budget of `bytes` bytes of answers in flight (capped at [`Semaphore::MAX_PERMITS`]);
    /// an answer waits at most `max_wait` for room, and an answer whose client has taken
    /// nothing of it for longer than `max_wait` gives its room up to one that needs it.
    #[must_use]
    pub fn new(bytes: u64, max_wait: Duration) -> Self {
        let total = usize::try_from(bytes)
            .unwrap_or(usize::MAX)
            .min(Semaphore::MAX_PERMITS);
        metrics::describe_gauge!(
            ANSWER_BYTES_GAUGE,
            metrics::Unit::Bytes,
            "Bytes of answers built and not yet taken by their clients, under \
             --max-answer-bytes-in-flight."
        );
        metrics::gauge!(ANSWER_BYTES_GAUGE).set(0.0);
        Self {
            permits: Arc::new(Semaphore::new(total)),
            total,
            max_wait,
            holders: Arc::new(Registry::default()),
            waiting: Arc::new(Semaphore::new(total / 2)),
        }
    }

    /// The budget, in bytes.
    #[must_use]
    pub fn total(&self) -> usize {
        self.total
    }

    /// Bytes of room left now.
    #[must_use]
    pub fn available(&self) -> usize {
        self.permits.available_permits()
    }

    /// Whether a new call's answer may find room: there is some, or an answer holding room is
    /// waiting for its client (it gives its room up once it has waited longer than the wait
    /// allowed). The guard refuses calls before any work when not: then every byte of the
    /// budget belongs to answers being read.
    #[must_use]
    pub fn has_room(&self) -> bool {
        self.available() >= ANSWER_OVERHEAD_BYTES || self.holders.longest_waiting().is_some()
    }

    /// The answer that has waited longest for its client, if longer than the wait allowed.
    fn evictable(&self) -> Option<Arc<Delivery>> {
        self.holders
            .longest_waiting()
            .filter(|(_, waited)| *waited > self.max_wait)
            .map(|(delivery, _)| delivery)
    }

    /// Takes room for `bytes`: at once if there is some, else by evicting the answers that
    /// waited longest (see the module's documentation) and waiting for the room they free, at
    /// most `max_wait` in all. `None` when no room came.
    async fn take(&self, bytes: usize) -> Option<Charge> {
        let Ok(bytes32) = u32::try_from(bytes) else {
            return None;
        };
        if bytes > self.total {
            return None;
        }
        if let Ok(permit) = Arc::clone(&self.permits).try_acquire_many_owned(bytes32) {
            return Some(Charge::new(permit));
        }
        // An answer waiting for room is memory too: at most half the budget's worth may wait
        // at once (measured: the zero-window flood of BENCHMARKS.md, "Answers a client does not
        // read", peaked about 8 MiB lower than with the whole budget's worth), and an answer
        // beyond that is refused at once. An answer larger than half the budget waits alone.
        let share = bytes.min(self.total / 2);
        let Ok(_waiting) = Arc::clone(&self.waiting)
            .try_acquire_many_owned(u32::try_from(share).unwrap_or(u32::MAX))
        else {
            return None;
        };
        let wait = async {
            let acquire = Arc::clone(&self.permits).acquire_many_owned(bytes32);
            tokio::pin!(acquire);
            loop {
                // Evict while room is short, then wait a little for what eviction frees.
                if self.available() < bytes
                    && let Some(delivery) = self.evictable()
                {
                    delivery.cancel(Abandoned::Evicted);
                }
                tokio::select! {
                    permit = &mut acquire => return permit.ok(),
                    () = tokio::time::sleep(Duration::from_millis(5)) => {}
                }
            }
        };
        tokio::time::timeout(self.max_wait, wait)
            .await
            .ok()
            .flatten()
            .map(Charge::new)
    }
}

/// Bytes of room taken, given back when dropped.
#[derive(Debug)]
struct Charge(OwnedSemaphorePermit);

impl Charge {
    fn new(permit: OwnedSemaphorePermit) -> Self {
        #[allow(clippy::cast_precision_loss)] // exact below 2^53 bytes
        metrics::gauge!(ANSWER_BYTES_GAUGE).increment(permit.num_permits() as f64);
        Self(permit)
    }

    /// Splits `bytes` off into a charge of their own.
    fn split(&mut self, bytes: usize) -> Option<Self> {
        self.0.split(bytes).map(Self)
    }
}

impl Drop for Charge {
    fn drop(&mut self) {
        #[allow(clippy::cast_precision_loss)] // exact below 2^53 bytes
        let len = self.0.num_permits() as f64;
        if len > 0.0 {
            metrics::gauge!(ANSWER_BYTES_GAUGE).decrement(len);
        }
    }
}

type Wait = Pin<Box<dyn Future<Output = Option<Charge>> + Send>>;

/// An answer's body under the budget (see the module's documentation).
pub struct AnswerBody {
    inner: Body,
    budget: AnswerBytes,
    delivery: Arc<Delivery>,
    /// The per-call overhead, taken with the first chunk; `None` before.
    overhead: Option<Charge>,
    /// A chunk waiting for room, with its wait.
    waiting: Option<(Bytes, Wait)>,
    /// Pieces of the current chunk not handed on yet, with their charges.
    pieces: VecDeque<(Bytes, Charge)>,
    /// Charges of the pieces handed on, oldest first (at most two are kept).
    handed: VecDeque<Charge>,
    /// Set once the body has ended (refused, failed or finished).
    done: bool,
    /// The first frame, taken by [`AnswerBody::prepare`] before the transport asked for it.
    prepared: Option<Option<Result<Frame<Bytes>, Status>>>,
    /// The call's admission, kept until the body is dropped (see [`AnswerBody::holding`]).
    held: Option<super::Admission>,
}

impl AnswerBody {
    /// Wraps `inner` under `budget`, reporting to `delivery`.
    #[must_use]
    pub fn new(inner: Body, budget: AnswerBytes, delivery: Arc<Delivery>) -> Self {
        Self {
            inner,
            budget,
            delivery,
            overhead: None,
            waiting: None,
            pieces: VecDeque::new(),
            handed: VecDeque::new(),
            done: false,
            prepared: None,
            held: None,
        }
    }

    /// Keeps `admission` (a stream's place under `--max-streams`) until the body is dropped,
    /// when the answer's delivery ends, however the handler that made it returned.
    #[must_use]
    pub fn holding(mut self, admission: Option<super::Admission>) -> Self {
        self.held = admission;
        self
    }

    /// Builds the answer's first frame now, without waiting for the transport to ask: the
    /// message is encoded (and the decoded one dropped) and its bytes take room in the budget,
    /// waiting for room at most `--max-queue-wait` as always. hyper asks for a body only once
    /// the client's flow-control window has room, so without this a client that opens its
    /// streams with a window of 0 would make every finished call keep its decoded answer (an
    /// `ApplyMoves` answer of 2,700 plies is several times its 100 KB encoding) outside the
    /// budget for as long as the call may live. Meant for unary answers, whose one message is
    /// ready when the handler returns: a stream's first answer may be far off.
    pub async fn prepare(&mut self) {
        if self.prepared.is_some() || self.done {
            return;
        }
        let first =
            std::future::poll_fn(|cx| http_body::Body::poll_frame(Pin::new(&mut *self), cx)).await;
        self.prepared = Some(first);
    }

    /// Starts the wait for room for `chunk` (and the call's overhead, the first time).
    fn wait_for_room(&mut self, chunk: Bytes) {
        let budget = self.budget.clone();
        let bytes = chunk.len()
            + if self.overhead.is_none() {
                ANSWER_OVERHEAD_BYTES
            } else {
                0
            };
        let wait: Wait = Box::pin(async move { budget.take(bytes).await });
        self.waiting = Some((chunk, wait));
    }

    /// Cuts `chunk` into pieces, each with its share of `charge`.
    fn cut(&mut self, mut chunk: Bytes, mut charge: Charge) {
        if self.overhead.is_none() {
            self.overhead = charge.split(ANSWER_OVERHEAD_BYTES);
            if self.overhead.is_none() {
                return;
            }
            // Holding room now: a candidate for eviction while it waits for its client.
            self.budget.holders.register(&self.delivery);
        }
        while !chunk.is_empty() {
            let piece = chunk.split_to(chunk.len().min(PIECE_BYTES));
            let share = if chunk.is_empty() {
                charge.split(charge.0.num_permits())
            } else {
                charge.split(piece.len())
            };
            let Some(share) = share else { return };
            self.pieces.push_back((piece, share));
        }
    }

    /// The trailers that end a call whose answer found no room.
    fn refused() -> Frame<Bytes> {
        record_shed(ShedReason::AnswerBytes);
        let mut trailers = HeaderMap::new();
        trailers.insert("grpc-status", HeaderValue::from_static("8"));
        trailers.insert(
            "grpc-message",
            HeaderValue::from_static(
                "server%20overloaded:%20no%20room%20for%20the%20answer%20(--max-answer-bytes-in-flight)",
            ),
        );
        Frame::trailers(trailers)
    }
}

impl Drop for AnswerBody {
    fn drop(&mut self) {
        self.delivery.taken();
    }
}

impl http_body::Body for AnswerBody {
    type Data = Bytes;
    type Error = Status;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, Status>>> {
        let this = &mut *self;
        // The first frame, built ahead ([`AnswerBody::prepare`]): it waits for its client from
        // the moment it was built, so the delivery's record is left as it is.
        if let Some(first) = this.prepared.take() {
            return Poll::Ready(first);
        }
        if this.done {
            return Poll::Ready(None);
        }
        // Asked again: the transport took the last piece.
        this.delivery.taken();
        while this.handed.len() > 1 {
            this.handed.pop_front();
        }
        if this.delivery.cancelled().is_some() {
            // The stream is being reset (HTTP/2 CANCEL) or the connection closed by the
            // transport; an error here makes hyper reset it at once, should it ask first.
            this.done = true;
            return Poll::Ready(Some(Err(cancelled())));
        }
        loop {
            if let Some((piece, charge)) = this.pieces.pop_front() {
                this.handed.push_back(charge);
                this.delivery.handed_over();
                return Poll::Ready(Some(Ok(Frame::data(piece))));
            }
            if let Some((_, wait)) = this.waiting.as_mut() {
                let charge = std::task::ready!(wait.as_mut().poll(cx));
                let chunk = this
                    .waiting
                    .take()
                    .map(|(chunk, _)| chunk)
                    .unwrap_or_default();
                match charge {
                    Some(charge) => {
                        this.cut(chunk, charge);
                        continue;
                    }
                    None => {
                        this.done = true;
                        return Poll::Ready(Some(Ok(Self::refused())));
                    }
                }
            }
            match std::task::ready!(Pin::new(&mut this.inner).poll_frame(cx)) {
                Some(Ok(frame)) => match frame.into_data() {
                    Ok(chunk) if chunk.is_empty() => {}
                    Ok(chunk) => this.wait_for_room(chunk),
                    Err(frame) => return Poll::Ready(Some(Ok(frame))),
                },
                Some(Err(status)) => return Poll::Ready(Some(Err(status))),
                None => {
                    this.done = true;
                    return Poll::Ready(None);
                }
            }
        }
    }

    fn is_end_stream(&self) -> bool {
        if let Some(first) = &self.prepared {
            return first.is_none();
        }
        self.done
            || (self.pieces.is_empty() && self.waiting.is_none() && self.inner.is_end_stream())
    }

    fn size_hint(&self) -> http_body::SizeHint {
        http_body::SizeHint::default()
    }
}

/// The error that makes hyper reset the stream with `CANCEL` (it looks for an `h2::Error` in
/// the error's sources), as grpc-go does when a call's deadline passes.
fn cancelled() -> Status {
    let mut status = Status::cancelled("the call's deadline passed before its answer was read");
    status.set_source(Arc::new(h2::Error::from(h2::Reason::CANCEL)));
    status
}

#[cfg(test)]
mod tests {
    use super::*;
    use http_body_util::BodyExt as _;

    fn body(frames: Vec<Frame<Bytes>>) -> Body {
        Body::new(http_body_util::StreamBody::new(tokio_stream::iter(
            frames.into_iter().map(Ok::<_, Status>),
        )))
    }

    fn trailers() -> Frame<Bytes> {
        let mut trailers = HeaderMap::new();
        trailers.insert("grpc-status", HeaderValue::from_static("0"));
        Frame::trailers(trailers)
    }

    /// A unary answer is built and charged when its call returns (`prepare`), before the
    /// transport asks for it (hyper asks only once the client's window has room), and waits for
    /// its client from then on; the transport then gets that same first piece.
    #[tokio::test]
    async fn a_prepared_answer_is_charged_before_the_transport_asks() {
        let budget = AnswerBytes::new(1 << 20, Duration::from_millis(10));
        let total = budget.total();
        let delivery = Arc::new(Delivery::new());
        let chunk = Bytes::from(vec![7_u8; 20 * 1024]);
        let mut answer = AnswerBody::new(
            body(vec![Frame::data(chunk), trailers()]),
            budget.clone(),
            Arc::clone(&delivery),
        );
        assert_eq!(total - budget.available(), 0, "nothing charged before");
        answer.prepare().await;
        assert_eq!(
            total - budget.available(),
            20 * 1024 + ANSWER_OVERHEAD_BYTES,
            "the whole answer and the call's overhead are charged once prepared"
        );
        assert!(delivery.waiting_for().is_some(), "it waits for its client");
        assert!(!http_body::Body::is_end_stream(&answer));
        let first = answer.frame().await.expect("a frame").expect("no error");
        assert_eq!(first.into_data().expect("data").len(), PIECE_BYTES);
        let second = answer.frame().await.expect("a frame").expect("no error");
        assert_eq!(second.into_data().expect("data").len(), 4 * 1024);
        assert!(
            answer
                .frame()
                .await
                .expect("trailers")
                .expect("no error")
                .is_trailers()
        );
        assert!(answer.frame().await.is_none());
        drop(answer);
        assert_eq!(budget.available(), total, "all given back");
    }

    /// Answers waiting for room are memory too: at most half the budget's worth of them wait
    /// at once, and the one beyond is refused at once; an answer larger than half the budget
    /// may wait alone.
    #[tokio::test(start_paused = true)]
    async fn answers_waiting_for_room_hold_at_most_half_the_budget() {
        let budget = AnswerBytes::new(64 * 1024, Duration::from_secs(1));
        let full = budget.take(64 * 1024).await.expect("the whole budget");
        let first = tokio::spawn({
            let budget = budget.clone();
            async move { budget.take(20 * 1024).await.is_some() }
        });
        tokio::task::yield_now().await;
        let asked = tokio::time::Instant::now();
        assert!(
            budget.take(20 * 1024).await.is_none(),
            "40 KiB would wait where 32 KiB may: refused"
        );
        assert_eq!(asked.elapsed(), Duration::ZERO, "at once, not after a wait");
        drop(full);
        assert!(first.await.expect("no panic"), "the first got its room");
        let full = budget.take(64 * 1024).await.expect("the whole budget");
        let large = tokio::spawn({
            let budget = budget.clone();
            async move { budget.take(40 * 1024).await.is_some() }
        });
        tokio::task::yield_now().await;
        let asked = tokio::time::Instant::now();
        assert!(
            budget.take(1024).await.is_none(),
            "nothing waits beside an answer larger than half the budget"
        );
        assert_eq!(asked.elapsed(), Duration::ZERO, "refused at once");
        drop(full);
        assert!(large.await.expect("no panic"), "the large one got its room");
    }

    /// An answer takes its bytes (and the per-call overhead) when built, is handed on in pieces
    /// of at most 16 KiB, keeps the charges of the last two pieces until asked for more, and
    /// gives everything back when dropped.
    #[tokio::test]
    async fn an_answer_is_charged_in_pieces_until_taken() {
        let budget = AnswerBytes::new(1 << 20, Duration::from_millis(10));
        let total = budget.total();
        let delivery = Arc::new(Delivery::new());
        let chunk = Bytes::from(vec![7_u8; 40 * 1024]);
        let mut answer = AnswerBody::new(
            body(vec![Frame::data(chunk), trailers()]),
            budget.clone(),
            Arc::clone(&delivery),
        );
        let mut pieces = Vec::new();
        let mut held = Vec::new();
        while let Some(frame) = answer.frame().await {
            let frame = frame.expect("no error");
            held.push(total - budget.available());
            match frame.into_data() {
                Ok(piece) => {
                    assert!(
                        delivery.waiting_for().is_some(),
                        "a piece waits for the client"
                    );
                    pieces.push(piece.len());
                }
                Err(frame) => assert!(frame.is_trailers()),
            }
        }
        assert_eq!(pieces, [16 * 1024, 16 * 1024, 8 * 1024]);
        // The whole chunk and the overhead when the first piece goes; then the pieces taken
        // by the transport (all but the last two) go back.
        assert_eq!(
            held,
            [
                40 * 1024 + ANSWER_OVERHEAD_BYTES,
                40 * 1024 + ANSWER_OVERHEAD_BYTES,
                24 * 1024 + ANSWER_OVERHEAD_BYTES,
                8 * 1024 + ANSWER_OVERHEAD_BYTES,
            ]
        );
        drop(answer);
        assert_eq!(budget.available(), total);
        assert!(delivery.waiting_for().is_none());
    }

    /// An answer that finds no room within the wait allowed is replaced by RESOURCE_EXHAUSTED
    /// in the trailers, and holds nothing.
    #[tokio::test]
    async fn an_answer_without_room_ends_the_call_with_resource_exhausted() {
        let budget = AnswerBytes::new(8 * 1024, Duration::from_millis(10));
        let mut answer = AnswerBody::new(
            body(vec![
                Frame::data(Bytes::from(vec![0_u8; 9 * 1024])),
                trailers(),
            ]),
            budget.clone(),
            Arc::new(Delivery::new()),
        );
        let frame = answer.frame().await.expect("a frame").expect("no error");
        let trailers = frame.into_trailers().expect("trailers");
        assert_eq!(trailers["grpc-status"], "8");
        assert!(answer.frame().await.is_none());
        assert_eq!(budget.available(), 8 * 1024);
    }

    /// An answer that waited for its client longer than the wait allowed gives its room up to
    /// an answer that needs it: its delivery is cancelled (`evicted`).
    #[tokio::test(start_paused = true)]
    async fn an_unread_answer_is_evicted_for_one_that_needs_room() {
        let budget = AnswerBytes::new(32 * 1024, Duration::from_millis(100));
        let unread = Arc::new(Delivery::new());
        let mut first = AnswerBody::new(
            body(vec![
                Frame::data(Bytes::from(vec![1_u8; 20 * 1024])),
                trailers(),
            ]),
            budget.clone(),
            Arc::clone(&unread),
        );
        let _piece = first.frame().await.expect("a frame").expect("no error");
        tokio::time::advance(Duration::from_millis(150)).await;
        let mut second = AnswerBody::new(
            body(vec![
                Frame::data(Bytes::from(vec![2_u8; 20 * 1024])),
                trailers(),
            ]),
            budget.clone(),
            Arc::new(Delivery::new()),
        );
        let next = tokio::spawn(async move {
            let frame = second.frame().await;
            (frame, second)
        });
        // The first answer's task drops it when its delivery is cancelled.
        assert_eq!(unread.ended().await, Abandoned::Evicted);
        drop(first);
        let (frame, _second) = next.await.expect("joins");
        let piece = frame
            .expect("a frame")
            .expect("no error")
            .into_data()
            .expect("data");
        assert_eq!(piece.len(), 16 * 1024);
    }
}
