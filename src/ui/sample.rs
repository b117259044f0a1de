//! Canned events for snapshot tests, benchmarks and the preview example (not used at run time).

use std::sync::Arc;

use crate::agent::protocol::{AgentEvent, RouteInfo};
use crate::llm::types::StreamEvent;
use crate::session::event::*;

/// Builds AgentEvents with increasing seq numbers.
#[derive(Debug, Default)]
pub struct Script {
    seq: u64,
    /// The input the last assistant message sent (the next one re-reads it from the cache).
    prev_input: Option<u64>,
    /// The events built so far.
    pub events: Vec<AgentEvent>,
}

impl Script {
    /// An empty script.
    pub fn new() -> Self {
        Self::default()
    }

    /// Appends a committed event.
    pub fn commit(&mut self, kind: EventKind) -> &mut Self {
        let surface_op = kind.is_surface().then(SurfaceOp::append);
        self.events.push(AgentEvent::Committed(Arc::new(Event {
            kind,
            seq: self.seq,
            time: "2026-01-01T00:00:00Z".into(),
            surface_op,
            source_event_seqs: None,
        })));
        self.seq += 1;
        self
    }

    /// Appends any agent event.
    pub fn push(&mut self, ev: AgentEvent) -> &mut Self {
        self.events.push(ev);
        self
    }

    /// The default DeepSeek route.
    pub fn route(&mut self, demo: bool) -> &mut Self {
        self.push(AgentEvent::Route(RouteInfo {
            id: "deepseek/deepseek-chat".into(),
            caps: crate::session::event::Capabilities {
                tool_update: Some(ToolUpdateMode::InHistory),
                ..crate::session::event::Capabilities::plain(128_000)
            },
            demo,
            effort: None,
        }))
        .commit(EventKind::RequestContext(RequestContext {
            provider: "deepseek".into(),
            model: "deepseek-chat".into(),
            caps: crate::session::event::Capabilities {
                tool_update: Some(ToolUpdateMode::InHistory),
                ..crate::session::event::Capabilities::plain(128_000)
            },
            protocol: None,
            effort: None,
        }))
    }

    /// A user message starting turn `turn`.
    pub fn user(&mut self, turn: u64, text: &str) -> &mut Self {
        self.commit(EventKind::TurnStart(TurnRef { turn }))
            .commit(EventKind::UserMessage(UserMessageData {
                message: Message::text(Role::User, text, Source::kind("user")),
            }))
    }

    /// A settled assistant message with usage and timing.
    pub fn assistant(
        &mut self,
        turn: u64,
        step: u64,
        reasoning: &str,
        text: &str,
        calls: &[(&str, &str, &str)],
    ) -> &mut Self {
        let mut content = vec![];
        if !reasoning.is_empty() {
            content.push(Block::Reasoning {
                text: reasoning.into(),
                signature: None,
            });
        }
        if !text.is_empty() {
            content.push(Block::text(text));
        }
        for (id, name, args) in calls {
            content.push(Block::ToolCall {
                id: (*id).into(),
                name: (*name).into(),
                arguments: (*args).into(),
            });
        }
        // A warm cache: each request re-reads everything the one before it sent.
        let usage = Usage {
            input_tokens: 1200,
            cache_read_tokens: self.prev_input.unwrap_or(4800),
            output_tokens: 310,
        };
        self.with_usage(turn, step, content, usage)
    }

    /// A settled assistant message with this usage (a cold request reads little from the
    /// cache).
    pub fn assistant_usage(&mut self, turn: u64, step: u64, text: &str, usage: Usage) -> &mut Self {
        self.with_usage(turn, step, vec![Block::text(text)], usage)
    }

    fn with_usage(&mut self, turn: u64, step: u64, content: Vec<Block>, usage: Usage) -> &mut Self {
        self.prev_input = Some(usage.total_input());
        self.commit(EventKind::StepStart(StepRef { turn, step }))
            .commit(EventKind::AssistantMessage(AssistantMessageData {
                turn,
                step,
                message: Message::new(Role::Assistant, content, Source::kind("model")),
                usage: Some(usage),
                timing: Some(Timing {
                    ttft_ms: Some(420),
                    duration_ms: 2300,
                    thinking_ms: None,
                }),
                interrupted: None,
            }))
    }

    /// A tool call and, when `result` is given, its result.
    pub fn tool(
        &mut self,
        turn: u64,
        step: u64,
        id: &str,
        name: &str,
        args: &str,
        result: Option<(&str, bool)>,
    ) -> &mut Self {
        self.commit(EventKind::ToolCall(ToolCallData {
            turn,
            step,
            call_id: id.into(),
            name: name.into(),
            arguments: args.into(),
            bridged: None,
        }));
        if let Some((out, failed)) = result {
            let mut m = Message::text(Role::Tool, out, Source::kind("tool"));
            m.tool_call_id = Some(id.into());
            m.is_error = failed.then_some(true);
            self.commit(EventKind::ToolResult(ToolResultData {
                turn,
                step,
                message: m,
                error: failed.then(|| out.to_string()),
                sandbox_retry: None,
            }));
        }
        self
    }

    /// A route context (`request/context`) for `model` with this tool-update mode and
    /// `tool_removal = "rewrite"` (so a removal on it shows what it costs).
    pub fn context(&mut self, model: &str, mode: Option<ToolUpdateMode>) -> &mut Self {
        self.commit(EventKind::RequestContext(RequestContext {
            provider: "deepseek".into(),
            model: model.into(),
            caps: crate::session::event::Capabilities {
                tool_update: mode,
                tool_removal: crate::session::event::ToolRemoval::Omit,
                ..crate::session::event::Capabilities::plain(128_000)
            },
            protocol: None,
            effort: None,
        }))
    }

    /// A developer tool-change message.
    pub fn tools_changed(&mut self, turn: u64, added: &[&str], removed: &[&str]) -> &mut Self {
        let mut blocks: Vec<Block> = added.iter().map(|n| Block::addition(*n)).collect();
        blocks.extend(removed.iter().map(|n| Block::removal(*n)));
        self.commit(EventKind::DeveloperMessage(DeveloperMessageData {
            turn,
            step: 1,
            message: Message::new(Role::Developer, blocks, Source::kind("tool-registry")),
            header_seq: None,
        }))
    }

    /// A failed attempt of `(turn, step)` (`assistant/attempt`); `retried` when the loop
    /// tries again.
    pub fn attempt(&mut self, turn: u64, step: u64, retried: bool) -> &mut Self {
        self.commit(EventKind::AssistantAttempt(AssistantAttempt {
            turn,
            step,
            error: AttemptError {
                code: "server".into(),
                status: Some(503),
                message: "Service Unavailable".into(),
                retried,
                detail: None,
            },
        }))
    }

    /// Streams text deltas for `(turn, step)`.
    pub fn stream(&mut self, turn: u64, step: u64, reasoning: &str, text: &str) -> &mut Self {
        if !reasoning.is_empty() {
            self.push(AgentEvent::Stream {
                turn,
                step,
                event: StreamEvent::ReasoningDelta(reasoning.into()),
            });
        }
        for chunk in text.split_inclusive(' ') {
            self.push(AgentEvent::Stream {
                turn,
                step,
                event: StreamEvent::TextDelta(chunk.into()),
            });
        }
        self
    }
}

/// A transcript of about `messages` Chat cells mixing user and assistant messages, tool
/// cards and tool-change nodes (benchmarks).
pub fn long_session(messages: usize) -> Vec<AgentEvent> {
    let mut s = Script::new();
    s.route(false);
    let mut turn = 0;
    let mut cells = 0;
    while cells < messages {
        turn += 1;
        s.user(
            turn,
            &format!(
                "Question {turn}: how does the **cache** behave when tools change? 请解释一下。"
            ),
        );
        s.assistant(
            turn,
            1,
            "thinking about it\nstep two",
            "",
            &[("c1", "read_file", r#"{"path":"src/main.rs"}"#)],
        );
        s.tool(
            turn,
            1,
            &format!("c{turn}"),
            "read_file",
            r#"{"path":"src/main.rs"}"#,
            Some(("fn main() {}\nline 2\nline 3\nline 4", false)),
        );
        if turn % 5 == 0 {
            s.tools_changed(turn, &["search", "fetch"], &["old_search"]);
            cells += 1;
        }
        s.assistant(turn, 2, "", "Here is the answer with `code`:\n\n- first point\n- second point 中文内容\n\n```rust\nfn main() { println!(\"hi\"); }\n```", &[]);
        cells += 4;
    }
    s.events
}
