//! A map bounded by the memory of its entries: an insert that would take it over its
//! bound evicts the least recently used entries, one at a time, until it fits (never
//! all at once). The order and the links are `hashlink`'s `LruCache`; this adds the
//! byte count.

use hashlink::LruCache;
use std::hash::Hash;

/// Entries by key, each counted as the bytes the caller says plus the map's own share.
pub(crate) struct ByteLru<K: Hash + Eq, V> {
    entries: LruCache<K, (V, usize)>,
    bytes: usize,
    max_bytes: usize,
}

impl<K: Hash + Eq, V> ByteLru<K, V> {
    /// The map's own cost of an entry: its key and value as stored, the two links of
    /// the order and the table's slot.
    const ENTRY: usize = size_of::<(K, (V, usize))>() + 3 * size_of::<usize>();

    pub(crate) fn new(max_bytes: usize) -> Self {
        Self {
            entries: LruCache::new_unbounded(),
            bytes: 0,
            max_bytes,
        }
    }

    /// Keeps `value` as the most recently used, counted as `bytes` (what it holds
    /// beyond its own size), in place of what the key held. Evicts the least recently
    /// used until the whole fits; a value larger than the whole bound is not kept.
    pub(crate) fn insert(&mut self, key: K, value: V, bytes: usize) {
        self.remove(&key);
        let counted = bytes.saturating_add(Self::ENTRY);
        if counted > self.max_bytes {
            return;
        }
        while self.bytes + counted > self.max_bytes {
            let Some((_, (_, evicted))) = self.entries.remove_lru() else {
                break;
            };
            self.bytes -= evicted + Self::ENTRY;
        }
        self.entries.insert(key, (value, bytes));
        self.bytes += counted;
    }

    /// The value of `key`, which becomes the most recently used.
    pub(crate) fn get(&mut self, key: &K) -> Option<&V> {
        self.entries.get(key).map(|(value, _)| value)
    }

    /// Takes the value of `key` out, with the bytes it was counted as.
    pub(crate) fn remove(&mut self, key: &K) -> Option<(V, usize)> {
        let (value, bytes) = self.entries.remove(key)?;
        self.bytes -= bytes + Self::ENTRY;
        Some((value, bytes))
    }

    pub(crate) fn len(&self) -> usize {
        self.entries.len()
    }

    /// The bytes the entries count, the map's share included.
    pub(crate) fn bytes(&self) -> usize {
        self.bytes
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    type Lru = ByteLru<u32, u32>;

    #[test]
    fn the_bytes_stay_within_the_bound() {
        let mut lru = Lru::new(10 * (Lru::ENTRY + 100));
        for key in 0..1_000 {
            lru.insert(key, key, 100 + (key as usize % 7) * 10);
            assert!(lru.bytes() <= 10 * (Lru::ENTRY + 100), "{}", lru.bytes());
            let counted: usize = lru.entries.iter().map(|(_, (_, b))| b + Lru::ENTRY).sum();
            assert_eq!(lru.bytes(), counted);
            // Evicted one at a time: once full, the map stays nearly full (entries of
            // at most 160 bytes), never starts again.
            if key >= 10 {
                assert!(lru.len() >= 6, "{key}: {}", lru.len());
            }
        }
    }

    #[test]
    fn the_least_recently_used_goes_first() {
        let mut lru = Lru::new(3 * (Lru::ENTRY + 10));
        for key in [1, 2, 3] {
            lru.insert(key, key, 10);
        }
        // 1 used: 2 is now the least recently used.
        assert_eq!(lru.get(&1), Some(&1));
        lru.insert(4, 4, 10);
        assert_eq!(lru.get(&2), None);
        assert_eq!(lru.len(), 3);
        // Re-inserted, 3 is the most recently used: 1 goes next.
        lru.insert(3, 30, 10);
        lru.insert(5, 5, 10);
        assert_eq!(lru.get(&1), None);
        for (key, value) in [(3, 30), (4, 4), (5, 5)] {
            assert_eq!(lru.get(&key), Some(&value));
        }
    }

    #[test]
    fn a_reinsert_counts_the_new_size_only() {
        let mut lru = Lru::new(1_000_000);
        lru.insert(1, 1, 500);
        lru.insert(1, 1, 200);
        assert_eq!(lru.bytes(), Lru::ENTRY + 200);
        assert_eq!(lru.len(), 1);
        assert_eq!(lru.remove(&1), Some((1, 200)));
        assert_eq!((lru.bytes(), lru.len()), (0, 0));
        // Larger than the whole bound: not kept, nothing evicted for it.
        lru.insert(2, 2, 10);
        lru.insert(3, 3, 2_000_000);
        assert_eq!(lru.get(&3), None);
        assert_eq!(lru.len(), 1);
    }
}
