//! The composer's message history: this session's prompts and, behind them, the older ones
//! the history reader hands over in batches (decision 0101). A batch costs what it holds:
//! it is appended to the older entries (kept newest first) and checked against kept hash
//! sets, so neither the whole history nor this session's prompts are walked again.

use std::collections::HashSet;
use std::hash::{Hash, Hasher};

/// The history, addressed oldest first (index 0 is the oldest entry; ↑ walks down from
/// the last).
#[derive(Debug, Default, Clone)]
pub(super) struct History {
    /// Entries of other sessions, newest first: a batch (older than every earlier one)
    /// goes at the end.
    older: Vec<String>,
    /// Hashes of `older`'s texts: a batch is checked against them.
    older_hashes: HashSet<u64>,
    /// This session's entries, oldest first.
    own: Vec<String>,
    /// Hashes of `own`'s texts, kept as they are sent.
    own_hashes: HashSet<u64>,
    /// Texts hashed so far (tests check that a batch costs its own entries only).
    #[cfg(test)]
    pub(super) hashed: usize,
}

impl History {
    /// Number of entries.
    pub(super) fn len(&self) -> usize {
        self.older.len() + self.own.len()
    }

    /// Whether there is no entry.
    pub(super) fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Entry `idx`, oldest first.
    pub(super) fn get(&self, idx: usize) -> Option<&str> {
        let n = self.older.len();
        if idx < n {
            self.older.get(n - 1 - idx).map(String::as_str)
        } else {
            self.own.get(idx - n).map(String::as_str)
        }
    }

    /// Records a text sent in this session, unless it repeats the newest entry.
    pub(super) fn push(&mut self, text: String) {
        let newest = self.own.last().or(self.older.first());
        if newest != Some(&text) {
            let h = self.hash(&text);
            self.own_hashes.insert(h);
            self.own.push(text);
        }
    }

    /// Adds a batch of older entries (newest first) behind everything held; a text this
    /// session sent or an earlier batch held is skipped. Calls `added` with each entry
    /// taken; returns how many were.
    pub(super) fn add_older(
        &mut self,
        newest_first: Vec<String>,
        mut added: impl FnMut(&str),
    ) -> usize {
        let before = self.older.len();
        for t in newest_first {
            let h = self.hash(&t);
            if !self.own_hashes.contains(&h) && self.older_hashes.insert(h) {
                added(&t);
                self.older.push(t);
            }
        }
        self.older.len() - before
    }

    /// The entries, newest first.
    pub(super) fn newest_first(&self) -> impl Iterator<Item = &str> {
        self.own.iter().rev().chain(&self.older).map(String::as_str)
    }

    fn hash(&mut self, t: &str) -> u64 {
        #[cfg(test)]
        {
            self.hashed += 1;
        }
        let mut h = std::collections::hash_map::DefaultHasher::new();
        t.hash(&mut h);
        h.finish()
    }
}
