//! The bottom pane: a separator, then the composer or, while an approval is pending, the
//! approval prompt (`approval.rs`); the slash and `@` popups (`popup.rs`) open above it over
//! the panes. The composer (`composer.rs`) is the draft editor.

pub mod approval;
pub mod composer;
pub mod popup;

use std::collections::VecDeque;

use ratatui::buffer::Buffer;
use ratatui::layout::{Constraint, Layout, Position, Rect};
use ratatui::text::{Line, Span};

use crate::agent::command_spec::{Command, CommandId, ParseError, find};
use crate::agent::protocol::{AgentCommand, ApprovalDecision, Notice, NoticeLevel};
use crate::i18n::Arg;
use crate::ui::app_event::AppEvent;
use crate::ui::component::{Component, Handled};
use crate::ui::keymap::Action;
use crate::ui::model::{Focus, Model};
use crate::ui::text::{sanitize, str_width, truncate};
use crate::ui::theme;

use composer::Composer;

/// Maximum composer text rows.
const COMPOSER_MAX_ROWS: usize = 6;
/// Queued messages shown under the composer (more are counted on one more row).
const QUEUED_MAX_ROWS: usize = 3;
/// Submitted texts remembered to show the queued ones.
const SENT_KEPT: usize = 32;

/// A call waiting for the user's answer, as the agent asked (tool name and arguments
/// sanitized).
#[derive(Debug, Clone, PartialEq)]
pub struct PendingApproval {
    /// The call.
    pub call_id: String,
    /// The tool's name.
    pub tool: String,
    /// The call's arguments.
    pub arguments: String,
    /// Why it asks and what `a` does, when the agent said (SPEC §15.5).
    pub ask: Option<crate::ui::approval_keys::AskInfo>,
    /// The subagent whose call it is (`inherit`, SPEC §15.3).
    pub asker: Option<crate::ui::approval_keys::Asker>,
}

/// The bottom pane: owns the composer, the pending approvals and the texts sent.
#[derive(Debug, Default)]
pub struct BottomPane {
    /// The composer.
    composer: Composer,
    cursor: Option<Position>,
    /// `n` on an approval: the reason being typed for denying the oldest pending call.
    deny_reason: Option<String>,
    /// Pending approvals, oldest first.
    approvals: VecDeque<PendingApproval>,
    /// The subagent the next question is for, by call id (`AgentEvent::ApprovalAsker`).
    next_asker: Option<(String, crate::ui::approval_keys::Asker)>,
    /// The latest submitted texts, newest last (as shown in the composer, bounded); the
    /// last [`Model::queued`] of them wait behind the running turn and are shown under
    /// the composer.
    sent: VecDeque<String>,
}

impl BottomPane {
    /// A pane with an empty composer.
    pub fn new() -> Self {
        BottomPane {
            composer: Composer::new(),
            cursor: None,
            deny_reason: None,
            approvals: VecDeque::new(),
            next_asker: None,
            sent: VecDeque::new(),
        }
    }

    /// The composer.
    pub fn composer(&self) -> &Composer {
        &self.composer
    }

    /// The composer, to edit its draft, history or popups.
    pub fn composer_mut(&mut self) -> &mut Composer {
        &mut self.composer
    }

    /// The queued messages, oldest first (the agent counts them; the pane remembers the
    /// texts).
    pub fn queued_texts(&self, queued: usize) -> impl Iterator<Item = &str> {
        let n = queued.min(self.sent.len());
        self.sent
            .iter()
            .skip(self.sent.len() - n)
            .map(String::as_str)
    }

    pub fn height(&self, width: u16, avail: u16) -> u16 {
        let rows = self.composer.layout(Self::inner_width(width)).rows.len();
        let max_rows = COMPOSER_MAX_ROWS.min((avail as usize).saturating_sub(4).max(1));
        rows.clamp(1, max_rows) as u16 + 1
    }

    fn inner_width(width: u16) -> usize {
        width.saturating_sub(2).max(2) as usize
    }

    /// Rows the queued messages take under the composer: one per
    /// message up to [`QUEUED_MAX_ROWS`], then one row counting the rest.
    pub fn queued_rows(&self, m: &Model) -> u16 {
        let n = self.queued_texts(m.queued).count();
        if n > QUEUED_MAX_ROWS {
            QUEUED_MAX_ROWS as u16 + 1
        } else {
            n as u16
        }
    }

    /// Draws the queued messages dimmed, one truncated line each, into `area`.
    fn render_queued(&self, area: Rect, buf: &mut Buffer, m: &Model) {
        let l = m.l;
        let w = area.width as usize;
        let texts: Vec<&str> = self.queued_texts(m.queued).collect();
        let mut rows: Vec<String> = texts
            .iter()
            .take(QUEUED_MAX_ROWS)
            .map(|t| {
                let first = t.lines().find(|x| !x.trim().is_empty()).unwrap_or("");
                let more = if t.trim().lines().count() > 1 {
                    " …"
                } else {
                    ""
                };
                l.tra(
                    "tui-queued-item",
                    &[(
                        "text",
                        Arg::from(format!("{}{more}", sanitize(first.trim()))),
                    )],
                )
            })
            .collect();
        if texts.len() > QUEUED_MAX_ROWS {
            rows.push(l.tra(
                "tui-queued-more",
                &[("count", Arg::from(texts.len() - QUEUED_MAX_ROWS))],
            ));
        }
        for (i, r) in rows.iter().take(area.height as usize).enumerate() {
            buf.set_line(
                area.x,
                area.y + i as u16,
                &Line::from(Span::styled(truncate(r, w), theme::dim())),
                area.width,
            );
        }
    }

    /// The Ctrl+R search line: `(reverse-i-search) `query`: match`, the
    /// query highlighted in the match; the match's further lines below while room is left.
    fn render_search(&mut self, body: Rect, buf: &mut Buffer, m: &Model, query: &str) {
        let l = m.l;
        let w = body.width as usize;
        let found = self.composer.search_match().map(str::to_string);
        // While the history is still read, no match yet is no failure.
        let reading = m.history_reading.map(|n| {
            format!(
                "  {}",
                l.tra("tui-history-reading", &[("count", Arg::from(n))])
            )
        });
        let key = if found.is_some() || query.is_empty() || reading.is_some() {
            "tui-history-search"
        } else {
            "tui-history-search-failed"
        };
        let label = l.tra(key, &[("query", Arg::from(sanitize(query)))]);
        let label_w = str_width(&label) + 1;
        let mut spans = vec![Span::styled(format!("{label} "), theme::accent())];
        let text = found.as_deref().map(sanitize).unwrap_or_default();
        let mut lines = text.split('\n');
        let first = lines.next().unwrap_or("");
        let note_w = reading.as_deref().map_or(0, str_width);
        let room = w.saturating_sub(label_w + note_w);
        let shown = truncate(first, room);
        match crate::ui::history::find_ci(&shown, query) {
            Some(r) => {
                spans.push(Span::raw(shown[..r.start].to_string()));
                spans.push(Span::styled(
                    shown[r.clone()].to_string(),
                    theme::warn().patch(theme::bold()),
                ));
                spans.push(Span::raw(shown[r.end..].to_string()));
            }
            None => spans.push(Span::raw(shown.clone())),
        }
        if let Some(note) = reading {
            spans.push(Span::styled(note, theme::dim()));
        }
        buf.set_line(body.x, body.y, &Line::from(spans), body.width);
        for (i, more) in lines
            .enumerate()
            .take(body.height.saturating_sub(1) as usize)
        {
            buf.set_line(
                body.x,
                body.y + 1 + i as u16,
                &Line::from(Span::styled(
                    truncate(&format!("  {more}"), w),
                    theme::dim(),
                )),
                body.width,
            );
        }
        let cx = body.x + str_width(&label).min(w.saturating_sub(1)) as u16;
        self.cursor = Some(Position { x: cx, y: body.y });
    }

    /// Where the terminal cursor goes (the composer caret), after [`Component::render`].
    pub fn cursor(&self) -> Option<Position> {
        self.cursor
    }

    fn submit(&mut self, m: &Model, out: &mut Vec<AppEvent>) {
        let shown = self.composer.text().to_string();
        // A draft whose leading `/` was pasted is a message (§14.5).
        let literal = self.composer.is_literal();
        let typed = self.composer.expanded_text();
        let (name, args) = typed
            .trim()
            .split_once(char::is_whitespace)
            .unwrap_or((typed.trim(), ""));
        let command = !literal && name.starts_with('/');
        // The one parse of a command line, shared with `exec` and the loop.
        let custom = self.composer.custom_commands();
        let parsed = command.then(|| Command::parse_among(&typed, custom));
        if let Some(Err(ParseError::Unknown { .. })) = parsed {
            // An unknown command stays in the composer to be corrected, with the warning.
            let n = Notice::new(
                NoticeLevel::Warn,
                "tui-unknown-command",
                vec![("command", Arg::from(sanitize(name)))],
            );
            out.push(AppEvent::Notice(n));
            out.push(AppEvent::ShowChat);
            return;
        }
        let is = |id| command && find(name, custom).is_some_and(|c| c.id == id);
        // `/copy` writes to the terminal, which the UI owns: it never reaches the agent
        // (nor the queued list under the composer).
        if is(CommandId::Copy) {
            out.push(AppEvent::Copy {
                n: crate::ui::terminal::osc::parse_copy_arg(args),
            });
            self.composer.submit();
            return;
        }
        let quit = is(CommandId::Quit) && args.trim().is_empty();
        let Some(text) = self.composer.submit() else {
            return;
        };
        self.sent.push_back(shown);
        if self.sent.len() > SENT_KEPT {
            self.sent.pop_front();
        }
        out.push(AppEvent::ChatFollow);
        if quit && !m.busy() {
            out.push(AppEvent::Quit);
            return;
        }
        let cmd = match parsed {
            Some(Ok(cmd)) => AgentCommand::Run(cmd),
            Some(Err(e)) => AgentCommand::Invalid(e),
            None if literal && text.trim_start().starts_with('/') => AgentCommand::Message(text),
            None => AgentCommand::Submit(text),
        };
        out.push(AppEvent::Agent(cmd));
        // A message sent while the Trajectory was the one pane shown: its reply is in Chat.
        out.push(AppEvent::ShowChat);
    }
}

impl Component for BottomPane {
    fn render(&mut self, area: Rect, buf: &mut Buffer, m: &Model) {
        self.cursor = None;
        if area.height == 0 {
            return;
        }
        let [sep, body] =
            Layout::vertical([Constraint::Length(1), Constraint::Fill(1)]).areas(area);
        let sep_style = if m.focus == Focus::Composer {
            theme::accent()
        } else {
            theme::dim()
        };
        buf.set_line(
            sep.x,
            sep.y,
            &Line::from(Span::styled("─".repeat(sep.width as usize), sep_style)),
            sep.width,
        );
        if body.height == 0 {
            return;
        }
        let queued_h = self.queued_rows(m).min(body.height.saturating_sub(1));
        let [body, queued] =
            Layout::vertical([Constraint::Fill(1), Constraint::Length(queued_h)]).areas(body);
        self.render_queued(queued, buf, m);
        let l = m.l;
        if let Some(call) = self.approvals.front() {
            self.render_approval(body, buf, m, call);
            return;
        }
        if let Some(search) = self.composer.search() {
            self.render_search(body, buf, m, &search.query.clone());
            return;
        }
        let inner_w = Self::inner_width(area.width);
        let layout = self.composer.layout(inner_w);
        let rows_shown = body.height as usize;
        let first = layout.caret_row.saturating_sub(rows_shown - 1);
        for (i, row) in layout.rows.iter().skip(first).take(rows_shown).enumerate() {
            let prefix = if i == 0 && first == 0 { "› " } else { "  " };
            buf.set_line(
                body.x,
                body.y + i as u16,
                &Line::from(vec![
                    Span::styled(prefix, theme::accent()),
                    Span::raw(row.clone()),
                ]),
                body.width,
            );
        }
        if self.composer.is_empty() {
            let hint = truncate(&l.tr("tui-composer-placeholder"), inner_w);
            buf.set_line(
                body.x + 2,
                body.y,
                &Line::from(Span::styled(hint, theme::dim())),
                body.width.saturating_sub(2),
            );
        }
        let cy = body.y + (layout.caret_row - first) as u16;
        let cx = body.x + 2 + layout.caret_col.min(inner_w) as u16;
        self.cursor = Some(Position {
            x: cx.min(body.x + body.width - 1),
            y: cy,
        });
    }

    fn handle(&mut self, action: Action, m: &Model, out: &mut Vec<AppEvent>) -> Handled {
        let offers_always = self.offers_always();
        let c = &mut self.composer;
        match action {
            Action::Allow => self.answer(ApprovalDecision::Allow, None, out),
            // A card that offers no "always" (a `prompt` rule) takes no `a` (SPEC §15.5).
            Action::AlwaysAllow if !offers_always => {}
            Action::AlwaysAllow => self.answer(ApprovalDecision::AlwaysAllow, None, out),
            Action::Deny => self.answer(ApprovalDecision::Deny, None, out),
            Action::DenyWithReason => self.deny_reason = Some(String::new()),
            Action::Newline => c.newline(),
            Action::Send if c.mention_open() => c.complete_mention(),
            Action::MentionFiles => c.insert_char('@'),
            Action::Send => match c.popup_highlighted().cloned() {
                Some(cmd) => self.run_highlighted(cmd, m, out),
                None => self.submit(m, out),
            },
            Action::CompleteCommand => {
                c.complete();
            }
            Action::HistoryPrev => c.up(),
            Action::HistoryNext => c.down(),
            Action::SlashCommands => c.insert_char('/'),
            Action::HelpOrType => {
                if c.is_empty() {
                    out.push(AppEvent::OpenHelp);
                } else {
                    c.insert_char('?');
                }
            }
            Action::CursorLeft => c.left(),
            Action::CursorRight => c.right(),
            Action::LineStart if c.is_empty() => out.push(AppEvent::ChatTop),
            Action::LineEnd if c.is_empty() => out.push(AppEvent::ChatFollow),
            Action::LineStart => c.home(),
            Action::LineEnd => c.end(),
            Action::Backspace => c.backspace(),
            Action::Delete => c.delete(),
            Action::BeginningOfLine => c.home(),
            Action::EndOfLine => c.end(),
            Action::WordLeft => c.word_left(),
            Action::WordRight => c.word_right(),
            Action::KillBlankWordBack => c.kill_blank_word_back(),
            Action::KillWordBack => c.kill_word_back(),
            Action::KillToEnd => c.kill_to_end(),
            Action::KillToStart => c.kill_to_start(),
            Action::Yank => c.yank(),
            // EOF on an empty line quits, as in a shell.
            Action::DeleteOrQuit if c.is_empty() => out.push(AppEvent::Quit),
            Action::DeleteOrQuit => c.delete(),
            Action::HistorySearch => c.search_older(),
            _ => return Handled::Ignored,
        }
        Handled::Consumed
    }
}
