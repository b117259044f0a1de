//! The composer: a multi-line editor with history, paste placeholders and a slash popup.
//!
//! Pure state; the caret is a byte index into `text`, always between grapheme clusters:
//! moving and deleting go by cluster, so an emoji sequence, a flag or a combining mark is
//! never split. Layout wraps at word boundaries (the breaks of [`wrap_line`]) and measures
//! by display width, so CJK text, emoji and the caret column agree with the terminal.
//!
//! The readline keys (Ctrl+A/E, Alt+B/F, Ctrl+W, Ctrl+K/U/Y…) live in `edit.rs`, Ctrl+R's
//! search in `search.rs`, the slash and `@` popups in `popups.rs`. Every
//! byte of the text remembers whether it was pasted: a draft whose first character came
//! from a paste is a message even when it starts with `/` (§14.5; decision 0036).
//!
//! [`wrap_line`]: crate::ui::text::wrap_line

mod edit;
mod history;
mod popups;
mod readline;
mod search;

use std::collections::HashSet;
use std::ops::Range;

use crate::i18n::{Arg, Localizer};

use unicode_segmentation::UnicodeSegmentation;

use crate::ui::text::{grapheme_width, str_width, wrap_ranges};
use readline::{next_boundary, prev_boundary};

/// Pastes longer than this many characters become a placeholder.
pub const PASTE_CHAR_LIMIT: usize = 1000;
/// Pastes with more than this many lines become a placeholder.
pub const PASTE_LINE_LIMIT: usize = 10;

/// A slash command offered by the popup: an entry of the one command table.
pub use crate::agent::command_spec::CommandSpec as SlashCommand;

pub use crate::ui::text::fuzzy_match;

/// Composer state.
#[derive(Debug, Default, Clone)]
pub struct Composer {
    text: String,
    /// Per byte of `text`: whether it came from a paste (kept in step by [`Self::splice`]).
    pasted: Vec<bool>,
    /// Bumped by every change of the text (a kill right after a kill extends it).
    rev: u64,
    caret: usize,
    pastes: Vec<(String, String)>,
    /// This session's prompts and, behind them, other sessions'.
    history: history::History,
    /// History texts that start with `/` but were sent as messages (a paste, or a
    /// message of an earlier session): recalled, they are messages again.
    literal: HashSet<String>,
    hist_idx: Option<usize>,
    /// The draft (and which bytes were pasted) while ↑ browses the history.
    draft: (String, Vec<bool>),
    /// The last killed text, for Ctrl+Y.
    kill: Killed,
    /// `(rev, caret)` right after the last kill: a kill from exactly there adds to it.
    kill_mark: Option<(u64, usize)>,
    /// The draft Ctrl+C cleared: ↑ on the empty composer brings it back before history.
    stash: Option<Draft>,
    /// The draft last sent, to put a cancelled prompt back with its paste placeholders.
    last_sent: Option<Draft>,
    popup_sel: usize,
    popup_closed: bool,
    /// The custom commands the loop read (SPEC §14.4), then the MCP servers' prompts
    /// (§15.2), offered after the built-in table.
    custom: Vec<SlashCommand>,
    /// `NAME:URI` of the MCP servers' resources, what `@NAME:` completes to (§15.2).
    resources: Vec<String>,
    search: Option<Search>,
    files: crate::ui::mention::FileIndex,
    /// The last `@` query ranked, the file count it saw, and its result: the popup asks
    /// several times per key and frame, and a walk holds up to 20,000 files.
    mention_memo: std::cell::RefCell<Option<(String, usize, Vec<usize>)>>,
}

/// Killed text: its bytes' paste marks and the pastes its placeholders stand for, so a
/// yank, even into a later draft, sends what was pasted.
#[derive(Debug, Default, Clone)]
struct Killed {
    text: String,
    pasted: Vec<bool>,
    pastes: Vec<(String, String)>,
}

/// A whole draft kept aside: text, paste marks and placeholders.
#[derive(Debug, Default, Clone)]
struct Draft {
    text: String,
    pasted: Vec<bool>,
    pastes: Vec<(String, String)>,
}

/// A running Ctrl+R reverse search: the query and which match (0 = the
/// newest) is shown. The composer text is left alone until Enter takes the match.
#[derive(Debug, Default, Clone, PartialEq)]
pub struct Search {
    /// What was typed.
    pub query: String,
    /// Which match is shown, newest first.
    pub nth: usize,
    /// The distinct matches found so far, as positions in the history newest first. The
    /// history is scanned only as far as the shown match needs, when the query, the
    /// match asked for or the history changes, never per frame (the
    /// history may hold many thousands of entries).
    found: Vec<usize>,
    /// How many entries, newest first, were scanned for `found`.
    scanned: usize,
    /// Hashes of the texts in `found` (a repeated text is one match).
    seen: std::collections::HashSet<u64>,
}

impl Search {
    /// Forgets the matches (the query or the history's order changed).
    fn rescan(&mut self) {
        self.nth = 0;
        self.found.clear();
        self.scanned = 0;
        self.seen.clear();
    }
}

/// The composer laid out at a width: visual rows and the caret's (row, column).
#[derive(Debug, Clone, PartialEq)]
pub struct ComposerLayout {
    /// Visual rows.
    pub rows: Vec<String>,
    /// Caret row.
    pub caret_row: usize,
    /// Caret column (display width).
    pub caret_col: usize,
}

impl Composer {
    /// An empty composer.
    pub fn new() -> Self {
        Self::default()
    }

    /// The visible text (with paste placeholders).
    pub fn text(&self) -> &str {
        &self.text
    }

    /// Whether nothing is typed.
    pub fn is_empty(&self) -> bool {
        self.text.is_empty()
    }

    /// Caret byte offset.
    pub fn caret(&self) -> usize {
        self.caret
    }

    /// Clears text and pastes (history is kept).
    pub fn clear(&mut self) {
        self.text.clear();
        self.pasted.clear();
        self.rev += 1;
        self.caret = 0;
        self.pastes.clear();
        self.hist_idx = None;
        self.popup_sel = 0;
        self.popup_closed = false;
    }

    /// Replaces `range` of the text with `s`, whose bytes are marked `pasted`: every
    /// change of the text goes through here (or [`Self::splice_flags`]), so the paste
    /// marks stay in step with the bytes.
    fn splice(&mut self, range: Range<usize>, s: &str, pasted: bool) {
        self.splice_flags(range, s, std::iter::repeat_n(pasted, s.len()));
    }

    /// [`Self::splice`] with a paste mark per inserted byte.
    fn splice_flags(&mut self, range: Range<usize>, s: &str, flags: impl Iterator<Item = bool>) {
        self.text.replace_range(range.clone(), s);
        self.pasted.splice(range, flags);
        debug_assert_eq!(self.text.len(), self.pasted.len());
        self.rev += 1;
    }

    /// Replaces the whole text (the caret goes to the end).
    fn replace_all(&mut self, s: &str, pasted: bool) {
        self.splice(0..self.text.len(), s, pasted);
        self.caret = self.text.len();
    }

    /// Inserts text at the caret, its bytes marked `pasted`.
    fn insert_marked(&mut self, s: &str, pasted: bool) {
        self.splice(self.caret..self.caret, s, pasted);
        self.caret += s.len();
        self.popup_sel = 0;
    }

    /// Inserts one typed character.
    pub fn insert_char(&mut self, c: char) {
        self.insert_marked(c.encode_utf8(&mut [0; 4]), false);
        self.popup_closed = false;
    }

    /// Inserts typed text at the caret.
    pub fn insert_str(&mut self, s: &str) {
        self.insert_marked(s, false);
    }

    /// Whether the draft is a message even if it starts with `/`: its first non-blank
    /// character came from a paste (a stack trace `/usr/lib/…` is never a command). A
    /// `/` typed before pasted arguments (`/model ` + a pasted route) stays a command.
    pub fn is_literal(&self) -> bool {
        let lead = self.text.len() - self.text.trim_start().len();
        self.pasted.get(lead).copied().unwrap_or(false)
    }

    /// Inserts a newline.
    pub fn newline(&mut self) {
        self.insert_char('\n');
    }

    /// A bracketed paste: CR becomes LF; large pastes show as `[Pasted N lines]` and are
    /// substituted in full on submit.
    pub fn paste(&mut self, s: &str, l: Localizer) {
        let s = s.replace("\r\n", "\n").replace('\r', "\n");
        let lines = s.lines().count().max(1);
        if s.chars().count() > PASTE_CHAR_LIMIT || lines > PASTE_LINE_LIMIT {
            let mut ph = l.tra("tui-paste-placeholder", &[("lines", Arg::from(lines))]);
            let n = self
                .pastes
                .iter()
                .filter(|(p, _)| p.starts_with(&ph[..ph.len() - 1]))
                .count();
            if n > 0 {
                ph = format!("{} #{}]", &ph[..ph.len() - 1], n + 1);
            }
            self.insert_marked(&ph, true);
            self.pastes.push((ph, s));
        } else {
            self.insert_marked(&s, true);
        }
    }

    /// Deletes the grapheme cluster before the caret; a paste placeholder goes as one unit.
    pub fn backspace(&mut self) {
        if self.caret == 0 {
            return;
        }
        let before = &self.text[..self.caret];
        if let Some(i) = self
            .pastes
            .iter()
            .position(|(p, _)| before.ends_with(p.as_str()))
        {
            let len = self.pastes[i].0.len();
            self.splice(self.caret - len..self.caret, "", false);
            self.caret -= len;
            self.pastes.remove(i);
            return;
        }
        let prev = prev_boundary(&self.text, self.caret);
        self.splice(prev..self.caret, "", false);
        self.caret = prev;
        self.popup_sel = 0;
    }

    /// Deletes the grapheme cluster after the caret.
    pub fn delete(&mut self) {
        if self.caret < self.text.len() {
            let next = next_boundary(&self.text, self.caret);
            self.splice(self.caret..next, "", false);
        }
    }

    /// Moves the caret left one grapheme cluster.
    pub fn left(&mut self) {
        self.caret = prev_boundary(&self.text, self.caret);
    }

    /// Moves the caret right one grapheme cluster.
    pub fn right(&mut self) {
        self.caret = next_boundary(&self.text, self.caret);
    }

    /// Home / Ctrl+A: the start of the current logical line (a wrapped line is one
    /// line); pressed there, the start of the draft.
    pub fn home(&mut self) {
        self.caret = readline::home(&self.text, self.caret);
    }

    /// End / Ctrl+E: the end of the current logical line; pressed there, the end of the
    /// draft.
    pub fn end(&mut self) {
        self.caret = readline::end(&self.text, self.caret);
    }

    fn on_first_line(&self) -> bool {
        !self.text[..self.caret].contains('\n')
    }

    fn on_last_line(&self) -> bool {
        !self.text[self.caret..].contains('\n')
    }

    /// ↑: previous history entry when on the first line, else the line above.
    pub fn up(&mut self) {
        if self.popup_open() {
            self.popup_sel = self.popup_sel.saturating_sub(1);
            return;
        }
        if self.text.is_empty() && self.hist_idx.is_none() && self.unstash() {
            return;
        }
        if self.on_first_line() {
            self.history_prev();
        } else {
            self.vertical(-1);
        }
    }

    /// ↓: next history entry when on the last line, else the line below.
    pub fn down(&mut self) {
        if self.popup_open() {
            let n = match self.mention_open() {
                true => self.mention_matches().len(),
                false => self.popup_matches().len(),
            };
            if self.popup_sel + 1 < n {
                self.popup_sel += 1;
            }
            return;
        }
        if self.on_last_line() {
            self.history_next();
        } else {
            self.vertical(1);
        }
    }

    fn vertical(&mut self, dir: i32) {
        let line_start = self.text[..self.caret].rfind('\n').map_or(0, |i| i + 1);
        let col = str_width(&self.text[line_start..self.caret]);
        let target_start = if dir < 0 {
            let prev_end = line_start - 1;
            self.text[..prev_end].rfind('\n').map_or(0, |i| i + 1)
        } else {
            match self.text[self.caret..].find('\n') {
                Some(i) => self.caret + i + 1,
                None => return,
            }
        };
        let target_end = self.text[target_start..]
            .find('\n')
            .map_or(self.text.len(), |i| target_start + i);
        let mut pos = target_start;
        let mut w = 0;
        for g in self.text[target_start..target_end].graphemes(true) {
            let gw = grapheme_width(g);
            if w + gw > col {
                break;
            }
            w += gw;
            pos += g.len();
        }
        self.caret = pos;
    }

    fn history_prev(&mut self) {
        if self.history.is_empty() {
            return;
        }
        let idx = match self.hist_idx {
            None => {
                self.draft = (self.text.clone(), self.pasted.clone());
                self.history.len() - 1
            }
            Some(0) => return,
            Some(i) => i - 1,
        };
        self.hist_idx = Some(idx);
        self.show_history(idx);
    }

    /// Shows history entry `idx` (a message that starts with `/` stays a message).
    fn show_history(&mut self, idx: usize) {
        let Some(text) = self.history.get(idx).map(str::to_string) else {
            return;
        };
        let literal = self.literal.contains(&text);
        self.replace_all(&text, literal);
    }

    fn history_next(&mut self) {
        let Some(i) = self.hist_idx else { return };
        if i + 1 < self.history.len() {
            self.hist_idx = Some(i + 1);
            self.show_history(i + 1);
        } else {
            self.hist_idx = None;
            let (text, pasted) = std::mem::take(&mut self.draft);
            self.splice_flags(0..self.text.len(), &text, pasted.into_iter());
            self.caret = self.text.len();
        }
    }

    /// Takes the text for sending (placeholders replaced by the full pastes), records it in
    /// history and clears. `None` when only whitespace is typed.
    pub fn submit(&mut self) -> Option<String> {
        if self.text.trim().is_empty() {
            return None;
        }
        let shown = self.text.clone();
        let full = self.expanded_text();
        if shown.trim_start().starts_with('/') {
            if self.is_literal() {
                self.literal.insert(shown.clone());
            } else {
                self.literal.remove(&shown);
            }
        }
        self.last_sent = Some(self.snapshot());
        self.stash = None;
        self.history.push(shown);
        // A new newest entry moves every position: a running search starts over.
        if self.search.as_mut().map(Search::rescan).is_some() {
            self.scan_search(0);
        }
        self.clear();
        Some(full)
    }

    /// Adds older messages (other sessions, newest first) before the history of this
    /// session; texts already present are skipped. ↑ reaches them after this session's.
    pub fn add_older_history(&mut self, newest_first: Vec<String>) {
        if newest_first.is_empty() {
            return;
        }
        // A batch costs what it holds: the history reader hands thousands of entries in
        // batches, and the frame that takes one must not wait.
        let literal = &mut self.literal;
        let added = self.history.add_older(newest_first, |t| {
            // A user message of an earlier session is a message, even with a `/`.
            if t.trim_start().starts_with('/') {
                literal.insert(t.to_string());
            }
        });
        // An entry being browsed keeps being the same entry.
        self.hist_idx = self.hist_idx.map(|i| i + added);
        // Older entries go behind the ones scanned: a search still without its match
        // goes on into them (the matches found keep their positions).
        let nth = self.search.as_ref().map(|s| s.nth);
        if let Some(nth) = nth {
            self.scan_search(nth);
        }
    }

    /// The history, newest first.
    pub fn history_newest_first(&self) -> Vec<&str> {
        self.history.newest_first().collect()
    }

    /// The text with paste placeholders replaced by the pasted content.
    pub fn expanded_text(&self) -> String {
        let mut full = self.text.clone();
        for (ph, content) in &self.pastes {
            full = full.replacen(ph.as_str(), content, 1);
        }
        full
    }

    /// Replaces the whole text, as typed (caret at the end, no paste placeholders).
    pub fn set_text(&mut self, text: &str) {
        self.clear();
        self.replace_all(text, false);
    }

    /// Marks the whole draft as pasted: it is sent as a message even if it starts with
    /// `/` (a recalled message, or a message edited in the external editor).
    pub fn mark_literal(&mut self) {
        self.pasted.iter_mut().for_each(|p| *p = true);
    }

    /// Lays the text out at `width` columns: each line wraps at word boundaries (long
    /// words hard-break), spaces at a break are not shown, and the caret column is the
    /// display width before it on its row.
    pub fn layout(&self, width: usize) -> ComposerLayout {
        let width = width.max(2);
        let mut rows = Vec::new();
        let (mut caret_row, mut caret_col) = (0, 0);
        let mut line_start = 0;
        for line in self.text.split('\n') {
            let ranges = wrap_ranges(line, width);
            let first_row = rows.len();
            rows.extend(ranges.iter().map(|r| line[r.clone()].to_string()));
            let line_end = line_start + line.len();
            if (line_start..=line_end).contains(&self.caret) {
                let c = self.caret - line_start;
                let ri = ranges.iter().rposition(|r| r.start <= c).unwrap_or(0);
                let start = ranges.get(ri).map_or(0, |r| r.start);
                caret_row = first_row + ri;
                // Before the first row's start only when leading spaces were dropped.
                caret_col = line.get(start..c).map_or(0, str_width);
                if caret_col >= width {
                    if self.caret == self.text.len() && ri + 1 == ranges.len() {
                        // Typing at the very end continues on a fresh row.
                        rows.push(String::new());
                        (caret_row, caret_col) = (rows.len() - 1, 0);
                    } else {
                        caret_col = width;
                    }
                }
            }
            line_start = line_end + 1;
        }
        ComposerLayout {
            rows,
            caret_row,
            caret_col,
        }
    }
}

#[cfg(test)]
mod tests;

#[cfg(test)]
mod readline_tests;

/// A text's hash, for telling repeated texts apart without keeping copies.
fn text_hash(t: &str) -> u64 {
    use std::hash::{Hash, Hasher};
    let mut h = std::collections::hash_map::DefaultHasher::new();
    t.hash(&mut h);
    h.finish()
}
