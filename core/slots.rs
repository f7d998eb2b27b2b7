//! Work in flight in this process, counted per account: each piece holds its account's
//! slot until it ends (a guard, given back also on a panic). The outbox's claim query
//! reads the counts so that no account gets more than its share of deliveries
//! (`--webhook-concurrency-per-account`); the gate's caps on exports take a slot only
//! while the account and the instance are under theirs (`try_take`).

use std::collections::HashMap;
use std::sync::{Arc, Mutex, PoisonError};
use uuid::Uuid;

/// Work in flight in this process, per account.
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
    fn counts(&self) -> std::sync::MutexGuard<'_, HashMap<Uuid, usize>> {
        // A poisoned lock only means a panic elsewhere; the counts are still whole (no
        // panic can happen between reading and writing one).
        self.in_flight
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
    }

    /// The accounts with deliveries in flight and how many each, as two arrays for the
    /// claim query (PostgreSQL `unnest` pairs them up).
    pub(crate) fn busy(&self) -> (Vec<Uuid>, Vec<i64>) {
        self.counts()
            .iter()
            .map(|(account, n)| (*account, i64::try_from(*n).unwrap_or(i64::MAX)))
            .unzip()
    }

    /// Takes one slot of `account` until the returned guard drops.
    pub(crate) fn take(&self, account: Uuid) -> Slot {
        let mut counts = self.counts();
        self.hold(&mut counts, account)
    }

    /// Takes one slot of `account` if it holds fewer than `per_account` and the process
    /// fewer than `total` (checked and taken under one lock).
    pub(crate) fn try_take(&self, account: Uuid, per_account: usize, total: usize) -> Option<Slot> {
        let mut counts = self.counts();
        let mine = counts.get(&account).copied().unwrap_or(0);
        let all: usize = counts.values().sum();
        (mine < per_account && all < total).then(|| self.hold(&mut counts, account))
    }

    fn hold(&self, counts: &mut HashMap<Uuid, usize>, account: Uuid) -> Slot {
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
