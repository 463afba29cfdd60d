//! Quiet overload: refused calls and connections are counted in metrics at once, and logged as
//! one summary line per interval at most (with the counts), never one line per refusal. Under
//! an attack or a load test, the log then stays a few lines a second however many calls are
//! shed.

use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use crate::workers::ShedReason;

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
            interval_ms = u64::try_from(every.as_millis()).unwrap_or(u64::MAX),
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
