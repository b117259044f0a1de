//! Developer tool-change messages as context nodes (reference U-1…U-4).
//!
//! The node keeps the message's blocks; titles, summaries and the expanded name lists are
//! rendered at draw time with the current [`Localizer`], so a language switch re-renders
//! history.

use crate::i18n::{Arg, Localizer};
use crate::session::event::{Block, Message};

/// What a developer message changes, derived from its blocks.
#[derive(Debug, Clone, PartialEq)]
pub enum ContextKind {
    /// Every block is a tool addition or removal (U-2 "tool mode").
    Tools {
        /// Added tool names, in block order.
        added: Vec<String>,
        /// Removed tool names, in block order.
        removed: Vec<String>,
    },
    /// Anything else: a generic "Context injection" node with its text and producer label.
    Generic {
        /// The message's text.
        text: String,
        /// The producer (`source.kind`).
        producer: String,
    },
}

impl ContextKind {
    /// Classifies a developer message (U-2).
    pub fn from_message(m: &Message) -> ContextKind {
        let tool_mode = !m.content.is_empty() && m.content.iter().all(Block::is_tool_change);
        if tool_mode {
            let mut added = Vec::new();
            let mut removed = Vec::new();
            for b in &m.content {
                match b {
                    Block::ToolAddition { tool_name, .. } => added.push(tool_name.clone()),
                    Block::ToolRemoval { tool_name } => removed.push(tool_name.clone()),
                    _ => {}
                }
            }
            ContextKind::Tools { added, removed }
        } else {
            ContextKind::Generic {
                text: m.joined_text(),
                producer: m.source.kind.clone(),
            }
        }
    }

    /// Whether the node has content to expand (a single tool change does not, U-2).
    pub fn expandable(&self) -> bool {
        match self {
            ContextKind::Tools { added, removed } => added.len() + removed.len() > 1,
            ContextKind::Generic { text, .. } => !text.is_empty(),
        }
    }

    /// Folds a later change into a tool-change node, netted: adding a tool the node
    /// removed undoes the removal, and the other way round. Returns false
    /// (and changes nothing) for a generic node.
    pub fn merge_tools(&mut self, more_added: &[String], more_removed: &[String]) -> bool {
        let ContextKind::Tools { added, removed } = self else {
            return false;
        };
        fold(more_added, removed, added);
        fold(more_removed, added, removed);
        true
    }

    /// The tool names a tool-change node shows, added then removed.
    pub fn tool_names(&self) -> impl Iterator<Item = &String> {
        let (added, removed): (&[String], &[String]) = match self {
            ContextKind::Tools { added, removed } => (added, removed),
            ContextKind::Generic { .. } => (&[], &[]),
        };
        added.iter().chain(removed)
    }

    /// Whether this is a tool-change node (kept visible in Chat, U-1).
    pub fn is_tool_change(&self) -> bool {
        matches!(self, ContextKind::Tools { .. })
    }

    /// The one-line title: `Tool added: x`, `Tool removed: x`, `Tools updated` or `Context injection`.
    pub fn title(&self, l: Localizer) -> String {
        match self {
            ContextKind::Tools { added, removed } => match (added.as_slice(), removed.as_slice()) {
                ([one], []) => l.tra("tool-added", &[("name", Arg::from(one))]),
                ([], [one]) => l.tra("tool-removed", &[("name", Arg::from(one))]),
                _ => l.tr("tools-updated"),
            },
            ContextKind::Generic { .. } => l.tr("context-injection"),
        }
    }

    /// The collapsed summary of a multi-change node (`2 added, 1 removed`, `3 added`, `2 removed`).
    pub fn summary(&self, l: Localizer) -> Option<String> {
        match self {
            ContextKind::Tools { added, removed } if added.len() + removed.len() > 1 => {
                Some(match (added.len(), removed.len()) {
                    (a, 0) => l.tra("tools-added-count", &[("count", Arg::from(a))]),
                    (0, r) => l.tra("tools-removed-count", &[("count", Arg::from(r))]),
                    (a, r) => l.tra(
                        "tools-changed",
                        &[("added", Arg::from(a)), ("removed", Arg::from(r))],
                    ),
                })
            }
            // Live changes that cancelled out before a request.
            ContextKind::Tools { added, removed } if added.is_empty() && removed.is_empty() => {
                Some(l.tr("tools-no-net-change"))
            }
            ContextKind::Generic { producer, .. } => Some(producer.clone()),
            _ => None,
        }
    }

    /// The one-line text: title, plus ` · summary` for multi-change nodes (U-4 cell text).
    pub fn one_line(&self, l: Localizer) -> String {
        match (self, self.summary(l)) {
            (ContextKind::Tools { .. }, Some(s)) => format!("{} · {s}", self.title(l)),
            (ContextKind::Generic { .. }, Some(s)) if !s.is_empty() => {
                format!("{} · {s}", self.title(l))
            }
            _ => self.title(l),
        }
    }

    /// The expanded detail lines: `Added: a, b` / `Removed: c`, or the generic text.
    pub fn detail(&self, l: Localizer) -> Vec<String> {
        match self {
            ContextKind::Tools { added, removed } => {
                if added.len() + removed.len() <= 1 {
                    return vec![];
                }
                let mut out = vec![];
                if !added.is_empty() {
                    out.push(l.tra("tools-added-list", &[("names", Arg::List(added.clone()))]));
                }
                if !removed.is_empty() {
                    out.push(l.tra(
                        "tools-removed-list",
                        &[("names", Arg::List(removed.clone()))],
                    ));
                }
                out
            }
            ContextKind::Generic { text, .. } => text.lines().map(str::to_string).collect(),
        }
    }
}

/// Each of `names` cancels its opposite in `undo`, or joins `into`.
fn fold(names: &[String], undo: &mut Vec<String>, into: &mut Vec<String>) {
    for n in names {
        if let Some(k) = undo.iter().position(|u| u == n) {
            undo.remove(k);
        } else if !into.contains(n) {
            into.push(n.clone());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::i18n::Locale;
    use crate::session::event::{Role, Source};

    fn dev(blocks: Vec<Block>) -> ContextKind {
        ContextKind::from_message(&Message::new(
            Role::Developer,
            blocks,
            Source::kind("tool-registry"),
        ))
    }

    #[test]
    fn a_single_change_is_a_title_and_not_expandable() {
        let en = Localizer::new(Locale::EnUs);
        let zh = Localizer::new(Locale::ZhCn);
        let n = dev(vec![Block::addition("last_tool")]);
        assert_eq!(n.title(en), "Tool added: last_tool");
        assert_eq!(n.title(zh), "已添加工具：last_tool");
        assert!(!n.expandable());
        assert!(n.detail(en).is_empty());
        let r = dev(vec![Block::removal("last_tool")]);
        assert_eq!(r.one_line(en), "Tool removed: last_tool");
    }

    #[test]
    fn several_changes_summarize_and_expand() {
        let en = Localizer::new(Locale::EnUs);
        let zh = Localizer::new(Locale::ZhCn);
        let n = dev(vec![
            Block::addition("search"),
            Block::removal("old_search"),
            Block::addition("read_file"),
        ]);
        assert!(n.expandable());
        assert_eq!(n.one_line(en), "Tools updated · 2 added, 1 removed");
        assert_eq!(n.one_line(zh), "工具已更新 · 新增 2 个，移除 1 个");
        assert_eq!(
            n.detail(en),
            vec!["Added: search, read_file", "Removed: old_search"]
        );
        assert_eq!(
            n.detail(zh),
            vec!["新增：search、read_file", "移除：old_search"]
        );
        let only_added = dev(vec![
            Block::addition("a"),
            Block::addition("b"),
            Block::addition("c"),
        ]);
        assert_eq!(only_added.summary(en).as_deref(), Some("3 added"));
        let only_removed = dev(vec![Block::removal("a"), Block::removal("b")]);
        assert_eq!(only_removed.summary(zh).as_deref(), Some("移除 2 个"));
    }

    #[test]
    fn mixed_text_and_tool_blocks_are_generic_context() {
        let n = dev(vec![Block::text("note"), Block::addition("a")]);
        assert!(!n.is_tool_change());
        assert_eq!(n.title(Localizer::new(Locale::EnUs)), "Context injection");
    }
}
