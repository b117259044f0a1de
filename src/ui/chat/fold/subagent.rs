//! A `task` call's card while its subagent runs (SPEC §15.3): folded from the logged
//! `subagent/start` and `subagent/event`, so it reads the same live and on resume. The card
//! shows the subagent's step and current tool, and expands to its transcript.

use super::{CellKind, Transcript};
use crate::session::event::EventKind;
use crate::ui::chat::cells::{SubagentLive, ToolCell};
use crate::ui::text::sanitize;

impl Transcript {
    /// Names the subagent on the approval card at `i` (one without a logged tool card).
    pub fn name_asker(&mut self, i: usize, asker: &crate::ui::approval_keys::Asker) {
        if let Some(CellKind::Approval(c)) = self.cells.get_mut(i).map(|c| &mut c.kind) {
            c.asker = Some(asker.clone());
            self.touch(i);
        }
    }

    /// Marks the running `task` card of subagent `agent` as waiting for the user's answer
    /// on its call `call` of `tool` (an `inherit` subagent's question).
    pub fn subagent_waits(&mut self, agent: &str, call: &str, tool: &str) {
        let found = self.cells.iter().rposition(|c| {
            matches!(&c.kind, CellKind::Tool(ToolCell { subagent: Some(a), result: None, .. })
                if a.agent == agent)
        });
        self.set_waiting(found, Some((call.to_string(), tool.to_string())));
    }

    /// The user answered call `call`: a `task` card waiting on it runs again.
    pub(super) fn subagent_answered(&mut self, call: &str) {
        // From the end: a waiting card is a running one, near the latest cells.
        let found = self.cells.iter().rposition(|c| {
            matches!(&c.kind, CellKind::Tool(ToolCell { subagent: Some(a), .. })
                if a.waiting.as_ref().is_some_and(|(id, _)| id == call))
        });
        self.set_waiting(found, None);
    }

    /// Sets the waiting call of the `task` card at `found`, if there is one.
    fn set_waiting(&mut self, found: Option<usize>, waiting: Option<(String, String)>) {
        if let Some(i) = found
            && let CellKind::Tool(ToolCell {
                subagent: Some(a), ..
            }) = &mut self.cells[i].kind
        {
            a.waiting = waiting;
            self.touch(i);
        }
    }

    /// Folds a logged subagent event into its `task` call's card.
    pub(super) fn subagent(&mut self, kind: &EventKind) {
        match kind {
            EventKind::SubagentStart(s) => {
                if let Some(&i) = self.by_call.get(&s.call_id)
                    && let CellKind::Tool(ToolCell { subagent, .. }) = &mut self.cells[i].kind
                {
                    *subagent = Some(Box::new(SubagentLive {
                        agent: sanitize(&s.agent),
                        ..SubagentLive::default()
                    }));
                    self.touch(i);
                }
            }
            EventKind::SubagentEvent(s) => {
                let agent = sanitize(&s.agent);
                let found = self.cells.iter().rposition(|c| {
                    matches!(&c.kind, CellKind::Tool(ToolCell { subagent: Some(a), .. })
                        if a.agent == agent)
                });
                let Some(i) = found else { return };
                let CellKind::Tool(ToolCell {
                    subagent: Some(a), ..
                }) = &mut self.cells[i].kind
                else {
                    return;
                };
                match &s.event.kind {
                    EventKind::StepStart(st) => {
                        a.step = st.step;
                        a.tool = None;
                        a.waiting = None;
                    }
                    // The call ran or was refused: whatever asked is answered (a cancel
                    // too, which no key press records).
                    EventKind::ToolResult(r)
                        if a.waiting.as_ref().map(|(id, _)| id)
                            == r.message.tool_call_id.as_ref() =>
                    {
                        a.waiting = None;
                    }
                    EventKind::ToolCall(c) => {
                        a.tool = Some(sanitize(&c.name));
                        a.transcript.push(format!(
                            "→ {} {}",
                            sanitize(&c.name),
                            sanitize(&c.arguments)
                        ));
                    }
                    EventKind::AssistantMessage(m) => {
                        let text = sanitize(&m.message.joined_text());
                        if !text.trim().is_empty() {
                            a.transcript.push(text);
                        }
                    }
                    _ => return,
                }
                self.touch(i);
            }
            _ => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::i18n::{Locale, Localizer};
    use crate::session::event::SubagentEvent;
    use crate::session::event::{
        AssistantMessageData, Event, EventKind, Message, Role, Source, StepRef, ToolCallData,
        ToolResultData,
    };
    use crate::session::subagent_event::{SubagentMode, SubagentStart};
    use crate::ui::chat::cells::HistoryCell;
    use crate::ui::chat::fold::{CellKind, Transcript};
    use crate::ui::model::{RenderCtx, ToolCardMode};

    fn ev(kind: EventKind) -> Event {
        Event {
            kind,
            seq: 1,
            time: String::new(),
            surface_op: None,
            source_event_seqs: None,
        }
    }

    fn call(id: &str, name: &str, arguments: &str) -> EventKind {
        EventKind::ToolCall(ToolCallData {
            turn: 3,
            step: 2,
            call_id: id.into(),
            name: name.into(),
            arguments: arguments.into(),
            bridged: None,
        })
    }

    fn sub(kind: EventKind) -> EventKind {
        EventKind::SubagentEvent(SubagentEvent {
            agent: "a1".into(),
            event: Box::new(ev(kind)),
        })
    }

    fn card(t: &Transcript, locale: Locale, cards: ToolCardMode) -> String {
        let ctx = RenderCtx {
            l: Localizer::new(locale),
            cards,
            generation: 0,
        };
        t.cells()
            .iter()
            .filter_map(|c| match &c.kind {
                CellKind::Tool(tc) => Some(crate::ui::snapshot::lines_text(
                    &tc.rows(80, &ctx, false).head,
                )),
                _ => None,
            })
            .collect::<Vec<_>>()
            .join("\n")
    }

    #[test]
    fn the_task_card_shows_the_subagent_s_step_and_tool_and_expands_to_its_transcript() {
        let mut t = Transcript::default();
        t.apply(&ev(call(
            "c1",
            "task",
            r#"{"description":"look","prompt":"Look."}"#,
        )));
        t.apply(&ev(EventKind::SubagentStart(SubagentStart {
            agent: "a1".into(),
            turn: 3,
            step: 2,
            call_id: "c1".into(),
            description: "look".into(),
            mode: SubagentMode::ReadOnly,
            parent_seq: 1,
        })));
        t.apply(&ev(sub(EventKind::StepStart(StepRef { turn: 3, step: 1 }))));
        t.apply(&ev(sub(EventKind::AssistantMessage(
            AssistantMessageData {
                turn: 3,
                step: 1,
                message: Message::text(
                    Role::Assistant,
                    "Reading the config first.",
                    Source::kind("model"),
                ),
                usage: None,
                timing: None,
                interrupted: None,
            },
        ))));
        t.apply(&ev(sub(call("s1", "read_file", r#"{"path":"a.toml"}"#))));
        let en = card(&t, Locale::EnUs, ToolCardMode::Collapsed);
        assert!(en.contains("running · a1 · step 1 · read_file"), "{en}");
        let zh = card(&t, Locale::ZhCn, ToolCardMode::Collapsed);
        assert!(zh.contains("a1 · 第 1 步 · read_file"), "{zh}");
        let open = card(&t, Locale::EnUs, ToolCardMode::Expanded);
        assert!(open.contains("› Reading the config first."), "{open}");
        assert!(
            open.contains("› → read_file {\"path\":\"a.toml\"}"),
            "{open}"
        );
        // The next step has no tool yet.
        t.apply(&ev(sub(EventKind::StepStart(StepRef { turn: 3, step: 2 }))));
        let en = card(&t, Locale::EnUs, ToolCardMode::Collapsed);
        assert!(en.contains("running · a1 · step 2"), "{en}");
        assert!(!en.contains("step 2 · read_file"), "{en}");
    }

    #[test]
    fn a_task_card_waits_for_you_until_its_subagent_s_call_is_answered_or_ends() {
        let mut t = Transcript::default();
        t.apply(&ev(call("c1", "task", r#"{"description":"count"}"#)));
        t.apply(&ev(EventKind::SubagentStart(SubagentStart {
            agent: "a1".into(),
            turn: 3,
            step: 2,
            call_id: "c1".into(),
            description: "count".into(),
            mode: SubagentMode::Inherit,
            parent_seq: 1,
        })));
        t.apply(&ev(sub(EventKind::StepStart(StepRef { turn: 3, step: 1 }))));
        t.apply(&ev(sub(call("s1", "run_cmd", "{}"))));
        t.subagent_waits("a1", "s1", "run_cmd");
        let en = card(&t, Locale::EnUs, ToolCardMode::Collapsed);
        assert!(
            en.contains("waiting for you · a1 · step 1 · run_cmd"),
            "{en}"
        );
        let zh = card(&t, Locale::ZhCn, ToolCardMode::Collapsed);
        assert!(zh.contains("等待你确认 · a1 · 第 1 步 · run_cmd"), "{zh}");
        // Another call's result does not end the wait; the asking call's result does
        // (a cancelled question is answered by no key press).
        let result = |id: &str| {
            let mut message = Message::text(Role::Tool, "cancelled", Source::kind("tool"));
            message.tool_call_id = Some(id.into());
            sub(EventKind::ToolResult(ToolResultData {
                turn: 3,
                step: 1,
                message,
                error: None,
                sandbox_retry: None,
            }))
        };
        t.apply(&ev(result("s0")));
        let en = card(&t, Locale::EnUs, ToolCardMode::Collapsed);
        assert!(en.contains("waiting for you · a1"), "{en}");
        t.apply(&ev(result("s1")));
        let en = card(&t, Locale::EnUs, ToolCardMode::Collapsed);
        assert!(en.contains("running · a1 · step 1 · run_cmd"), "{en}");
        assert!(!en.contains("waiting for you"), "{en}");
        // Another subagent's question leaves this card running.
        t.subagent_waits("a2", "s2", "run_cmd");
        let en = card(&t, Locale::EnUs, ToolCardMode::Collapsed);
        assert!(!en.contains("waiting for you"), "{en}");
    }
}
