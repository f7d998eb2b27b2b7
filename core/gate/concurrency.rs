//! Caps on calls that hold a database connection for as long as the caller makes them
//! (exports, open until read; reads whose filter, search or summary the caller chose,
//! running as long as their statements): so many per account and so many in the instance, so that one account
//! cannot take every connection of the pool, and the instance keeps a share of it for
//! everything else. A call over a cap is refused at once as rate limited; one that fits
//! holds a [`Permit`] until it ends.

use crate::error::CoreError;
use crate::slots::{Slot, Slots};
use uuid::Uuid;

/// What a refused call is told to wait before trying again, in seconds: a held call
/// ends when its reader finishes or stalls (then after the stall deadline), or when its
/// statements end (at the latest at the statement time limit).
pub(crate) const RETRY_AFTER_SECS: u64 = 5;

/// A held call's place, given back when dropped (also when its task panics).
pub(crate) type Permit = Slot;

/// Caps on calls held at once, shared by clones.
#[derive(Clone)]
pub(crate) struct Concurrency {
    held: Slots,
    per_account: usize,
    total: usize,
    /// The `limit` label of the refusal metric.
    name: &'static str,
}

impl Concurrency {
    /// At most `per_account` calls of one account and `total` in all (each at least 1).
    pub(crate) fn new(name: &'static str, per_account: usize, total: usize) -> Self {
        Self {
            held: Slots::default(),
            per_account: per_account.max(1),
            total: total.max(1),
            name,
        }
    }

    /// A place for a call of `account`, or `RateLimited` when a cap is reached.
    pub(crate) fn try_take(&self, account: Uuid) -> Result<Permit, CoreError> {
        self.held
            .try_take(account, self.per_account, self.total)
            .ok_or_else(|| {
                metrics::counter!("formsd_rate_limit_refusals_total", "limit" => self.name)
                    .increment(1);
                CoreError::RateLimited {
                    retry_after: RETRY_AFTER_SECS,
                }
            })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn refused(result: Result<Permit, CoreError>) -> bool {
        matches!(
            result,
            Err(CoreError::RateLimited {
                retry_after: RETRY_AFTER_SECS
            })
        )
    }

    #[test]
    fn an_account_holds_its_share_and_the_instance_its_total() {
        let caps = Concurrency::new("test", 2, 3);
        let (a, b, c) = (Uuid::new_v4(), Uuid::new_v4(), Uuid::new_v4());
        let a1 = caps.try_take(a).expect("a's first");
        let _a2 = caps.try_take(a).expect("a's second");
        assert!(refused(caps.try_take(a)), "a is over its share");
        let _b1 = caps.try_take(b).expect("b has its own share");
        assert!(refused(caps.try_take(c)), "the instance is full");
        drop(a1);
        let _c1 = caps.try_take(c).expect("a place was given back");
        assert!(refused(caps.try_take(a)), "the instance is full again");
    }

    #[test]
    fn places_are_given_back_and_idle_accounts_forgotten() {
        let caps = Concurrency::new("test", 1, 10);
        let a = Uuid::new_v4();
        for _ in 0..3 {
            let held = caps.try_take(a).expect("a place");
            assert!(refused(caps.try_take(a)));
            drop(held);
        }
        assert_eq!(
            caps.held.busy(),
            (vec![], vec![]),
            "nothing held, a forgotten"
        );
    }
}
