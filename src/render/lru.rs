//! A small map of pictures and their parts, bounded in bytes, that drops the
//! least recently used entry first.

use std::collections::{HashMap, VecDeque};

/// A key: a SHA-256 and a number (a picture's size in pixels).
pub(crate) type Key = ([u8; 32], u32);

/// The key of `bytes` (an SVG, a part's description) and `n`.
pub(crate) fn key_of(bytes: &[u8], n: u32) -> Key {
    let digest = ring::digest::digest(&ring::digest::SHA256, bytes);
    let mut hash = [0u8; 32];
    hash.copy_from_slice(digest.as_ref());
    (hash, n)
}

/// Values by key with their sizes, least recently used first in `order`.
pub(crate) struct Lru<V> {
    map: HashMap<Key, (V, usize)>,
    order: VecDeque<Key>,
    bytes: usize,
    budget: usize,
}

impl<V: Clone> Lru<V> {
    /// An empty map that keeps at most `budget` bytes.
    pub(crate) fn new(budget: usize) -> Lru<V> {
        Lru { map: HashMap::new(), order: VecDeque::new(), bytes: 0, budget }
    }

    /// The value of `key`, now the most recently used.
    pub(crate) fn get(&mut self, key: &Key) -> Option<V> {
        let value = self.map.get(key)?.0.clone();
        // The map holds a few dozen entries: a linear move to the back is cheap.
        if let Some(at) = self.order.iter().position(|k| k == key) {
            self.order.remove(at);
        }
        self.order.push_back(*key);
        Some(value)
    }

    /// Keeps `value` of `bytes` bytes, dropping the least recently used entries
    /// beyond the budget. A value that would take more than a quarter of the
    /// budget is not kept.
    pub(crate) fn insert(&mut self, key: Key, value: V, bytes: usize) {
        if bytes > self.budget / 4 || self.map.contains_key(&key) {
            return;
        }
        self.bytes += bytes;
        self.map.insert(key, (value, bytes));
        self.order.push_back(key);
        while self.bytes > self.budget {
            let Some(old) = self.order.pop_front() else { break };
            if let Some((_, gone)) = self.map.remove(&old) {
                self.bytes -= gone;
            }
        }
    }

    /// How many entries are kept.
    pub(crate) fn len(&self) -> usize {
        self.map.len()
    }

    /// How many bytes are kept.
    pub(crate) fn bytes(&self) -> usize {
        self.bytes
    }

    /// The keys, least recently used first.
    #[cfg(test)]
    pub(crate) fn keys(&self) -> impl Iterator<Item = &Key> {
        self.order.iter()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_budget_is_kept_by_dropping_the_least_recently_used() {
        let mut lru = Lru::new(100);
        for n in 0..4 {
            lru.insert(key_of(b"x", n), n, 25);
        }
        assert_eq!((lru.len(), lru.bytes()), (4, 100));
        assert_eq!(lru.get(&key_of(b"x", 0)), Some(0), "0 is now the most recently used");
        lru.insert(key_of(b"x", 4), 4, 25);
        assert_eq!(lru.get(&key_of(b"x", 1)), None, "1 was the least recently used");
        assert_eq!(lru.get(&key_of(b"x", 0)), Some(0));
        lru.insert(key_of(b"big", 0), 9, 26);
        assert_eq!(lru.get(&key_of(b"big", 0)), None, "more than a quarter of the budget is not kept");
        assert!(lru.bytes() <= 100);
    }
}
