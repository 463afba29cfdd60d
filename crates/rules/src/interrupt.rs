//! Cooperative interruption of long work, and a process-wide bound on how many runs of the
//! unwinnability analyzer (`chasolver`) may be under way at once.
//!
//! The rules crate does no I/O and knows nothing of calls or deadlines, but one of its answers
//! can be expensive: "can this side still checkmate?" may search a million positions and hold
//! tens of megabytes while it does (see [`crate::winnability`]). A server that runs such work on
//! behalf of a client needs two things from it:
//!
//! - **interruption**: when the client's call ends (deadline, cancellation, disconnect), the
//!   work should stop at its next check instead of running to the end for nobody. The caller
//!   runs the work inside [`with_interrupt`]; the analysis checks the flag before each analyzer
//!   run and while it waits for a slot, and answers [`crate::Winnability::Undetermined`] once
//!   it is set (an answer nobody will read). One analyzer run is not interruptible from outside:
//!   it ends by its own node limits.
//! - **a bound on memory**: each analyzer run allocates its own search tables, so the number
//!   of runs at once bounds the memory analysis can take. [`set_max_concurrent_analyses`] sets
//!   that number for the whole process; a run beyond it waits for a slot.
//! - **a worker given back while analysing**: a server that runs calls on a fixed pool of
//!   workers must not let analyses that wait for a slot (or run for seconds) take every worker
//!   from cheap calls. Work run inside [`with_seat`] gives its [`Seat`] up before an analyzer run
//!   (while it waits for a slot and while it runs) and takes it back after, so analyzer runs are
//!   bounded by the analysis bound alone and the workers stay free for other calls.
//!
//! Code that never calls these functions (the CLI, tests) sees no difference: no interrupt is
//! ever set and the number of analyses is unbounded.

use std::cell::RefCell;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Condvar, Mutex};
use std::time::Duration;

/// A flag that asks work running under [`with_interrupt`] to stop at its next check. Cloning
/// shares the flag.
#[derive(Clone, Debug, Default)]
pub struct Interrupt(Arc<AtomicBool>);

impl Interrupt {
    /// A flag that is not set.
    #[must_use]
    pub fn new() -> Self {
        Self::default()
    }

    /// Sets the flag: the work stops at its next check. Setting it twice is harmless.
    pub fn set(&self) {
        self.0.store(true, Ordering::Relaxed);
    }

    /// Whether the flag is set.
    #[must_use]
    pub fn is_set(&self) -> bool {
        self.0.load(Ordering::Relaxed)
    }
}

thread_local! {
    /// The interrupt of the work running on this thread, if any.
    static CURRENT: RefCell<Option<Interrupt>> = const { RefCell::new(None) };
    /// The worker seat of the work running on this thread, if any.
    static SEAT: RefCell<Option<Arc<dyn Seat>>> = const { RefCell::new(None) };
}

/// A worker's place in a bounded pool, which work may give up while it runs the analyzer (or
/// waits to) and must take back before it goes on. Implemented by the server's worker pool;
/// the rules crate only calls it, from the thread that runs the work.
pub trait Seat: Send + Sync {
    /// Gives the seat up for an analyzer run; `false` when it may not be given up now (then
    /// the work keeps it, waits and runs while seated, and [`Seat::retake`] is not called).
    fn leave(&self) -> bool;
    /// Takes the seat back after the run, waiting (blocking this thread) until one is free.
    fn retake(&self);
    /// The analysis found no slot within the bound of [`set_max_analysis_wait`]: the work is
    /// refused (the server answers its call "overloaded"), and the analysis is not run. The
    /// default does nothing.
    fn refuse(&self) {}
    /// Whether work in this seat may do something that can take longer than microseconds (an
    /// analyzer run, arbiter's own helpmate search). A seat on a thread that must stay
    /// responsive (a server's network thread, which answers only small calls there) answers
    /// `false`, sets the work's interrupt so that it stops at its next check, and runs the
    /// whole work again elsewhere. The default allows it.
    fn allows_long_work(&self) -> bool {
        true
    }
}

/// Announces work that can take longer than microseconds (an analyzer run or a search) and
/// answers whether it may start: `false` when the seat of the work on this thread does not
/// allow it ([`Seat::allows_long_work`]) or the work is interrupted. The caller then answers
/// [`crate::Winnability::Undetermined`] without starting; that answer is thrown away, as the
/// interrupt is set. Work without a seat (the CLI, tests) may always.
#[must_use]
pub fn long_work_allowed() -> bool {
    let seat = SEAT.with(|current| current.borrow().clone());
    seat.is_none_or(|seat| seat.allows_long_work()) && !interrupted()
}

/// Runs `work` on this thread with `seat` as its worker seat: each analyzer run inside it
/// gives the seat up while it waits for its slot and runs, and takes it back before the work
/// goes on (see [`Seat`]). The previous seat of the thread (normally none) is restored
/// afterwards, even when `work` panics.
pub fn with_seat<T>(seat: Arc<dyn Seat>, work: impl FnOnce() -> T) -> T {
    struct Restore(Option<Arc<dyn Seat>>);
    impl Drop for Restore {
        fn drop(&mut self) {
            let previous = self.0.take();
            SEAT.with(|current| *current.borrow_mut() = previous);
        }
    }
    let previous = SEAT.with(|current| current.borrow_mut().replace(seat));
    let _restore = Restore(previous);
    work()
}

/// The seat of the work on this thread, given up: taken back when dropped.
struct LeftSeat(Arc<dyn Seat>);

impl Drop for LeftSeat {
    fn drop(&mut self) {
        self.0.retake();
    }
}

/// Gives up the seat of the work on this thread, if it has one that may be given up now.
fn leave_seat() -> Option<LeftSeat> {
    let seat = SEAT.with(|current| current.borrow().clone())?;
    seat.leave().then(|| LeftSeat(seat))
}

/// Runs `work` on this thread with `interrupt` as its interrupt flag: the analysis inside it
/// stops at its next check once the flag is set. The previous flag of the thread (normally
/// none) is restored afterwards, even when `work` panics.
pub fn with_interrupt<T>(interrupt: &Interrupt, work: impl FnOnce() -> T) -> T {
    struct Restore(Option<Interrupt>);
    impl Drop for Restore {
        fn drop(&mut self) {
            let previous = self.0.take();
            CURRENT.with(|current| *current.borrow_mut() = previous);
        }
    }
    let previous = CURRENT.with(|current| current.borrow_mut().replace(interrupt.clone()));
    let _restore = Restore(previous);
    work()
}

/// Whether the work running on this thread has been asked to stop.
#[must_use]
pub fn interrupted() -> bool {
    CURRENT.with(|current| current.borrow().as_ref().is_some_and(Interrupt::is_set))
}

/// Analyzer runs allowed at once in the process; 0 means no bound.
static MAX_ANALYSES: AtomicUsize = AtomicUsize::new(0);
/// Analyzer runs under way now.
static RUNNING: Mutex<usize> = Mutex::new(0);
/// Signalled when a run ends.
static FREED: Condvar = Condvar::new();
/// How often a run waiting for a slot looks at its interrupt flag.
const WAIT_CHECK: Duration = Duration::from_millis(10);

/// Sets how many analyzer runs may be under way at once in this process (0: no bound, the
/// default). Runs beyond it wait for a slot, in no particular order. Together with the memory
/// one run can take, this bounds the memory analysis can take (the server's docs/operations.md gives
/// both figures).
pub fn set_max_concurrent_analyses(max: usize) {
    MAX_ANALYSES.store(max, Ordering::Relaxed);
    FREED.notify_all();
}

/// How many analyzer runs may be under way at once (0: no bound), as set by
/// [`set_max_concurrent_analyses`].
#[must_use]
pub fn max_concurrent_analyses() -> usize {
    MAX_ANALYSES.load(Ordering::Relaxed)
}

/// Longest wait for an analysis slot, in microseconds (0: no bound).
static MAX_SLOT_WAIT_MICROS: AtomicU64 = AtomicU64::new(0);

/// Sets the longest time a run waits for one of the slots of [`set_max_concurrent_analyses`]
/// (`None`: no bound, the default). Past it, the work's [`Seat`] is told ([`Seat::refuse`]) and
/// the analyzer is not run: a server refuses such a call rather than let it wait until its
/// deadline. Work without a seat (the CLI) never has a bound set.
pub fn set_max_analysis_wait(max: Option<Duration>) {
    let micros = max.map_or(0, |max| {
        u64::try_from(max.as_micros()).unwrap_or(u64::MAX).max(1)
    });
    MAX_SLOT_WAIT_MICROS.store(micros, Ordering::Relaxed);
}

/// Analyzer runs under way now in this process.
#[must_use]
pub fn analyses_running() -> usize {
    RUNNING.lock().map_or(0, |running| *running)
}

/// A slot of the analyzer bound, given back when dropped; the work's seat (if it gave one up)
/// is taken back after the slot is free.
pub(crate) struct AnalysisSlot {
    /// Whether a slot of the bound is held (not when the wait was interrupted).
    held: bool,
    /// The seat given up for the run, taken back last.
    _left: Option<LeftSeat>,
}

impl Drop for AnalysisSlot {
    fn drop(&mut self) {
        if self.held {
            if let Ok(mut running) = RUNNING.lock() {
                *running = running.saturating_sub(1);
            }
            FREED.notify_one();
        }
        // `_left` drops after this body: the seat is taken back only once the slot is free,
        // so a run waiting for its seat never holds a slot another run waits for.
    }
}

/// Takes a slot for one analyzer run, waiting while the bound is reached (at most the bound of
/// [`set_max_analysis_wait`], if set). The work's seat, if it has one (see [`with_seat`]), is
/// given up first and taken back when the slot is dropped. `None` when the work on this thread
/// is interrupted, before or while waiting, or waited past its bound (its seat is then refused):
/// the caller must then not run the analyzer (the seat is taken back before this returns).
pub(crate) fn analysis_slot() -> Option<AnalysisSlot> {
    if !long_work_allowed() {
        return None;
    }
    let seat = SEAT.with(|current| current.borrow().clone());
    let mut slot = AnalysisSlot {
        held: false,
        _left: leave_seat(),
    };
    let max_wait = MAX_SLOT_WAIT_MICROS.load(Ordering::Relaxed);
    let give_up = (max_wait > 0 && seat.is_some())
        .then(|| std::time::Instant::now() + Duration::from_micros(max_wait));
    let mut running = RUNNING.lock().ok()?;
    loop {
        if interrupted() {
            drop(running);
            return None;
        }
        let max = MAX_ANALYSES.load(Ordering::Relaxed);
        if max == 0 || *running < max {
            *running += 1;
            slot.held = true;
            drop(running);
            return Some(slot);
        }
        if give_up.is_some_and(|at| std::time::Instant::now() >= at) {
            drop(running);
            if let Some(seat) = &seat {
                seat.refuse();
            }
            return None;
        }
        running = FREED.wait_timeout(running, WAIT_CHECK).ok()?.0;
    }
}

/// Runs `work` holding one slot of the analyzer bound, taken as an analyzer run takes it
/// (giving up the seat of the work on this thread while it waits and runs, bounded by
/// [`set_max_analysis_wait`]): for callers that run an expensive analysis of their own under
/// the same bound. `None`, without running `work`, when the work on this thread is interrupted
/// or its wait was refused.
pub fn with_analysis_slot<T>(work: impl FnOnce() -> T) -> Option<T> {
    let _slot = analysis_slot()?;
    Some(work())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Serializes the tests that take analysis slots: the bound is process-wide.
    static BOUND_TESTS: Mutex<()> = Mutex::new(());

    #[test]
    fn interrupt_is_seen_only_inside_its_scope() {
        let interrupt = Interrupt::new();
        assert!(!interrupted());
        with_interrupt(&interrupt, || {
            assert!(!interrupted());
            interrupt.set();
            assert!(interrupted());
        });
        assert!(!interrupted(), "the flag must not outlive its work");
    }

    #[test]
    fn interrupted_work_gets_no_analysis_slot() {
        let _bound = BOUND_TESTS.lock();
        let interrupt = Interrupt::new();
        interrupt.set();
        assert!(with_interrupt(&interrupt, analysis_slot).is_none());
        assert!(analysis_slot().is_some());
    }

    /// A seat that records what the work did with it.
    #[derive(Default)]
    struct CountingSeat {
        may_leave: bool,
        left: AtomicUsize,
        retaken: AtomicUsize,
    }

    impl Seat for CountingSeat {
        fn leave(&self) -> bool {
            if self.may_leave {
                self.left.fetch_add(1, Ordering::SeqCst);
            }
            self.may_leave
        }
        fn retake(&self) {
            self.retaken.fetch_add(1, Ordering::SeqCst);
        }
    }

    #[test]
    fn an_analyzer_run_gives_its_worker_seat_up_and_takes_it_back_after() {
        let _bound = BOUND_TESTS.lock();
        let seat = Arc::new(CountingSeat {
            may_leave: true,
            ..CountingSeat::default()
        });
        with_seat(Arc::clone(&seat) as Arc<dyn Seat>, || {
            let slot = analysis_slot().expect("no bound, no interrupt");
            assert_eq!(seat.left.load(Ordering::SeqCst), 1, "given up for the run");
            assert_eq!(
                seat.retaken.load(Ordering::SeqCst),
                0,
                "not back during the run"
            );
            drop(slot);
            assert_eq!(seat.retaken.load(Ordering::SeqCst), 1, "back after the run");
        });
        // Outside the scope there is no seat to give up.
        drop(analysis_slot());
        assert_eq!(seat.left.load(Ordering::SeqCst), 1);
    }

    #[test]
    fn a_seat_that_may_not_be_given_up_is_kept_and_never_retaken() {
        let _bound = BOUND_TESTS.lock();
        let seat = Arc::new(CountingSeat::default());
        with_seat(Arc::clone(&seat) as Arc<dyn Seat>, || drop(analysis_slot()));
        assert_eq!(seat.retaken.load(Ordering::SeqCst), 0);
    }

    #[test]
    fn an_interrupted_wait_takes_the_seat_back_before_it_returns() {
        let seat = Arc::new(CountingSeat {
            may_leave: true,
            ..CountingSeat::default()
        });
        let _bound = BOUND_TESTS.lock();
        // The bound is reached by a run that does not end during this test.
        set_max_concurrent_analyses(1);
        let held = analysis_slot().expect("a free slot");
        let interrupt = Interrupt::new();
        let worker = {
            let seat = Arc::clone(&seat);
            let interrupt = interrupt.clone();
            std::thread::spawn(move || {
                with_interrupt(&interrupt, || {
                    with_seat(seat as Arc<dyn Seat>, || analysis_slot().is_some())
                })
            })
        };
        while seat.left.load(Ordering::SeqCst) == 0 {
            std::thread::yield_now();
        }
        interrupt.set();
        assert!(!worker.join().expect("no panic"), "interrupted: no slot");
        assert_eq!(seat.retaken.load(Ordering::SeqCst), 1);
        drop(held);
        set_max_concurrent_analyses(0);
    }

    #[test]
    fn analyses_beyond_the_bound_wait_until_interrupted() {
        let _bound = BOUND_TESTS.lock();
        set_max_concurrent_analyses(1);
        let held = analysis_slot().expect("a free slot");
        let interrupt = Interrupt::new();
        let waiter = {
            let interrupt = interrupt.clone();
            std::thread::spawn(move || with_interrupt(&interrupt, || analysis_slot().is_some()))
        };
        std::thread::sleep(Duration::from_millis(30));
        assert!(
            !waiter.is_finished(),
            "a second run must wait for the only slot"
        );
        interrupt.set();
        assert!(
            !waiter.join().expect("no panic"),
            "an interrupted wait gets no slot"
        );
        drop(held);
        set_max_concurrent_analyses(0);
    }
}
