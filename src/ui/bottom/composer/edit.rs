//! The composer's readline keys (§14.5): word motion, kills into one kill buffer, yank,
//! and the drafts kept aside (Ctrl+C's, for ↑; the last one sent, for a cancelled prompt).
//! Where each key moves to is in [`super::readline`]; here the edits keep paste
//! placeholders whole and the paste marks of the bytes they move.
//! (Decision note: docs/decisions/0036-readline-composer.md.)

use std::ops::Range;

use super::readline;
use super::{Composer, Draft, Killed};

impl Composer {
    /// The byte ranges of the paste placeholders in the text, each with its entry in
    /// `pastes` (the n-th entry of a placeholder text is its n-th occurrence, as
    /// [`Composer::expanded_text`] replaces them in order).
    fn placeholder_spans(&self) -> Vec<(Range<usize>, usize)> {
        let mut out = Vec::new();
        for (k, (ph, _)) in self.pastes.iter().enumerate() {
            let nth = self.pastes[..k].iter().filter(|(p, _)| p == ph).count();
            if let Some((at, _)) = self.text.match_indices(ph.as_str()).nth(nth) {
                out.push((at..at + ph.len(), k));
            }
        }
        out
    }

    /// `range` grown to cover every placeholder it touches: a kill never cuts one in half.
    fn widen(&self, mut range: Range<usize>) -> Range<usize> {
        for (span, _) in self.placeholder_spans() {
            if span.start < range.end && range.start < span.end {
                range = range.start.min(span.start)..range.end.max(span.end);
            }
        }
        range
    }

    /// A motion's target moved out of a placeholder: to its start going back
    /// (`back`), to its end going forward.
    fn outside_placeholder(&self, i: usize, back: bool) -> usize {
        self.placeholder_spans()
            .into_iter()
            .find(|(s, _)| s.start < i && i < s.end)
            .map_or(i, |(s, _)| if back { s.start } else { s.end })
    }

    /// Alt+B / Ctrl+←: to the start of the word before the caret.
    pub fn word_left(&mut self) {
        let to = readline::word_start_before(&self.text, self.caret);
        self.caret = self.outside_placeholder(to, true);
    }

    /// Alt+F / Ctrl+→: to the end of the word after the caret.
    pub fn word_right(&mut self) {
        let to = readline::word_end_after(&self.text, self.caret);
        self.caret = self.outside_placeholder(to, false);
    }

    /// Ctrl+W: deletes back to the previous blank (the text goes to the kill buffer).
    pub fn kill_blank_word_back(&mut self) {
        let from = readline::blank_word_start_before(&self.text, self.caret);
        self.kill(from..self.caret, false);
    }

    /// Alt+Backspace: deletes back to the start of the word (as Alt+B moves).
    pub fn kill_word_back(&mut self) {
        let from = readline::word_start_before(&self.text, self.caret);
        self.kill(from..self.caret, false);
    }

    /// Ctrl+K: deletes to the end of the line (at its end, the line break).
    pub fn kill_to_end(&mut self) {
        let r = readline::kill_to_end(&self.text, self.caret);
        self.kill(r, true);
    }

    /// Ctrl+U: deletes to the start of the line (at its start, the line break before).
    pub fn kill_to_start(&mut self) {
        let r = readline::kill_to_start(&self.text, self.caret);
        self.kill(r, false);
    }

    /// Removes `range` (widened to whole placeholders) into the kill buffer. A kill
    /// right after a kill, from where it left the caret, adds to the buffer (forward
    /// kills at its end, backward ones at its start), so Ctrl+Y brings the run back.
    fn kill(&mut self, range: Range<usize>, forward: bool) {
        let range = self.widen(range);
        if range.is_empty() {
            return;
        }
        let mut taken: Vec<usize> = self
            .placeholder_spans()
            .into_iter()
            .filter(|(s, _)| range.start <= s.start && s.end <= range.end)
            .map(|(_, k)| k)
            .collect();
        taken.sort_unstable();
        let mut pastes = Vec::new();
        for k in taken.into_iter().rev() {
            pastes.insert(0, self.pastes.remove(k));
        }
        let text = self.text[range.clone()].to_string();
        let pasted = self.pasted[range.clone()].to_vec();
        let k = &mut self.kill;
        if self.kill_mark == Some((self.rev, self.caret)) {
            if forward {
                k.text.push_str(&text);
                k.pasted.extend(pasted);
                k.pastes.extend(pastes);
            } else {
                k.text.insert_str(0, &text);
                k.pasted.splice(0..0, pasted);
                k.pastes.splice(0..0, pastes);
            }
        } else {
            *k = Killed {
                text,
                pasted,
                pastes,
            };
        }
        self.splice(range.clone(), "", false);
        self.caret = range.start;
        self.kill_mark = Some((self.rev, self.caret));
        self.popup_sel = 0;
    }

    /// Ctrl+Y: inserts the last killed text at the caret (nothing when none was killed).
    pub fn yank(&mut self) {
        if self.kill.text.is_empty() {
            return;
        }
        let Killed {
            text,
            pasted,
            pastes,
        } = self.kill.clone();
        self.splice_flags(self.caret..self.caret, &text, pasted.into_iter());
        self.caret += text.len();
        self.pastes.extend(pastes);
        self.popup_sel = 0;
        self.popup_closed = false;
    }

    /// The draft as it is, to keep aside.
    pub(super) fn snapshot(&self) -> Draft {
        Draft {
            text: self.text.clone(),
            pasted: self.pasted.clone(),
            pastes: self.pastes.clone(),
        }
    }

    /// Puts a kept draft back (caret at its end).
    fn restore(&mut self, d: Draft) {
        self.clear();
        self.splice_flags(0..0, &d.text, d.pasted.into_iter());
        self.pastes = d.pastes;
        self.caret = self.text.len();
    }

    /// Ctrl+C on a draft: clears it, keeping it for ↑ on the empty composer.
    pub fn clear_to_stash(&mut self) {
        if !self.text.is_empty() {
            self.stash = Some(self.snapshot());
        }
        self.clear();
    }

    /// ↑ on the empty composer: the draft Ctrl+C cleared comes back (once).
    pub(super) fn unstash(&mut self) -> bool {
        match self.stash.take() {
            Some(d) => {
                self.restore(d);
                true
            }
            None => false,
        }
    }

    /// A prompt cancelled before any reply comes back into the empty composer: the draft
    /// last sent when it is that prompt (placeholders and all), else `text` itself (a
    /// message even if it starts with `/`). A draft being typed is never replaced; the
    /// prompt is then the newest history entry (↑). Returns whether it came back.
    pub fn restore_prompt(&mut self, text: &str) -> bool {
        if !self.text.is_empty() || self.search.is_some() || text.trim().is_empty() {
            return false;
        }
        let sent = self.last_sent.clone().filter(|d| {
            let mut full = d.text.clone();
            for (ph, content) in &d.pastes {
                full = full.replacen(ph.as_str(), content, 1);
            }
            full == text
        });
        match sent {
            Some(d) => self.restore(d),
            None => {
                self.set_text(text);
                self.mark_literal();
            }
        }
        true
    }
}
