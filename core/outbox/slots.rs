//! Which accounts hold this process's delivery slots: the claim query reads it so that
//! no account gets more than its share (`--webhook-concurrency-per-account`), and each
//! attempt holds its account's slot until it is recorded.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, PoisonError};
use uuid::Uuid;

/// Deliveries in flight in this process, per account.
#[derive(Clone, Default)]
pub(crate) struct Slots {
    in_flight: Arc<Mutex<HashMap<Uuid, usize>>>,
}

/// One account's slot, given back when dropped (also when the attempt panics, so a
/// failed task never leaks its account's share).
pub(crate) struct Slot {
    in_flight: Arc<Mutex<HashMap<Uuid, usize>>>,
    account: Uuid,
}

impl Slots {
    /// The accounts with deliveries in flight and how many each, as two arrays for the
    /// claim query (PostgreSQL `unnest` pairs them up).
    pub(crate) fn busy(&self) -> (Vec<Uuid>, Vec<i64>) {
        // A poisoned lock only means a panic elsewhere; the counts are still whole (no
        // panic can happen between reading and writing one).
        let counts = self
            .in_flight
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        counts
            .iter()
            .map(|(account, n)| (*account, i64::try_from(*n).unwrap_or(i64::MAX)))
            .unzip()
    }

    /// Takes one slot of `account` until the returned guard drops.
    pub(crate) fn take(&self, account: Uuid) -> Slot {
        let mut counts = self
            .in_flight
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        *counts.entry(account).or_default() += 1;
        Slot {
            in_flight: self.in_flight.clone(),
            account,
        }
    }
}

impl Drop for Slot {
    fn drop(&mut self) {
        let mut counts = self
            .in_flight
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        if let Some(n) = counts.get_mut(&self.account) {
            *n -= 1;
            // Idle accounts leave the map: the claim query's arrays stay as short as the
            // number of accounts actually in flight.
            if *n == 0 {
                counts.remove(&self.account);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slots_are_counted_per_account_and_given_back() {
        let slots = Slots::default();
        let (a, b) = (Uuid::new_v4(), Uuid::new_v4());
        let first = slots.take(a);
        let second = slots.take(a);
        let other = slots.take(b);
        let (accounts, counts) = slots.busy();
        let mut busy: Vec<_> = accounts.into_iter().zip(counts).collect();
        busy.sort();
        let mut expected = vec![(a, 2), (b, 1)];
        expected.sort();
        assert_eq!(busy, expected);
        drop((first, other));
        assert_eq!(slots.busy(), (vec![a], vec![1]));
        drop(second);
        assert_eq!(slots.busy(), (vec![], vec![]));
    }
}
