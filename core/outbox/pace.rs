//! When the worker claims. A claim costs the database much the same whether it takes
//! one message or a hundred: it walks every account with pending messages before it
//! takes any. Claiming whenever a permit comes free (each sent message) would, under a
//! steady flow, take one or two messages a claim and spend most of the database's work
//! on the walk. So while messages flow, a claim waits until half the permits are free
//! or `GAP` has passed since the last one, and then takes everything that came due
//! meanwhile in one statement. A worker that has not claimed for `GAP` claims at once:
//! a lone event waits for nothing, and a backlog adds at most `GAP` to a message's
//! wait.

use std::time::Duration;

/// The least time between two claims while fewer than half the permits are free.
pub(crate) const GAP: Duration = Duration::from_millis(5);

/// When to claim next, with `free` of `concurrency` permits free and `since` the time
/// since the last claim.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum Next {
    /// Claim now, for `free` messages.
    Now,
    /// Wait this long (or for a permit to come free) and ask again.
    After(Duration),
    /// No permit is free: wait until one is.
    Full,
}

pub(crate) fn next(free: usize, concurrency: usize, since: Duration) -> Next {
    if free == 0 {
        Next::Full
    } else if free * 2 >= concurrency || since >= GAP {
        Next::Now
    } else {
        Next::After(GAP - since)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MS: Duration = Duration::from_millis(1);

    #[test]
    fn a_quiet_worker_claims_at_once() {
        assert_eq!(next(1, 256, GAP), Next::Now);
        assert_eq!(next(256, 256, Duration::ZERO), Next::Now);
    }

    #[test]
    fn a_few_free_permits_wait_for_the_gap() {
        assert_eq!(next(3, 256, 2 * MS), Next::After(GAP - 2 * MS));
        assert_eq!(next(127, 256, Duration::ZERO), Next::After(GAP));
        assert_eq!(next(127, 256, GAP), Next::Now);
    }

    #[test]
    fn half_the_permits_free_claim_without_waiting() {
        assert_eq!(next(128, 256, Duration::ZERO), Next::Now);
        // A small worker (one permit, or two) is never held back.
        assert_eq!(next(1, 1, Duration::ZERO), Next::Now);
        assert_eq!(next(1, 2, Duration::ZERO), Next::Now);
    }

    #[test]
    fn no_free_permit_claims_nothing() {
        assert_eq!(next(0, 256, GAP), Next::Full);
        assert_eq!(next(0, 0, Duration::ZERO), Next::Full);
    }
}
