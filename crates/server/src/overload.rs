//! Quiet overload: refused calls and connections are counted in metrics at once, and logged as
//! one summary line per interval at most (with the counts), never one line per refusal. Under
//! an attack or a load test, the log then stays a few lines a second however many calls are
//! shed.

use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

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
    /// The call's work needed an analyzer run while the most calls allowed were already away
    /// from their worker for one (see the module documentation).
    AnalysisQueue,
    /// The budget of answer bytes in flight had no room for the call's answer: none at all
    /// when the call arrived, or none for its answer within `--max-queue-wait` (see
    /// [`crate::guard::answer_bytes`]).
    AnswerBytes,
}

impl ShedReason {
    /// Every reason, in declaration order (so `reason as usize` indexes it).
    pub const ALL: [Self; 6] = [
        Self::ConcurrencyLimit,
        Self::QueueTimeout,
        Self::StreamLimit,
        Self::RequestBytes,
        Self::AnalysisQueue,
        Self::AnswerBytes,
    ];

    /// The `reason` label of `arbiter_calls_shed_total`.
    #[must_use]
    pub fn label(self) -> &'static str {
        match self {
            Self::ConcurrencyLimit => "concurrency_limit",
            Self::QueueTimeout => "queue_timeout",
            Self::StreamLimit => "stream_limit",
            Self::RequestBytes => "request_bytes",
            Self::AnalysisQueue => "analysis_queue",
            Self::AnswerBytes => "answer_bytes",
        }
    }
}

/// Creates every series of `arbiter_calls_shed_total` at 0, so that `rate()` and alerts see
/// them before the first call is shed.
pub fn describe_shed() {
    metrics::describe_counter!(
        "arbiter_calls_shed_total",
        "Calls refused with RESOURCE_EXHAUSTED before their work, by reason (concurrency_limit, \
         queue_timeout, stream_limit, request_bytes, analysis_queue, answer_bytes)."
    );
    for reason in ShedReason::ALL {
        metrics::counter!("arbiter_calls_shed_total", "reason" => reason.label()).increment(0);
    }
}

/// Counts a shed call (`arbiter_calls_shed_total{reason}`) and adds it to the summary that
/// this module logs at a bounded rate.
pub fn record_shed(reason: ShedReason) {
    metrics::counter!("arbiter_calls_shed_total", "reason" => reason.label()).increment(1);
    note_shed(reason);
}

/// Calls shed since the last summary, by [`ShedReason`] (in its declaration order, that of
/// [`ShedReason::ALL`]).
static SHED: [AtomicU64; ShedReason::ALL.len()] =
    [const { AtomicU64::new(0) }; ShedReason::ALL.len()];
/// Connections refused since the last summary (connection limit reached).
static REFUSED_CONNECTIONS: AtomicU64 = AtomicU64::new(0);

/// Adds a shed call to the next summary.
pub fn note_shed(reason: ShedReason) {
    SHED[reason as usize].fetch_add(1, Ordering::Relaxed);
}

/// Adds a refused connection to the next summary.
pub fn note_refused_connection() {
    REFUSED_CONNECTIONS.fetch_add(1, Ordering::Relaxed);
}

/// Takes the counts since the last call: `(shed calls by reason label, refused connections)`.
#[must_use]
pub fn take_counts() -> (Vec<(&'static str, u64)>, u64) {
    let shed = ShedReason::ALL
        .iter()
        .map(|&reason| {
            (
                reason.label(),
                SHED[reason as usize].swap(0, Ordering::Relaxed),
            )
        })
        .filter(|&(_, count)| count > 0)
        .collect();
    (shed, REFUSED_CONNECTIONS.swap(0, Ordering::Relaxed))
}

/// Logs, every `every`, one WARN line with what was refused since the previous line, if
/// anything was. Runs until dropped.
pub async fn summarise(every: Duration) {
    let mut ticks = tokio::time::interval(every.max(Duration::from_millis(100)));
    ticks.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    loop {
        ticks.tick().await;
        let (shed, refused_connections) = take_counts();
        let shed_calls: u64 = shed.iter().map(|(_, count)| count).sum();
        if shed_calls == 0 && refused_connections == 0 {
            continue;
        }
        let by_reason = shed
            .iter()
            .map(|(reason, count)| format!("{reason}={count}"))
            .collect::<Vec<_>>()
            .join(" ");
        tracing::warn!(
            shed_calls,
            by_reason = %by_reason,
            refused_connections,
            interval_ms = crate::logging::millis(every),
            "overloaded: calls shed or connections refused since the last summary"
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_reason_is_counted_at_its_own_index() {
        for (index, reason) in ShedReason::ALL.iter().enumerate() {
            assert_eq!(*reason as usize, index, "{reason:?}");
        }
    }
}
