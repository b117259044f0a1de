//! The popups above the bottom pane: the slash-command popup (each command with its
//! argument synopsis and description, from the one command table), the usage row while a
//! command's arguments are typed, and the `@` file popup.

use ratatui::buffer::Buffer;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::style::Style;
use ratatui::text::{Line, Span};

use crate::agent::command_spec::{ArgSpec, CommandSpec};
use crate::ui::app_event::AppEvent;
use crate::ui::model::Model;
use crate::ui::text::{sanitize, str_width, truncate};
use crate::ui::theme;

use super::BottomPane;

impl BottomPane {
    /// Draws the slash popup over the bottom rows of `above` (the panes), if it is open:
    /// each command with its argument synopsis and description. While a command's
    /// arguments are typed (`/tool `), one row shows its usage instead.
    pub fn render_popup(&self, above: Rect, buf: &mut Buffer, m: &Model) {
        if self.approval_pending() || above.height == 0 {
            return;
        }
        let l = m.l;
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
                &format!(
                    "{}  {}",
                    usage_line(l, cmd),
                    crate::agent::command_spec::describe(cmd, |k| l.tr(k))
                ),
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
                let desc = crate::agent::command_spec::describe(m, |k| l.tr(k));
                format!("{name}{name_pad}  {desc}")
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
    pub(super) fn run_highlighted(&mut self, cmd: CommandSpec, m: &Model, out: &mut Vec<AppEvent>) {
        if cmd.args == ArgSpec::Required {
            self.composer.complete();
        } else {
            self.composer.clear();
            self.composer.insert_str(&cmd.name);
            self.submit(m, out);
        }
    }
}

/// A command's name and argument synopsis from the table (`/tool enable|disable NAME`).
pub fn usage_line(l: crate::i18n::Localizer, cmd: &CommandSpec) -> String {
    match &cmd.usage_key {
        Some(k) => format!("{} {}", cmd.name, l.tr(k)),
        None => cmd.name.to_string(),
    }
}
