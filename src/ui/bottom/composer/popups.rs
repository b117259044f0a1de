//! The composer's popups: the slash popup over the command table (built-in, custom and
//! MCP prompt commands) and the `@` file popup over the workspace's files, with what Tab
//! and Enter complete.

use crate::agent::command_spec::CommandId;

use super::{Composer, SlashCommand};

impl Composer {
    /// Whether the slash popup or the `@` file popup is showing (Tab, Enter, ↑/↓ and Esc
    /// act on it).
    pub fn popup_open(&self) -> bool {
        self.slash_open() || self.mention_open()
    }

    /// Whether the slash popup is showing.
    pub(super) fn slash_open(&self) -> bool {
        !self.popup_closed
            && self.text.starts_with('/')
            && !self.is_literal()
            && !self.text.contains(char::is_whitespace)
            && !self.popup_matches().is_empty()
    }

    /// Hides the popup until the next keystroke.
    pub fn close_popup(&mut self) {
        self.popup_closed = true;
    }

    /// Commands matching the typed name, best first: the exact name (or alias), then
    /// prefixes, then fuzzy matches ([`crate::agent::command_spec::ranked`]).
    pub fn popup_matches(&self) -> Vec<&SlashCommand> {
        crate::agent::command_spec::ranked(self.text.trim_start_matches('/'), &self.custom)
    }

    /// Offers `custom` commands after the built-in ones (what the loop announced).
    pub fn offer_custom_commands(&mut self, custom: Vec<SlashCommand>) {
        self.custom.retain(|c| c.id == CommandId::Prompt);
        self.custom.splice(0..0, custom);
    }

    /// Offers the MCP servers' prompts after the custom commands, replacing the earlier
    /// ones, and their resources for `@NAME:` (what the loop announced).
    pub fn offer_mcp(&mut self, prompts: Vec<SlashCommand>, resources: Vec<String>) {
        self.custom.retain(|c| c.id != CommandId::Prompt);
        self.custom.extend(prompts);
        self.resources = resources;
    }

    /// The custom commands offered (for the key help and the one parse of a line).
    pub fn custom_commands(&self) -> &[SlashCommand] {
        &self.custom
    }

    /// The highlighted popup command, if the popup is open.
    pub fn popup_highlighted(&self) -> Option<&SlashCommand> {
        if !self.slash_open() {
            return None;
        }
        let matches = self.popup_matches();
        matches
            .get(self.popup_sel.min(matches.len().saturating_sub(1)))
            .copied()
    }

    /// The command whose arguments are being typed (`/tool en…`), for the inline usage.
    pub fn command_being_typed(&self) -> Option<&SlashCommand> {
        if self.is_literal() {
            return None;
        }
        let (name, _) = self.text.split_once(' ')?;
        crate::agent::command_spec::find(name, &self.custom).filter(|c| c.usage_key.is_some())
    }

    /// The selected popup row.
    pub fn popup_selected(&self) -> usize {
        self.popup_sel
    }

    /// Completes the highlighted command's name (with a space after it when it takes
    /// arguments) and returns it.
    pub fn complete(&mut self) -> Option<SlashCommand> {
        if self.mention_open() {
            self.complete_mention();
            return None;
        }
        let matches = self.popup_matches();
        let cmd = (*matches.get(self.popup_sel.min(matches.len().saturating_sub(1)))?).clone();
        let name = match cmd.complete_with_args {
            true => format!("{} ", cmd.name),
            false => cmd.name.to_string(),
        };
        self.replace_all(&name, false);
        self.popup_sel = 0;
        Some(cmd)
    }

    /// Gives the composer the workspace files the `@` popup offers.
    pub fn set_files(&mut self, files: crate::ui::mention::FileIndex) {
        self.files = files;
        self.mention_memo.replace(None);
    }

    /// Whether the workspace walk for the `@` popup is still running.
    pub fn files_loading(&self) -> bool {
        self.files.loading()
    }

    /// The `@word` the caret ends: its byte start (at the `@`) and what follows the `@`.
    /// An `@` counts at the start of the text or after whitespace.
    pub(super) fn mention_query(&self) -> Option<(usize, &str)> {
        let before = &self.text[..self.caret];
        let start = before.rfind(char::is_whitespace).map_or(0, |i| {
            i + before[i..].chars().next().map_or(1, char::len_utf8)
        });
        let word = &before[start..];
        let after_ok = self.text[self.caret..]
            .chars()
            .next()
            .is_none_or(char::is_whitespace);
        (after_ok && !self.text.starts_with('/'))
            .then_some(())
            .and(word.strip_prefix('@'))
            .map(|q| (start, q))
    }

    /// Whether the `@` file popup is showing.
    pub fn mention_open(&self) -> bool {
        !self.popup_closed && !self.mention_matches().is_empty()
    }

    /// The workspace files matching what is typed after `@`, best first.
    pub fn mention_matches(&self) -> Vec<&str> {
        match self.mention_query() {
            Some((_, q)) => {
                if let Some(hits) = crate::ui::mention::rank_resources(&self.resources, q) {
                    return hits;
                }
                let files = self.files.files();
                let mut memo = self.mention_memo.borrow_mut();
                let fresh = memo
                    .as_ref()
                    .is_some_and(|(mq, n, _)| mq == q && *n == files.len());
                if !fresh {
                    let idx = crate::ui::mention::rank_indices(
                        files,
                        q,
                        crate::ui::mention::MENTION_ROWS,
                    );
                    *memo = Some((q.to_string(), files.len(), idx));
                }
                let idx = memo.as_ref().map(|m| m.2.clone()).unwrap_or_default();
                idx.into_iter().map(|i| files[i].as_str()).collect()
            }
            None => Vec::new(),
        }
    }

    /// Replaces the `@word` with the highlighted file (`@src/main.rs `).
    pub fn complete_mention(&mut self) {
        let Some((start, _)) = self.mention_query() else {
            return;
        };
        let matches = self.mention_matches();
        let Some(path) = matches
            .get(self.popup_sel.min(matches.len().saturating_sub(1)))
            .map(|p| p.to_string())
        else {
            return;
        };
        let with = format!("@{path} ");
        self.splice(start..self.caret, &with, false);
        self.caret = start + with.len();
        self.popup_sel = 0;
    }
}
