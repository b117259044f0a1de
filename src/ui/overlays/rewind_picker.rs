//! The rewind picker (Esc Esc on an empty composer, or `/rewind`): the earlier prompts,
//! newest first; Enter on one offers what to take back (the conversation and the code, the
//! conversation, or the code), Enter again rewinds through [`rewind_to`]; Esc backs
//! out of the choice, then closes.

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Widget};

use crate::agent::command_spec::Command;
use crate::agent::protocol::AgentCommand;
pub use crate::agent::protocol::PromptChoice;
use crate::i18n::Arg;
use crate::session::checkpoint_event::RewindScope;
use crate::ui::app_event::AppEvent;
use crate::ui::component::{Component, Handled, clear_area, overlay_base};
use crate::ui::keymap::Action;
use crate::ui::model::Model;
use crate::ui::text::{sanitize, truncate};
use crate::ui::theme;

/// The scopes offered, in order.
const SCOPES: [RewindScope; 3] = [
    RewindScope::Both,
    RewindScope::Conversation,
    RewindScope::Code,
];

/// The Fluent id naming a scope.
fn scope_key(scope: RewindScope) -> &'static str {
    match scope {
        RewindScope::Conversation => "rewind-scope-conversation",
        RewindScope::Code => "rewind-scope-code",
        RewindScope::Both => "rewind-scope-both",
    }
}

/// The widest the picker grows.
const MAX_WIDTH: u16 = 100;

/// The picker's state.
#[derive(Debug, Clone)]
pub struct RewindPicker {
    /// Newest first.
    prompts: Vec<PromptChoice>,
    selected: usize,
    /// `Some(i)`: the prompt is chosen, scope `SCOPES[i]` is highlighted.
    scope: Option<usize>,
    /// The first prompt shown.
    scroll: usize,
}

impl RewindPicker {
    /// A picker over `prompts` (in conversation order; shown newest first).
    pub fn new(mut prompts: Vec<PromptChoice>) -> RewindPicker {
        prompts.reverse();
        RewindPicker {
            prompts,
            selected: 0,
            scope: None,
            scroll: 0,
        }
    }

    /// The highlighted prompt's number, and the highlighted scope once it is chosen.
    pub fn selection(&self) -> (Option<usize>, Option<RewindScope>) {
        (
            self.prompts.get(self.selected).map(|p| p.n),
            self.scope.map(|s| SCOPES[s]),
        )
    }

    /// The rows, each with whether it is highlighted.
    fn rows(&self, m: &Model, width: usize) -> (Vec<(Line<'static>, bool)>, usize) {
        let l = m.l;
        let mut rows = Vec::new();
        let mut at = 0;
        for (i, p) in self.prompts.iter().enumerate() {
            let key = if p.changed_files {
                "rewind-choice-files"
            } else {
                "rewind-choice"
            };
            let text = l.tra(
                key,
                &[
                    ("n", Arg::from(p.n)),
                    ("prompt", Arg::from(sanitize(&p.prompt))),
                ],
            );
            let on = i == self.selected && self.scope.is_none();
            if i == self.selected {
                at = rows.len();
            }
            let marker = if i == self.selected { "›" } else { " " };
            let style = if on {
                theme::selected()
            } else if i == self.selected {
                theme::bold()
            } else {
                ratatui::style::Style::default()
            };
            let line = truncate(&format!("{marker}{text}"), width);
            rows.push((Line::from(Span::styled(line, style)), on));
            if i == self.selected
                && let Some(s) = self.scope
            {
                for (j, scope) in SCOPES.iter().enumerate() {
                    let label = truncate(&format!("      {}", l.tr(scope_key(*scope))), width);
                    let style = if j == s {
                        theme::selected()
                    } else {
                        theme::dim()
                    };
                    rows.push((Line::from(Span::styled(label, style)), j == s));
                }
            }
        }
        (rows, at)
    }
}

impl Component for RewindPicker {
    fn render(&mut self, area: Rect, buf: &mut Buffer, m: &Model) {
        let l = m.l;
        let w = area
            .width
            .saturating_sub(4)
            .clamp(area.width.min(20), MAX_WIDTH);
        let h = area.height.saturating_sub(2).clamp(area.height.min(6), 24);
        let rect = Rect::new(
            area.x + (area.width - w) / 2,
            area.y + (area.height - h) / 2,
            w,
            h,
        );
        clear_area(rect, buf, overlay_base());
        let keys = if self.scope.is_some() {
            l.tr("tui-rewind-keys-scope")
        } else {
            l.tr("tui-rewind-keys")
        };
        let block = Block::default()
            .borders(Borders::ALL)
            .border_style(theme::accent())
            .title(Span::styled(
                format!(" {} ", l.tr("rewind-title").trim_end_matches([':', '：'])),
                theme::bold(),
            ))
            .title_bottom(Line::from(format!(" {keys} ")).right_aligned());
        let inner = block.inner(rect);
        block.render(rect, buf);
        if inner.height == 0 {
            return;
        }
        if self.prompts.is_empty() {
            let line = Line::from(Span::styled(l.tr("rewind-none"), theme::dim()));
            buf.set_line(inner.x, inner.y, &line, inner.width);
            return;
        }
        let (rows, at) = self.rows(m, usize::from(inner.width));
        let page = usize::from(inner.height);
        // The chosen prompt and its scopes stay in view.
        let end = at + if self.scope.is_some() { 4 } else { 1 };
        if at < self.scroll {
            self.scroll = at;
        } else if end > self.scroll + page {
            self.scroll = end.saturating_sub(page);
        }
        for (y, (line, on)) in rows.iter().skip(self.scroll).take(page).enumerate() {
            let r = Rect::new(inner.x, inner.y + y as u16, inner.width, 1);
            if *on {
                buf.set_style(r, theme::selected());
            }
            buf.set_line(r.x, r.y, line, r.width);
        }
    }

    fn handle(&mut self, action: Action, _m: &Model, out: &mut Vec<AppEvent>) -> Handled {
        let len = match self.scope {
            Some(_) => SCOPES.len(),
            None => self.prompts.len(),
        };
        let cur = self.scope.unwrap_or(self.selected);
        let next = match action {
            Action::Close if self.scope.is_some() => {
                self.scope = None;
                return Handled::Consumed;
            }
            Action::Close => return Handled::Close,
            Action::SelectPrev => cur.saturating_sub(1),
            Action::SelectNext => (cur + 1).min(len.saturating_sub(1)),
            Action::Send => {
                let Some(p) = self.prompts.get(self.selected) else {
                    return Handled::Close;
                };
                return match self.scope {
                    None => {
                        self.scope = Some(0);
                        Handled::Consumed
                    }
                    Some(s) => {
                        out.push(AppEvent::Agent(rewind_to(p.n, SCOPES[s])));
                        Handled::Close
                    }
                };
            }
            _ => return Handled::Consumed,
        };
        match &mut self.scope {
            Some(s) => *s = next,
            None => self.selected = next,
        }
        Handled::Consumed
    }
}

/// What the picker asks of the agent, as typed commands (no command line for the agent to
/// parse again).
/// Asks for the earlier prompts: the agent answers with
/// [`crate::agent::protocol::AgentEvent::RewindChoices`], which opens the picker.
pub fn list_prompts() -> AgentCommand {
    AgentCommand::Run(Command::Rewind {
        to: None,
        scope: RewindScope::Both,
        force: false,
    })
}

/// The rewind the picker chose: back to before prompt `n`, taking back `scope`.
pub fn rewind_to(n: usize, scope: RewindScope) -> AgentCommand {
    AgentCommand::Run(Command::Rewind {
        to: Some(n),
        scope,
        force: false,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::agent::protocol::AgentCommand;
    use crate::i18n::Locale;
    use ratatui::Terminal;
    use ratatui::backend::TestBackend;

    fn picker() -> RewindPicker {
        RewindPicker::new(vec![
            PromptChoice {
                n: 1,
                prompt: "first".into(),
                changed_files: false,
            },
            PromptChoice {
                n: 2,
                prompt: "fix the bug".into(),
                changed_files: true,
            },
        ])
    }

    fn text(p: &mut RewindPicker, loc: Locale, w: u16) -> String {
        let m = Model::new(loc, false);
        let mut t = Terminal::new(TestBackend::new(w, 14)).unwrap();
        t.draw(|f| p.render(f.area(), f.buffer_mut(), &m)).unwrap();
        let b = t.backend().buffer().clone();
        (0..b.area.height)
            .map(|y| {
                (0..b.area.width)
                    .map(|x| b[(x, y)].symbol().to_string())
                    .collect::<String>()
            })
            .collect::<Vec<_>>()
            .join("\n")
    }

    fn act(p: &mut RewindPicker, a: Action) -> (Handled, Vec<AppEvent>) {
        let m = Model::new(Locale::EnUs, false);
        let mut out = Vec::new();
        let h = p.handle(a, &m, &mut out);
        (h, out)
    }

    #[test]
    fn newest_prompt_first_then_enter_offers_the_scopes_and_rewinds() {
        let mut p = picker();
        let shown = text(&mut p, Locale::EnUs, 80);
        let a = shown.find("fix the bug").unwrap();
        let b = shown.find("first").unwrap();
        assert!(a < b, "{shown}");
        assert!(shown.contains("(changed files)"), "{shown}");
        assert_eq!(act(&mut p, Action::Send).0, Handled::Consumed);
        let shown = text(&mut p, Locale::EnUs, 120);
        assert!(shown.contains("the conversation and the code"), "{shown}");
        act(&mut p, Action::SelectNext);
        assert_eq!(p.selection(), (Some(2), Some(RewindScope::Conversation)));
        let (h, out) = act(&mut p, Action::Send);
        assert_eq!(h, Handled::Close);
        assert!(matches!(
            out.as_slice(),
            [AppEvent::Agent(AgentCommand::Run(
                crate::agent::command_spec::Command::Rewind {
                    to: Some(2),
                    scope: RewindScope::Conversation,
                    force: false,
                }
            ))]
        ));
    }

    #[test]
    fn esc_backs_out_of_the_scopes_then_closes_and_chinese_renders() {
        let mut p = picker();
        act(&mut p, Action::SelectNext);
        act(&mut p, Action::Send);
        assert_eq!(p.selection(), (Some(1), Some(RewindScope::Both)));
        assert_eq!(act(&mut p, Action::Close).0, Handled::Consumed);
        assert_eq!(p.selection(), (Some(1), None));
        let shown = text(&mut p, Locale::ZhCn, 80);
        assert!(shown.replace(' ', "").contains("之前的提示"), "{shown}");
        assert_eq!(act(&mut p, Action::Close).0, Handled::Close);
    }

    #[test]
    fn a_long_list_keeps_the_highlighted_prompt_in_view() {
        let mut p = RewindPicker::new(
            (1..=40)
                .map(|n| PromptChoice {
                    n,
                    prompt: format!("prompt number {n}"),
                    changed_files: false,
                })
                .collect(),
        );
        for _ in 0..30 {
            act(&mut p, Action::SelectNext);
        }
        let shown = text(&mut p, Locale::EnUs, 80);
        assert!(shown.contains("prompt number 10"), "{shown}");
        assert!(!shown.contains("prompt number 40"), "{shown}");
    }

    #[test]
    fn with_no_prompts_it_says_so_and_enter_closes() {
        let mut p = RewindPicker::new(vec![]);
        assert!(text(&mut p, Locale::EnUs, 80).contains("(no prompts yet)"));
        assert_eq!(act(&mut p, Action::Send).0, Handled::Close);
    }
}
