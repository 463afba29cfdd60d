//! The delivery of one call's answer: the time by which it must have reached the client, and
//! whether it is waiting for the client to read it.
//!
//! The request side of a call is bounded by admission, the request-byte budget and the
//! deadline; this is the answer side's record, shared by three parties:
//!
//! - the accept loop ([`crate::transport`]) makes one per call, before the call runs: on HTTP/2
//!   in the task that serves the call's stream (see [`StreamExecutor`]), which drops the stream
//!   when the delivery is [`Delivery::cancel`]led or its deadline passes, so that the HTTP/2
//!   layer resets it (`RST_STREAM` with `CANCEL`, as grpc-go does) and frees what it buffered;
//!   on HTTP/1.1 (gRPC-Web), where a call cannot be reset alone, the connection loop closes the
//!   connection instead. The connection loop also closes a connection one of whose answers has
//!   waited for its client longer than `--slow-reader-timeout`
//!   (`arbiter_connections_closed_total{reason="slow_reader"}`);
//! - the guard ([`crate::guard`]) sets the deadline: the call's own (`grpc-timeout`, at most
//!   `--request-timeout` for a unary call), which covers running the call *and* delivering its
//!   answer;
//! - the answer's body ([`crate::guard::answer_bytes`]) says when a piece of the answer starts
//!   waiting for the client and when the client took it; the budget of answer bytes picks the
//!   answer that has waited longest when it needs room.
//!
//! A call whose delivery was cut short is counted in
//! `arbiter_answers_abandoned_total{reason}` (`deadline`, `evicted`, `slow_reader`).

use std::{
    future::Future,
    sync::{
        Arc, Mutex, PoisonError, Weak,
        atomic::{AtomicU8, AtomicU64, Ordering},
    },
    time::Duration,
};

use tokio::{sync::Notify, time::Instant};

/// The counter of calls whose answer was not delivered in whole, by reason.
pub const ABANDONED_COUNTER: &str = "arbiter_answers_abandoned_total";

/// Why an answer's delivery was cut short.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(u8)]
pub enum Abandoned {
    /// The call's deadline passed before the client had read the answer.
    Deadline = 1,
    /// The budget of answer bytes needed the room: this answer had waited for its client
    /// longer than any other, and longer than `--max-queue-wait`.
    Evicted = 2,
    /// The connection was closed: one of its answers waited for the client longer than
    /// `--slow-reader-timeout`.
    SlowReader = 3,
}

impl Abandoned {
    /// Every reason.
    pub const ALL: [Self; 3] = [Self::Deadline, Self::Evicted, Self::SlowReader];

    /// The `reason` label of [`ABANDONED_COUNTER`].
    #[must_use]
    pub fn label(self) -> &'static str {
        match self {
            Self::Deadline => "deadline",
            Self::Evicted => "evicted",
            Self::SlowReader => "slow_reader",
        }
    }

    fn from_u8(value: u8) -> Option<Self> {
        Self::ALL.into_iter().find(|reason| *reason as u8 == value)
    }
}

/// Creates every series of [`ABANDONED_COUNTER`] at 0.
pub fn describe() {
    metrics::describe_counter!(
        ABANDONED_COUNTER,
        "Calls whose answer was not delivered in whole: the call's deadline passed first \
         (deadline), its room in the answer-byte budget went to another answer (evicted), or \
         its connection was closed as a slow reader (slow_reader)."
    );
    for reason in Abandoned::ALL {
        metrics::counter!(ABANDONED_COUNTER, "reason" => reason.label()).increment(0);
    }
}

/// The process's clock origin for [`Delivery`]'s atomic instants.
fn epoch() -> Instant {
    static EPOCH: std::sync::OnceLock<Instant> = std::sync::OnceLock::new();
    *EPOCH.get_or_init(Instant::now)
}

/// How long after its deadline a call with no answer waiting for its client may go on, for its
/// own `DEADLINE_EXCEEDED` status to go out, before it is cut short anyway.
pub const DEADLINE_GRACE: Duration = Duration::from_secs(1);

/// `NOT_WAITING` in [`Delivery::waiting_since`].
const NOT_WAITING: u64 = u64::MAX;

/// No deadline, in [`Delivery::deadline`].
const NO_DEADLINE: u64 = u64::MAX;

/// Nanoseconds from [`epoch`] to `at` (0 for an instant before the epoch).
fn since_epoch(at: Instant) -> u64 {
    u64::try_from(at.saturating_duration_since(epoch()).as_nanos()).unwrap_or(NO_DEADLINE - 1)
}

/// The delivery of one call's answer (see the module's documentation). Shared through an
/// `Arc`; every method takes `&self`.
#[derive(Debug)]
pub struct Delivery {
    /// When the answer must have been delivered, in nanoseconds from [`epoch`];
    /// [`NO_DEADLINE`] until the guard sets it (and for streams without a client deadline).
    /// Atomics and one `Notify` rather than a channel: every call makes one of these.
    deadline: AtomicU64,
    /// Wakes [`Delivery::ended`] when the deadline changes or the delivery is cancelled.
    changed: Notify,
    /// Nanoseconds from [`epoch`] since which a piece of the answer has waited for the client
    /// to take it, or [`NOT_WAITING`].
    waiting_since: AtomicU64,
    /// An [`Abandoned`] reason once cancelled, else 0.
    cancelled: AtomicU8,
}

impl Default for Delivery {
    fn default() -> Self {
        Self::new()
    }
}

impl Delivery {
    /// A delivery with no deadline, not waiting.
    #[must_use]
    pub fn new() -> Self {
        Self {
            deadline: AtomicU64::new(NO_DEADLINE),
            changed: Notify::new(),
            waiting_since: AtomicU64::new(NOT_WAITING),
            cancelled: AtomicU8::new(0),
        }
    }

    /// Sets the time by which the answer must have reached the client (the earlier one wins
    /// when set twice).
    pub fn set_deadline(&self, at: Instant) {
        let at = since_epoch(at);
        if self.deadline.fetch_min(at, Ordering::AcqRel) > at {
            self.changed.notify_waiters();
        }
    }

    /// The deadline, if set.
    #[must_use]
    pub fn deadline(&self) -> Option<Instant> {
        let at = self.deadline.load(Ordering::Acquire);
        (at != NO_DEADLINE).then(|| epoch() + Duration::from_nanos(at))
    }

    /// A piece of the answer was handed to the transport: it waits for the client from now
    /// until [`Delivery::taken`].
    pub fn handed_over(&self) {
        let now = u64::try_from(epoch().elapsed().as_nanos()).unwrap_or(NOT_WAITING - 1);
        self.waiting_since.store(now, Ordering::Relaxed);
    }

    /// The transport took the last piece handed over (it asked for the next one), or the
    /// answer ended.
    pub fn taken(&self) {
        self.waiting_since.store(NOT_WAITING, Ordering::Relaxed);
    }

    /// How long a piece of the answer has been waiting for the client; `None` when none is.
    #[must_use]
    pub fn waiting_for(&self) -> Option<Duration> {
        let since = self.waiting_since.load(Ordering::Relaxed);
        (since != NOT_WAITING).then(|| {
            epoch()
                .elapsed()
                .saturating_sub(Duration::from_nanos(since))
        })
    }

    /// Ends the delivery for `reason`: the task serving the call drops it (HTTP/2: the stream
    /// is reset), or the connection is closed (HTTP/1.1). Counted once, by the first reason.
    pub fn cancel(&self, reason: Abandoned) {
        if self
            .cancelled
            .compare_exchange(0, reason as u8, Ordering::AcqRel, Ordering::Acquire)
            .is_ok()
        {
            metrics::counter!(ABANDONED_COUNTER, "reason" => reason.label()).increment(1);
            // Wakes whoever waits in [`Delivery::ended`].
            self.changed.notify_waiters();
        }
    }

    /// Why the delivery was cancelled, if it was.
    #[must_use]
    pub fn cancelled(&self) -> Option<Abandoned> {
        Abandoned::from_u8(self.cancelled.load(Ordering::Acquire))
    }

    /// The deadline `at` has passed: an answer waiting for its client is cancelled at once; a
    /// call with nothing waiting (its handler still runs, or its status is on its way: the
    /// call's own `DEADLINE_EXCEEDED`, in headers or trailers, which flow control does not
    /// hold) gets [`DEADLINE_GRACE`] to end by itself first.
    async fn expire(&self, at: Instant) {
        let grace_end = at + DEADLINE_GRACE;
        while self.waiting_for().is_none()
            && self.cancelled().is_none()
            && Instant::now() < grace_end
        {
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
        self.cancel(Abandoned::Deadline);
    }

    /// Completes when the delivery must stop: cancelled, or its deadline passed (then it is
    /// cancelled with [`Abandoned::Deadline`] here, and counted: at once if an answer waits for
    /// its client, else after [`DEADLINE_GRACE`]).
    pub async fn ended(&self) -> Abandoned {
        loop {
            // Listening before looking, so that a change between the two is not missed.
            let changed = self.changed.notified();
            tokio::pin!(changed);
            changed.as_mut().enable();
            if let Some(reason) = self.cancelled() {
                return reason;
            }
            match self.deadline() {
                Some(at) => {
                    tokio::select! {
                        () = tokio::time::sleep_until(at) => self.expire(at).await,
                        () = &mut changed => {}
                    }
                }
                None => changed.await,
            }
        }
    }
}

tokio::task_local! {
    /// The delivery of the call the current task serves (set by [`StreamExecutor`]).
    static CURRENT: Arc<Delivery>;
}

/// The delivery of the call the current task serves, if [`StreamExecutor`] started the task
/// (an HTTP/2 stream).
#[must_use]
pub fn current() -> Option<Arc<Delivery>> {
    CURRENT.try_with(Arc::clone).ok()
}

/// hyper's executor for the tasks that serve HTTP/2 streams: each runs with a [`Delivery`] of
/// its own ([`current`] inside it), and is dropped when that delivery ends, which makes the
/// HTTP/2 layer reset the stream with `CANCEL` and drop its buffered data. hyper polls an
/// answer's body only when the stream has room in the client's flow-control window, so a body
/// cannot notice its own deadline while the client reads nothing: the task around it must.
#[derive(Debug, Clone, Copy, Default)]
pub struct StreamExecutor;

impl<F> hyper::rt::Executor<F> for StreamExecutor
where
    F: Future + Send + 'static,
    F::Output: Send + 'static,
{
    fn execute(&self, future: F) {
        let delivery = Arc::new(Delivery::new());
        let watched = Arc::clone(&delivery);
        tokio::spawn(CURRENT.scope(delivery, async move {
            tokio::select! {
                // The stream's own end comes first when both are ready.
                biased;
                _ = future => {}
                _ = watched.ended() => {}
            }
        }));
    }
}

/// The deliveries of calls that may wait for their client: the answer budget's candidates for
/// eviction, or one connection's (see [`crate::transport`]). Entries are weak: a delivery leaves
/// when its call's last holder drops it.
#[derive(Debug, Default)]
pub struct Registry {
    entries: Mutex<Entries>,
}

#[derive(Debug, Default)]
struct Entries {
    list: Vec<Weak<Delivery>>,
    /// The length after the last pruning: the list is pruned when it doubles.
    pruned_len: usize,
}

impl Registry {
    /// Adds `delivery`.
    pub fn register(&self, delivery: &Arc<Delivery>) {
        let mut entries = self.entries.lock().unwrap_or_else(PoisonError::into_inner);
        if entries.list.len() >= 2 * entries.pruned_len.max(32) {
            entries.list.retain(|entry| entry.strong_count() > 0);
            entries.pruned_len = entries.list.len();
        }
        entries.list.push(Arc::downgrade(delivery));
    }

    /// The live delivery that has waited longest for its client, with how long, if any waits.
    #[must_use]
    pub fn longest_waiting(&self) -> Option<(Arc<Delivery>, Duration)> {
        let mut entries = self.entries.lock().unwrap_or_else(PoisonError::into_inner);
        entries.list.retain(|entry| entry.strong_count() > 0);
        entries.pruned_len = entries.list.len();
        entries
            .list
            .iter()
            .filter_map(Weak::upgrade)
            .filter(|delivery| delivery.cancelled().is_none())
            .filter_map(|delivery| delivery.waiting_for().map(|wait| (delivery, wait)))
            .max_by_key(|(_, wait)| *wait)
    }

    /// The first live delivery that was cancelled, or whose deadline passed more than `grace`
    /// ago (time for the call's own `DEADLINE_EXCEEDED` to go out), if any.
    #[must_use]
    pub fn any_overdue(&self, grace: Duration) -> Option<Arc<Delivery>> {
        let entries = self.entries.lock().unwrap_or_else(PoisonError::into_inner);
        let now = Instant::now();
        entries
            .list
            .iter()
            .filter_map(Weak::upgrade)
            .find(|delivery| {
                delivery.cancelled().is_some()
                    || delivery.deadline().is_some_and(|at| at + grace <= now)
            })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test(start_paused = true)]
    async fn a_waiting_answer_ends_at_its_deadline_and_is_counted_as_deadline() {
        let delivery = Delivery::new();
        delivery.set_deadline(Instant::now() + Duration::from_secs(5));
        // A later deadline does not move it.
        delivery.set_deadline(Instant::now() + Duration::from_secs(50));
        delivery.handed_over();
        let started = Instant::now();
        assert_eq!(delivery.ended().await, Abandoned::Deadline);
        assert_eq!(started.elapsed(), Duration::from_secs(5));
        assert_eq!(delivery.cancelled(), Some(Abandoned::Deadline));
    }

    /// A call with nothing waiting for its client at its deadline (its own DEADLINE_EXCEEDED is
    /// on its way) is cut short only after the grace.
    #[tokio::test(start_paused = true)]
    async fn a_call_with_nothing_waiting_gets_the_grace_after_its_deadline() {
        let delivery = Delivery::new();
        delivery.set_deadline(Instant::now() + Duration::from_secs(5));
        let started = Instant::now();
        assert_eq!(delivery.ended().await, Abandoned::Deadline);
        let took = started.elapsed();
        assert!(
            took >= Duration::from_secs(5) + DEADLINE_GRACE
                && took < Duration::from_secs(5) + DEADLINE_GRACE + Duration::from_millis(20),
            "{took:?}"
        );
    }

    #[tokio::test(start_paused = true)]
    async fn a_cancelled_delivery_ends_with_the_first_reason() {
        let delivery = Arc::new(Delivery::new());
        let waiting = Arc::clone(&delivery);
        let ended = tokio::spawn(async move { waiting.ended().await });
        tokio::task::yield_now().await;
        delivery.cancel(Abandoned::Evicted);
        delivery.cancel(Abandoned::SlowReader);
        assert_eq!(ended.await.expect("joins"), Abandoned::Evicted);
    }

    #[tokio::test(start_paused = true)]
    async fn the_registry_names_the_delivery_that_waited_longest() {
        let registry = Registry::default();
        let (first, second, idle) = (
            Arc::new(Delivery::new()),
            Arc::new(Delivery::new()),
            Arc::new(Delivery::new()),
        );
        for delivery in [&first, &second, &idle] {
            registry.register(delivery);
        }
        first.handed_over();
        tokio::time::advance(Duration::from_millis(30)).await;
        second.handed_over();
        let (longest, _) = registry.longest_waiting().expect("one waits");
        assert!(Arc::ptr_eq(&longest, &first));
        first.taken();
        let (longest, _) = registry.longest_waiting().expect("one waits");
        assert!(Arc::ptr_eq(&longest, &second));
        drop(second);
        drop(longest);
        assert!(registry.longest_waiting().is_none());
    }
}
