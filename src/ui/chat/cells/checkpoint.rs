//! The Chat node of a checkpoint, an undo or a rewind (SPEC §14.3): one dim line,
//! localized at draw time, folded from the logged event (`checkpoint/taken`,
//! `checkpoint/undo`, `session/rewind`) the same way live and on a resumed log. A node
//! that names files expands to list them.

use ratatui::text::{Line, Span};

use crate::i18n::Arg;
use crate::session::checkpoint_event::RewindScope;
use crate::ui::text::sanitize;
use crate::ui::theme;

use super::base::{HistoryCell, Parts, dim_line, wrap_all};
use crate::ui::model::RenderCtx;

/// What the node shows.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CheckpointNode {
    /// A checkpoint was taken before prompt `n` first changed the workspace.
    Taken {
        /// The prompt's position.
        n: usize,
        /// Files kept.
        files: u64,
        /// Files over the size cap.
        skipped: Vec<String>,
    },
    /// Prompt `n`'s changes were put back.
    Undo {
        /// The prompt's position.
        n: usize,
        /// Files put back.
        restored: Vec<String>,
        /// Files changed since, left alone.
        conflicts: Vec<String>,
    },
    /// The session went back to before prompt `n`.
    Rewind {
        /// The prompt's position.
        n: usize,
        /// The prompt, on one line.
        prompt: String,
        /// What was taken back.
        scope: RewindScope,
        /// How many files a code rewind put back.
        restored: usize,
    },
}

/// The Chat cell of a [`CheckpointNode`].
#[derive(Debug, Clone)]
pub struct CheckpointCell {
    /// What it shows (paths and prompt sanitized on the way in).
    pub node: CheckpointNode,
}

impl CheckpointCell {
    /// A cell for `node`, its texts sanitized.
    pub fn new(node: CheckpointNode) -> Self {
        let clean = |v: Vec<String>| v.iter().map(|p| sanitize(p)).collect();
        let node = match node {
            CheckpointNode::Taken { n, files, skipped } => CheckpointNode::Taken {
                n,
                files,
                skipped: clean(skipped),
            },
            CheckpointNode::Undo {
                n,
                restored,
                conflicts,
            } => CheckpointNode::Undo {
                n,
                restored: clean(restored),
                conflicts: clean(conflicts),
            },
            CheckpointNode::Rewind {
                n,
                prompt,
                scope,
                restored,
            } => CheckpointNode::Rewind {
                n,
                prompt: sanitize(&prompt),
                scope,
                restored,
            },
        };
        CheckpointCell { node }
    }

    /// The files the expanded node lists, each with its Fluent id.
    fn details(&self) -> Vec<(&'static str, &str)> {
        match &self.node {
            CheckpointNode::Taken { skipped, .. } => skipped
                .iter()
                .map(|p| ("tui-node-checkpoint-skipped", p.as_str()))
                .collect(),
            CheckpointNode::Undo {
                restored,
                conflicts,
                ..
            } => restored
                .iter()
                .map(|p| ("tui-node-restored", p.as_str()))
                .chain(conflicts.iter().map(|p| ("tui-node-conflict", p.as_str())))
                .collect(),
            CheckpointNode::Rewind { .. } => Vec::new(),
        }
    }
}

/// The Fluent id naming a rewind scope.
pub fn scope_key(scope: RewindScope) -> &'static str {
    match scope {
        RewindScope::Conversation => "rewind-scope-conversation",
        RewindScope::Code => "rewind-scope-code",
        RewindScope::Both => "rewind-scope-both",
    }
}

impl HistoryCell for CheckpointCell {
    fn rows(&self, width: usize, ctx: &RenderCtx, expanded: bool) -> Parts {
        let l = ctx.l;
        let text = match &self.node {
            CheckpointNode::Taken { n, files, .. } => l.tra(
                "tui-node-checkpoint",
                &[("n", Arg::from(*n)), ("files", Arg::from(*files))],
            ),
            CheckpointNode::Undo {
                n,
                restored,
                conflicts,
            } => {
                let mut t = l.tra(
                    "tui-node-undo",
                    &[("n", Arg::from(*n)), ("count", Arg::from(restored.len()))],
                );
                if !conflicts.is_empty() {
                    t.push_str(&l.tra(
                        "tui-node-undo-conflicts",
                        &[("count", Arg::from(conflicts.len()))],
                    ));
                }
                t
            }
            CheckpointNode::Rewind {
                n,
                prompt,
                scope,
                restored,
            } => {
                let mut t = l.tra(
                    "tui-node-rewind",
                    &[
                        ("n", Arg::from(*n)),
                        ("prompt", Arg::from(prompt.as_str())),
                        ("scope", Arg::from(l.tr(scope_key(*scope)))),
                    ],
                );
                // A code rewind says how many files it put back, none included.
                if scope.code() {
                    t.push_str(&l.tra("tui-node-rewind-files", &[("count", Arg::from(*restored))]));
                }
                t
            }
        };
        let style = match &self.node {
            CheckpointNode::Undo { conflicts, .. } if !conflicts.is_empty() => theme::warn(),
            _ => theme::dim(),
        };
        let mut head = wrap_all(vec![Line::from(Span::styled(text, style))], width);
        if expanded {
            for (key, path) in self.details() {
                head.extend(dim_line(l.tra(key, &[("path", Arg::from(path))]), width));
            }
        }
        Parts::separated(head)
    }

    fn selectable(&self) -> bool {
        !self.details().is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::i18n::{Locale, Localizer};
    use crate::ui::model::ToolCardMode;

    fn text(c: &CheckpointCell, loc: Locale, width: usize, expanded: bool) -> String {
        let ctx = RenderCtx {
            l: Localizer::new(loc),
            cards: ToolCardMode::Collapsed,
            generation: 0,
        };
        crate::ui::snapshot::lines_text(&c.rows(width, &ctx, expanded).head)
    }

    #[test]
    fn an_undo_node_counts_its_files_and_conflicts_and_expands_to_list_them() {
        let c = CheckpointCell::new(CheckpointNode::Undo {
            n: 2,
            restored: vec!["a.txt".into(), "b.txt".into()],
            conflicts: vec!["c.txt".into()],
        });
        assert!(c.selectable());
        let t = text(&c, Locale::EnUs, 120, false);
        assert_eq!(
            t,
            "↶ Undid prompt 2 · 2 files put back, 1 conflict left alone"
        );
        let t = text(&c, Locale::EnUs, 120, true);
        assert!(t.contains("put back: a.txt") && t.contains("conflict, left alone: c.txt"));
        let t = text(&c, Locale::ZhCn, 80, false);
        assert!(
            t.contains("已撤销第 2 条提示") && t.contains("1 个冲突文件"),
            "{t}"
        );
    }

    #[test]
    fn a_rewind_node_names_the_prompt_and_what_was_taken_back_in_both_languages() {
        let c = CheckpointCell::new(CheckpointNode::Rewind {
            n: 3,
            prompt: "fix the \u{1b}[31mbug".into(),
            scope: RewindScope::Both,
            restored: 2,
        });
        assert!(!c.selectable());
        let t = text(&c, Locale::EnUs, 120, false);
        assert!(t.contains("Rewound to before prompt 3"), "{t}");
        assert!(t.contains("the conversation and the code"), "{t}");
        assert!(t.contains("2 files put back"), "{t}");
        assert!(
            !t.contains('\u{1b}'),
            "escapes from the log are not drawn: {t:?}"
        );
        let t = text(&c, Locale::ZhCn, 120, false);
        assert!(
            t.contains("已回到第 3 条提示") && t.contains("对话和代码"),
            "{t}"
        );
    }
}
