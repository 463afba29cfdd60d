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
//!
//! Code that never calls these functions (the CLI, tests) sees no difference: no interrupt is
//! ever set and the number of analyses is unbounded.

use std::cell::RefCell;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
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
/// one run can take, this bounds the memory analysis can take (the server's README gives both
/// figures).
pub fn set_max_concurrent_analyses(max: usize) {
    MAX_ANALYSES.store(max, Ordering::Relaxed);
    FREED.notify_all();
}

/// Analyzer runs under way now in this process.
#[must_use]
pub fn analyses_running() -> usize {
    RUNNING.lock().map_or(0, |running| *running)
}

/// A slot of the analyzer bound, given back when dropped.
#[derive(Debug)]
pub(crate) struct AnalysisSlot(());

impl Drop for AnalysisSlot {
    fn drop(&mut self) {
        if let Ok(mut running) = RUNNING.lock() {
            *running = running.saturating_sub(1);
        }
        FREED.notify_one();
    }
}

/// Takes a slot for one analyzer run, waiting while the bound is reached. `None` when the work
/// on this thread is interrupted, before or while waiting: the caller must then not run the
/// analyzer.
pub(crate) fn analysis_slot() -> Option<AnalysisSlot> {
    let mut running = RUNNING.lock().ok()?;
    loop {
        if interrupted() {
            return None;
        }
        let max = MAX_ANALYSES.load(Ordering::Relaxed);
        if max == 0 || *running < max {
            *running += 1;
            return Some(AnalysisSlot(()));
        }
        running = FREED.wait_timeout(running, WAIT_CHECK).ok()?.0;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
        let interrupt = Interrupt::new();
        interrupt.set();
        assert!(with_interrupt(&interrupt, analysis_slot).is_none());
        assert!(analysis_slot().is_some());
    }

    #[test]
    fn analyses_beyond_the_bound_wait_until_interrupted() {
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
