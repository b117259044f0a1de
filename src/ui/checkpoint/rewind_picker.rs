//! The rewind picker (Esc Esc on an empty composer, or `/rewind`): the earlier prompts,
//! newest first; Enter on one offers what to take back (conversation, code or both), and
//! the choice becomes the command `/rewind N SCOPE`, which the loop runs as in `exec`.

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Clear, Paragraph, Widget};

use crate::i18n::Localizer;
use crate::ui::theme;

/// One earlier prompt.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PromptChoice {
    /// Its position (what `/rewind N` takes).
    pub n: usize,
    /// The prompt, on one line.
    pub prompt: String,
    /// Whether its turn (or a later one) changed files.
    pub changed_files: bool,
}

/// What a key did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PickerKey {
    /// Handled; keep the picker open.
    Handled,
    /// Close without rewinding.
    Close,
    /// Run this command line (`/rewind N SCOPE`).
    Run(String),
}

const SCOPES: [&str; 3] = ["both", "conversation", "code"];

/// The Fluent id naming a scope.
fn scope_key(scope: &str) -> &'static str {
    match scope {
        "conversation" => "rewind-scope-conversation",
        "code" => "rewind-scope-code",
        _ => "rewind-scope-both",
    }
}

/// The picker's state.
#[derive(Debug, Clone)]
pub struct RewindPicker {
    prompts: Vec<PromptChoice>,
    selected: usize,
    /// `Some(i)`: the prompt is chosen, scope `SCOPES[i]` is highlighted.
    scope: Option<usize>,
}

impl RewindPicker {
    /// A picker over `prompts` (in conversation order; shown newest first).
    pub fn new(mut prompts: Vec<PromptChoice>) -> RewindPicker {
        prompts.reverse();
        RewindPicker {
            prompts,
            selected: 0,
            scope: None,
        }
    }

    /// Handles a key.
    pub fn key(&mut self, code: crossterm::event::KeyCode) -> PickerKey {
        use crossterm::event::KeyCode;
        let len = match self.scope {
            Some(_) => SCOPES.len(),
            None => self.prompts.len(),
        };
        let cur = self.scope.unwrap_or(self.selected);
        let next = match code {
            KeyCode::Esc if self.scope.is_some() => {
                self.scope = None;
                return PickerKey::Handled;
            }
            KeyCode::Esc => return PickerKey::Close,
            KeyCode::Up => cur.saturating_sub(1),
            KeyCode::Down => (cur + 1).min(len.saturating_sub(1)),
            KeyCode::Enter => {
                let Some(p) = self.prompts.get(self.selected) else {
                    return PickerKey::Close;
                };
                return match self.scope {
                    None => {
                        self.scope = Some(0);
                        PickerKey::Handled
                    }
                    Some(s) => PickerKey::Run(format!("/rewind {} {}", p.n, SCOPES[s])),
                };
            }
            _ => return PickerKey::Handled,
        };
        match &mut self.scope {
            Some(s) => *s = next,
            None => self.selected = next,
        }
        PickerKey::Handled
    }

    /// Draws the picker over `area`.
    pub fn render(&self, area: Rect, buf: &mut Buffer, l: Localizer) {
        Clear.render(area, buf);
        let block = Block::default().borders(Borders::ALL).title(Span::styled(
            format!(" {} ", l.tr("rewind-title")),
            theme::bold(),
        ));
        let inner = block.inner(area);
        block.render(area, buf);
        let mut lines: Vec<Line> = Vec::new();
        for (i, p) in self.prompts.iter().enumerate() {
            let key = if p.changed_files {
                "rewind-choice-files"
            } else {
                "rewind-choice"
            };
            let text = l.tra(
                key,
                &[
                    ("n", crate::i18n::Arg::from(p.n)),
                    (
                        "prompt",
                        crate::i18n::Arg::from(crate::ui::text::sanitize(&p.prompt)),
                    ),
                ],
            );
            let style = if i == self.selected {
                theme::selected()
            } else {
                ratatui::style::Style::default()
            };
            lines.push(Line::from(Span::styled(text, style)));
            if i == self.selected
                && let Some(s) = self.scope
            {
                for (j, scope) in SCOPES.iter().enumerate() {
                    let label = l.tr(scope_key(scope));
                    let style = if j == s {
                        theme::selected()
                    } else {
                        theme::dim()
                    };
                    lines.push(Line::from(Span::styled(format!("      {label}"), style)));
                }
            }
        }
        if self.prompts.is_empty() {
            lines.push(Line::from(l.tr("rewind-none")));
        }
        Paragraph::new(lines).render(inner, buf);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::i18n::Locale;
    use crossterm::event::KeyCode;
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

    fn text(p: &RewindPicker, loc: Locale, w: u16) -> String {
        let mut t = Terminal::new(TestBackend::new(w, 10)).unwrap();
        t.draw(|f| p.render(f.area(), f.buffer_mut(), Localizer::new(loc)))
            .unwrap();
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

    #[test]
    fn newest_prompt_first_then_enter_offers_the_scopes_and_runs_the_command() {
        let mut p = picker();
        let shown = text(&p, Locale::EnUs, 80);
        let a = shown.find("fix the bug").unwrap();
        let b = shown.find("first").unwrap();
        assert!(a < b, "{shown}");
        assert_eq!(p.key(KeyCode::Enter), PickerKey::Handled);
        let shown = text(&p, Locale::EnUs, 120);
        assert!(shown.contains("the conversation and the code"), "{shown}");
        p.key(KeyCode::Down);
        assert_eq!(
            p.key(KeyCode::Enter),
            PickerKey::Run("/rewind 2 conversation".into())
        );
    }

    #[test]
    fn esc_backs_out_of_the_scopes_then_closes_and_chinese_renders() {
        let mut p = picker();
        p.key(KeyCode::Down);
        p.key(KeyCode::Enter);
        assert_eq!(p.key(KeyCode::Esc), PickerKey::Handled);
        assert_eq!(p.key(KeyCode::Esc), PickerKey::Close);
        let shown = text(&p, Locale::ZhCn, 80);
        assert!(shown.replace(' ', "").contains("之前的提示"), "{shown}");
    }
}
