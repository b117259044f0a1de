//! The conversation's own cells: a user message (long ones collapse), its `@` attachments,
//! an assistant reply (streaming or committed, reasoning folded), where a failed attempt
//! streamed, and a compaction summary.

use ratatui::text::{Line, Span};

use crate::agent::mentions::{Attachment, MAX_MENTION_BYTES, Refusal};
use crate::i18n::Arg;
use crate::ui::markdown::StreamCollector;
use crate::ui::text::{sanitize, truncate, wrap_line, wrap_prefixed};
use crate::ui::theme;

use super::base::{HistoryCell, Parts, dim_indented, dim_line, wrap_all};
use crate::ui::model::RenderCtx;

/// Lines of a long user message shown while it is collapsed (one row each).
const USER_PREVIEW_LINES: usize = 3;

/// A user message (sanitized).
#[derive(Debug, Clone)]
pub struct UserCell {
    /// Text.
    pub text: String,
}

impl UserCell {
    /// Whether the message is long enough to collapse: what the composer would have shown
    /// as a paste placeholder.
    fn collapsible(&self) -> bool {
        let text = &self.text;
        text.lines().count() > crate::ui::composer::PASTE_LINE_LIMIT
            || text.chars().count() > crate::ui::composer::PASTE_CHAR_LIMIT
    }
}

impl HistoryCell for UserCell {
    fn rows(&self, width: usize, ctx: &RenderCtx, expanded: bool) -> Parts {
        let l = ctx.l;
        let text = &self.text;
        let mut head = vec![Line::from(Span::styled(
            l.tr("tui-role-user"),
            theme::role(),
        ))];
        if !self.collapsible() {
            head.extend(text.split('\n').map(|s| Line::from(s.to_string())));
            return Parts::separated(wrap_all(head, width));
        }
        // A long message (a large paste) shows its first lines, one row each, until
        // expanded, and counts in source lines, as the composer's placeholder does: a
        // `[Pasted 60 lines]` prompt is 3 lines and "57 more" at any width (§14.5).
        let lines: Vec<&str> = text.trim_end_matches('\n').split('\n').collect();
        if expanded {
            head.extend(lines.iter().map(|s| Line::from(s.to_string())));
            head = wrap_all(head, width);
            let args = [("lines", Arg::from(lines.len()))];
            head.extend(dim_line(l.tra("tui-user-expanded", &args), width));
        } else {
            head.extend(
                lines
                    .iter()
                    .take(USER_PREVIEW_LINES)
                    .map(|s| Line::from(truncate(s, width))),
            );
            let hidden = lines.len().saturating_sub(USER_PREVIEW_LINES);
            let args = [("hidden", Arg::from(hidden))];
            head.extend(dim_line(l.tra("tui-user-collapsed", &args), width));
        }
        Parts::separated(head)
    }

    fn selectable(&self) -> bool {
        self.collapsible()
    }
}

/// An assistant reply (streaming or committed).
#[derive(Debug, Clone)]
pub struct AssistantCell {
    /// Turn.
    pub turn: u64,
    /// Step.
    pub step: u64,
    /// Reasoning text.
    pub reasoning: String,
    /// Answer markdown, streamed through a newline-gated collector; its source is kept
    /// as received, the collector sanitizes it for display.
    pub text: StreamCollector,
    /// Still receiving deltas.
    pub streaming: bool,
    /// The stream was cancelled.
    pub interrupted: bool,
    /// When the first reasoning delta arrived (live streams only).
    pub thinking_since: Option<std::time::Instant>,
    /// How long the model thought before its reply started (SPEC §14.4: `▸ Thought for
    /// N s`); `None` for a reply read back from the log, which shows its line count.
    pub thought_secs: Option<u64>,
}

impl AssistantCell {
    /// A new streaming cell of `(turn, step)`.
    pub fn streaming(turn: u64, step: u64) -> Self {
        AssistantCell {
            turn,
            step,
            reasoning: String::new(),
            text: StreamCollector::new(),
            streaming: true,
            interrupted: false,
            thinking_since: None,
            thought_secs: None,
        }
    }

    /// The thinking time so far, once any reasoning arrived (at least 1 s).
    pub fn thought_until_now(&self) -> Option<u64> {
        self.thought_secs
            .or_else(|| self.thinking_since.map(|t| t.elapsed().as_secs().max(1)))
    }

    /// Whether the cell shows its markdown body (not while it is still empty).
    pub fn shows_body(&self) -> bool {
        !self.text.is_empty()
    }
}

impl HistoryCell for AssistantCell {
    /// The role line and reasoning (head), then the open markdown tail and the
    /// interrupted mark (foot); the committed markdown between them is borrowed from the
    /// collector by the holder, so a stream delta renders only the open tail.
    fn rows(&self, width: usize, ctx: &RenderCtx, expanded: bool) -> Parts {
        let l = ctx.l;
        let (reasoning, text) = (&self.reasoning, &self.text);
        if reasoning.is_empty() && text.is_empty() && !self.streaming {
            return Parts::default();
        }
        let mut head = vec![Line::from(Span::styled(
            l.tr("tui-role-assistant"),
            theme::role(),
        ))];
        // SPEC §14.4: the reasoning streams dim and open above the reply; once the reply
        // starts it collapses to `▸ Thought for N s` (Enter opens it again).
        let thinking_live = self.streaming && text.is_empty();
        if !reasoning.is_empty() {
            if expanded || thinking_live {
                let title = match self.thought_secs {
                    _ if thinking_live => l.tr("tui-reasoning-streaming"),
                    Some(secs) => l.tra("tui-reasoning-expanded", &[("secs", Arg::from(secs))]),
                    None => l.tr("tui-thinking-expanded"),
                };
                head.push(Line::from(Span::styled(title, theme::dim())));
                head = wrap_all(head, width);
                head.extend(dim_indented(reasoning.trim_end(), "  ", width));
            } else if let Some(secs) = self.thought_secs {
                head.push(Line::from(Span::styled(
                    l.tra("tui-reasoning-collapsed", &[("secs", Arg::from(secs))]),
                    theme::dim(),
                )));
                head = wrap_all(head, width);
            } else {
                let n = reasoning.lines().count();
                head.push(Line::from(Span::styled(
                    l.tra("tui-thinking-collapsed", &[("lines", Arg::from(n))]),
                    theme::dim(),
                )));
                head = wrap_all(head, width);
            }
        } else {
            head = wrap_all(head, width);
        }
        let mut foot = Vec::new();
        if text.is_empty() && self.streaming {
            foot.push(Line::from(Span::styled("…", theme::dim())));
        } else {
            foot.extend(text.tail(width, &l.tr("tui-table-pending")));
        }
        if self.interrupted {
            foot.extend(wrap_line(
                &Line::from(Span::styled(l.tr("tui-interrupted"), theme::warn())),
                width,
                0,
            ));
        }
        foot.push(Line::default());
        Parts { head, foot }
    }

    fn selectable(&self) -> bool {
        !self.reasoning.is_empty()
    }
}

/// A compaction summary with the summary the model now sees.
#[derive(Debug, Clone)]
pub struct CompactionCell {
    /// The summary.
    pub summary: String,
}

impl HistoryCell for CompactionCell {
    fn rows(&self, width: usize, ctx: &RenderCtx, expanded: bool) -> Parts {
        let mut head = dim_line(format!("┄ {} ┄", ctx.l.tr("tui-checkpoint")), width);
        if expanded {
            head.extend(dim_indented(&self.summary, "  ", width));
        }
        Parts::separated(head)
    }

    fn selectable(&self) -> bool {
        true
    }
}

/// A file attached to the user message above through an `@path` mention: one collapsed
/// line, expanding to the attached text.
#[derive(Debug, Clone)]
pub struct AttachmentCell {
    /// What `source.attachments` says about it.
    pub info: Attachment,
    /// The attachment block as the model saw it (sanitized).
    pub content: String,
    /// The message's last attachment: the blank separator follows it.
    pub last: bool,
}

impl HistoryCell for AttachmentCell {
    fn rows(&self, width: usize, ctx: &RenderCtx, expanded: bool) -> Parts {
        let (l, info) = (ctx.l, &self.info);
        let path = Arg::from(sanitize(&info.path));
        let (key, args) = match (info.refused, expanded) {
            (Some(Refusal::OutsideWorkspace), _) => {
                ("tui-attachment-outside", vec![("path", path)])
            }
            (Some(Refusal::Binary), _) => ("tui-attachment-binary", vec![("path", path)]),
            (Some(Refusal::NotRegular), _) => ("tui-attachment-not-regular", vec![("path", path)]),
            (Some(Refusal::Unavailable), _) => ("tui-attachment-unavailable", vec![("path", path)]),
            (None, true) => ("tui-attachment-expanded", vec![("path", path)]),
            (None, false) if info.truncated => (
                "tui-attachment-truncated",
                vec![
                    ("path", path),
                    ("lines", Arg::from(info.lines)),
                    ("kib", Arg::from(MAX_MENTION_BYTES / 1024)),
                    ("total", Arg::from(info.bytes.div_ceil(1024))),
                ],
            ),
            (None, false) => (
                "tui-attachment",
                vec![("path", path), ("lines", Arg::from(info.lines))],
            ),
        };
        let pre = [Span::styled("  ", theme::dim())];
        let mut head = wrap_prefixed(
            &Line::from(Span::styled(l.tra(key, &args), theme::dim())),
            width,
            &pre,
            &pre,
        );
        if expanded {
            head.extend(dim_indented(&self.content, "    ", width));
        }
        if self.last {
            Parts::separated(head)
        } else {
            Parts { head, foot: vec![] }
        }
    }

    fn selectable(&self) -> bool {
        self.info.refused.is_none()
    }
}

/// Where a failed model attempt streamed (`assistant/attempt`): its partial text is
/// never shown, and the failure is the status line's and the Trajectory's to tell
/// (§14.5), so the cell has no rows.
#[derive(Debug, Clone, Copy)]
pub struct AttemptCell;

impl HistoryCell for AttemptCell {
    fn rows(&self, _width: usize, _ctx: &RenderCtx, _expanded: bool) -> Parts {
        Parts::default()
    }
}
