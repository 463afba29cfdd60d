//! The worker pool: the only threads that do chess work for calls.
//!
//! A call's rules work (parsing, replay, move lists, adjudication, analysis) runs on one of
//! `--workers` threads (default: one per core), not on the threads that accept connections and
//! answer health checks. A fixed number of threads bounds the memory their allocator heaps and
//! stacks take, whatever the number of calls (the earlier design ran each admitted call on its own
//! thread of tokio's blocking pool, and memory grew with the concurrency limit).
//!
//! Small calls are the exception ([`Workers::run_small`]): a unary call whose request is at most
//! `--max-inline-bytes` long has microseconds of work, less than the hand-off to a worker thread
//! and back, and runs on the network thread that read it, like the decoding of its message,
//! when fewer than all workers but one (at least one) small calls are running there; otherwise
//! it waits for a worker under the bounds below like any call. Work that would start an
//! analysis there is stopped first and runs again on a worker. The small calls running there
//! add to the workers' calls: at most `--workers` + max(1, `--workers` − 1) calls do chess
//! work at once.
//!
//! A call waits for a free worker at most `--max-queue-wait`; then it is shed with
//! `RESOURCE_EXHAUSTED` and counted (`arbiter_calls_shed_total{reason="queue_timeout"}`). How many
//! calls may wait at all is the concurrency limit of [`crate::guard`].
//!
//! The messages of AdjudicateGames streams wait for a worker without that bound (a stream holds
//! a stream slot of its own), but they may use at most `--stream-workers` workers at once (all
//! but one by default): a unary call never queues behind more than that many stream messages,
//! however many streams are open.
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
//! cheap calls queue. At most `workers + max_analyses` calls (and the small calls of
//! [`Workers::run_small`] on the network threads) are then busy on the CPU at once,
//! and at most [`Workers::max_seatless`] calls are away from their seat (waiting for an
//! analysis slot, analysing, or waiting to sit again: `max_analyses + 16 × workers`). Beyond
//! that bound the call is refused: its work is interrupted and it fails with
//! `RESOURCE_EXHAUSTED` (`arbiter_calls_shed_total{reason="analysis_queue"}`), rather than keep
//! its worker while it waits, which would make cheap calls queue behind seconds of analyses
//! (its analysis is not answered "undetermined": a verdict never depends on the load). So is a
//! call whose analysis finds no slot within `--max-queue-wait`, the bound of any wait: left to
//! wait, it would mostly reach its deadline. A stream message gives up its stream worker with
//! its worker, so that streams waiting for analyses do not hold up the other streams. The
//! blocking pool must therefore have `workers + max_seatless` threads.

use std::{
    future::Future,
    sync::{
        Arc, Mutex,
        atomic::{AtomicBool, AtomicU8, AtomicUsize, Ordering},
    },
    time::Duration,
};

use arbiter_rules::interrupt::{Interrupt, Seat, with_interrupt, with_seat};
use tokio::sync::{OwnedSemaphorePermit, Semaphore};
use tonic::Status;

use crate::overload::{ShedReason, record_shed};

/// The gauge of calls away from their worker for an analyzer run (waiting for a slot, running,
/// or waiting to sit again); at most [`Workers::max_seatless`], beyond which calls are refused
/// (`reason="analysis_queue"`).
pub const ANALYSIS_CALLS_GAUGE: &str = "arbiter_analysis_calls_away";

/// Calls per worker that may wait for an analysis slot away from their worker.
const SEATLESS_PER_WORKER: usize = 16;

/// The pool's handle: cheap to clone, shared by every handler.
#[derive(Debug, Clone)]
pub struct Workers {
    slots: Arc<Semaphore>,
    /// The workers stream messages may use at once (see the module documentation).
    stream_slots: Arc<Semaphore>,
    /// Small calls that may run on the network threads at once: all workers but one, at least
    /// one (see [`Workers::run_small`]).
    inline: Arc<Semaphore>,
    max_queue_wait: Duration,
    /// Calls away from their seat now (see the module documentation).
    seatless: Arc<AtomicUsize>,
    max_seatless: usize,
}

/// A semaphore permit a seat holds and gives up with it, and its semaphore, to take it back.
struct HeldSlot {
    permit: Mutex<Option<OwnedSemaphorePermit>>,
    slots: Arc<Semaphore>,
}

impl HeldSlot {
    fn new(permit: OwnedSemaphorePermit, slots: &Arc<Semaphore>) -> Self {
        Self {
            permit: Mutex::new(Some(permit)),
            slots: Arc::clone(slots),
        }
    }

    fn give_up(&self) {
        let permit = self.permit.lock().map(|mut permit| permit.take());
        drop(permit);
    }

    /// Waits for a permit again (blocking this thread: a blocking-pool thread, never one of the
    /// runtime's own).
    fn take_back(&self, runtime: &tokio::runtime::Handle) {
        let permit = runtime
            .block_on(Arc::clone(&self.slots).acquire_owned())
            .ok();
        if let Ok(mut seat) = self.permit.lock() {
            *seat = permit;
        }
    }
}

/// Why a call's analysis was refused (see the module documentation).
const NOT_REFUSED: u8 = 0;
const REFUSED_AWAY_BOUND: u8 = 1;
const REFUSED_SLOT_WAIT: u8 = 2;

/// The worker seat of one call's work: its worker permit (and for a stream message its stream
/// worker permit), which it gives up for analyzer runs.
struct WorkerSeat {
    worker: HeldSlot,
    /// A stream message's permit of the stream workers: given up with the worker, so that a
    /// stream whose message waits for an analysis does not hold up the other streams.
    stream: Option<HeldSlot>,
    seatless: Arc<AtomicUsize>,
    max_seatless: usize,
    runtime: tokio::runtime::Handle,
    /// The call's interrupt, set when its analysis is refused.
    interrupt: Interrupt,
    /// Whether, and why, the call's analysis was refused.
    refused: AtomicU8,
}

impl WorkerSeat {
    fn refuse_with(&self, why: u8) {
        // The work stops at its next check (the analysis gets no slot), and the call is
        // answered "overloaded" whatever the work returns.
        self.refused.store(why, Ordering::SeqCst);
        self.interrupt.set();
    }
}

impl Seat for WorkerSeat {
    fn leave(&self) -> bool {
        let away = self.seatless.fetch_add(1, Ordering::SeqCst);
        if away >= self.max_seatless {
            self.seatless.fetch_sub(1, Ordering::SeqCst);
            // Waiting seated would hold the worker for seconds: the call is refused instead.
            self.refuse_with(REFUSED_AWAY_BOUND);
            return false;
        }
        metrics::gauge!(ANALYSIS_CALLS_GAUGE).increment(1.0);
        self.worker.give_up();
        if let Some(stream) = &self.stream {
            stream.give_up();
        }
        true
    }

    fn retake(&self) {
        // In the order they were first taken: the stream workers' permit, then a worker.
        if let Some(stream) = &self.stream {
            stream.take_back(&self.runtime);
        }
        self.worker.take_back(&self.runtime);
        self.seatless.fetch_sub(1, Ordering::SeqCst);
        metrics::gauge!(ANALYSIS_CALLS_GAUGE).decrement(1.0);
    }

    fn refuse(&self) {
        self.refuse_with(REFUSED_SLOT_WAIT);
    }
}

/// The seat of a small call's work run on the network thread that read the call
/// ([`Workers::run_small`]): it allows no analyzer run and no search. Work that asks for one is
/// interrupted at once, and the call goes to a worker, where its work runs again from the start.
struct InlineSeat {
    interrupt: Interrupt,
    needs_worker: AtomicBool,
}

impl Seat for InlineSeat {
    fn leave(&self) -> bool {
        // Never reached: an analyzer run asks `allows_long_work` first.
        false
    }

    fn retake(&self) {}

    fn allows_long_work(&self) -> bool {
        self.needs_worker.store(true, Ordering::SeqCst);
        self.interrupt.set();
        false
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
        metrics::gauge!(ANALYSIS_CALLS_GAUGE).set(0.0);
        let workers = workers.clamp(1, Semaphore::MAX_PERMITS);
        Self {
            slots: Arc::new(Semaphore::new(workers)),
            stream_slots: Arc::new(Semaphore::new(workers.saturating_sub(1).max(1))),
            inline: Arc::new(Semaphore::new(workers.saturating_sub(1).max(1))),
            max_queue_wait,
            seatless: Arc::new(AtomicUsize::new(0)),
            max_seatless,
        }
    }

    /// Lets the messages of streams ([`Workers::run_patiently`]) use at most `workers` workers
    /// at once (at least 1; the default is all workers but one, at least 1).
    #[must_use]
    pub fn with_stream_workers(mut self, workers: usize) -> Self {
        self.stream_slots = Arc::new(Semaphore::new(workers.clamp(1, Semaphore::MAX_PERMITS)));
        self
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
        self.clone().run_when_free(true, None, hold, work)
    }

    /// Runs a call's `work` on `message`: on this thread (the network thread that read the call)
    /// when `small` and fewer than `--workers` − 1 (at least 1) other small calls are running on
    /// the network threads, else on a worker as [`Workers::run`] does. Small calls are those
    /// whose work is bounded to microseconds by the size of their request (`--max-inline-bytes`):
    /// handing them to a worker thread and back cost more than the work. Beyond that share a
    /// small call queues for a worker like any call, so that an overloaded server sheds small
    /// calls after `--max-queue-wait` and at its concurrency limit as it sheds the others, and a
    /// network thread stays free to read calls and answer health checks (issue 13, a fresh
    /// review's finding: with every small call on the network threads, a flood of them queued
    /// there, past every bound). Should the work of a small call need an analyzer run or a
    /// search (which may take seconds), it is interrupted before it starts one and runs again
    /// from the start on a worker; its first answer is dropped. A panic of the work is
    /// `INTERNAL`, as on a worker.
    ///
    /// # Errors
    ///
    /// As [`Workers::run`].
    pub async fn run_small<M, T, H>(
        &self,
        hold: H,
        message: M,
        small: bool,
        work: impl Fn(&M) -> Result<T, Status> + Send + Sync + 'static,
    ) -> Result<T, Status>
    where
        M: Send + Sync + 'static,
        T: Send + 'static,
        H: Send + 'static,
    {
        if small && let Ok(room) = self.inline.try_acquire() {
            let seat = Arc::new(InlineSeat {
                interrupt: Interrupt::new(),
                needs_worker: AtomicBool::new(false),
            });
            let inline_seat: Arc<dyn Seat> = Arc::clone(&seat) as Arc<dyn Seat>;
            let answer = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                with_interrupt(&seat.interrupt, || {
                    with_seat(inline_seat, || work(&message))
                })
            }));
            drop(room);
            if !seat.needs_worker.load(Ordering::SeqCst) {
                return answer.unwrap_or_else(|_panic| {
                    tracing::error!("handler failed: the work panicked");
                    Err(Status::internal("internal error while applying the rules"))
                });
            }
        }
        self.run(hold, move || work(&message)).await
    }

    /// Like [`Workers::run`], but waits for a worker without the queue bound: for the messages
    /// of a stream, which already holds a stream slot of its own. At most the stream workers
    /// ([`Workers::with_stream_workers`]) run such work at once; the others wait before they
    /// queue for a worker, so that unary calls never queue behind more than that many.
    ///
    /// # Errors
    ///
    /// As [`Workers::run`], without the queue timeout.
    pub fn run_patiently<T: Send + 'static, H: Send + 'static>(
        &self,
        hold: H,
        work: impl FnOnce() -> Result<T, Status> + Send + 'static,
    ) -> impl Future<Output = Result<T, Status>> + Send + 'static {
        let workers = self.clone();
        async move {
            let stream_slot = Arc::clone(&workers.stream_slots)
                .acquire_owned()
                .await
                .map_err(|_closed| Status::unavailable("the server is shutting down"))?;
            workers
                .run_when_free(false, Some(stream_slot), hold, work)
                .await
        }
    }

    async fn run_when_free<T: Send + 'static, H: Send + 'static>(
        self,
        bounded: bool,
        stream_slot: Option<OwnedSemaphorePermit>,
        hold: H,
        work: impl FnOnce() -> Result<T, Status> + Send + 'static,
    ) -> Result<T, Status> {
        let slot = self.slot(bounded).await?;
        let interrupt = Interrupt::new();
        let _interrupt_on_drop = InterruptOnDrop(interrupt.clone());
        let seat = Arc::new(WorkerSeat {
            worker: HeldSlot::new(slot, &self.slots),
            stream: stream_slot.map(|permit| HeldSlot::new(permit, &self.stream_slots)),
            seatless: Arc::clone(&self.seatless),
            max_seatless: self.max_seatless,
            runtime: tokio::runtime::Handle::current(),
            interrupt: interrupt.clone(),
            refused: AtomicU8::new(NOT_REFUSED),
        });
        let working_seat = Arc::clone(&seat);
        let task = tokio::task::spawn_blocking(move || {
            // The seat (and its worker permit) is given back when the work has returned,
            // whatever happened to the call.
            let _hold = hold;
            if interrupt.is_set() {
                return Err(Status::cancelled("the call ended before its work started"));
            }
            with_interrupt(&interrupt, || with_seat(working_seat, work))
        });
        let result = task.await;
        let refused = seat.refused.load(Ordering::SeqCst);
        if refused != NOT_REFUSED {
            // Whatever the interrupted work answered, it is not the verdict.
            record_shed(ShedReason::AnalysisQueue);
            let analyses = arbiter_rules::interrupt::max_concurrent_analyses();
            return Err(Status::resource_exhausted(
                if refused == REFUSED_SLOT_WAIT {
                    format!(
                        "server overloaded: no \"can this side still checkmate?\" analysis slot \
                     became free within {} ms (--max-analyses {analyses} runs at once); try again \
                     later",
                        self.max_queue_wait.as_millis()
                    )
                } else {
                    format!(
                        "server overloaded: the most calls allowed ({}) are already waiting for or \
                     running a \"can this side still checkmate?\" analysis (--max-analyses \
                     {analyses} runs at once); try again later",
                        self.max_seatless
                    )
                },
            ));
        }
        match result {
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

    /// Issue 13: handing a microsecond call to a worker and back cost more than its work. A
    /// small call runs on the thread that polls it; a large one on a worker.
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn small_calls_run_on_the_calling_thread_and_large_ones_on_a_worker() {
        let workers = Workers::new(1, Duration::from_millis(50), 0);
        let here = |small| {
            let workers = workers.clone();
            async move {
                let caller = std::thread::current().id();
                let ran_on = workers
                    .run_small((), (), small, |()| Ok(std::thread::current().id()))
                    .await
                    .expect("runs");
                ran_on == caller
            }
        };
        assert!(here(true).await, "a small call runs where it was polled");
        assert!(!here(false).await, "a large call runs on a worker");
    }

    /// Issue 13: a small call whose work needs an analysis must not run it on the network
    /// thread. Its first run is stopped before the analysis, and the call runs again from the
    /// start on a worker, whose answer is the call's.
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_small_call_that_needs_an_analysis_runs_again_on_a_worker() {
        let workers = Workers::new(1, Duration::from_millis(50), 0);
        let runs = Arc::new(Mutex::new(Vec::new()));
        let seen = Arc::clone(&runs);
        let caller = std::thread::current().id();
        let answer = workers
            .run_small((), (), true, move |()| {
                let allowed = arbiter_rules::interrupt::long_work_allowed();
                if let Ok(mut runs) = seen.lock() {
                    runs.push((std::thread::current().id(), allowed));
                }
                Ok(if allowed { "analysed" } else { "dropped" })
            })
            .await;
        assert_eq!(answer.expect("the worker's answer"), "analysed");
        let runs = runs.lock().expect("not poisoned").clone();
        assert_eq!(runs.len(), 2, "{runs:?}");
        assert_eq!(runs[0], (caller, false), "refused where it was polled");
        assert_ne!(runs[1].0, caller, "then run on a worker");
        assert!(runs[1].1, "where the analysis may run");
    }

    /// Issue 13, a fresh review's finding: every small call ran on the network threads, so an
    /// overloaded server queued them there (health checks waited behind them) instead of
    /// shedding them after `--max-queue-wait`. Once the small calls allowed there are running,
    /// a small call waits for a worker like any call: with the only worker busy too, it is shed.
    #[tokio::test(flavor = "multi_thread", worker_threads = 3)]
    async fn a_small_call_beyond_the_network_threads_share_is_shed_like_any_call() {
        let workers = Workers::new(1, Duration::from_millis(20), 0);
        let (release_tx, release_rx) = std::sync::mpsc::channel::<()>();
        let release = Arc::new(Mutex::new(release_rx));
        let mut busy = Vec::new();
        for small in [true, false] {
            let (started_tx, started_rx) = tokio::sync::oneshot::channel();
            let started = Mutex::new(Some(started_tx));
            let release = Arc::clone(&release);
            let pool = workers.clone();
            busy.push(tokio::spawn(async move {
                pool.run_small((), (), small, move |()| {
                    if let Some(started) = started.lock().ok().and_then(|mut s| s.take()) {
                        let _ = started.send(());
                    }
                    let _ = release.lock().map(|release| release.recv());
                    Ok(())
                })
                .await
            }));
            started_rx.await.expect("the call runs");
        }
        assert_eq!(workers.idle(), 0, "the worker is busy");
        let shed = workers.run_small((), (), true, |()| Ok(())).await;
        assert_eq!(
            shed.map_err(|status| status.code()),
            Err(tonic::Code::ResourceExhausted)
        );
        for _ in 0..2 {
            release_tx.send(()).expect("a call waits");
        }
        for call in busy {
            call.await.expect("joins").expect("runs");
        }
        assert_eq!(
            workers
                .run_small((), (), true, |()| Ok(3))
                .await
                .expect("room"),
            3
        );
    }

    /// Issue 13, the same finding: at most all workers but one (at least one) small calls run on
    /// the network threads at once, so that one stays free to read calls and answer health
    /// checks. With two workers, a second small call while one runs there goes to a worker.
    #[tokio::test(flavor = "multi_thread", worker_threads = 3)]
    async fn small_calls_leave_a_network_thread_free() {
        let workers = Workers::new(2, Duration::from_millis(500), 0);
        let (started_tx, started_rx) = tokio::sync::oneshot::channel();
        let (release_tx, release_rx) = std::sync::mpsc::channel::<()>();
        let started = Mutex::new(Some(started_tx));
        let release = Mutex::new(release_rx);
        let pool = workers.clone();
        let first = tokio::spawn(async move {
            pool.run_small((), (), true, move |()| {
                if let Some(started) = started.lock().ok().and_then(|mut s| s.take()) {
                    let _ = started.send(std::thread::current().id());
                }
                let _ = release.lock().map(|release| release.recv());
                Ok(())
            })
            .await
        });
        let inline_thread = started_rx.await.expect("the first small call runs");
        let caller = std::thread::current().id();
        let second = workers
            .run_small((), (), true, |()| Ok(std::thread::current().id()))
            .await
            .expect("runs");
        assert_ne!(second, caller, "the second small call ran on a worker");
        assert_ne!(second, inline_thread);
        release_tx.send(()).expect("the first call waits");
        first.await.expect("joins").expect("runs");
    }

    /// A panic in a small call's work is the call's INTERNAL error, as on a worker, not the
    /// network thread's end.
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_small_call_that_panics_fails_with_internal() {
        let workers = Workers::new(1, Duration::from_millis(50), 0);
        let answer: Result<(), Status> = workers
            .run_small((), (), true, |()| panic!("a bug in the rules"))
            .await;
        assert_eq!(
            answer.map_err(|status| status.code()),
            Err(tonic::Code::Internal)
        );
        assert_eq!(
            workers
                .run_small((), (), true, |()| Ok(7))
                .await
                .expect("runs"),
            7
        );
    }

    /// Issue 10, a fresh user's finding: stream messages waited for a worker without bound,
    /// in the same queue as unary calls, so a crowd of streams made unary calls be shed. With
    /// two workers, stream messages use at most one: while one runs, a second waits, and a
    /// unary call gets the other worker at once.
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn r_stream_messages_leave_a_worker_for_unary_calls() {
        let workers = Workers::new(2, Duration::from_millis(50), 0);
        let (started_tx, mut started_rx) = tokio::sync::mpsc::unbounded_channel();
        let (release_tx, release_rx) = std::sync::mpsc::channel::<()>();
        let release_rx = Arc::new(Mutex::new(release_rx));
        let streams: Vec<_> = (0..2)
            .map(|message| {
                let (started, release) = (started_tx.clone(), Arc::clone(&release_rx));
                tokio::spawn(workers.run_patiently((), move || {
                    let _ = started.send(message);
                    let _ = release.lock().map(|release| release.recv());
                    Ok(message)
                }))
            })
            .collect();
        assert!(started_rx.recv().await.is_some(), "one stream message runs");
        let second = tokio::time::timeout(Duration::from_millis(200), started_rx.recv()).await;
        assert!(second.is_err(), "a second stream message must wait");
        assert_eq!(
            workers
                .run((), || Ok("unary"))
                .await
                .expect("the free worker"),
            "unary"
        );
        for _ in 0..2 {
            release_tx.send(()).expect("a message waits for release");
        }
        let mut answered = Vec::new();
        for stream in streams {
            answered.push(stream.await.expect("joins").expect("runs"));
        }
        answered.sort_unstable();
        assert_eq!(answered, [0, 1], "both stream messages ran in turn");
    }

    /// The analyzer bound is process-wide: the tests that set it run one at a time.
    static ANALYSIS_BOUND: tokio::sync::Mutex<()> = tokio::sync::Mutex::const_new(());

    /// Holds the only analysis slot (of a bound of one) on a thread of its own until `release`
    /// receives; `held` receives once it is held.
    fn hold_the_analysis_slot() -> (std::sync::mpsc::Sender<()>, std::thread::JoinHandle<()>) {
        arbiter_rules::interrupt::set_max_concurrent_analyses(1);
        let (release_tx, release_rx) = std::sync::mpsc::channel::<()>();
        let (held_tx, held_rx) = std::sync::mpsc::channel::<()>();
        let holder = std::thread::spawn(move || {
            arbiter_rules::interrupt::with_analysis_slot(|| {
                let _ = held_tx.send(());
                let _ = release_rx.recv();
            });
        });
        held_rx.recv().expect("the slot is held");
        (release_tx, holder)
    }

    /// Issue 10, a fresh user's finding: a stream message kept its stream worker while its
    /// analysis waited for a slot, so with one stream worker (two workers) every other stream
    /// waited behind analysis-heavy ones. The stream worker is now given up with the worker:
    /// while one stream message waits for the analysis slot, another stream's message runs.
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn r_a_stream_message_waiting_for_an_analysis_leaves_its_stream_worker() {
        let _bound = ANALYSIS_BOUND.lock().await;
        let workers = Workers::new(2, Duration::from_secs(5), 8).with_stream_workers(1);
        let (release, holder) = hold_the_analysis_slot();
        let (waiting_tx, waiting_rx) = tokio::sync::oneshot::channel();
        let analysing = tokio::spawn(workers.run_patiently((), move || {
            let _ = waiting_tx.send(());
            Ok(arbiter_rules::interrupt::with_analysis_slot(|| "analysed"))
        }));
        waiting_rx.await.expect("the first message runs");
        let other = tokio::time::timeout(
            Duration::from_secs(10),
            workers.run_patiently((), || Ok("another stream's game")),
        )
        .await;
        release.send(()).expect("the holder waits");
        holder.join().expect("joins");
        assert_eq!(
            other
                .expect("served while the first waits for its analysis")
                .expect("runs"),
            "another stream's game"
        );
        assert_eq!(
            analysing.await.expect("joins").expect("runs"),
            Some("analysed")
        );
        arbiter_rules::interrupt::set_max_concurrent_analyses(0);
    }

    /// Issue 10, a fresh user's finding: calls waited for the analysis slot until their
    /// deadline (a flood of analyses ended in DEADLINE_EXCEEDED, which the error alert counts).
    /// A call whose analysis finds no slot within the bound is refused at once, counted as
    /// `analysis_queue`, and never answered with a weaker analysis.
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn r_an_analysis_that_finds_no_slot_in_time_is_refused() {
        let _bound = ANALYSIS_BOUND.lock().await;
        let workers = Workers::new(1, Duration::from_secs(5), 8);
        let (release, holder) = hold_the_analysis_slot();
        arbiter_rules::interrupt::set_max_analysis_wait(Some(Duration::from_millis(50)));
        let refused = workers
            .run((), || {
                Ok(arbiter_rules::interrupt::with_analysis_slot(|| "analysed"))
            })
            .await;
        arbiter_rules::interrupt::set_max_analysis_wait(None);
        release.send(()).expect("the holder waits");
        holder.join().expect("joins");
        let status = refused.expect_err("refused, not answered without its analysis");
        assert_eq!(status.code(), tonic::Code::ResourceExhausted);
        assert!(status.message().contains("analysis slot"), "{status:?}");
        // With the slot free, the same work is answered.
        let answered = workers
            .run((), || {
                Ok(arbiter_rules::interrupt::with_analysis_slot(|| "analysed"))
            })
            .await;
        assert_eq!(answered.expect("a free slot"), Some("analysed"));
        arbiter_rules::interrupt::set_max_concurrent_analyses(0);
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
