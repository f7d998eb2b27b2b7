//! Whether the database answers, as the readiness probe last found it. While it does
//! not, API calls are refused at once (503 with Retry-After) rather than each waiting
//! for a pooled connection until the acquire deadline; they are served again as soon as
//! the probe, which looks more often while the database is away, finds it back.

use sqlx::PgPool;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

/// How often the probe looks while the database answers.
pub(crate) const PROBE_EVERY: Duration = Duration::from_secs(1);
/// How often it looks while the database does not: its return is seen within this.
pub(crate) const PROBE_EVERY_WHILE_DOWN: Duration = Duration::from_millis(250);
/// How long a question to one server on a connection of its own may take (the failover
/// follower asking every host, `primary`); a question through the pool waits the pool's
/// acquire deadline instead (`pool_takes_writes`).
pub(crate) const PROBE_DEADLINE: Duration = Duration::from_secs(1);

/// Whether the server behind `pool` takes writes, asked through the pool: by the
/// readiness probe and by the failover follower. It waits as long as a request may
/// wait for its connection (the pool's acquire deadline): a pool busy with requests
/// that the database is serving is not a lost server, and taking it for one would
/// refuse those very requests. A refused or reset connection is seen at once.
pub(crate) async fn pool_takes_writes(pool: &PgPool) -> bool {
    let deadline = pool.options().get_acquire_timeout();
    let answered = tokio::time::timeout(deadline, super::store::accepts_writes(pool)).await;
    matches!(answered, Ok(Ok(true)))
}

/// The probe's last finding, shared by clones; reachable until found otherwise.
#[derive(Clone, Debug)]
pub(crate) struct Reachable(Arc<AtomicBool>);

impl Default for Reachable {
    fn default() -> Self {
        Self(Arc::new(AtomicBool::new(true)))
    }
}

impl Reachable {
    /// Whether the database answered the last probe.
    pub(crate) fn is_up(&self) -> bool {
        self.0.load(Ordering::Acquire)
    }

    /// Records a probe's finding; says whether it changed.
    pub(crate) fn set(&self, up: bool) -> bool {
        self.0.swap(up, Ordering::AcqRel) != up
    }

    /// The wait before the next probe.
    pub(crate) fn next_probe(&self) -> Duration {
        if self.is_up() {
            PROBE_EVERY
        } else {
            PROBE_EVERY_WHILE_DOWN
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_finding_is_shared_and_changes_are_told() {
        let reachable = Reachable::default();
        let seen = reachable.clone();
        assert!(seen.is_up());
        assert!(!reachable.set(true), "no change");
        assert!(reachable.set(false));
        assert!(!seen.is_up());
        assert_eq!(seen.next_probe(), PROBE_EVERY_WHILE_DOWN);
        assert!(reachable.set(true));
        assert!(seen.is_up());
    }
}
