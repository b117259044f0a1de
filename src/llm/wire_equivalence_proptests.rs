//! The one-pass body writers of both routes write exactly the bytes (and owe the same
//! `anthropic-beta`, or fail with the same error) as the `serde` wire-struct writers they
//! replaced (decision 0100): the provider's prefix cache matches on these bytes, so a
//! faster writer must not move a single one. Histories are generated as well-formed turns
//! (user → calls → results → answer) with prompt updates, developer updates and mode notes
//! between them, then optionally disturbed so the error paths are compared too.

use std::sync::Arc;

use proptest::prelude::*;
use serde_json::json;

use crate::llm::adapter::RequestParts;
use crate::llm::types::{LlmError, Thinking};
use crate::llm::wire_reference;
use crate::llm::{deepseek, openai};
use crate::session::event::{
    Block, MODE_NOTE_SOURCE, Message, Role, Source, SystemPromptUpdate, ToolSchema,
};

fn text_strategy() -> impl Strategy<Value = String> {
    prop_oneof![
        4 => "[a-z ]{1,30}",
        1 => Just(String::new()),
        1 => Just("Error: already marked".to_string()),
        1 => Just("Error:".to_string()),
        2 => any::<String>(),
        1 => "[\\x00-\\x1f\"\\\\/a\u{7f}\u{2028}\u{e9}\u{1f600}]{0,12}",
    ]
}

fn args_strategy() -> impl Strategy<Value = String> {
    prop_oneof![
        3 => (text_strategy(), any::<i64>())
            .prop_map(|(s, n)| json!({"path": s, "n": n}).to_string()),
        1 => Just("{ \"spaced\" : [1, 2.50, -0, 1e3, true, null] }".to_string()),
        1 => Just("{\"a\":1,\"a\":2,\"b\":{\"c\":\"\\u0041\\/\"}}".to_string()),
        1 => Just("[1,2]".to_string()),
        1 => Just("{\"cut\":".to_string()),
        1 => Just(String::new()),
        1 => any::<String>(),
    ]
}

fn id_strategy() -> impl Strategy<Value = String> {
    prop_oneof![4 => "call_[0-9]{1,3}", 1 => Just(String::new()), 1 => any::<String>()]
}

fn msg(role: Role, content: Vec<Block>) -> Arc<Message> {
    Arc::new(Message::new(role, content, Source::kind("test")))
}

/// A generated call: id, name, arguments, then its result's text blocks and `is_error`.
type Call = (String, String, String, Vec<String>, Option<bool>);

/// One generated step of a history.
#[derive(Debug, Clone)]
enum Step {
    User(Vec<String>),
    /// Reasoning (with or without signature), text and calls `(id, name, args)`, then a
    /// result per call `(text blocks, is_error)` and an answer.
    Turn {
        reasoning: Option<(String, Option<String>)>,
        text: Vec<String>,
        calls: Vec<Call>,
        answer: Option<String>,
    },
    Prompt(Vec<String>),
    Developer(Vec<Block>),
    ModeNote(Vec<String>),
}

fn developer_block() -> impl Strategy<Value = Block> {
    prop_oneof![
        text_strategy().prop_map(Block::text),
        "[a-z_]{1,8}".prop_map(Block::addition),
        "[a-z_]{1,8}".prop_map(Block::removal),
    ]
}

fn step_strategy() -> impl Strategy<Value = Step> {
    let texts = || proptest::collection::vec(text_strategy(), 0..3);
    let call = (
        id_strategy(),
        "[a-z_]{1,8}",
        args_strategy(),
        proptest::collection::vec(text_strategy(), 0..3),
        prop_oneof![Just(None), Just(Some(false)), Just(Some(true))],
    );
    prop_oneof![
        3 => proptest::collection::vec(text_strategy(), 1..3).prop_map(Step::User),
        4 => (
            proptest::option::of((text_strategy(), proptest::option::of("[a-zA-Z0-9]{0,8}"))),
            texts(),
            proptest::collection::vec(call, 0..3),
            proptest::option::of(text_strategy()),
        )
            .prop_map(|(reasoning, text, calls, answer)| Step::Turn {
                reasoning,
                text,
                calls,
                answer,
            }),
        1 => texts().prop_map(Step::Prompt),
        1 => proptest::collection::vec(developer_block(), 0..3).prop_map(Step::Developer),
        1 => texts().prop_map(Step::ModeNote),
    ]
}

fn blocks(texts: &[String]) -> Vec<Block> {
    texts.iter().map(|t| Block::text(t.as_str())).collect()
}

fn history(steps: &[Step]) -> Vec<Arc<Message>> {
    let mut out = Vec::new();
    for step in steps {
        match step {
            Step::User(texts) => out.push(msg(Role::User, blocks(texts))),
            Step::Turn {
                reasoning,
                text,
                calls,
                answer,
            } => {
                let mut content = Vec::new();
                if let Some((r, signature)) = reasoning {
                    content.push(Block::Reasoning {
                        text: r.clone(),
                        signature: signature.clone(),
                    });
                }
                content.extend(blocks(text));
                for (id, name, arguments, _, _) in calls {
                    content.push(Block::ToolCall {
                        id: id.clone(),
                        name: name.clone(),
                        arguments: arguments.clone(),
                    });
                }
                out.push(msg(Role::Assistant, content));
                for (id, _, _, result, is_error) in calls {
                    let mut m = Message::new(Role::Tool, blocks(result), Source::kind("tool"));
                    m.tool_call_id = Some(id.clone());
                    m.is_error = *is_error;
                    out.push(Arc::new(m));
                }
                if let Some(answer) = answer {
                    out.push(msg(Role::Assistant, vec![Block::text(answer.as_str())]));
                }
            }
            Step::Prompt(texts) => out.push(msg(Role::System, blocks(texts))),
            Step::Developer(content) => out.push(msg(Role::Developer, content.clone())),
            Step::ModeNote(texts) => out.push(Arc::new(Message::new(
                Role::Developer,
                blocks(texts),
                Source::kind(MODE_NOTE_SOURCE),
            ))),
        }
    }
    out
}

/// A disturbance: drop, duplicate or swap messages, or give a message a block its role
/// cannot carry, so the writers' errors are compared as well as their bytes.
#[derive(Debug, Clone)]
enum Disturb {
    Drop(usize),
    Duplicate(usize),
    Swap(usize, usize),
    ForeignBlock(usize, u8),
}

fn disturb(messages: &mut Vec<Arc<Message>>, d: &Disturb) {
    let n = messages.len();
    if n == 0 {
        return;
    }
    match *d {
        Disturb::Drop(i) => {
            messages.remove(i % n);
        }
        Disturb::Duplicate(i) => messages.insert(i % n, messages[i % n].clone()),
        Disturb::Swap(i, j) => messages.swap(i % n, j % n),
        Disturb::ForeignBlock(i, kind) => {
            let mut m = (*messages[i % n]).clone();
            m.content.push(match kind % 3 {
                0 => Block::addition("x"),
                1 => Block::ToolCall {
                    id: "call_x".into(),
                    name: "x".into(),
                    arguments: "{}".into(),
                },
                _ => Block::Reasoning {
                    text: "r".into(),
                    signature: None,
                },
            });
            messages[i % n] = Arc::new(m);
        }
    }
}

fn disturb_strategy() -> impl Strategy<Value = Disturb> {
    prop_oneof![
        any::<usize>().prop_map(Disturb::Drop),
        any::<usize>().prop_map(Disturb::Duplicate),
        (any::<usize>(), any::<usize>()).prop_map(|(i, j)| Disturb::Swap(i, j)),
        (any::<usize>(), any::<u8>()).prop_map(|(i, k)| Disturb::ForeignBlock(i, k)),
    ]
}

/// The request-wide fields of the parts.
#[derive(Debug, Clone)]
struct Fields {
    system: Option<String>,
    max_tokens: u32,
    thinking: u8,
    effort: Option<String>,
    temperature: Option<f64>,
    stop: Option<Vec<String>>,
    tools: Option<Vec<(String, String, bool)>>,
    in_history: bool,
}

fn fields_strategy() -> impl Strategy<Value = Fields> {
    (
        proptest::option::of(text_strategy()),
        any::<u32>(),
        0u8..3,
        proptest::option::of(prop_oneof![Just("high".to_string()), text_strategy()]),
        proptest::option::of(prop_oneof![Just(0.7), any::<f64>()]),
        proptest::option::of(proptest::collection::vec(text_strategy(), 0..3)),
        proptest::option::of(proptest::collection::vec(
            (text_strategy(), text_strategy(), any::<bool>()),
            0..3,
        )),
        any::<bool>(),
    )
        .prop_map(
            |(system, max_tokens, thinking, effort, temperature, stop, tools, in_history)| Fields {
                system,
                max_tokens,
                thinking,
                effort,
                temperature,
                stop,
                tools,
                in_history,
            },
        )
}

type Write = fn(&RequestParts<'_>, &mut Vec<u8>) -> Result<Option<String>, LlmError>;

/// Both writers on the same parts, appending to a buffer that already holds bytes.
fn compare(
    messages: &[Arc<Message>],
    fields: &Fields,
    new: Write,
    old: Write,
) -> Result<(), TestCaseError> {
    let tools: Option<Vec<ToolSchema>> = fields.tools.as_ref().map(|tools| {
        tools
            .iter()
            .map(|(name, description, deferred)| ToolSchema {
                name: name.clone(),
                description: description.clone(),
                parameters: json!({"type": "object", "properties": {name.clone(): {"type": "string"}}}),
                defer_loading: deferred.then_some(true),
            })
            .collect()
    });
    let parts = RequestParts {
        model: "deepseek-flash",
        system_prompt_update: fields.in_history.then_some(SystemPromptUpdate::InHistory),
        messages,
        tools: tools.as_deref(),
        system: fields.system.as_deref(),
        max_tokens: fields.max_tokens,
        thinking: [Thinking::Default, Thinking::Enabled, Thinking::Disabled]
            [fields.thinking as usize],
        effort: fields.effort.as_deref(),
        temperature: fields.temperature,
        stop: fields.stop.as_deref(),
    };
    let (mut new_bytes, mut old_bytes) = (b"prefix".to_vec(), b"prefix".to_vec());
    let new_result = new(&parts, &mut new_bytes);
    let old_result = old(&parts, &mut old_bytes);
    prop_assert_eq!(&new_result, &old_result);
    if new_result.is_ok() {
        prop_assert_eq!(
            String::from_utf8_lossy(&new_bytes),
            String::from_utf8_lossy(&old_bytes)
        );
        prop_assert_eq!(new_bytes, old_bytes);
    } else {
        prop_assert_eq!(
            new_bytes,
            b"prefix".to_vec(),
            "a failed write leaves the buffer"
        );
    }
    Ok(())
}

fn case_strategy() -> impl Strategy<Value = (Vec<Step>, Option<Disturb>, Fields)> {
    (
        proptest::collection::vec(step_strategy(), 0..16),
        proptest::option::weighted(0.3, disturb_strategy()),
        fields_strategy(),
    )
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(3000))]

    #[test]
    fn the_messages_body_is_byte_identical_to_the_serde_writer((steps, d, fields) in case_strategy()) {
        let mut messages = history(&steps);
        // A leading prompt, as every session has.
        messages.insert(0, msg(Role::System, vec![Block::text("You are terse.")]));
        if let Some(d) = &d {
            disturb(&mut messages, d);
        }
        compare(
            &messages,
            &fields,
            deepseek::serialize::write_body,
            wire_reference::deepseek::write_body,
        )?;
    }

    #[test]
    fn the_chat_body_is_byte_identical_to_the_serde_writer((steps, d, fields) in case_strategy()) {
        let mut messages = history(&steps);
        messages.insert(0, msg(Role::System, vec![Block::text("You are terse.")]));
        if let Some(d) = &d {
            disturb(&mut messages, d);
        }
        compare(
            &messages,
            &fields,
            openai::serialize::write_body,
            wire_reference::openai::write_body,
        )?;
    }
}
