//! Rate-limit windows without a write per request. Each key has one fixed window at a
//! time in the database (`rate_windows`, on the database clock, shared by all
//! instances); an instance takes a *lease*, a block of the window's allowance, in one
//! statement, and admits requests from it locally until it is used up or the window
//! ends. The database grants no more than the limit in a window across all instances,
//! so a key never gets more than its limit; an instance's unused lease is allowance the
//! others cannot have, so across N instances a key may be refused up to (N − 1) ×
//! (block − 1) requests before its limit. The block is a 32nd of the limit (at least 1,
//! at most 1000): small limits lease one request at a time, exactly as before.

use super::RateInfo;
use super::store;
use crate::error::CoreError;
use sqlx::PgPool;
use std::collections::HashMap;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};
use uuid::Uuid;

/// Requests leased at once for a key with `limit` per window.
pub(crate) fn block(limit: u32) -> u32 {
    (limit / 32).clamp(1, 1000)
}

/// This instance's lease of one key's current window.
#[derive(Debug, Default)]
struct Lease {
    /// Unix seconds (database clock) when the window resets.
    reset: i64,
    /// When the window ends, on this instance's monotonic clock.
    ends: Option<Instant>,
    /// Requests of the lease not yet admitted.
    left: u32,
    /// The window's allowance granted to all instances at the last lease, this one's
    /// included: what the limit has left for others is `limit − granted`.
    granted: u32,
    /// The database granted less than asked: the limit is reached for this window.
    exhausted: bool,
    /// The limit the lease was taken under: a plan change takes a new lease.
    limit: u32,
}

impl Lease {
    fn current(&self) -> bool {
        self.ends.is_some_and(|ends| Instant::now() < ends)
    }

    /// The figures after admitting one request (or refusing it).
    fn rate(&self, limit: u32) -> RateInfo {
        RateInfo {
            limit,
            remaining: limit.saturating_sub(self.granted).saturating_add(self.left),
            reset: self.reset,
        }
    }
}

/// The leases of this instance, one per key in use.
#[derive(Clone, Default)]
pub(crate) struct Leases {
    leases: Arc<Mutex<HashMap<Uuid, Arc<tokio::sync::Mutex<Lease>>>>>,
}

impl Leases {
    fn lease_of(&self, key_id: Uuid) -> Arc<tokio::sync::Mutex<Lease>> {
        let mut leases = self.leases.lock().unwrap_or_else(PoisonError::into_inner);
        leases.entry(key_id).or_default().clone()
    }

    /// Admits one request of the key if its window allows: the figures to show, and
    /// the refusal when it is over its limit.
    pub(crate) async fn admit(
        &self,
        pool: &PgPool,
        key_id: Uuid,
        limit: u32,
        window_secs: u32,
    ) -> Result<(RateInfo, Option<CoreError>), CoreError> {
        let lease = self.lease_of(key_id);
        // Held across the lease statement: one statement per instance and key at a
        // time, while the key's other requests wait for its outcome.
        let mut lease = lease.lock().await;
        if !lease.current() || lease.limit != limit || (lease.left == 0 && !lease.exhausted) {
            let asked = block(limit);
            let taken = store::lease(pool, key_id, window_secs, asked).await?;
            // The window's asks so far, this one's included: what was granted before it
            // is what the limit had left, and this lease gets at most that.
            let before = taken.asked.saturating_sub(asked);
            let granted = asked.min(limit.saturating_sub(before));
            let reset = taken.window_start + i64::from(window_secs);
            let left_secs = (reset as f64 - taken.now).max(0.0);
            *lease = Lease {
                reset,
                ends: Some(Instant::now() + Duration::from_secs_f64(left_secs)),
                left: granted,
                granted: before.saturating_add(granted).min(limit),
                exhausted: granted < asked,
                limit,
            };
        }
        if lease.left > 0 {
            lease.left -= 1;
            return Ok((lease.rate(limit), None));
        }
        let wait = lease.ends.map_or(1, |ends| {
            let left = ends.saturating_duration_since(Instant::now());
            (left.as_secs_f64().ceil() as u64).max(1)
        });
        let rate = RateInfo {
            remaining: 0,
            ..lease.rate(limit)
        };
        Ok((rate, Some(CoreError::RateLimited { retry_after: wait })))
    }

    /// Forgets leases whose window is over (keeps memory bounded).
    pub(crate) fn retain_current(&self) {
        let mut leases = self.leases.lock().unwrap_or_else(PoisonError::into_inner);
        leases.retain(|_, lease| lease.try_lock().map_or(true, |lease| lease.current()));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn blocks_are_a_32nd_of_the_limit_within_bounds() {
        assert_eq!(block(0), 1);
        assert_eq!(block(60), 1);
        assert_eq!(block(100), 3);
        assert_eq!(block(1_000_000_000), 1000);
    }

    #[test]
    fn remaining_counts_what_others_may_still_take_and_this_lease() {
        let lease = Lease {
            reset: 60,
            ends: None,
            left: 2,
            granted: 7,
            exhausted: false,
            limit: 10,
        };
        assert_eq!(lease.rate(10).remaining, 5);
    }
}
