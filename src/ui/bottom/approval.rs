//! The approval prompt in the bottom pane: the oldest pending call's tool and arguments
//! and the keys; `n` types a denial reason (§14.5); the answers go to the agent.

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};

use crate::agent::protocol::ApprovalDecision;
use crate::i18n::Arg;
use crate::ui::app_event::AppEvent;
use crate::ui::approval_keys::{key_rows, keys_text};
use crate::ui::model::Model;
use crate::ui::text::truncate;
use crate::ui::theme;

use super::{BottomPane, PendingApproval};
use crate::ui::approval_keys::{Asker, approval_title};

/// The longest denial reason, in characters.
const MAX_REASON_CHARS: usize = 300;

/// The arguments on one row: each line break (JSON's own layout, never inside a string,
/// where JSON writes `\n`) and the indentation around it become one space; every other
/// space is kept, so a string's leading spaces (an indented line of Python) read as they
/// are. The text was sanitized when it arrived: control characters are already escaped.
fn one_line(args: &str) -> String {
    args.split('\n')
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .collect::<Vec<_>>()
        .join(" ")
}

impl BottomPane {
    /// The next question, about `call_id`, is subagent `asker`'s.
    pub fn set_asker(&mut self, call_id: String, asker: Asker) {
        self.next_asker = Some((call_id, asker));
    }

    /// The subagent the question about `call_id` is for, if the agent named one.
    pub fn take_asker(&mut self, call_id: &str) -> Option<Asker> {
        match self.next_asker.take() {
            Some((id, a)) if id == call_id => Some(a),
            _ => None,
        }
    }

    /// The agent asks for an answer on a call: it queues behind any already pending.
    pub fn push_approval(&mut self, p: PendingApproval) {
        self.approvals.push_back(p);
    }

    /// Whether a call waits for the user's answer.
    pub fn approval_pending(&self) -> bool {
        !self.approvals.is_empty()
    }

    /// The turn is over: no call waits for an answer; keys go back to the composer.
    pub fn clear_approvals(&mut self) {
        self.approvals.clear();
    }

    /// Rows the pane wants while an approval is pending: the separator, the tool and its
    /// arguments, the keys, wrapped to `width` (at most three rows; fewer when the screen
    /// is short).
    pub fn approval_height(&self, width: u16, avail: u16, l: crate::i18n::Localizer) -> u16 {
        let keys = self.approvals.front().map_or(1, |p| {
            key_rows(&keys_text(l, p.ask.as_ref()), width as usize).len()
        });
        (2 + keys.min(3) as u16).min(avail.saturating_sub(3)).max(2)
    }

    /// Whether `a` does anything on the oldest pending card: unknown (no reason was sent)
    /// counts as yes.
    pub(super) fn offers_always(&self) -> bool {
        self.approvals
            .front()
            .and_then(|p| p.ask.as_ref())
            .is_none_or(|a| a.always.is_some())
    }

    /// Whether a denial reason is being typed (every key goes to it).
    pub fn typing_reason(&self) -> bool {
        self.deny_reason.is_some()
    }

    /// A key while the denial reason is typed: text edits it, Enter denies with it, Esc
    /// denies without one (§14.5).
    pub fn reason_key(&mut self, k: &crossterm::event::KeyEvent, out: &mut Vec<AppEvent>) {
        use crossterm::event::{KeyCode, KeyModifiers};
        let Some(reason) = self.deny_reason.as_mut() else {
            return;
        };
        match k.code {
            KeyCode::Enter => {
                let reason = self.deny_reason.take().unwrap_or_default();
                self.deny(Some(reason), out);
            }
            KeyCode::Esc => {
                self.deny_reason = None;
                self.deny(None, out);
            }
            KeyCode::Char('c') if k.modifiers.contains(KeyModifiers::CONTROL) => {
                self.deny_reason = None;
                self.deny(None, out);
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
    fn deny(&mut self, reason: Option<String>, out: &mut Vec<AppEvent>) {
        let reason = reason
            .map(|r| r.trim().to_string())
            .filter(|r| !r.is_empty());
        self.answer(ApprovalDecision::Deny, reason, out);
    }

    /// Answers the oldest pending approval.
    pub(super) fn answer(
        &mut self,
        decision: ApprovalDecision,
        reason: Option<String>,
        out: &mut Vec<AppEvent>,
    ) {
        if let Some(p) = self.approvals.pop_front() {
            out.push(AppEvent::Answer {
                call_id: p.call_id,
                decision,
                reason,
            });
        }
    }

    /// Draws the prompt for pending call `call` into `body`.
    pub(super) fn render_approval(
        &self,
        body: Rect,
        buf: &mut Buffer,
        m: &Model,
        call: &PendingApproval,
    ) {
        let l = m.l;
        // The prompt names the tool and shows its arguments (cut to the row), then the
        // keys; Esc denies and the turn goes on.
        let w = body.width as usize;
        let (tool, args) = (call.tool.as_str(), call.arguments.as_str());
        let title = approval_title(l, tool, call.asker.as_ref());
        let args = one_line(args);
        let what = truncate(&format!("{title} {args}"), w);
        let keys = match &self.deny_reason {
            Some(r) => vec![truncate(
                &l.tra("tui-approval-reason", &[("reason", Arg::from(r.clone()))]),
                w,
            )],
            None => key_rows(&keys_text(l, call.ask.as_ref()), w),
        };
        let mut rows = vec![Line::from(Span::styled(
            what,
            theme::warn().patch(theme::bold()),
        ))];
        rows.extend(
            keys.into_iter()
                .map(|k| Line::from(Span::styled(k, theme::accent()))),
        );
        if body.height < 2 {
            let one = truncate(
                &format!("{title} {args} · {}", keys_text(l, call.ask.as_ref())),
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
    }
}
