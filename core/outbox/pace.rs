//! When the worker claims. A claim costs the database much the same whether it takes
//! one message or a hundred: it walks every account with pending messages before it
//! takes any. Claiming on every wake (each sent message, each ring of the bell by a
//! create) would, under a steady flow, take a message or two a claim and spend most of
//! the database's work on the walk. So a claim follows the last by at least `GAP`, and
//! takes everything that came due meanwhile in one statement; only while a backlog is
//! being worked (the last claim took all it asked for, so more is due) does a claim go
//! as soon as half the permits are free. A worker that has not claimed for `GAP`
//! claims at once: a lone event waits for nothing, and a flow adds at most `GAP` to a
//! message's wait. The worker's recorder keeps the same gap between its statements.
//!
//! Why 25 ms: under a steady flow at 5 ms a claim took about ten deliveries, and the
//! claims took twice the server time of the records of their attempts; at 25 ms, in
//! runs alternated with those, a create with its delivery cost PostgreSQL 1.91-1.93x
//! a plain create against 2.15-2.40x (docs/src/benchmarks/2026-11-29-capacity-4.md).
//! A delivery of a flow waits up to 25 ms more, well inside the second its receipt is
//! promised.

use std::time::Duration;

/// The least time between two claims, unless a backlog is being worked.
pub(crate) const GAP: Duration = Duration::from_millis(25);

/// When to claim next.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum Next {
    /// Claim now, for the free permits.
    Now,
    /// Wait this long (or for a permit to come free) and ask again.
    After(Duration),
    /// No permit is free: wait until one is.
    Full,
}

/// The worker's state as the pace reads it.
#[derive(Debug, Clone, Copy)]
pub(crate) struct State {
    /// Permits free, of `concurrency`.
    pub free: usize,
    pub concurrency: usize,
    /// Since the last claim.
    pub since: Duration,
    /// The last claim took all it asked for: more may be due.
    pub more_due: bool,
}

pub(crate) fn next(state: State) -> Next {
    let State {
        free,
        concurrency,
        since,
        more_due,
    } = state;
    if free == 0 {
        Next::Full
    } else if since >= GAP || (more_due && free * 2 >= concurrency) {
        Next::Now
    } else {
        Next::After(GAP - since)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MS: Duration = Duration::from_millis(1);

    fn state(free: usize, since: Duration, more_due: bool) -> State {
        State {
            free,
            concurrency: 256,
            since,
            more_due,
        }
    }

    #[test]
    fn a_quiet_worker_claims_at_once() {
        assert_eq!(next(state(256, GAP, false)), Next::Now);
        assert_eq!(next(state(1, 10 * GAP, false)), Next::Now);
    }

    #[test]
    fn a_flow_is_claimed_once_a_gap() {
        // Every permit free, and the last claim took all that was due: the events that
        // arrive meanwhile wait for the gap, and are claimed together.
        assert_eq!(next(state(256, 2 * MS, false)), Next::After(GAP - 2 * MS));
        assert_eq!(next(state(256, Duration::ZERO, false)), Next::After(GAP));
        assert_eq!(next(state(256, GAP, false)), Next::Now);
    }

    #[test]
    fn a_backlog_is_claimed_once_half_the_permits_are_free() {
        assert_eq!(next(state(128, Duration::ZERO, true)), Next::Now);
        assert_eq!(next(state(127, MS, true)), Next::After(GAP - MS));
        assert_eq!(next(state(3, GAP, true)), Next::Now);
        // A small worker (one permit, or two) working a backlog is never held back.
        let small = |concurrency| State {
            free: 1,
            concurrency,
            since: Duration::ZERO,
            more_due: true,
        };
        assert_eq!(next(small(1)), Next::Now);
        assert_eq!(next(small(2)), Next::Now);
    }

    #[test]
    fn no_free_permit_claims_nothing() {
        assert_eq!(next(state(0, GAP, true)), Next::Full);
        let none = State {
            free: 0,
            concurrency: 0,
            since: Duration::ZERO,
            more_due: false,
        };
        assert_eq!(next(none), Next::Full);
    }
}
