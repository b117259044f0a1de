//! Tool cards: a call with its arguments and result (the acting tools have cards of their
//! own, `chat/acting_card.rs`), its approval state, and the bare approval cell for a call
//! without a logged card.

use ratatui::text::{Line, Span};

use crate::agent::protocol::{ApprovalDecision, ApprovalPreview};
use crate::i18n::Arg;
use crate::ui::text::{sanitize, truncate, wrap_line, wrap_prefixed};
use crate::ui::theme;

use super::base::{HistoryCell, Parts, dim_indented};
use crate::ui::model::{RenderCtx, ToolCardMode};

/// Lines of a tool result shown in a collapsed card.
const PREVIEW_LINES: usize = 3;

/// Where a tool call that needs approval stands: the card reads
/// tool + arguments → waiting for you → allowed / denied → result.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ToolApproval {
    /// Waiting for the user; the turn's clock is paused.
    Waiting,
    /// Another call of the step waits for the user; this one has not started.
    Queued,
    /// Answered.
    Decided(ApprovalDecision),
}

/// A tool call and its result (text fields sanitized).
#[derive(Debug, Clone)]
pub struct ToolCell {
    /// Call id.
    pub call_id: String,
    /// Tool name.
    pub name: String,
    /// Raw JSON arguments.
    pub arguments: String,
    /// Result text once known.
    pub result: Option<String>,
    /// The call failed.
    pub error: bool,
    /// The user's part, when the call needed approval: waiting, then the answer.
    pub approval: Option<ToolApproval>,
    /// What the call would do, shown while it waits for approval (SPEC §14.1).
    pub preview: Option<Box<ApprovalPreview>>,
    /// The `pre_tool_use` / `post_tool_use` hooks that ran for it.
    pub hooks: Vec<crate::session::hook_event::HookRunData>,
    /// Why it asks and what `a` does, while it waits.
    pub ask: Option<Box<crate::ui::approval_keys::AskInfo>>,
    /// A `shell` call the sandbox seemed to refuse and what the user answered when asked
    /// to run it outside (from the logged result: the same live and resumed).
    pub retry: Option<Box<crate::session::retry_event::SandboxRetry>>,
    /// The latest progress the running call reported (SPEC §15.2).
    pub progress: Option<Box<crate::tools::progress::Progress>>,
    /// A `task` call's subagent: its live step and tool, and its transcript (SPEC §15.3).
    pub subagent: Option<Box<super::SubagentLive>>,
}

impl ToolCell {
    /// A card for a call just logged, without a result yet.
    pub fn new(call_id: String, name: String, arguments: String) -> Self {
        ToolCell {
            call_id,
            name,
            arguments,
            result: None,
            error: false,
            approval: None,
            preview: None,
            hooks: Vec::new(),
            ask: None,
            retry: None,
            progress: None,
            subagent: None,
        }
    }

    /// The status line and, for a call that needed approval, the answer line.
    fn status_rows(&self, mode: ToolCardMode, width: usize, ctx: &RenderCtx) -> Vec<Line<'static>> {
        let (l, name, approval) = (ctx.l, &self.name, self.approval);
        let waiting = approval == Some(ToolApproval::Waiting);
        let denied = approval == Some(ToolApproval::Decided(ApprovalDecision::Deny));
        let (status, style) = match (&self.result, self.error) {
            _ if waiting => (l.tr("tui-tool-waiting"), theme::warn()),
            (None, _) if approval == Some(ToolApproval::Queued) => {
                (l.tr("tui-tool-queued"), theme::dim())
            }
            _ if denied => (l.tr("tui-tool-denied"), theme::error()),
            (None, _) => match (self.subagent.as_deref(), self.progress.as_deref()) {
                (Some(a), _) => (a.status(l), theme::warn()),
                (None, Some(p)) => (running_with(p, l), theme::warn()),
                (None, None) => (l.tr("tui-tool-running"), theme::warn()),
            },
            (Some(_), true) => (l.tr("tui-tool-failed"), theme::error()),
            (Some(_), false) => (l.tr("tui-tool-done"), theme::success()),
        };
        let mut head = wrap_line(
            &Line::from(vec![
                Span::styled(
                    format!("{} / {name}", l.tr("tui-tool")),
                    style.patch(theme::bold()),
                ),
                Span::styled(format!("  {status}"), style),
            ]),
            width,
            0,
        );
        if let Some(p) = self.preview.as_deref().filter(|_| waiting) {
            // Waiting: what the call would do (the diff, or where the command runs).
            head.extend(crate::ui::chat::acting_card::preview_lines(p, l, width));
        } else if mode == ToolCardMode::Expanded {
            head.extend(dim_indented(&self.arguments, "  ", width));
            // A subagent's card expands to its transcript (SPEC §15.3).
            if let Some(a) = self.subagent.as_deref() {
                head.extend(dim_indented(&a.transcript.join("\n"), "  › ", width));
            }
        } else {
            let one: String = self.arguments.replace('\n', " ");
            head.push(Line::from(Span::styled(
                format!("  {}", truncate(&one, width.saturating_sub(2))),
                theme::dim(),
            )));
        }
        let indent = [Span::raw("  ")];
        if let Some(ask) = self.ask.as_deref().filter(|_| waiting) {
            // Why it asks, then the keys exactly as the key bar says them (SPEC §15.5).
            let why = l.tra("tui-approval-why", &[("why", Arg::from(l.text(&ask.why)))]);
            let keys = crate::ui::approval_keys::keys_text(l, Some(ask));
            for (text, style) in [(why, theme::warn()), (keys, theme::accent())] {
                head.extend(wrap_prefixed(
                    &Line::from(Span::styled(text, style)),
                    width,
                    &indent,
                    &indent,
                ));
            }
            return head;
        }
        if let Some(a) = approval.filter(|a| *a != ToolApproval::Queued) {
            let (key, style) = match a {
                ToolApproval::Waiting | ToolApproval::Queued => {
                    ("tui-approval-keys", theme::accent())
                }
                ToolApproval::Decided(d) => decision_label(d),
            };
            // A denial with the user's reason says it (the model got it too).
            let reason = self
                .result
                .as_deref()
                .filter(|_| denied)
                .and_then(|r| crate::agent::tool_runner::denial_reason(name, r));
            let label = match reason {
                Some(r) => l.tra(
                    "tui-approval-denied-reason",
                    &[("reason", Arg::from(sanitize(r)))],
                ),
                None => l.tr(key),
            };
            head.extend(wrap_prefixed(
                &Line::from(Span::styled(label, style)),
                width,
                &indent,
                &indent,
            ));
        }
        head
    }

    /// The result's lines under a gutter (a preview unless expanded).
    fn result_rows(&self, mode: ToolCardMode, width: usize, ctx: &RenderCtx) -> Vec<Line<'static>> {
        let mut head = Vec::new();
        let Some(r) = &self.result else {
            return head;
        };
        let r = shown_result(r, ctx.l);
        let lines: Vec<&str> = r.split('\n').collect();
        let shown = if mode == ToolCardMode::Expanded {
            lines.len()
        } else {
            PREVIEW_LINES
        };
        let gutter = [Span::styled("  │ ", theme::dim())];
        for s in lines.iter().take(shown) {
            head.extend(wrap_prefixed(
                &Line::from(Span::styled(s.to_string(), theme::dim())),
                width,
                &gutter,
                &gutter,
            ));
        }
        if lines.len() > shown {
            let more = ctx.l.tra(
                "tui-more-lines",
                &[("count", Arg::from(lines.len() - shown))],
            );
            head.extend(wrap_line(
                &Line::from(Span::styled(format!("  {more}"), theme::dim())),
                width,
                0,
            ));
        }
        head
    }
}

/// "running · 40% · indexing", from the call's latest progress.
fn running_with(p: &crate::tools::progress::Progress, l: crate::i18n::Localizer) -> String {
    let done = match p.total.filter(|t| *t > 0.0) {
        Some(t) => l.tra(
            "tui-tool-progress-percent",
            &[(
                "percent",
                Arg::from((p.progress / t * 100.0).clamp(0.0, 100.0).round() as u64),
            )],
        ),
        None => l.tra(
            "tui-tool-progress-count",
            &[("done", Arg::from(format!("{}", p.progress)))],
        ),
    };
    match p.message.as_deref().filter(|m| !m.trim().is_empty()) {
        Some(m) => l.tra(
            "tui-tool-running-progress-message",
            &[
                ("done", Arg::from(done)),
                ("message", Arg::from(sanitize(&m.replace('\n', " ")))),
            ],
        ),
        None => l.tra("tui-tool-running-progress", &[("done", Arg::from(done))]),
    }
}

/// A result as the card shows it: the refusals deepterm itself writes (English and
/// stable for the model, §5) in the interface language; anything else as it is.
fn shown_result(r: &str, l: crate::i18n::Localizer) -> String {
    if let Some(reason) = r.strip_prefix(crate::agent::hooks::BLOCKED_CALL_PREFIX) {
        return l.tra("tui-result-hook-refused", &[("reason", Arg::from(reason))]);
    }
    let read_only = crate::sandbox::WriteRefusal::ReadOnlyMode.to_string();
    if let Some(at) = r.find(&read_only) {
        return format!(
            "{}{}{}",
            &r[..at],
            l.tr("tui-result-read-only"),
            &r[at + read_only.len()..]
        );
    }
    // `TOOL: PATH is outside …` and `TOOL: PATH is protected (P is never writable)`.
    let lines: Vec<String> = r.split('\n').map(|line| refusal_line(line, l)).collect();
    lines.join("\n")
}

/// One line of an edit tool's error, with a write refusal in the interface language.
fn refusal_line(line: &str, l: crate::i18n::Localizer) -> String {
    const OUTSIDE: &str = " is outside the workspace and the writable roots";
    let (head, rest) = line.split_once(": ").unwrap_or(("", line));
    let lead = if head.is_empty() {
        String::new()
    } else {
        format!("{head}: ")
    };
    if let Some(path) = rest.strip_suffix(OUTSIDE) {
        return lead + &l.tra("tui-result-outside", &[("path", Arg::from(path))]);
    }
    if let Some((path, p)) = rest
        .strip_suffix(" is never writable)")
        .and_then(|x| x.split_once(" is protected ("))
    {
        return lead
            + &l.tra(
                "tui-result-protected",
                &[("path", Arg::from(path)), ("protected", Arg::from(p))],
            );
    }
    line.to_string()
}

/// The Fluent id and style of an answered approval.
fn decision_label(d: ApprovalDecision) -> (&'static str, ratatui::style::Style) {
    match d {
        ApprovalDecision::Allow => ("tui-approval-allowed", theme::success()),
        ApprovalDecision::AlwaysAllow => ("tui-approval-always", theme::success()),
        ApprovalDecision::Deny => ("tui-approval-denied", theme::error()),
    }
}

impl HistoryCell for ToolCell {
    fn rows(&self, width: usize, ctx: &RenderCtx, expanded: bool) -> Parts {
        let waiting = self.approval == Some(ToolApproval::Waiting);
        let denied = self.approval == Some(ToolApproval::Decided(ApprovalDecision::Deny));
        // A card waiting for the user shows in full whatever the card mode: the tool and
        // its arguments are on screen before the call can be answered.
        let mode = if expanded || waiting {
            ToolCardMode::Expanded
        } else {
            ctx.cards
        };
        if mode == ToolCardMode::Hidden {
            return Parts::default();
        }
        let full = mode == ToolCardMode::Expanded;
        // A command the sandbox seemed to refuse: what ran where, and the answer.
        if let Some(retry) = self.retry.as_deref().filter(|_| !waiting) {
            let mut rows = crate::ui::chat::retry_card::retry_card(
                &self.arguments,
                retry,
                self.result.as_deref(),
                self.error,
                full,
                ctx.l,
                width,
            );
            rows.extend(super::hook_run::hook_lines(&self.hooks, ctx.l, width, full));
            return Parts::separated(rows);
        }
        // The acting tools have cards of their own once they ran (SPEC §14.1).
        let acting = (!waiting && !denied)
            .then(|| {
                crate::ui::chat::acting_card::acting_card(
                    &self.name,
                    &self.arguments,
                    self.result.as_deref(),
                    self.error,
                    mode == ToolCardMode::Expanded,
                    ctx.l,
                    width,
                )
            })
            .flatten();
        let hooks = super::hook_run::hook_lines(&self.hooks, ctx.l, width, full);
        if let Some(mut rows) = acting {
            rows.extend(hooks);
            return Parts::separated(rows);
        }
        let mut head = self.status_rows(mode, width, ctx);
        // A denial's result is the model-facing text; the card says "Denied by you".
        if !denied {
            head.extend(self.result_rows(mode, width, ctx));
        }
        head.extend(hooks);
        Parts::separated(head)
    }

    fn selectable(&self) -> bool {
        true
    }
}

/// An approval request without a logged tool card (a subagent's call, SPEC §15.3) and,
/// once answered, the decision.
#[derive(Debug, Clone, Default)]
pub struct ApprovalCell {
    /// Call id.
    pub call_id: String,
    /// Tool name.
    pub tool: String,
    /// Raw JSON arguments.
    pub arguments: String,
    /// The answer.
    pub decision: Option<ApprovalDecision>,
    /// The subagent whose call it is.
    pub asker: Option<crate::ui::approval_keys::Asker>,
}

impl HistoryCell for ApprovalCell {
    fn rows(&self, width: usize, ctx: &RenderCtx, _expanded: bool) -> Parts {
        let l = ctx.l;
        let mut head = wrap_line(
            &Line::from(Span::styled(
                crate::ui::approval_keys::approval_title(l, &self.tool, self.asker.as_ref()),
                theme::warn().patch(theme::bold()),
            )),
            width,
            0,
        );
        head.extend(dim_indented(&self.arguments, "  ", width));
        let (key, style) = match self.decision {
            None => ("tui-approval-keys", theme::accent()),
            Some(d) => decision_label(d),
        };
        head.extend(wrap_line(
            &Line::from(Span::styled(l.tr(key), style)),
            width,
            0,
        ));
        Parts::separated(head)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::i18n::{Locale, Localizer};

    fn shown(name: &str, result: &str, locale: Locale) -> String {
        let mut c = ToolCell::new("c1".into(), name.into(), "{}".into());
        c.result = Some(result.into());
        c.error = true;
        let ctx = RenderCtx {
            l: Localizer::new(locale),
            cards: ToolCardMode::Expanded,
            generation: 0,
        };
        crate::ui::snapshot::lines_text(&c.rows(80, &ctx, true).head)
    }

    #[test]
    fn the_refusals_deepterm_writes_show_in_the_interface_language() {
        let read_only = format!("write_file: {}", crate::sandbox::WriteRefusal::ReadOnlyMode);
        let t = shown("write_file", &read_only, Locale::ZhCn);
        assert!(t.contains("write_file: 沙箱模式为只读"), "{t}");
        assert!(!t.contains("the sandbox mode"), "{t}");
        let hook = crate::agent::hooks::blocked_call_text("not here");
        let t = shown("grep", &hook, Locale::ZhCn);
        assert!(
            t.contains("pre_tool_use 钩子拒绝了这次调用：not here"),
            "{t}"
        );
        let t = shown(
            "edit_file",
            "edit_file: /etc/passwd is outside the workspace and the writable roots",
            Locale::ZhCn,
        );
        assert!(
            t.contains("edit_file: /etc/passwd 不在工作区和可写目录之内"),
            "{t}"
        );
        let t = shown(
            "write_file",
            "write_file: /w/.git/config is protected (/w/.git is never writable)",
            Locale::ZhCn,
        );
        assert!(
            t.contains("/w/.git/config 受保护（/w/.git 永远不可写）"),
            "{t}"
        );
        // In English it speaks to the user; anything else is shown as it is.
        let t = shown("write_file", &read_only, Locale::EnUs);
        assert!(
            t.contains("write_file: the sandbox mode is read-only"),
            "{t}"
        );
        assert!(!t.contains("the user can switch"), "{t}");
        assert!(shown("grep", "no match: x", Locale::ZhCn).contains("no match: x"));
    }
}
