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
//!
//! A claim gives an account at most its share of the slots. When the last claim gave
//! an account all of its share, that account likely has more due, which no claim can
//! take before its slots come free: the next claim follows by `FILLED_GAP` instead.
//! At `GAP`, the backlog of one account alone (a single-tenant deployment after a
//! receiver's outage) drained at 302 deliveries a second where it drained at 1,127
//! at 5 ms, and built up under a flow faster than that; with `FILLED_GAP`, at 520 (a
//! receiver on loopback that answers at once; one that takes 2 ms is the limit first).

use std::time::Duration;

/// The least time between two claims, unless a backlog is being worked.
pub(crate) const GAP: Duration = Duration::from_millis(25);

/// The least time between two claims after one that gave an account all its share.
pub(crate) const FILLED_GAP: Duration = Duration::from_millis(5);

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
    /// The last claim gave an account all of its share: that account may have more.
    pub filled: bool,
}

pub(crate) fn next(state: State) -> Next {
    let State {
        free,
        concurrency,
        since,
        more_due,
        filled,
    } = state;
    let gap = if filled { FILLED_GAP } else { GAP };
    if free == 0 {
        Next::Full
    } else if since >= gap || (more_due && free * 2 >= concurrency) {
        Next::Now
    } else {
        Next::After(gap - since)
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
            filled: false,
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
            filled: false,
        };
        assert_eq!(next(small(1)), Next::Now);
        assert_eq!(next(small(2)), Next::Now);
    }

    #[test]
    fn an_account_given_all_its_share_is_claimed_again_sooner() {
        // The last claim filled an account's share: it may have more due, so the next
        // claim comes after the shorter gap, not the flow's.
        let filled = |since| State {
            filled: true,
            ..state(250, since, false)
        };
        assert_eq!(next(filled(FILLED_GAP)), Next::Now);
        assert_eq!(next(filled(MS)), Next::After(FILLED_GAP - MS));
        assert_eq!(
            next(state(250, FILLED_GAP, false)),
            Next::After(GAP - FILLED_GAP)
        );
    }

    #[test]
    fn no_free_permit_claims_nothing() {
        assert_eq!(next(state(0, GAP, true)), Next::Full);
        let none = State {
            free: 0,
            concurrency: 0,
            since: Duration::ZERO,
            more_due: false,
            filled: false,
        };
        assert_eq!(next(none), Next::Full);
    }
}
