//! The worker pool: the only threads that do chess work for calls.
//!
//! Every call's rules work (parsing, replay, move lists, adjudication, analysis) runs on one of
//! `--workers` threads (default: one per core), never on the threads that accept connections and
//! answer health checks. A fixed number of threads bounds the memory their allocator heaps and
//! stacks take, whatever the number of calls (the earlier design ran each admitted call on its own
//! thread of tokio's blocking pool, and memory grew with the concurrency limit).
//!
//! A call waits for a free worker at most `--max-queue-wait`; then it is shed with
//! `RESOURCE_EXHAUSTED` and counted (`arbiter_calls_shed_total{reason="queue_timeout"}`). How many
//! calls may wait at all is the concurrency limit of [`crate::guard`].
//!
//! Work ends with its call: [`Workers::run`] gives the work an [`Interrupt`] that is set when the
//! call's future is dropped (deadline, cancellation, client gone), and the analysis inside stops at
//! its next check. The worker stays taken until the work has really returned, so abandoned work
//! can never pile up beyond the pool.
//!
//! Analyses run beside the workers: a call whose work reaches an analyzer run ("can this side
//! still checkmate?", which may take seconds and waits for one of `--max-analyses` slots) gives
//! its worker up for the run and takes one back afterwards (see
//! [`arbiter_rules::interrupt::Seat`]), so analysis-heavy calls never hold every worker while
//! cheap calls queue. At most `workers + max_analyses` calls are then busy on the CPU at once,
//! and at most [`Workers::max_seatless`] calls are away from their seat (waiting for an
//! analysis slot, analysing, or waiting to sit again: `max_analyses + 16 × workers`); beyond
//! that, a call keeps its worker while it waits. The blocking pool must therefore have `workers + max_seatless` threads.

use std::{
    future::Future,
    sync::{
        Arc, Mutex,
        atomic::{AtomicUsize, Ordering},
    },
    time::Duration,
};

use arbiter_rules::interrupt::{Interrupt, Seat, with_interrupt, with_seat};
use tokio::sync::{OwnedSemaphorePermit, Semaphore};
use tonic::Status;

/// Why a call was refused before it ran.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ShedReason {
    /// The concurrency limit was reached: no room to wait.
    ConcurrencyLimit,
    /// No worker became free within `--max-queue-wait`.
    QueueTimeout,
    /// The stream limit was reached.
    StreamLimit,
    /// The budget of request bytes in flight had no room for the call's request within
    /// `--max-queue-wait` (see [`crate::guard::request_bytes`]).
    RequestBytes,
}

impl ShedReason {
    /// Every reason.
    pub const ALL: [Self; 4] = [
        Self::ConcurrencyLimit,
        Self::QueueTimeout,
        Self::StreamLimit,
        Self::RequestBytes,
    ];

    /// The `reason` label of `arbiter_calls_shed_total`.
    #[must_use]
    pub fn label(self) -> &'static str {
        match self {
            Self::ConcurrencyLimit => "concurrency_limit",
            Self::QueueTimeout => "queue_timeout",
            Self::StreamLimit => "stream_limit",
            Self::RequestBytes => "request_bytes",
        }
    }
}

/// Creates every series of `arbiter_calls_shed_total` at 0, so that `rate()` and alerts see
/// them before the first call is shed.
pub fn describe_shed() {
    for reason in ShedReason::ALL {
        metrics::counter!("arbiter_calls_shed_total", "reason" => reason.label()).increment(0);
    }
}

/// Counts a shed call (`arbiter_calls_shed_total{reason}`) and adds it to the summary that
/// [`crate::overload`] logs at a bounded rate.
pub fn record_shed(reason: ShedReason) {
    metrics::counter!("arbiter_calls_shed_total", "reason" => reason.label()).increment(1);
    crate::overload::note_shed(reason);
}

/// Calls per worker that may wait for an analysis slot away from their worker.
const SEATLESS_PER_WORKER: usize = 16;

/// The pool's handle: cheap to clone, shared by every handler.
#[derive(Debug, Clone)]
pub struct Workers {
    slots: Arc<Semaphore>,
    max_queue_wait: Duration,
    /// Calls away from their seat now (see the module documentation).
    seatless: Arc<AtomicUsize>,
    max_seatless: usize,
}

/// The worker seat of one call's work: its permit, which it gives up for analyzer runs.
struct WorkerSeat {
    permit: Mutex<Option<OwnedSemaphorePermit>>,
    slots: Arc<Semaphore>,
    seatless: Arc<AtomicUsize>,
    max_seatless: usize,
    runtime: tokio::runtime::Handle,
}

impl Seat for WorkerSeat {
    fn leave(&self) -> bool {
        let away = self.seatless.fetch_add(1, Ordering::SeqCst);
        if away >= self.max_seatless {
            self.seatless.fetch_sub(1, Ordering::SeqCst);
            return false;
        }
        let permit = self.permit.lock().map(|mut permit| permit.take());
        drop(permit);
        true
    }

    fn retake(&self) {
        // Runs on a blocking-pool thread, never on the runtime's own: blocking here is allowed.
        let permit = self
            .runtime
            .block_on(Arc::clone(&self.slots).acquire_owned())
            .ok();
        if let Ok(mut seat) = self.permit.lock() {
            *seat = permit;
        }
        self.seatless.fetch_sub(1, Ordering::SeqCst);
    }
}

/// Sets the interrupt of a call's work when the call's future is dropped before the work ended.
struct InterruptOnDrop(Interrupt);

impl Drop for InterruptOnDrop {
    fn drop(&mut self) {
        self.0.set();
    }
}

impl Workers {
    /// A pool of `workers` threads' worth of slots (at least 1); a call waits at most
    /// `max_queue_wait` for one. The threads themselves are tokio's blocking pool, which the
    /// runtime must cap at `workers` (see `main`).
    ///
    /// `max_seatless` bounds the calls that may be away from their worker for an analyzer run
    /// at once (see the module documentation): the blocking pool needs `workers +
    /// max_seatless` threads.
    #[must_use]
    pub fn new(workers: usize, max_queue_wait: Duration, max_seatless: usize) -> Self {
        Self {
            slots: Arc::new(Semaphore::new(workers.clamp(1, Semaphore::MAX_PERMITS))),
            max_queue_wait,
            seatless: Arc::new(AtomicUsize::new(0)),
            max_seatless,
        }
    }

    /// How many calls may be away from their worker for analyzer runs at once, for a pool of
    /// `workers` and a bound of `max_analyses` analyzer runs: the running analyses, and 16
    /// per worker waiting for a slot (each costs an idle thread, tens of KiB). Beyond that, a
    /// call waiting for an analysis slot keeps its worker.
    #[must_use]
    pub fn max_seatless(workers: usize, max_analyses: usize) -> usize {
        max_analyses.saturating_add(workers.saturating_mul(SEATLESS_PER_WORKER))
    }

    /// Workers free now.
    #[must_use]
    pub fn idle(&self) -> usize {
        self.slots.available_permits()
    }

    /// Waits for a worker: at most `--max-queue-wait` when `bounded`, else as long as it takes.
    async fn slot(&self, bounded: bool) -> Result<OwnedSemaphorePermit, Status> {
        let acquire = Arc::clone(&self.slots).acquire_owned();
        let acquired = if bounded {
            let Ok(acquired) = tokio::time::timeout(self.max_queue_wait, acquire).await else {
                record_shed(ShedReason::QueueTimeout);
                return Err(Status::resource_exhausted(format!(
                    "server overloaded: no worker became free within {} ms",
                    self.max_queue_wait.as_millis()
                )));
            };
            acquired
        } else {
            acquire.await
        };
        acquired.map_err(|_closed| Status::unavailable("the server is shutting down"))
    }

    /// Runs `work` on a worker once one is free (waiting at most `--max-queue-wait`), with an
    /// interrupt that is set if this future is dropped first. `hold` (an admission permit, for
    /// instance) is kept until the work has returned, not only until the call ended.
    ///
    /// # Errors
    ///
    /// `RESOURCE_EXHAUSTED` when no worker became free in time, `INTERNAL` when the work
    /// panicked, or the work's own error.
    pub fn run<T: Send + 'static, H: Send + 'static>(
        &self,
        hold: H,
        work: impl FnOnce() -> Result<T, Status> + Send + 'static,
    ) -> impl Future<Output = Result<T, Status>> + Send + 'static {
        self.clone().run_when_free(true, hold, work)
    }

    /// Like [`Workers::run`], but waits for a worker without the queue bound: for the messages
    /// of a stream, which already holds a stream slot of its own.
    ///
    /// # Errors
    ///
    /// As [`Workers::run`], without the queue timeout.
    pub fn run_patiently<T: Send + 'static, H: Send + 'static>(
        &self,
        hold: H,
        work: impl FnOnce() -> Result<T, Status> + Send + 'static,
    ) -> impl Future<Output = Result<T, Status>> + Send + 'static {
        self.clone().run_when_free(false, hold, work)
    }

    async fn run_when_free<T: Send + 'static, H: Send + 'static>(
        self,
        bounded: bool,
        hold: H,
        work: impl FnOnce() -> Result<T, Status> + Send + 'static,
    ) -> Result<T, Status> {
        let slot = self.slot(bounded).await?;
        let interrupt = Interrupt::new();
        let _interrupt_on_drop = InterruptOnDrop(interrupt.clone());
        let seat = Arc::new(WorkerSeat {
            permit: Mutex::new(Some(slot)),
            slots: Arc::clone(&self.slots),
            seatless: Arc::clone(&self.seatless),
            max_seatless: self.max_seatless,
            runtime: tokio::runtime::Handle::current(),
        });
        let task = tokio::task::spawn_blocking(move || {
            // The seat (and its worker permit) is given back when the work has returned,
            // whatever happened to the call.
            let _hold = hold;
            if interrupt.is_set() {
                return Err(Status::cancelled("the call ended before its work started"));
            }
            with_interrupt(&interrupt, || with_seat(seat, work))
        });
        match task.await {
            Ok(result) => result,
            Err(error) => {
                tracing::error!(%error, "handler failed");
                Err(Status::internal("internal error while applying the rules"))
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicBool, Ordering};

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_call_that_waits_too_long_for_a_worker_is_shed() {
        let workers = Workers::new(1, Duration::from_millis(20), 0);
        let (started_tx, started_rx) = tokio::sync::oneshot::channel();
        let (release_tx, release_rx) = std::sync::mpsc::channel::<()>();
        let busy = tokio::spawn(workers.run((), move || {
            let _ = started_tx.send(());
            let _ = release_rx.recv();
            Ok(1)
        }));
        started_rx.await.expect("the first call runs");
        let shed = workers.run((), || Ok(2)).await;
        assert_eq!(
            shed.map_err(|status| status.code()),
            Err(tonic::Code::ResourceExhausted)
        );
        release_tx.send(()).expect("the first call waits");
        assert_eq!(busy.await.expect("joins").expect("runs"), 1);
        assert_eq!(workers.run((), || Ok(3)).await.expect("a free worker"), 3);
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn dropping_the_call_interrupts_its_work_and_keeps_the_worker_until_it_returns() {
        let workers = Workers::new(1, Duration::from_secs(5), 0);
        let saw_interrupt = Arc::new(AtomicBool::new(false));
        let (started_tx, started_rx) = tokio::sync::oneshot::channel();
        let saw = Arc::clone(&saw_interrupt);
        let call = tokio::spawn(workers.run((), move || {
            let _ = started_tx.send(());
            // Work that checks its interrupt, as the analysis does.
            while !arbiter_rules::interrupt::interrupted() {
                std::thread::yield_now();
            }
            saw.store(true, Ordering::SeqCst);
            Ok(())
        }));
        started_rx.await.expect("the work runs");
        assert_eq!(workers.idle(), 0);
        call.abort(); // the call's deadline passed or its client went away
        let _ = call.await;
        // The worker comes back only once the work has seen the interrupt and returned.
        let slot = tokio::time::timeout(
            Duration::from_secs(10),
            Arc::clone(&workers.slots).acquire_owned(),
        )
        .await
        .expect("the worker comes back")
        .expect("open");
        assert!(saw_interrupt.load(Ordering::SeqCst));
        drop(slot);
    }
}
