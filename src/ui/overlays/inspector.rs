//! The request inspector overlay (SPEC §10): the previous request next to the selected one
//! (side by side, or stacked when narrow) with system, tools and messages, the line of the
//! first difference highlighted and the reason on top. `↑`/`↓`/`PgUp`/`PgDn` scroll,
//! `Esc`/`q` closes.

use crossterm::event::KeyEvent;
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::style::Style;
use ratatui::text::{Line, Span};

use crate::agent::inspect::{InspectedRequest, InspectorData, divergence_line};
use crate::i18n::{Arg, Localizer};

use crate::ui::app_event::AppEvent;
use crate::ui::component::{Component, Handled, clear_area, overlay_base};
use crate::ui::keymap::{Action, Context, lookup};
use crate::ui::model::Model;
use crate::ui::text::{sanitize, str_width, truncate};
use crate::ui::theme;

/// Width from which the two requests show side by side.
pub const SIDE_BY_SIDE_WIDTH: u16 = 100;

/// Open inspector state.
#[derive(Debug, Clone)]
pub struct Inspector {
    data: InspectorData,
    scroll: usize,
    reveal: bool,
    page: usize,
    /// What the cache saved on the selected request: cached tokens and USD.
    saving: Option<(u64, f64)>,
    /// The selected request's usage is unknown.
    usage_unknown: bool,
}

/// One body line: text and whether it holds the first difference.
type Row = (String, Style, bool);

impl Inspector {
    /// Opens on `data`, scrolled so the first difference is visible.
    pub fn new(data: InspectorData) -> Self {
        Inspector {
            data,
            scroll: 0,
            reveal: true,
            page: 10,
            saving: None,
            usage_unknown: false,
        }
    }

    /// Shows what the cache saved on the selected request (its cache-read tokens and the
    /// USD they would have cost more uncached); `None` when no price is known.
    pub fn with_cache_saving(mut self, saving: Option<(u64, f64)>) -> Self {
        self.saving = saving;
        self
    }

    /// Says in the title that the selected request's usage is unknown: the provider
    /// reported one that cannot be true.
    pub fn with_usage_unknown(mut self, unknown: bool) -> Self {
        self.usage_unknown = unknown;
        self
    }

    /// The data shown.
    pub fn data(&self) -> &InspectorData {
        &self.data
    }

    /// Handles a key through the keymap table; returns `false` when the inspector should close.
    pub fn key(&mut self, k: &KeyEvent) -> bool {
        match lookup(&[Context::InspectorOverlay], k, false) {
            Some(a) => self.act(a),
            None => {
                self.reveal = false;
                true
            }
        }
    }

    /// Performs a keymap action; returns `false` when the inspector should close.
    pub fn act(&mut self, a: Action) -> bool {
        self.reveal = false;
        match a {
            Action::Close => return false,
            Action::LineUp => self.scroll = self.scroll.saturating_sub(1),
            Action::LineDown => self.scroll += 1,
            Action::PageUp => self.scroll = self.scroll.saturating_sub(self.page),
            Action::PageDown => self.scroll += self.page,
            Action::ScrollTop => self.scroll = 0,
            Action::ScrollBottom => self.scroll = usize::MAX / 2,
            _ => {}
        }
        true
    }

    fn tool_rows(&self) -> usize {
        let prev = self.data.previous.as_ref().map_or(0, |p| p.tools.len());
        prev.max(self.data.selected.tools.len()).max(1)
    }

    fn column(&self, r: Option<&InspectedRequest>, l: Localizer, selected: bool) -> Vec<Row> {
        let d = &self.data.divergence;
        let mark = self.data.previous.is_some();
        let normal = Style::default();
        let mut out: Vec<Row> = Vec::new();
        let Some(r) = r else {
            out.push((l.tr("tui-inspector-none"), theme::dim(), false));
            return out;
        };
        let title = crate::agent::inspect::request_title(l, r);
        let title_style = if selected {
            theme::accent().patch(theme::bold())
        } else {
            theme::bold()
        };
        out.push((
            format!("{title} · {}", sanitize(&r.route)),
            title_style,
            false,
        ));
        let beta = r.beta.as_deref().map(sanitize);
        out.push((
            format!("anthropic-beta: {}", beta.as_deref().unwrap_or("—")),
            theme::dim(),
            false,
        ));
        let system = r
            .system
            .as_deref()
            .map(|s| sanitize(s).replace('\n', " "))
            .unwrap_or_else(|| "—".into());
        out.push((
            l.tra("tui-inspector-system-line", &[("text", Arg::from(system))]),
            normal,
            mark && d.system,
        ));
        out.push((l.tr("tui-inspector-tools"), theme::bold(), false));
        if r.tools.is_empty() {
            out.push((
                format!("  {}", l.tr("tui-inspector-no-tools")),
                theme::dim(),
                mark && d.tool == Some(0),
            ));
        }
        let tool_rows = self.tool_rows();
        for (i, (name, deferred)) in r.tools.iter().enumerate() {
            let suffix = if *deferred {
                format!(" · {}", l.tr("tui-inspector-deferred"))
            } else {
                String::new()
            };
            out.push((
                format!("  {}{suffix}", sanitize(name)),
                normal,
                mark && d.tool == Some(i),
            ));
        }
        // Pad so both columns' message lists start on the same row.
        for _ in r.tools.len().max(1)..tool_rows {
            out.push((String::new(), normal, false));
        }
        out.push((l.tr("tui-inspector-messages"), theme::bold(), false));
        for (i, m) in r.messages.iter().enumerate() {
            out.push((
                // Numbered from 1, like the tool entries (§14.5).
                format!("  {:>3} {}", i + 1, localize_role(l, &sanitize(m))),
                normal,
                mark && d.message == Some(i),
            ));
        }
        out
    }

    /// Draws the overlay over `area`.
    pub fn draw(&mut self, l: Localizer, area: Rect, buf: &mut Buffer) {
        if area.width < 4 || area.height < 4 {
            return;
        }
        // Own the whole area: no colour or reverse video from the panes shows through.
        clear_area(area, buf, overlay_base());
        let w = area.width as usize;
        let put = |buf: &mut Buffer, y: u16, x: u16, width: usize, text: &str, st: Style| {
            let t = truncate(text, width);
            let pad = " ".repeat(width.saturating_sub(str_width(&t)));
            buf.set_line(
                x,
                y,
                &Line::from(Span::styled(format!("{t}{pad}"), st)),
                width as u16,
            );
        };
        let reasons: Vec<String> = self
            .data
            .reasons
            .iter()
            .map(|r| l.tr(r.message_id()))
            .collect();
        let mut title = format!(" {} ", l.tr("tui-inspector-title"));
        if let Some((cached, usd)) = self.saving {
            title.push_str(&format!(
                "· {} ",
                l.tra(
                    "tui-inspector-cache-saved",
                    &[
                        ("cost", Arg::from(crate::llm::catalog::format_usd(usd))),
                        ("tokens", Arg::from(crate::ui::trajectory::tokens(cached))),
                    ]
                )
            ));
        }
        if self.usage_unknown {
            title.push_str(&format!("· {} ", l.tr("tui-inspector-usage-unknown")));
        }
        put(buf, area.y, area.x, w, &title, theme::banner());
        let bottom = area.y + area.height - 1;
        // The reason wraps rather than being cut: its end says how to keep the cache
        // (`tool_removal = "retain"`). It leaves the last body rows to the requests.
        let why = reason_rows(&reasons, l, w);
        let room = (bottom.saturating_sub(area.y + 2) as usize).max(1);
        let shown = why.len().min(room);
        for (i, line) in why.iter().take(shown).enumerate() {
            put(
                buf,
                area.y + 1 + i as u16,
                area.x,
                w,
                line,
                theme::warn().patch(theme::bold()),
            );
        }
        let head = area.y + 1 + shown as u16;
        put(
            buf,
            head,
            area.x,
            w,
            &divergence_line(&self.data, l),
            theme::dim(),
        );
        put(
            buf,
            bottom,
            area.x,
            w,
            &l.tr("tui-inspector-hint"),
            theme::dim(),
        );
        let body = Rect {
            x: area.x,
            y: head + 1,
            width: area.width,
            height: bottom.saturating_sub(head + 1),
        };
        if body.height == 0 {
            return;
        }
        let h = body.height as usize;
        self.page = h.saturating_sub(1).max(1);
        let prev = self.column(self.data.previous.as_ref(), l, false);
        let sel = self.column(Some(&self.data.selected), l, true);
        let side = area.width >= SIDE_BY_SIDE_WIDTH;
        let columns: Vec<(Vec<Row>, u16, usize)> = if side {
            let cw = (area.width as usize - 1) / 2;
            for y in body.y..body.y + body.height {
                buf.set_line(
                    body.x + cw as u16,
                    y,
                    &Line::from(Span::styled("│", theme::dim())),
                    1,
                );
            }
            vec![
                (prev, body.x, cw),
                (sel, body.x + cw as u16 + 1, w - cw - 1),
            ]
        } else {
            let mut all = prev;
            all.push((String::new(), Style::default(), false));
            all.extend(sel);
            vec![(all, body.x, w)]
        };
        let total = columns.iter().map(|c| c.0.len()).max().unwrap_or(0);
        let max = total.saturating_sub(h);
        if self.reveal
            && let Some(first) = columns
                .iter()
                .filter_map(|c| c.0.iter().position(|r| r.2))
                .min()
            && first >= h
        {
            self.scroll = first.saturating_sub(h / 2);
        }
        self.scroll = self.scroll.min(max);
        for (rows, x, width) in &columns {
            for (i, (text, st, hit)) in rows.iter().skip(self.scroll).take(h).enumerate() {
                let y = body.y + i as u16;
                if *hit {
                    put(
                        buf,
                        y,
                        *x,
                        *width,
                        &format!("▶{}", text.strip_prefix(' ').unwrap_or(text)),
                        theme::selected(),
                    );
                } else {
                    put(buf, y, *x, *width, text, *st);
                }
            }
        }
    }
}

/// The `Why:` line wrapped to `width` columns, continuation rows aligned under the
/// reason text (after `Why: `).
pub fn reason_rows(reasons: &[String], l: Localizer, width: usize) -> Vec<String> {
    let full = l.tra(
        "tui-inspector-reason",
        &[("reasons", Arg::from(reasons.join("; ")))],
    );
    // The label is what the message says around an empty list (`Why: `, `原因：`).
    let label = l.tra("tui-inspector-reason", &[("reasons", Arg::from(""))]);
    let label = label.trim_end();
    let body = full.strip_prefix(label).unwrap_or(&full).trim_start();
    let lead = full[..full.len() - body.len()].to_string();
    let indent = " ".repeat(str_width(&lead));
    let body = body.to_string();
    crate::ui::text::wrap_prefixed(
        &Line::from(body),
        width,
        &[Span::raw(lead)],
        &[Span::raw(indent)],
    )
    .iter()
    .map(|row| row.spans.iter().map(|s| s.content.as_ref()).collect())
    .collect()
}

/// A message summary (`user: text "…"`) with its role named in the interface language; the
/// block types after it are the wire's own words and stay as sent.
fn localize_role(l: Localizer, summary: &str) -> String {
    for (role, key) in [
        ("user", "tui-inspector-role-user"),
        ("assistant", "tui-inspector-role-assistant"),
        ("system", "tui-inspector-role-system"),
        ("tool", "tui-inspector-role-tool"),
    ] {
        if let Some(rest) = summary
            .strip_prefix(role)
            .and_then(|r| r.strip_prefix(": "))
        {
            let sep = match l.locale {
                crate::i18n::Locale::ZhCn => "：",
                _ => ": ",
            };
            return format!("{}{sep}{rest}", l.tr(key));
        }
    }
    summary.to_string()
}

/// The open request inspector.
#[derive(Debug)]
pub struct InspectorOverlay {
    /// The inspector's state.
    pub inspector: Inspector,
    /// The full request viewer (Enter; SPEC §14.5), over the comparison until closed.
    pub viewer: Option<crate::ui::request_viewer::RequestViewer>,
}

impl InspectorOverlay {
    /// The inspector showing `inspector`'s comparison.
    pub fn new(inspector: Inspector) -> Self {
        InspectorOverlay {
            inspector,
            viewer: None,
        }
    }

    /// Gives `k` to the open full viewer; `false` when none is open. Its Esc goes back to
    /// the comparison; `y` asks `App` to copy the shown request.
    pub fn viewer_key(&mut self, k: &crossterm::event::KeyEvent, out: &mut Vec<AppEvent>) -> bool {
        use crate::ui::request_viewer::ViewerOutcome;
        let Some(v) = self.viewer.as_mut() else {
            return false;
        };
        match v.handle_key(k) {
            ViewerOutcome::Close => self.viewer = None,
            ViewerOutcome::Copy(text) => out.push(AppEvent::CopyText(text)),
            ViewerOutcome::Consumed | ViewerOutcome::Ignored => {}
        }
        true
    }
}

impl Component for InspectorOverlay {
    fn render(&mut self, area: Rect, buf: &mut Buffer, m: &Model) {
        match &self.viewer {
            Some(v) => {
                ratatui::widgets::Widget::render(ratatui::widgets::Clear, area, buf);
                v.render(area, buf, &m.l);
            }
            None => self.inspector.draw(m.l, area, buf),
        }
    }

    fn handle(&mut self, action: Action, _m: &Model, _out: &mut Vec<AppEvent>) -> Handled {
        if action == Action::Inspect {
            let body = &self.inspector.data().selected.body;
            self.viewer = Some(crate::ui::request_viewer::RequestViewer::new(body));
            return Handled::Consumed;
        }
        if self.inspector.act(action) {
            Handled::Consumed
        } else {
            Handled::Close
        }
    }
}

#[cfg(test)]
#[path = "inspector_reason_tests.rs"]
mod reason_tests;

#[cfg(test)]
mod tests {
    use super::*;
    use crate::i18n::Locale;
    use crate::session::event::ToolUpdateMode;

    #[test]
    fn inspector_roles_and_route_modes_are_localized() {
        let zh = Localizer::new(Locale::ZhCn);
        let en = Localizer::new(Locale::EnUs);
        assert_eq!(localize_role(zh, "user: text \"hi\""), "用户：text \"hi\"");
        assert_eq!(
            localize_role(zh, "assistant: tool_use grep"),
            "助手：tool_use grep"
        );
        assert_eq!(localize_role(en, "user: text \"hi\""), "user: text \"hi\"");
        assert_eq!(localize_role(zh, "odd summary"), "odd summary");
        let mode = crate::ui::trajectory::mode_label;
        assert_eq!(mode(zh, ToolUpdateMode::AdditionOnly), "仅追加");
        assert_eq!(mode(en, ToolUpdateMode::InHistory), "in-history");
        // The key help explains both modes (the legend rows).
        let legend: Vec<&str> = crate::ui::trajectory::LEGEND.iter().map(|r| r.1).collect();
        assert!(legend.contains(&"tui-help-legend-addition-only"));
        assert!(
            zh.tr("tui-help-legend-addition-only")
                .contains("只能在末尾追加")
        );
    }
}
