//! The `/resume` picker: an overlay listing the saved sessions, newest first, with
//! their local date and time, first prompt, message count and log size. Typing narrows the
//! list (case-insensitive substring of the prompt or the id), ↑/↓ and PgUp/PgDn move, Enter
//! resumes the highlighted session with the typed `/resume ID` command, Esc closes.
//! The session open now is not listed (resuming it would only be refused). A fork names
//! its parent. This file holds the listing (batches merged in, this workspace's first) and
//! the keys; `draw.rs` how it draws.

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;

use crate::agent::command_spec::Command;
use crate::agent::protocol::{AgentCommand, SessionSummary};
use crate::session::workspace::WorkspaceMatch;
use crate::ui::keymap::Action;

use crate::ui::app_event::AppEvent;
use crate::ui::component::{Component, Handled};
use crate::ui::model::Model;

mod draw;

/// The open picker: the sessions, the filter and the highlighted entry.
#[derive(Debug)]
pub struct ResumePicker {
    /// The listed sessions in two groups, each newest first: the open session's
    /// workspace's, shown first (SPEC §14.4), then the others.
    groups: [Vec<SessionSummary>; 2],
    filter: String,
    /// Index into [`ResumePicker::visible`].
    selected: usize,
    /// The first visible entry.
    scroll: usize,
    /// Entries the last frame had room for (PgUp/PgDn step).
    page: usize,
    /// Sessions the listing has given so far (the current and empty ones included).
    received: usize,
    /// The listing is still read.
    reading: bool,
    /// The open session's workspace, once a batch named it: its sessions come first.
    workspace: Option<WorkspaceMatch>,
    /// Session workspaces resolved so far (tests check that a batch costs its own).
    #[cfg(test)]
    resolved: usize,
}

impl ResumePicker {
    /// A picker over `sessions` (any order: shown newest first, those of the open
    /// session's workspace before the others), leaving out `current` and sessions without
    /// messages.
    pub fn new(current: &str, sessions: Vec<SessionSummary>) -> Self {
        let mut p = ResumePicker {
            groups: Default::default(),
            workspace: None,
            #[cfg(test)]
            resolved: 0,
            filter: String::new(),
            selected: 0,
            scroll: 0,
            page: 1,
            received: 0,
            reading: false,
        };
        p.add(current, sessions);
        p
    }

    /// Takes a batch of the listing. A batch costs what it holds: each
    /// session's workspace is resolved once, when it arrives, and the batch is sorted on
    /// its own and merged into its group — appended, as a rule, since the listing comes
    /// newest first.
    fn add(&mut self, current: &str, mut sessions: Vec<SessionSummary>) {
        self.received += sessions.len();
        if self.workspace.is_none()
            && let Some(w) = sessions
                .iter()
                .find(|s| s.id == current)
                .and_then(|s| s.workspace.as_deref())
        {
            // Named only now: the sessions listed so far are placed once more (once per
            // listing).
            self.workspace = Some(WorkspaceMatch::new(std::path::Path::new(w)));
            let earlier = std::mem::take(&mut self.groups[1]);
            self.place(earlier);
        }
        // An empty session (started, nothing sent) is nothing to go back to.
        sessions.retain(|s| s.id != current && s.messages > 0);
        self.place(sessions);
    }

    /// Puts `sessions` in their groups, in order.
    fn place(&mut self, sessions: Vec<SessionSummary>) {
        let mut parts: [Vec<SessionSummary>; 2] = Default::default();
        for s in sessions {
            let other = !self.is_mine(&s);
            parts[usize::from(other)].push(s);
        }
        for (group, mut part) in self.groups.iter_mut().zip(parts) {
            part.sort_by(newest_first);
            merge_sorted(group, part);
        }
    }

    /// Whether `s` belongs to the open session's workspace.
    fn is_mine(&mut self, s: &SessionSummary) -> bool {
        let (Some(m), Some(w)) = (&self.workspace, s.workspace.as_deref()) else {
            return false;
        };
        #[cfg(test)]
        {
            self.resolved += 1;
        }
        m.contains(w)
    }

    /// Every listed session, in the order shown.
    fn listed(&self) -> impl Iterator<Item = &SessionSummary> {
        self.groups[0].iter().chain(&self.groups[1])
    }

    /// How many sessions are listed.
    fn listed_count(&self) -> usize {
        self.groups[0].len() + self.groups[1].len()
    }

    /// Marks the list as still being read (`true`): the picker says so until
    /// [`ResumePicker::extend`] gets the last batch.
    pub fn reading(mut self, reading: bool) -> Self {
        self.reading = reading;
        self
    }

    /// Whether the list is still being read, and how many sessions came so far.
    pub fn reading_count(&self) -> Option<usize> {
        self.reading.then_some(self.received)
    }

    /// Adds the next batch of a listing that is still read; `done` ends the reading. The
    /// highlighted session stays highlighted.
    pub fn extend(&mut self, current: &str, sessions: Vec<SessionSummary>, done: bool) {
        let keep = self.selected().map(|s| s.id.clone());
        self.add(current, sessions);
        if let Some(id) = keep
            && let Some(i) = self.visible().iter().position(|s| s.id == id)
        {
            self.selected = i;
        }
        if done {
            self.reading = false;
        }
    }

    /// The filter typed so far.
    pub fn filter(&self) -> &str {
        &self.filter
    }

    /// The sessions the filter lets through, newest first: those whose first prompt or id
    /// contains the filter, ignoring case.
    pub fn visible(&self) -> Vec<&SessionSummary> {
        let f = self.filter.to_lowercase();
        self.listed()
            .filter(|s| {
                f.is_empty()
                    || s.id.to_lowercase().contains(&f)
                    || s.first_prompt
                        .as_deref()
                        .is_some_and(|p| p.to_lowercase().contains(&f))
            })
            .collect()
    }

    /// The highlighted session, if any passes the filter.
    pub fn selected(&self) -> Option<&SessionSummary> {
        self.visible().get(self.selected).copied()
    }

    /// Types `c` into the filter (the highlight goes back to the newest match).
    pub fn type_char(&mut self, c: char) {
        if !c.is_control() {
            self.filter.push(c);
            self.selected = 0;
            self.scroll = 0;
        }
    }

    fn move_by(&mut self, delta: isize) {
        let n = self.visible().len();
        if n == 0 {
            return;
        }
        self.selected = self.selected.saturating_add_signed(delta).min(n - 1);
    }
}

/// The listing's order within a group: newest first, then by id (as the listing orders).
fn newest_first(a: &SessionSummary, b: &SessionSummary) -> std::cmp::Ordering {
    b.modified.cmp(&a.modified).then(b.id.cmp(&a.id))
}

/// Merges `batch` into `list`, both in [`newest_first`] order; of two equal entries, the one
/// listed earlier stays first. The entries that go before the batch's first are not
/// touched, so a batch older than everything listed is appended.
fn merge_sorted(list: &mut Vec<SessionSummary>, batch: Vec<SessionSummary>) {
    use std::cmp::Ordering::Greater;
    let Some(first) = batch.first() else {
        return;
    };
    let at = list.partition_point(|l| newest_first(l, first) != Greater);
    let mut rest = list.split_off(at).into_iter().peekable();
    list.reserve(rest.len() + batch.len());
    for s in batch {
        while let Some(l) = rest.next_if(|l| newest_first(l, &s) != Greater) {
            list.push(l);
        }
        list.push(s);
    }
    list.extend(rest);
}

impl Component for ResumePicker {
    fn render(&mut self, area: Rect, buf: &mut Buffer, m: &Model) {
        self.draw(area, buf, m);
    }

    fn handle(&mut self, action: Action, _m: &Model, out: &mut Vec<AppEvent>) -> Handled {
        let page = self.page.max(1) as isize;
        match action {
            Action::SelectPrev => self.move_by(-1),
            Action::SelectNext => self.move_by(1),
            Action::PageUp => self.move_by(-page),
            Action::PageDown => self.move_by(page),
            Action::Backspace if self.filter.pop().is_some() => {
                self.selected = 0;
                self.scroll = 0;
            }
            Action::Send => {
                let Some(id) = self.selected().map(|x| x.id.clone()) else {
                    return Handled::Consumed;
                };
                out.push(AppEvent::Agent(AgentCommand::Run(Command::Resume {
                    id: Some(id),
                })));
                return Handled::Close;
            }
            Action::Close => return Handled::Close,
            _ => {}
        }
        Handled::Consumed
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use draw::human_size;
    use ratatui::style::Style;

    fn sum(id: &str, modified: i64, prompt: Option<&str>) -> SessionSummary {
        SessionSummary {
            id: id.into(),
            modified,
            first_prompt: prompt.map(str::to_string),
            messages: 2,
            bytes: 100,
            workspace: None,
            forked_from: None,
            messages_partial: false,
        }
    }

    fn picker() -> ResumePicker {
        ResumePicker::new(
            "cur",
            vec![
                sum("old", 100, Some("Explain the Borrow checker")),
                sum("cur", 400, Some("the open one")),
                sum("new", 300, Some("write a haiku")),
                sum("mid", 200, None),
                SessionSummary {
                    messages: 0,
                    ..sum("empty", 500, None)
                },
            ],
        )
    }

    fn ids(p: &ResumePicker) -> Vec<&str> {
        p.visible().iter().map(|s| s.id.as_str()).collect()
    }

    #[test]
    fn picker_lists_newest_first_without_the_open_or_empty_sessions() {
        assert_eq!(ids(&picker()), ["new", "mid", "old"]);
    }

    #[test]
    fn picker_filter_matches_prompt_or_id_ignoring_case() {
        let mut p = picker();
        for c in "BORROW".chars() {
            p.type_char(c);
        }
        assert_eq!(ids(&p), ["old"]);
        let mut p = picker();
        p.type_char('m');
        p.type_char('i');
        // `mid` by its id (it has no prompt), nothing else contains "mi".
        assert_eq!(ids(&p), ["mid"]);
        let m = Model::new(crate::i18n::Locale::EnUs, false);
        let mut out = Vec::new();
        p.handle(Action::Backspace, &m, &mut out);
        p.handle(Action::Backspace, &m, &mut out);
        assert_eq!(ids(&p), ["new", "mid", "old"]);
    }

    #[test]
    fn picker_moves_clamped_and_enter_resumes_the_highlighted_session() {
        let mut p = picker();
        let m = Model::new(crate::i18n::Locale::EnUs, false);
        let mut out = Vec::new();
        p.handle(Action::SelectPrev, &m, &mut out);
        assert_eq!(p.selected().map(|x| x.id.as_str()), Some("new"));
        p.handle(Action::SelectNext, &m, &mut out);
        p.handle(Action::SelectNext, &m, &mut out);
        p.handle(Action::SelectNext, &m, &mut out);
        assert_eq!(p.selected().map(|x| x.id.as_str()), Some("old"));
        p.page = 10;
        p.handle(Action::PageUp, &m, &mut out);
        assert_eq!(p.selected().map(|x| x.id.as_str()), Some("new"));
        assert_eq!(p.handle(Action::Send, &m, &mut out), Handled::Close);
        assert_eq!(
            out,
            vec![AppEvent::Agent(AgentCommand::Run(Command::Resume {
                id: Some("new".into())
            }))]
        );
    }

    #[test]
    fn picker_typing_resets_the_highlight_and_enter_on_no_match_does_nothing() {
        let mut p = picker();
        let m = Model::new(crate::i18n::Locale::EnUs, false);
        let mut out = Vec::new();
        p.handle(Action::SelectNext, &m, &mut out);
        p.type_char('a');
        // "write a haiku" and "Explain the Borrow checker" contain "a"; newest first.
        assert_eq!(ids(&p), ["new", "old"]);
        assert_eq!(p.selected().map(|x| x.id.as_str()), Some("new"));
        p.type_char('z');
        assert!(p.visible().is_empty());
        assert_eq!(p.handle(Action::Send, &m, &mut out), Handled::Consumed);
        assert!(out.is_empty());
    }

    fn draw(p: &mut ResumePicker, w: u16, loc: crate::i18n::Locale) -> String {
        let area = Rect::new(0, 0, w, 16);
        let mut buf = Buffer::empty(area);
        // What is underneath: must not show through the picker.
        for y in 0..16 {
            buf.set_string(0, y, "#".repeat(w as usize), Style::default());
        }
        let m = Model::new(loc, false);
        p.render(area, &mut buf, &m);
        crate::ui::snapshot::symbols(&buf)
    }

    #[test]
    fn picker_fits_from_40_to_200_columns_in_both_locales_and_clears_its_area() {
        for loc in crate::i18n::Locale::ALL {
            for w in [40u16, 80, 120, 200] {
                let mut p = picker();
                let screen = draw(&mut p, w, loc);
                let rows: Vec<&str> = screen.lines().collect();
                assert!(screen.contains("write a haiku"), "{loc:?} {w}:\n{screen}");
                assert!(screen.contains("Explain the"), "{loc:?} {w}:\n{screen}");
                // Inside the border nothing of the screen underneath remains.
                for r in &rows[2..14] {
                    let inner = r.split('│').nth(1).unwrap_or_default();
                    assert!(!inner.contains('#'), "{loc:?} {w}: {r:?}\n{screen}");
                }
                // The size shows even at 40 columns (the date loses its year first).
                assert!(screen.contains("100 B"), "{loc:?} {w}:\n{screen}");
                for r in &rows {
                    assert!(crate::ui::text::str_width(r) <= w as usize, "{r:?}");
                }
            }
        }
    }

    #[test]
    fn picker_names_each_sessions_workspace_by_its_directory() {
        let mut p = ResumePicker::new(
            "cur",
            vec![SessionSummary {
                workspace: Some("/home/me/projects/deepterm".into()),
                ..sum("ws", 100, Some("fix the footer"))
            }],
        );
        for w in [80, 120] {
            for loc in [crate::i18n::Locale::EnUs, crate::i18n::Locale::ZhCn] {
                let screen = draw(&mut p, w, loc);
                assert!(screen.contains("deepterm"), "{w} {loc:?}: {screen}");
                assert!(!screen.contains("/home/me"), "{w} {loc:?}: {screen}");
            }
        }
    }

    #[test]
    fn the_open_sessions_workspace_comes_first_newest_first_within_each() {
        let at = |id: &str, modified, ws: &str| SessionSummary {
            workspace: Some(ws.into()),
            ..sum(id, modified, Some(id))
        };
        let p = ResumePicker::new(
            "cur",
            vec![
                at("other-new", 500, "/nonexistent/other"),
                at("here-old", 100, "/nonexistent/here"),
                at("cur", 600, "/nonexistent/here"),
                at("here-new", 300, "/nonexistent/here"),
                at("other-old", 200, "/nonexistent/other"),
            ],
        );
        let ids: Vec<&str> = p.visible().iter().map(|s| s.id.as_str()).collect();
        assert_eq!(ids, ["here-new", "here-old", "other-new", "other-old"]);
    }

    /// Sessions of two workspaces and of none, with ties in time, and the open one.
    fn mixed_listing() -> Vec<SessionSummary> {
        let ws = ["/nonexistent/here", "/nonexistent/other", ""];
        (0..60)
            .map(|i: i64| SessionSummary {
                workspace: Some(ws[(i % 3) as usize].to_string()).filter(|w| !w.is_empty()),
                ..sum(&format!("s{:02}", i * 7 % 60), 1000 - i / 2, Some("p"))
            })
            .chain([SessionSummary {
                workspace: Some("/nonexistent/here".into()),
                ..sum("cur", 2000, Some("open"))
            }])
            .collect()
    }

    #[test]
    fn batches_in_any_order_list_as_the_whole_listing_sorted_at_once() {
        let all = mixed_listing();
        let mut want: Vec<&SessionSummary> = all.iter().filter(|s| s.id != "cur").collect();
        want.sort_by(|a, b| newest_first(a, b));
        want.sort_by_key(|s| s.workspace.as_deref() != Some("/nonexistent/here"));
        let want: Vec<&str> = want.iter().map(|s| s.id.as_str()).collect();
        let mut reversed = all.clone();
        reversed.reverse();
        let mut rotated = all.clone();
        rotated.rotate_left(17);
        for (name, order, size) in [
            ("as listed", all.clone(), 7),
            ("oldest first", reversed, 5),
            ("rotated, the open one in a late batch", rotated, 11),
            ("one by one", all.clone(), 1),
        ] {
            let mut batches = order.chunks(size).map(<[SessionSummary]>::to_vec);
            let mut p = ResumePicker::new("cur", batches.next().unwrap()).reading(true);
            for b in batches {
                p.extend("cur", b, false);
            }
            assert_eq!(ids(&p), want, "{name}");
        }
    }

    #[test]
    fn a_batch_resolves_only_its_own_sessions_workspaces() {
        let listing: Vec<SessionSummary> = (0..2000)
            .map(|i| SessionSummary {
                workspace: Some(format!("/nonexistent/w{}", i % 2)),
                ..sum(&format!("s{i:04}"), 100_000 - i, Some("p"))
            })
            .collect();
        let open = SessionSummary {
            workspace: Some("/nonexistent/w0".into()),
            ..sum("cur", 200_000, None)
        };
        // The open session named in the first batch, then in the 50th of 100.
        for named_in in [0, 50] {
            let mut p = ResumePicker::new("cur", Vec::new()).reading(true);
            for (k, chunk) in listing.chunks(20).enumerate() {
                let mut b = chunk.to_vec();
                if k == named_in {
                    b.push(open.clone());
                }
                p.extend("cur", b, false);
            }
            assert_eq!(
                p.resolved, 2000,
                "each session once (named in batch {named_in})"
            );
            assert_eq!(ids(&p)[..2], ["s0000", "s0002"]);
            assert_eq!(ids(&p)[1000], "s0001");
        }
    }

    #[test]
    fn human_sizes_read_naturally() {
        assert_eq!(human_size(512), "512 B");
        assert_eq!(human_size(3 * 1024 + 400), "3.4 KB");
        assert_eq!(human_size(5 * 1024 * 1024), "5.0 MB");
    }

    #[test]
    fn a_fork_names_its_parent_at_80_and_120_columns_in_both_languages() {
        let fork = SessionSummary {
            forked_from: Some("20261202-073513-0a1b2c3d".into()),
            ..sum("20261202-080000-ffffffff", 500, Some("write a haiku"))
        };
        let mut p = ResumePicker::new(
            "cur",
            vec![
                fork,
                sum("20261202-073513-0a1b2c3d", 400, Some("write a haiku")),
            ],
        );
        for (loc, want) in [
            (crate::i18n::Locale::EnUs, "⑂ fork of 20261202-073513"),
            (crate::i18n::Locale::ZhCn, "⑂ 分叉自 20261202-073513"),
        ] {
            for w in [80, 120] {
                let s = draw(&mut p, w, loc);
                assert_eq!(s.matches(want).count(), 1, "{w} {loc:?}:\n{s}");
            }
        }
    }
}
