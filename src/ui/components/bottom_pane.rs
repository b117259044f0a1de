//! The bottom pane: a separator, then the composer or, while an approval is pending, the
//! approval prompt; the slash popup opens above it over the panes (room for an `@` popup).

use ratatui::buffer::Buffer;
use ratatui::layout::{Constraint, Layout, Position, Rect};
use ratatui::style::Style;
use ratatui::text::{Line, Span};

use crate::agent::command_spec::{CommandId, find};
use crate::agent::protocol::{AgentCommand, ApprovalDecision};
use crate::ui::chat::Scroll;
use crate::ui::composer::Composer;
use crate::ui::keymap::Action;
use crate::ui::text::{str_width, truncate};
use crate::ui::theme;

use super::component::{Component, Handled};
use super::state::{Focus, UiState};

/// Maximum composer text rows.
const COMPOSER_MAX_ROWS: usize = 6;

/// The bottom pane: owns the composer.
#[derive(Debug, Default)]
pub struct BottomPane {
    /// The composer.
    pub composer: Composer,
    cursor: Option<Position>,
}

impl BottomPane {
    /// A pane with an empty composer.
    pub fn new() -> Self {
        BottomPane {
            composer: Composer::new(),
            cursor: None,
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

    /// Where the terminal cursor goes (the composer caret), after [`Component::render`].
    pub fn cursor(&self) -> Option<Position> {
        self.cursor
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
        let Some(text) = self.composer.submit() else {
            return;
        };
        s.chat_scroll = Scroll::default();
        let quit = find(text.trim()).is_some_and(|c| c.id == CommandId::Quit);
        if quit && !s.busy() {
            s.request_quit();
            return;
        }
        s.outbox.push(AgentCommand::Submit(text));
        // A message sent while the Trajectory was the one pane shown: its reply is in Chat.
        s.show_chat(None);
    }

    /// Draws the slash popup over the bottom rows of `above` (the panes), if it is open.
    pub fn render_popup(&self, above: Rect, buf: &mut Buffer, s: &UiState) {
        if !s.approvals.is_empty() || !self.composer.popup_open() {
            return;
        }
        let matches = self.composer.popup_matches();
        let h = (matches.len() as u16).min(above.height);
        let [_, popup] =
            Layout::vertical([Constraint::Fill(1), Constraint::Length(h)]).areas(above);
        for (i, m) in matches.iter().take(popup.height as usize).enumerate() {
            let sel = i == self.composer.popup_selected();
            let w = popup.width as usize;
            let text = truncate(&format!("{:<10} {}", m.name, s.l.tr(m.desc_key)), w);
            let pad = " ".repeat(w.saturating_sub(str_width(&text)));
            let st = if sel {
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
        let l = s.l;
        if let Some(call) = s.approvals.front() {
            // The prompt names the tool and shows its arguments (cut to the row), then the
            // keys; Esc denies and the turn goes on (issue 12 items 1 and 4).
            let w = body.width as usize;
            let (tool, args) = s.transcript.call_info(call).unwrap_or(("?", ""));
            let title = l.tra("tui-approval-title", &[("tool", tool.into())]);
            let args = args.split_whitespace().collect::<Vec<_>>().join(" ");
            let what = truncate(&format!("{title} {args}"), w);
            let keys = truncate(&l.tr("tui-approval-prompt"), w);
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
            Action::Newline => c.newline(),
            Action::Send => {
                if c.popup_open() {
                    if let Some(cmd) = c.complete()
                        && !cmd.complete_with_args
                    {
                        self.submit(s);
                    }
                } else {
                    self.submit(s);
                }
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
            Action::ClearComposer => c.clear(),
            _ => return Handled::Ignored,
        }
        Handled::Consumed
    }
}
