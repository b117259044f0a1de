//! Property tests of the numbers a provider sends: a `Retry-After` value of any shape never
//! panics and never exceeds [`RETRY_AFTER_CEILING`]; a usage object of any shape never
//! panics either route's assembler, an impossible usage comes out unknown, and a possible one
//! comes out exactly (checked against a model of the rules written in `u128`).

use proptest::prelude::*;
use serde_json::{Map, Value, json};

use crate::llm::adapter::Assemble;
use crate::llm::deepseek::stream::MessagesAssembler;
use crate::llm::openai::stream::ChatAssembler;
use crate::llm::retry::{RETRY_AFTER_CEILING, parse_retry_after};
use crate::llm::sse::SseFrame;
use crate::llm::types::{Completion, LlmError};
use crate::session::event::Usage;

/// Strings shaped like delay seconds (huge, negative, fractional, exponents), HTTP-dates
/// in any year, and anything at all.
fn retry_after_strategy() -> impl Strategy<Value = String> {
    prop_oneof![
        any::<String>(),
        "[ +-]?[0-9]{0,40}(\\.[0-9]{0,12})?([eE][+-]?[0-9]{1,4})? ?",
        any::<f64>().prop_map(|f| f.to_string()),
        any::<u64>().prop_map(|n| n.to_string()),
        any::<u128>().prop_map(|n| n.to_string()),
        prop_oneof![
            Just("inf"),
            Just("-inf"),
            Just("NaN"),
            Just("infinity"),
            Just("-0")
        ]
        .prop_map(str::to_string),
        (0u32..100_000, 1u32..29, 0u32..24).prop_map(|(year, day, hour)| format!(
            "Mon, {day:02} Jan {year:04} {hour:02}:00:00 GMT"
        )),
    ]
}

/// Usage field names of both routes.
const FIELDS: [&str; 8] = [
    "input_tokens",
    "output_tokens",
    "cache_read_input_tokens",
    "cache_creation_input_tokens",
    "prompt_tokens",
    "completion_tokens",
    "prompt_cache_hit_tokens",
    "prompt_tokens_details",
];

/// A token count as a hostile provider might write it.
fn count_strategy() -> impl Strategy<Value = Value> {
    prop_oneof![
        4 => (0u64..5_000).prop_map(Value::from),
        2 => any::<u64>().prop_map(Value::from),
        1 => any::<i64>().prop_map(Value::from),
        1 => any::<f64>().prop_filter("JSON has no NaN or infinity", |f| f.is_finite()).prop_map(Value::from),
        1 => Just(Value::Null),
        1 => any::<bool>().prop_map(Value::from),
        1 => any::<String>().prop_map(Value::from),
        1 => Just(json!([1, 2])),
    ]
}

/// Any JSON value (bounded depth).
fn json_strategy() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::from),
        any::<i64>().prop_map(Value::from),
        any::<u64>().prop_map(Value::from),
        any::<String>().prop_map(Value::from),
    ];
    leaf.prop_recursive(3, 16, 4, |inner| {
        prop_oneof![
            proptest::collection::vec(inner.clone(), 0..4).prop_map(Value::from),
            proptest::collection::btree_map("[a-z_]{0,8}", inner, 0..4)
                .prop_map(|m| Value::Object(m.into_iter().collect())),
        ]
    })
}

/// A usage object: the routes' field names with hostile counts, or any JSON at all.
fn usage_strategy() -> impl Strategy<Value = Value> {
    let object = proptest::collection::vec(
        (
            0usize..FIELDS.len(),
            prop_oneof![
                3 => count_strategy(),
                1 => proptest::collection::btree_map(Just("cached_tokens".to_string()), count_strategy(), 0..2)
                    .prop_map(|m| Value::Object(m.into_iter().collect())),
            ],
        ),
        0..6,
    )
    .prop_map(|fields| {
        let mut m = Map::new();
        for (i, v) in fields {
            m.insert(FIELDS[i].to_string(), v);
        }
        Value::Object(m)
    });
    prop_oneof![4 => object, 1 => json_strategy()]
}

/// What a count is in the model: absent (`None`), a valid count, or invalid.
fn model_count(v: Option<&Value>) -> Option<Result<u128, ()>> {
    match v {
        None | Some(Value::Null) => None,
        Some(v) => Some(v.as_u64().map(u128::from).ok_or(())),
    }
}

/// The model's verdict on a prompt / cached / output triple.
fn model_check(prompt: u128, cached: u128, output: u128, window: u64) -> Option<Usage> {
    let fits_u64 = prompt <= u128::from(u64::MAX);
    let fits_window = window == 0 || prompt + output <= u128::from(window);
    (fits_u64 && cached <= prompt && fits_window).then(|| Usage {
        input_tokens: (prompt - cached) as u64,
        cache_read_tokens: cached as u64,
        output_tokens: output as u64,
    })
}

/// The Messages route's model: latest value per field over both events.
fn model_messages(start: &Value, delta: &Value, window: u64) -> Option<Usage> {
    let names = [
        "input_tokens",
        "cache_creation_input_tokens",
        "cache_read_input_tokens",
        "output_tokens",
    ];
    let mut latest: [Result<u128, ()>; 4] = [Ok(0); 4];
    for u in [start, delta] {
        for (slot, name) in latest.iter_mut().zip(names) {
            let got = match u {
                // `"usage": null` reports nothing.
                Value::Null => None,
                Value::Object(m) => model_count(m.get(name)),
                _ => Some(Err(())),
            };
            if let Some(v) = got {
                *slot = v;
            }
        }
    }
    let [input, creation, cached, output] = latest;
    let (input, creation, cached, output) =
        (input.ok()?, creation.ok()?, cached.ok()?, output.ok()?);
    model_check(input + creation + cached, cached, output, window)
}

/// The Chat route's model: the usage object replaces the last one whole.
fn model_chat(usage: &Value, window: u64) -> Option<Usage> {
    let m = match usage {
        // `"usage": null` reports nothing: nothing was reported, as before any usage.
        Value::Null => return Some(Usage::default()),
        Value::Object(m) => m,
        _ => return None,
    };
    let prompt = model_count(m.get("prompt_tokens")).unwrap_or(Ok(0)).ok()?;
    let output = model_count(m.get("completion_tokens"))
        .unwrap_or(Ok(0))
        .ok()?;
    let details = match m.get("prompt_tokens_details") {
        None | Some(Value::Null) => None,
        Some(Value::Object(d)) => model_count(d.get("cached_tokens")),
        Some(_) => Some(Err(())),
    };
    let cached = details
        .or_else(|| model_count(m.get("prompt_cache_hit_tokens")))
        .unwrap_or(Ok(0))
        .ok()?;
    model_check(prompt, cached, output, window)
}

fn frame(event: Option<&str>, data: String) -> SseFrame {
    SseFrame {
        event: event.map(str::to_string),
        data,
    }
}

fn run_messages(start: &str, delta: &str, window: u64) -> Result<Completion, LlmError> {
    let frames = [
        frame(
            Some("message_start"),
            format!(r#"{{"type":"message_start","message":{{"usage":{start}}}}}"#),
        ),
        frame(
            Some("content_block_start"),
            r#"{"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}"#
                .into(),
        ),
        frame(
            Some("content_block_delta"),
            r#"{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"hi"}}"#
                .into(),
        ),
        frame(
            Some("message_delta"),
            format!(
                r#"{{"type":"message_delta","delta":{{"stop_reason":"end_turn"}},"usage":{delta}}}"#
            ),
        ),
        frame(Some("message_stop"), r#"{"type":"message_stop"}"#.into()),
    ];
    let mut a = MessagesAssembler::new().with_context_window(window);
    for f in &frames {
        a.on_frame(f, &mut |_| {})?;
    }
    a.finish()
}

fn run_chat(usage: &str, window: u64) -> Result<Completion, LlmError> {
    let frames = [
        frame(
            None,
            r#"{"choices":[{"index":0,"delta":{"content":"hi"},"finish_reason":"stop"}]}"#.into(),
        ),
        frame(None, format!(r#"{{"choices":[],"usage":{usage}}}"#)),
        frame(None, "[DONE]".into()),
    ];
    let mut a = ChatAssembler::new().with_context_window(window);
    for f in &frames {
        a.on_frame(f, &mut |_| {})?;
    }
    a.finish()
}

/// Any text, or a usage object's JSON cut anywhere.
fn usage_text_strategy() -> impl Strategy<Value = String> {
    prop_oneof![
        any::<String>(),
        usage_strategy().prop_map(|v| v.to_string()),
        (usage_strategy(), any::<prop::sample::Index>()).prop_map(|(v, cut)| {
            let text = v.to_string();
            let chars: Vec<char> = text.chars().collect();
            chars[..cut.index(chars.len() + 1)].iter().collect()
        }),
    ]
}

fn window_strategy() -> impl Strategy<Value = u64> {
    prop_oneof![Just(0u64), Just(4096u64), Just(1_048_576u64), any::<u64>()]
}

proptest! {
    #![proptest_config(ProptestConfig {
        cases: crate::testing::proptest_cases(10_000),
        ..ProptestConfig::default()
    })]

    #[test]
    fn retry_after_of_any_text_never_panics_and_stays_under_the_ceiling(s in retry_after_strategy()) {
        if let Some(d) = parse_retry_after(&s) {
            prop_assert!(d <= RETRY_AFTER_CEILING, "{s:?} -> {d:?}");
        }
    }

    #[test]
    fn messages_usage_of_any_shape_is_exact_or_unknown(
        start in usage_strategy(),
        delta in usage_strategy(),
        window in window_strategy(),
    ) {
        let c = run_messages(&start.to_string(), &delta.to_string(), window);
        let c = c.map_err(|e| TestCaseError::fail(format!("the reply is fine: {e:?}")))?;
        prop_assert_eq!(c.usage, model_messages(&start, &delta, window), "{} then {}", start, delta);
    }

    #[test]
    fn chat_usage_of_any_shape_is_exact_or_unknown(
        usage in usage_strategy(),
        window in window_strategy(),
    ) {
        let c = run_chat(&usage.to_string(), window);
        let c = c.map_err(|e| TestCaseError::fail(format!("the reply is fine: {e:?}")))?;
        prop_assert_eq!(c.usage, model_chat(&usage, window), "{}", usage);
    }

    #[test]
    fn usage_of_any_text_never_panics_and_is_never_impossible(
        start in usage_text_strategy(),
        delta in usage_text_strategy(),
        window in window_strategy(),
    ) {
        // Text that is not JSON fails the frame as malformed; whatever does parse comes
        // out possible or unknown.
        for c in [run_messages(&start, &delta, window), run_chat(&start, window)]
            .into_iter()
            .flatten()
        {
            if let Some(u) = c.usage {
                let total = u128::from(u.input_tokens) + u128::from(u.cache_read_tokens) + u128::from(u.output_tokens);
                prop_assert!(window == 0 || total <= u128::from(window));
            }
        }
    }
}
