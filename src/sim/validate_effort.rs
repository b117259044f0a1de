//! The effort fields as DeepSeek reads them (the wire reference §1.3, §4): Messages takes
//! `output_config.effort`, Chat Completions `reasoning_effort`; the values are `low`,
//! `high` and `max`, with the aliases `minimal`→low, `medium`→high, `xhigh`→high and
//! `ultra`→max. Anything else is the provider's 400. Thinking is on by default at `high`;
//! with thinking disabled the field is ignored.

use serde_json::Value;

use super::validate::{ApiError, Route, deser};

/// A level name or alias → the level DeepSeek serves.
fn level(name: &str) -> Option<&'static str> {
    match name {
        "low" | "minimal" => Some("low"),
        "high" | "medium" | "xhigh" => Some("high"),
        "max" | "ultra" => Some("max"),
        _ => None,
    }
}

fn unknown(field: &str, got: &Value) -> ApiError {
    let shown = match got {
        Value::String(s) => format!("unknown variant `{s}`"),
        other => format!("invalid type: {other}"),
    };
    deser(format!(
        "{field}: {shown}, expected one of `low`, `high`, `max`"
    ))
}

/// The effort field of the route as sent: `None` when absent, the served level otherwise;
/// a value that is not a level (or a malformed `output_config`) is a 400.
pub(crate) fn sent_effort(body: &Value, route: Route) -> Result<Option<&'static str>, ApiError> {
    let (field, value) = match route {
        Route::Anthropic => match body.get("output_config") {
            None | Some(Value::Null) => return Ok(None),
            Some(Value::Object(o)) => ("output_config.effort", o.get("effort")),
            Some(_) => {
                return Err(deser(
                    "output_config: invalid type, expected struct OutputConfig",
                ));
            }
        },
        Route::OpenAi => ("reasoning_effort", body.get("reasoning_effort")),
    };
    match value {
        None | Some(Value::Null) => Ok(None),
        Some(v) => v
            .as_str()
            .and_then(level)
            .map(Some)
            .ok_or_else(|| unknown(field, v)),
    }
}

/// The effort the request is served at: `None` with thinking disabled, else the sent
/// level or DeepSeek's default `high`.
pub(crate) fn effective_effort(
    body: &Value,
    route: Route,
    thinking: bool,
) -> Result<Option<&'static str>, ApiError> {
    let sent = sent_effort(body, route)?;
    Ok(thinking.then(|| sent.unwrap_or("high")))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn each_route_reads_its_own_effort_field_with_the_documented_aliases() {
        let cases = [
            (
                Route::Anthropic,
                json!({"output_config": {"effort": "low"}}),
                Some("low"),
            ),
            (
                Route::Anthropic,
                json!({"output_config": {"effort": "ultra"}}),
                Some("max"),
            ),
            (Route::Anthropic, json!({"output_config": {}}), None),
            (Route::Anthropic, json!({"reasoning_effort": "max"}), None),
            (
                Route::OpenAi,
                json!({"reasoning_effort": "medium"}),
                Some("high"),
            ),
            (
                Route::OpenAi,
                json!({"reasoning_effort": "minimal"}),
                Some("low"),
            ),
            (Route::OpenAi, json!({}), None),
        ];
        for (route, body, want) in cases {
            assert_eq!(sent_effort(&body, route).unwrap(), want, "{route:?} {body}");
        }
    }

    #[test]
    fn an_effort_that_is_not_a_level_is_the_providers_400() {
        for (route, body) in [
            (
                Route::Anthropic,
                json!({"output_config": {"effort": "extreme"}}),
            ),
            (Route::Anthropic, json!({"output_config": {"effort": 3}})),
            (Route::Anthropic, json!({"output_config": "high"})),
            (Route::OpenAi, json!({"reasoning_effort": "off"})),
        ] {
            let e = sent_effort(&body, route).unwrap_err();
            assert_eq!(e.status, 400, "{body}");
        }
    }

    #[test]
    fn thinking_disabled_ignores_the_effort_and_thinking_defaults_to_high() {
        let body = json!({"reasoning_effort": "max"});
        assert_eq!(effective_effort(&body, Route::OpenAi, false).unwrap(), None);
        assert_eq!(
            effective_effort(&json!({}), Route::OpenAi, true).unwrap(),
            Some("high")
        );
    }
}
