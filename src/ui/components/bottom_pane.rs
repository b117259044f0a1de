//! The bottom pane: a separator, then the composer or, while an approval is pending, the
//! approval prompt; the slash popup opens above it over the panes (room for an `@` popup).

use ratatui::buffer::Buffer;
use ratatui::layout::{Constraint, Layout, Position, Rect};
use ratatui::style::Style;
use ratatui::text::{Line, Span};

use crate::agent::command_spec::{ArgSpec, Command, CommandId, CommandSpec, ParseError, find};
use crate::agent::protocol::{AgentCommand, ApprovalDecision, Notice, NoticeLevel};
use crate::i18n::Arg;
use crate::ui::chat::Scroll;
use crate::ui::composer::Composer;
use crate::ui::keymap::Action;
use crate::ui::text::{sanitize, str_width, truncate};
use crate::ui::theme;
use crate::ui::view::CellKind;

use super::component::{Component, Handled};
use super::state::{Focus, UiState};

/// Maximum composer text rows.
const COMPOSER_MAX_ROWS: usize = 6;
/// Queued messages shown under the composer (more are counted on one more row).
const QUEUED_MAX_ROWS: usize = 3;
/// The longest denial reason, in characters.
const MAX_REASON_CHARS: usize = 300;
/// Submitted texts remembered to show the queued ones.
const SENT_KEPT: usize = 32;

/// The bottom pane: owns the composer.
#[derive(Debug, Default)]
pub struct BottomPane {
    /// The composer.
    pub composer: Composer,
    cursor: Option<Position>,
    /// `n` on an approval: the reason being typed for denying the oldest pending call.
    deny_reason: Option<String>,
}

impl BottomPane {
    /// A pane with an empty composer.
    pub fn new() -> Self {
        BottomPane {
            composer: Composer::new(),
            cursor: None,
            deny_reason: None,
        }
    }

    /// Rows the pane wants while an approval is pending: the separator, the tool and its
    /// arguments, the keys (fewer when the screen is short).
    pub fn approval_height(avail: u16) -> u16 {
        3.min(avail.saturating_sub(3)).max(2)
    }

    /// Rows the pane wants at `width` when `avail` rows lie between the top and the footer.
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
    pub fn queued_rows(s: &UiState) -> u16 {
        let n = s.queued_texts().count();
        if n > QUEUED_MAX_ROWS {
            QUEUED_MAX_ROWS as u16 + 1
        } else {
            n as u16
        }
    }

    /// Draws the queued messages dimmed, one truncated line each, into `area`.
    fn render_queued(area: Rect, buf: &mut Buffer, s: &UiState) {
        let l = s.l;
        let w = area.width as usize;
        let texts: Vec<&str> = s.queued_texts().collect();
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
    fn render_search(&mut self, body: Rect, buf: &mut Buffer, s: &UiState, query: &str) {
        let l = s.l;
        let w = body.width as usize;
        let found = self.composer.search_match().map(str::to_string);
        let key = if found.is_some() || query.is_empty() {
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
        let room = w.saturating_sub(label_w);
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

    /// Whether a denial reason is being typed (every key goes to it).
    pub fn typing_reason(&self) -> bool {
        self.deny_reason.is_some()
    }

    /// A key while the denial reason is typed: text edits it, Enter denies with it, Esc
    /// denies without one (§14.5).
    pub fn reason_key(&mut self, k: &crossterm::event::KeyEvent, s: &mut UiState) {
        use crossterm::event::{KeyCode, KeyModifiers};
        let Some(reason) = self.deny_reason.as_mut() else {
            return;
        };
        match k.code {
            KeyCode::Enter => {
                let reason = self.deny_reason.take().unwrap_or_default();
                self.deny(s, Some(reason));
            }
            KeyCode::Esc => {
                self.deny_reason = None;
                self.deny(s, None);
            }
            KeyCode::Char('c') if k.modifiers.contains(KeyModifiers::CONTROL) => {
                self.deny_reason = None;
                self.deny(s, None);
            }
            KeyCode::Backspace => {
                reason.pop();
            }
            // One line, bounded: it goes to the model with the denial.
            KeyCode::Char(c)
                if !k
                    .modifiers
                    .intersects(KeyModifiers::CONTROL | KeyModifiers::ALT)
                    && reason.chars().count() < MAX_REASON_CHARS =>
            {
                reason.push(c);
            }
            _ => {}
        }
    }

    /// A paste while the reason is typed: its first line, bounded.
    pub fn reason_paste(&mut self, text: &str) {
        if let Some(reason) = self.deny_reason.as_mut() {
            let line = text.lines().next().unwrap_or("");
            let room = MAX_REASON_CHARS.saturating_sub(reason.chars().count());
            reason.extend(line.chars().filter(|c| !c.is_control()).take(room));
        }
    }

    /// Denies the oldest pending approval, with the reason when one was typed.
    fn deny(&mut self, s: &mut UiState, reason: Option<String>) {
        match reason
            .map(|r| r.trim().to_string())
            .filter(|r| !r.is_empty())
        {
            Some(reason) => {
                if let Some(call_id) = s.approvals.pop_front() {
                    s.transcript.decide(&call_id, ApprovalDecision::Deny);
                    s.outbox
                        .push(AgentCommand::DenyWithReason { call_id, reason });
                }
            }
            None => self.answer(s, ApprovalDecision::Deny),
        }
    }

    /// Answers the oldest pending approval.
    fn answer(&mut self, s: &mut UiState, d: ApprovalDecision) {
        if let Some(call_id) = s.approvals.pop_front() {
            s.transcript.decide(&call_id, d);
            s.outbox.push(AgentCommand::Approve {
                call_id,
                decision: d,
            });
        }
    }

    fn submit(&mut self, s: &mut UiState) {
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
        let parsed = command.then(|| Command::parse(&typed));
        if let Some(Err(ParseError::Unknown { .. })) = parsed {
            // An unknown command stays in the composer to be corrected, with the warning.
            let n = Notice::new(
                NoticeLevel::Warn,
                "tui-unknown-command",
                vec![("command", Arg::from(sanitize(name)))],
            );
            s.transcript.push(CellKind::Notice(n));
            s.show_chat(None);
            return;
        }
        let is = |id| command && find(name).is_some_and(|c| c.id == id);
        // `/copy` writes to the terminal, which the UI owns: it never reaches the agent
        // (nor the queued list under the composer).
        if is(CommandId::Copy) {
            s.copy_request = Some(args.trim().to_string());
            self.composer.submit();
            return;
        }
        let quit = is(CommandId::Quit) && args.trim().is_empty();
        let Some(text) = self.composer.submit() else {
            return;
        };
        s.sent.push_back(shown);
        if s.sent.len() > SENT_KEPT {
            s.sent.pop_front();
        }
        s.chat_scroll = Scroll::default();
        if quit && !s.busy() {
            s.request_quit();
            return;
        }
        let cmd = match parsed {
            Some(Ok(cmd)) => AgentCommand::Run(cmd),
            Some(Err(e)) => AgentCommand::Invalid(e),
            None if literal && text.trim_start().starts_with('/') => AgentCommand::Message(text),
            None => AgentCommand::Submit(text),
        };
        s.outbox.push(cmd);
        // A message sent while the Trajectory was the one pane shown: its reply is in Chat.
        s.show_chat(None);
    }

    /// Draws the slash popup over the bottom rows of `above` (the panes), if it is open:
    /// each command with its argument synopsis and description. While a command's
    /// arguments are typed (`/tool `), one row shows its usage instead.
    pub fn render_popup(&self, above: Rect, buf: &mut Buffer, s: &UiState) {
        if !s.approvals.is_empty() || above.height == 0 {
            return;
        }
        let l = s.l;
        let w = above.width as usize;
        if self.composer.mention_open() {
            self.render_mentions(above, buf);
            return;
        }
        if !self.composer.popup_open() {
            let Some(cmd) = self.composer.command_being_typed() else {
                return;
            };
            let row = Rect {
                y: above.bottom() - 1,
                height: 1,
                ..above
            };
            let text = truncate(
                &format!("{}  {}", usage_line(l, cmd), l.tr(cmd.desc_key)),
                w,
            );
            let pad = " ".repeat(w.saturating_sub(str_width(&text)));
            buf.set_line(
                row.x,
                row.y,
                &Line::from(Span::styled(format!("{text}{pad}"), theme::dim())),
                row.width,
            );
            return;
        }
        let matches = self.composer.popup_matches();
        let names: Vec<String> = matches.iter().map(|m| usage_line(l, m)).collect();
        // The synopsis column is as wide as the widest shown, up to half the popup.
        let col = names
            .iter()
            .map(|n| str_width(n))
            .max()
            .unwrap_or(0)
            .min(w / 2);
        let rows: Vec<String> = matches
            .iter()
            .zip(&names)
            .map(|(m, name)| {
                let name = truncate(name, col);
                let name_pad = " ".repeat(col.saturating_sub(str_width(&name)));
                format!("{name}{name_pad}  {}", l.tr(m.desc_key))
            })
            .collect();
        self.draw_popup_rows(above, buf, &rows);
    }

    /// The rows of a popup (slash commands or `@` files), bottom-aligned in `above`, one
    /// per line cut to the width, the highlighted one selected.
    fn draw_popup_rows(&self, above: Rect, buf: &mut Buffer, rows: &[String]) {
        let w = above.width as usize;
        let h = (rows.len() as u16).min(above.height);
        let [_, popup] =
            Layout::vertical([Constraint::Fill(1), Constraint::Length(h)]).areas(above);
        for (i, row) in rows.iter().take(popup.height as usize).enumerate() {
            let text = truncate(row, w);
            let pad = " ".repeat(w.saturating_sub(str_width(&text)));
            let st = if i == self.composer.popup_selected() {
                theme::selected()
            } else {
                theme::dim().patch(Style::default())
            };
            buf.set_line(
                popup.x,
                popup.y + i as u16,
                &Line::from(Span::styled(format!("{text}{pad}"), st)),
                popup.width,
            );
        }
    }

    /// Draws the `@` file popup like the slash popup: one workspace path a row,
    /// best first, the highlighted row selected.
    fn render_mentions(&self, above: Rect, buf: &mut Buffer) {
        let rows: Vec<String> = self
            .composer
            .mention_matches()
            .iter()
            .map(|path| format!("@{}", sanitize(path)))
            .collect();
        self.draw_popup_rows(above, buf, &rows);
    }

    /// Enter with the slash popup open: a command that requires arguments is completed
    /// (`/tool `, its usage then shows above the composer); any other runs at once.
    fn run_highlighted(&mut self, cmd: &'static CommandSpec, s: &mut UiState) {
        if cmd.args == ArgSpec::Required {
            self.composer.complete();
        } else {
            self.composer.clear();
            self.composer.insert_str(cmd.name);
            self.submit(s);
        }
    }
}

/// A command's name and argument synopsis from the table (`/tool enable|disable NAME`).
pub fn usage_line(l: crate::i18n::Localizer, cmd: &CommandSpec) -> String {
    match cmd.usage_key {
        Some(k) => format!("{} {}", cmd.name, l.tr(k)),
        None => cmd.name.to_string(),
    }
}

impl Component for BottomPane {
    fn render(&mut self, area: Rect, buf: &mut Buffer, s: &mut UiState) {
        self.cursor = None;
        if area.height == 0 {
            return;
        }
        let [sep, body] =
            Layout::vertical([Constraint::Length(1), Constraint::Fill(1)]).areas(area);
        let sep_style = if s.focus == Focus::Composer {
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
        let queued_h = Self::queued_rows(s).min(body.height.saturating_sub(1));
        let [body, queued] =
            Layout::vertical([Constraint::Fill(1), Constraint::Length(queued_h)]).areas(body);
        Self::render_queued(queued, buf, s);
        let l = s.l;
        if let Some(call) = s.approvals.front() {
            // The prompt names the tool and shows its arguments (cut to the row), then the
            // keys; Esc denies and the turn goes on.
            let w = body.width as usize;
            let (tool, args) = s.transcript.call_info(call).unwrap_or(("?", ""));
            let title = l.tra("tui-approval-title", &[("tool", tool.into())]);
            let args = args.split_whitespace().collect::<Vec<_>>().join(" ");
            let what = truncate(&format!("{title} {args}"), w);
            let keys = match &self.deny_reason {
                Some(r) => truncate(
                    &l.tra("tui-approval-reason", &[("reason", Arg::from(r.clone()))]),
                    w,
                ),
                None => truncate(&l.tr("tui-approval-prompt"), w),
            };
            let mut rows = vec![
                Line::from(Span::styled(what, theme::warn().patch(theme::bold()))),
                Line::from(Span::styled(keys, theme::accent())),
            ];
            if body.height < 2 {
                let one = truncate(
                    &format!("{title} {args} · {}", l.tr("tui-approval-prompt")),
                    w,
                );
                rows = vec![Line::from(Span::styled(
                    one,
                    theme::warn().patch(theme::bold()),
                ))];
            }
            for (k, row) in rows.iter().enumerate().take(body.height as usize) {
                buf.set_line(body.x, body.y + k as u16, row, body.width);
            }
            return;
        }
        if let Some(search) = self.composer.search() {
            self.render_search(body, buf, s, &search.query.clone());
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

    fn handle(&mut self, action: Action, s: &mut UiState) -> Handled {
        let c = &mut self.composer;
        match action {
            Action::Allow => self.answer(s, ApprovalDecision::Allow),
            Action::AlwaysAllow => self.answer(s, ApprovalDecision::AlwaysAllow),
            Action::Deny => self.answer(s, ApprovalDecision::Deny),
            Action::DenyWithReason => self.deny_reason = Some(String::new()),
            Action::Newline => c.newline(),
            Action::Send if c.mention_open() => c.complete_mention(),
            Action::MentionFiles => c.insert_char('@'),
            Action::Send => match c.popup_highlighted() {
                Some(cmd) => self.run_highlighted(cmd, s),
                None => self.submit(s),
            },
            Action::CompleteCommand => {
                c.complete();
            }
            Action::HistoryPrev => c.up(),
            Action::HistoryNext => c.down(),
            Action::SlashCommands => c.insert_char('/'),
            Action::HelpOrType => {
                if c.is_empty() {
                    s.open_help = true;
                } else {
                    c.insert_char('?');
                }
            }
            Action::CursorLeft => c.left(),
            Action::CursorRight => c.right(),
            Action::LineStart if c.is_empty() => s.scroll(Focus::Chat, isize::MIN / 2),
            Action::LineEnd if c.is_empty() => s.chat_scroll = Scroll::default(),
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
            Action::DeleteOrQuit if c.is_empty() => s.request_quit(),
            Action::DeleteOrQuit => c.delete(),
            Action::HistorySearch => c.search_older(),
            _ => return Handled::Ignored,
        }
        Handled::Consumed
    }
}
