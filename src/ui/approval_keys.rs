//! Why an approval card asks and what `a` does on it (SPEC §15.5, decision 0116), and
//! the keys line built from them: one function, so the card and the key bar say the same.
//! A subagent's question names it by id and task (SPEC §15.3, decision 0179).

use ratatui::text::Line;

use crate::i18n::Arg;

/// Why a call asks and what `a` does on its card (SPEC §15.5): rendered in the
/// interface language when drawn, the same on the card and in the key bar.
#[derive(Debug, Clone, PartialEq)]
pub struct AskInfo {
    /// Why it asks.
    pub why: crate::i18n::Text,
    /// What `a` does; `None` when the card offers no "always".
    pub always: Option<crate::i18n::Text>,
}

/// The keys of a card, the same on the card and in the key bar: `a` says exactly what it
/// allows, or is left out when the card offers no "always" (SPEC §15.5).
pub fn keys_text(l: crate::i18n::Localizer, ask: Option<&AskInfo>) -> String {
    match ask {
        None => l.tr("tui-approval-prompt"),
        Some(a) => match &a.always {
            Some(always) => l.tra(
                "tui-approval-prompt-always",
                &[("always", Arg::from(l.text(always)))],
            ),
            None => l.tr("tui-approval-prompt-once"),
        },
    }
}

/// `text` wrapped to `width` columns.
pub fn key_rows(text: &str, width: usize) -> Vec<String> {
    crate::ui::text::wrap_line(&Line::from(text.to_string()), width.max(1), 0)
        .into_iter()
        .map(|line| line.spans.iter().map(|s| s.content.as_ref()).collect())
        .collect()
}

/// The subagent a question is for: its id and its `task` description (sanitized).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Asker {
    /// `a1`.
    pub agent: String,
    /// What the parent asked it to do, in a few words.
    pub description: String,
}

/// The question's title: "Allow TOOL?", naming the subagent whose call it is (SPEC §15.3).
pub fn approval_title(l: crate::i18n::Localizer, tool: &str, asker: Option<&Asker>) -> String {
    match asker {
        Some(a) => l.tra(
            "tui-approval-title-subagent",
            &[
                ("tool", tool.into()),
                ("agent", Arg::from(a.agent.clone())),
                ("description", Arg::from(a.description.clone())),
            ],
        ),
        None => l.tra("tui-approval-title", &[("tool", tool.into())]),
    }
}
