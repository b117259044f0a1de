//! Assembly of an OpenAI-format Chat Completions stream (deepseek-wire §4).
//!
//! One reasoning block and one text block per response (opened by their first non-empty
//! delta), plus one tool-call block per `tool_calls[].index`; blocks keep opening order.

use serde::Deserialize;

use crate::llm::adapter::{
    Assemble, BLOCK_OVERHEAD, ReplyBudget, classify_error, completed, partial_completion,
};
use crate::llm::sse::SseFrame;
use crate::llm::tool_ids::{ToolIdRepair, unique_reply_ids};
use crate::llm::types::{Completion, ErrorCode, LlmError, StopReason, StreamEvent};
use crate::llm::usage::{ReportedUsage, UsageTracker, fields};
use crate::session::event::Block;

#[derive(Deserialize)]
struct WireChunk {
    #[serde(default)]
    choices: Option<Vec<WireChoice>>,
    #[serde(default)]
    usage: Option<serde_json::Value>,
    #[serde(default)]
    error: Option<serde::de::IgnoredAny>,
}

#[derive(Deserialize)]
struct WireChoice {
    #[serde(default)]
    delta: Option<WireDelta>,
    #[serde(default)]
    finish_reason: Option<String>,
}

#[derive(Deserialize)]
struct WireDelta {
    #[serde(default)]
    content: Option<String>,
    #[serde(default)]
    reasoning_content: Option<String>,
    #[serde(default)]
    tool_calls: Option<Vec<WireToolCall>>,
}

#[derive(Deserialize)]
struct WireToolCall {
    #[serde(default)]
    index: Option<u64>,
    #[serde(default)]
    id: Option<String>,
    #[serde(default)]
    function: Option<WireFunction>,
}

#[derive(Deserialize)]
struct WireFunction {
    #[serde(default)]
    name: Option<String>,
    #[serde(default)]
    arguments: Option<String>,
}

#[derive(Debug, Clone)]
enum OpenBlock {
    Reasoning(String),
    Text(String),
    Tool {
        index: u64,
        id: String,
        name: String,
        arguments: String,
        announced: bool,
    },
}

/// Maps a Chat Completions `finish_reason`.
pub fn map_finish_reason(reason: &str) -> StopReason {
    match reason {
        "stop" => StopReason::EndTurn,
        "tool_calls" => StopReason::ToolUse,
        "length" => StopReason::MaxTokens,
        other => StopReason::Other(other.to_string()),
    }
}

/// Stateful assembler for one Chat Completions response stream.
#[derive(Debug, Default)]
pub struct ChatAssembler {
    blocks: Vec<OpenBlock>,
    reasoning: Option<usize>,
    text: Option<usize>,
    usage: UsageTracker,
    stop_reason: Option<StopReason>,
    done: bool,
    budget: ReplyBudget,
}

impl ChatAssembler {
    /// A fresh assembler with the default reply cap.
    pub fn new() -> Self {
        ChatAssembler::default()
    }

    /// A fresh assembler whose reply may hold at most `max` bytes of text, reasoning and
    /// tool arguments.
    pub fn with_max_reply_bytes(max: usize) -> Self {
        ChatAssembler {
            budget: ReplyBudget::new(max),
            ..ChatAssembler::default()
        }
    }

    /// The same assembler, checking usage against a context window of `tokens` (0: not
    /// known, only the other checks apply).
    pub fn with_context_window(mut self, tokens: u64) -> Self {
        self.usage = UsageTracker::new((tokens > 0).then_some(tokens));
        self
    }

    fn apply_delta(
        &mut self,
        delta: WireDelta,
        emit: &mut dyn FnMut(StreamEvent),
    ) -> Result<(), LlmError> {
        // The first thinking chunk is `""`: it must not open a block.
        if let Some(r) = delta.reasoning_content.filter(|r| !r.is_empty()) {
            self.budget.charge(r.len())?;
            let i = *self.reasoning.get_or_insert_with(|| {
                self.blocks.push(OpenBlock::Reasoning(String::new()));
                self.blocks.len() - 1
            });
            if let OpenBlock::Reasoning(text) = &mut self.blocks[i] {
                text.push_str(&r);
            }
            emit(StreamEvent::ReasoningDelta(r));
        }
        if let Some(c) = delta.content.filter(|c| !c.is_empty()) {
            self.budget.charge(c.len())?;
            let i = *self.text.get_or_insert_with(|| {
                self.blocks.push(OpenBlock::Text(String::new()));
                self.blocks.len() - 1
            });
            if let OpenBlock::Text(text) = &mut self.blocks[i] {
                text.push_str(&c);
            }
            emit(StreamEvent::TextDelta(c));
        }
        for call in delta.tool_calls.into_iter().flatten() {
            self.apply_tool_delta(call, emit)?;
        }
        Ok(())
    }

    fn apply_tool_delta(
        &mut self,
        call: WireToolCall,
        emit: &mut dyn FnMut(StreamEvent),
    ) -> Result<(), LlmError> {
        let index = call.index.unwrap_or(0);
        let size = call.id.as_ref().map_or(0, String::len)
            + call.function.as_ref().map_or(0, |f| {
                f.name.as_ref().map_or(0, String::len) + f.arguments.as_ref().map_or(0, String::len)
            });
        self.budget.charge(size)?;
        let pos = match self
            .blocks
            .iter()
            .position(|b| matches!(b, OpenBlock::Tool { index: i, .. } if *i == index))
        {
            Some(p) => p,
            None => {
                self.budget.charge(BLOCK_OVERHEAD)?;
                self.blocks.push(OpenBlock::Tool {
                    index,
                    id: String::new(),
                    name: String::new(),
                    arguments: String::new(),
                    announced: false,
                });
                self.blocks.len() - 1
            }
        };
        let OpenBlock::Tool {
            id,
            name,
            arguments,
            announced,
            ..
        } = &mut self.blocks[pos]
        else {
            return Ok(());
        };
        // Gateways repeat `id`/`name` as "" or null on continuations: unchanged.
        if let Some(new_id) = call.id.filter(|s| !s.is_empty()) {
            *id = new_id;
        }
        let (new_name, fragment) = match call.function {
            Some(f) => (f.name.filter(|s| !s.is_empty()), f.arguments),
            None => (None, None),
        };
        if let Some(n) = new_name {
            *name = n;
        }
        if !*announced && !name.is_empty() {
            *announced = true;
            emit(StreamEvent::ToolCallStart {
                id: id.clone(),
                name: name.clone(),
            });
        }
        if let Some(fragment) = fragment.filter(|f| !f.is_empty()) {
            arguments.push_str(&fragment);
            emit(StreamEvent::ToolArgsDelta {
                id: id.clone(),
                fragment,
            });
        }
        Ok(())
    }

    /// Settled content: tool calls get unique, non-empty ids.
    fn content(&self) -> (Vec<Block>, Vec<ToolIdRepair>) {
        settle(self.blocks.iter().cloned())
    }
}

impl Assemble for ChatAssembler {
    /// Consumes one SSE frame.
    fn on_frame(
        &mut self,
        frame: &SseFrame,
        emit: &mut dyn FnMut(StreamEvent),
    ) -> Result<(), LlmError> {
        if frame.is_done() {
            self.done = true;
            return Ok(());
        }
        let chunk: WireChunk = serde_json::from_str(&frame.data).map_err(|e| {
            LlmError::new(
                ErrorCode::Malformed,
                format!("invalid JSON in stream chunk: {e}"),
            )
        })?;
        if chunk.error.is_some() {
            return Err(classify_error(None, &frame.data, None));
        }
        for choice in chunk.choices.into_iter().flatten() {
            if let Some(delta) = choice.delta {
                self.apply_delta(delta, emit)?;
            }
            if let Some(reason) = choice.finish_reason {
                self.stop_reason = Some(map_finish_reason(&reason));
            }
        }
        if let Some(u) = &chunk.usage {
            let [prompt, output, hit] = fields(
                u,
                [
                    "prompt_tokens",
                    "completion_tokens",
                    "prompt_cache_hit_tokens",
                ],
            );
            let [details] = u
                .get("prompt_tokens_details")
                .filter(|d| !d.is_null())
                .map_or([None], |d| fields(d, ["cached_tokens"]));
            // A usage chunk replaces the last one whole; `prompt_tokens` includes cache
            // hits, which Usage keeps apart.
            let reported = ReportedUsage {
                prompt: prompt.unwrap_or_default(),
                cache_read: details.or(hit).unwrap_or_default(),
                output: output.unwrap_or_default(),
            };
            if let Some(u) = self.usage.update(reported) {
                emit(StreamEvent::Usage(u));
            }
        }
        Ok(())
    }

    /// Whether `[DONE]` arrived.
    fn is_done(&self) -> bool {
        self.done
    }

    /// What arrived so far (for cancelled or failed streams).
    fn partial(&self) -> Completion {
        partial_completion(
            self.content().0,
            self.stop_reason.as_ref(),
            self.usage.usage(),
        )
    }

    /// The settled completion after `[DONE]`.
    fn finish(self) -> Result<Completion, LlmError> {
        if !self.done {
            return Err(LlmError::new(
                ErrorCode::Transport,
                "the stream ended before [DONE]",
            ));
        }
        let stop_reason = self.stop_reason.clone().unwrap_or(StopReason::EndTurn);
        let usage = self.usage.usage();
        // Moved, not copied: a large reply is held once.
        let (content, id_repairs) = settle(self.blocks.into_iter());
        completed(content, id_repairs, stop_reason, usage)
    }
}

/// The blocks as message content, tool calls with unique, non-empty ids.
fn settle(blocks: impl Iterator<Item = OpenBlock>) -> (Vec<Block>, Vec<ToolIdRepair>) {
    let mut blocks: Vec<Block> = blocks
        .map(|b| match b {
            OpenBlock::Reasoning(text) => Block::Reasoning {
                text,
                signature: None,
            },
            OpenBlock::Text(text) => Block::text(text),
            OpenBlock::Tool {
                id,
                name,
                arguments,
                ..
            } => Block::ToolCall {
                id,
                name,
                arguments: if arguments.is_empty() {
                    "{}".to_string()
                } else {
                    arguments
                },
            },
        })
        .collect();
    let repairs = unique_reply_ids(&mut blocks);
    (blocks, repairs)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::llm::sse::SseParser;
    use crate::session::event::Usage;

    fn run(stream: &str) -> (Result<Completion, LlmError>, Vec<StreamEvent>) {
        let mut p = SseParser::new();
        let mut frames = Vec::new();
        p.push(stream.as_bytes(), &mut frames).unwrap();
        let mut a = ChatAssembler::new();
        let mut events = Vec::new();
        for f in &frames {
            if let Err(e) = a.on_frame(f, &mut |e| events.push(e)) {
                return (Err(e), events);
            }
        }
        (a.finish(), events)
    }

    const TOOL_STREAM: &str = r#": keep-alive

data: {"id":"c1","object":"chat.completion.chunk","choices":[{"index":0,"delta":{"role":"assistant","content":null,"reasoning_content":""},"finish_reason":null}],"usage":null}

data: {"choices":[{"index":0,"delta":{"reasoning_content":"Need the "},"finish_reason":null}],"usage":null}

data: {"choices":[{"index":0,"delta":{"reasoning_content":"manifest."},"finish_reason":null}],"usage":null}

data: {"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"call_00_b2","type":"function","function":{"name":"read_file","arguments":""}}]},"finish_reason":null}],"usage":null}

data: {"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"","function":{"name":null,"arguments":"{\"path\":"}}]},"finish_reason":null}],"usage":null}

data: {"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"\"Cargo.toml\"}"}}]},"finish_reason":"tool_calls"}],"usage":{"prompt_tokens":2132,"completion_tokens":57,"total_tokens":2189,"prompt_cache_hit_tokens":1920,"prompt_cache_miss_tokens":212,"prompt_tokens_details":{"cached_tokens":1920}}}

data: [DONE]

"#;

    #[test]
    fn openai_tool_stream_assembles_reasoning_and_call() {
        let (c, events) = run(TOOL_STREAM);
        let c = c.unwrap();
        assert_eq!(
            c.content,
            vec![
                Block::Reasoning {
                    text: "Need the manifest.".into(),
                    signature: None
                },
                Block::ToolCall {
                    id: "call_00_b2".into(),
                    name: "read_file".into(),
                    arguments: r#"{"path":"Cargo.toml"}"#.into()
                },
            ]
        );
        assert_eq!(c.stop_reason, StopReason::ToolUse);
        assert_eq!(
            c.usage,
            Some(Usage {
                input_tokens: 212,
                cache_read_tokens: 1920,
                output_tokens: 57
            })
        );
        assert_eq!(
            events
                .iter()
                .filter(|e| matches!(e, StreamEvent::ToolCallStart { .. }))
                .count(),
            1
        );
        assert!(events.contains(&StreamEvent::ToolArgsDelta {
            id: "call_00_b2".into(),
            fragment: "{\"path\":".into()
        }));
    }

    #[test]
    fn openai_empty_first_reasoning_does_not_open_block() {
        let s = "data: {\"choices\":[{\"delta\":{\"reasoning_content\":\"\"}}]}\n\n\
data: {\"choices\":[{\"delta\":{\"content\":\"Hi\"},\"finish_reason\":\"stop\"}]}\n\ndata: [DONE]\n\n";
        let c = run(s).0.unwrap();
        assert_eq!(c.content, vec![Block::text("Hi")]);
        assert_eq!(c.stop_reason, StopReason::EndTurn);
    }

    #[test]
    fn openai_usage_only_trailing_chunk_is_accepted() {
        let s = "data: {\"choices\":[{\"delta\":{\"content\":\"Hi\"},\"finish_reason\":\"stop\"}]}\n\n\
data: {\"choices\":[],\"usage\":{\"prompt_tokens\":10,\"completion_tokens\":2,\"prompt_cache_hit_tokens\":4}}\n\ndata: [DONE]\n\n";
        let c = run(s).0.unwrap();
        let u = c.usage.unwrap();
        assert_eq!(u.input_tokens, 6);
        assert_eq!(u.cache_read_tokens, 4);
        assert_eq!(u.output_tokens, 2);
    }

    #[test]
    fn openai_empty_reply_is_empty_response() {
        let s = "data: {\"choices\":[{\"delta\":{\"content\":\"\"},\"finish_reason\":\"stop\"}]}\n\ndata: [DONE]\n\n";
        assert_eq!(run(s).0.unwrap_err().code, ErrorCode::EmptyResponse);
    }

    #[test]
    fn openai_missing_done_is_transport() {
        let s = "data: {\"choices\":[{\"delta\":{\"content\":\"Hi\"}}]}\n\n";
        let e = run(s).0.unwrap_err();
        assert_eq!(e.code, ErrorCode::Transport);
        assert!(e.code.is_retryable());
    }

    #[test]
    fn openai_in_stream_error_is_classified() {
        let s =
            "data: {\"error\":{\"message\":\"Server overloaded\",\"type\":\"server_error\"}}\n\n";
        let e = run(s).0.unwrap_err();
        assert_eq!(e.code, ErrorCode::Server);
        assert_eq!(e.message, "Server overloaded");
    }

    #[test]
    fn openai_invalid_json_is_malformed() {
        let e = run("data: {nope\n\n").0.unwrap_err();
        assert_eq!(e.code, ErrorCode::Malformed);
    }

    #[test]
    fn the_reply_cap_counts_text_reasoning_and_arguments() {
        let chunk = |delta: serde_json::Value| {
            format!(
                "data: {}\n\n",
                serde_json::json!({"choices": [{"delta": delta}]})
            )
        };
        let s = chunk(serde_json::json!({"reasoning_content": "r".repeat(400)}))
            + &chunk(serde_json::json!({"content": "t".repeat(400)}))
            + &chunk(
                serde_json::json!({"tool_calls": [{"index": 0, "id": "c", "function": {"name": "f", "arguments": "a".repeat(400)}}]}),
            );
        let mut p = SseParser::new();
        let mut frames = Vec::new();
        p.push(s.as_bytes(), &mut frames).unwrap();
        let feed = |max: usize| {
            let mut a = ChatAssembler::with_max_reply_bytes(max);
            frames.iter().try_for_each(|f| a.on_frame(f, &mut |_| {}))
        };
        let e = feed(1000).unwrap_err();
        assert_eq!(e.code, ErrorCode::TooLarge);
        assert!(feed(2000).is_ok());
    }

    #[test]
    fn empty_and_repeated_call_ids_are_unique_after_assembly() {
        let call = |index: u64, id: &str| {
            format!(
                "data: {}\n\n",
                serde_json::json!({"choices": [{"delta": {"tool_calls": [{"index": index, "id": id, "function": {"name": "f", "arguments": "{}"}}]}}]})
            )
        };
        let s = call(0, "call_same")
            + &call(1, "call_same")
            + &call(2, "")
            + "data: {\"choices\":[{\"delta\":{},\"finish_reason\":\"tool_calls\"}]}\n\ndata: [DONE]\n\n";
        let c = run(&s).0.unwrap();
        let ids: Vec<&str> = c
            .content
            .iter()
            .filter_map(|b| match b {
                Block::ToolCall { id, .. } => Some(id.as_str()),
                _ => None,
            })
            .collect();
        assert_eq!(ids, ["call_same", "call_same_dup2", "call_2"]);
        assert_eq!(c.id_repairs.len(), 2);
    }
}
