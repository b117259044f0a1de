//! Ctrl+R's reverse search over the history: the query typed, the matches found by
//! scanning only as far as the shown one needs (the history may hold many thousands of
//! entries), Enter taking the match into the draft and Esc leaving it as it was.

use super::{Composer, Search, text_hash};

impl Composer {
    /// Ctrl+R: starts a reverse search, or goes to the next older match.
    pub fn search_older(&mut self) {
        let Some(s) = &self.search else {
            self.search = Some(Search::default());
            self.scan_search(0);
            return;
        };
        let next = s.nth + 1;
        self.scan_search(next);
        if let Some(s) = &mut self.search
            && s.found.len() > next
        {
            s.nth = next;
        }
    }

    /// Scans the history (newest first, from where the last scan stopped) until match
    /// number `want` is found or the history ends.
    pub(super) fn scan_search(&mut self, want: usize) {
        let Some(s) = &mut self.search else { return };
        let q = s.query.to_lowercase();
        let len = self.history.len();
        while s.found.len() <= want && s.scanned < len {
            let pos = s.scanned;
            s.scanned += 1;
            let Some(t) = self.history.get(len - 1 - pos) else {
                break;
            };
            if t.to_lowercase().contains(&q) && s.seen.insert(text_hash(t)) {
                s.found.push(pos);
            }
        }
    }

    /// The running search, if any.
    pub fn search(&self) -> Option<&Search> {
        self.search.as_ref()
    }

    /// The text the search shows now (`None`: nothing matches).
    pub fn search_match(&self) -> Option<&str> {
        let s = self.search.as_ref()?;
        let pos = *s.found.get(s.nth)?;
        self.history.get(self.history.len().checked_sub(1 + pos)?)
    }

    /// Types into the search query (the newest match is shown again).
    pub fn search_type(&mut self, c: char) {
        if let Some(s) = &mut self.search {
            s.query.push(c);
            s.rescan();
        }
        self.scan_search(0);
    }

    /// Deletes the query's last character.
    pub fn search_backspace(&mut self) {
        if let Some(s) = &mut self.search {
            s.query.pop();
            s.rescan();
        }
        self.scan_search(0);
    }

    /// Enter: the shown match replaces the draft (not sent); nothing matched keeps it.
    pub fn search_accept(&mut self) {
        if let Some(m) = self.search_match().map(str::to_string) {
            self.set_text(&m);
            if self.literal.contains(&m) {
                self.mark_literal();
            }
        }
        self.search = None;
    }

    /// Esc: leaves the search; the draft is as it was.
    pub fn search_cancel(&mut self) {
        self.search = None;
    }
}
