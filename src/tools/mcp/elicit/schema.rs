//! A server's `requestedSchema` read into the form's fields, and every string from the
//! server screened on the way in (SPEC §15.2; the same rule as tool listings, decision
//! 0033): control and bidirectional-override characters are dropped, every text is capped,
//! and a form with more fields or options than a screen can hold is not shown at all.
//!
//! The schema is read as JSON (rmcp's typed schema serialized back, or the raw params of a
//! request rmcp could not type), so a schema rmcp refuses gets the same plain reason.

use serde_json::Value;

use super::form::{Choice, Field, Input, TextFormat};
use crate::i18n::{Arg, Text};

/// The most fields a form may have.
pub const MAX_FIELDS: usize = 32;
/// The most options of one choice.
pub const MAX_OPTIONS: usize = 64;
/// The longest message shown (characters); longer ones are cut with `…`.
pub const MAX_MESSAGE_CHARS: usize = 2000;
/// The most message lines shown.
pub const MAX_MESSAGE_LINES: usize = 12;
/// The longest label, option or property name (characters).
pub const MAX_LABEL_CHARS: usize = 120;
/// The longest field description (characters).
pub const MAX_DESCRIPTION_CHARS: usize = 400;
/// The longest default text (characters).
pub const MAX_DEFAULT_CHARS: usize = 4096;

/// `s` with control characters (newlines too unless `lines`), bidirectional overrides and
/// other invisible format characters dropped, cut at `max` characters with `…`.
pub fn screen(s: &str, max: usize, lines: bool) -> String {
    let mut out = String::with_capacity(s.len().min(max * 4));
    let mut n = 0;
    let mut line_count = 1;
    for c in s.chars() {
        let keep = match c {
            '\n' if lines => {
                line_count += 1;
                line_count <= MAX_MESSAGE_LINES
            }
            '\t' => {
                out.push(' ');
                n += 1;
                false
            }
            c if c.is_control() => false,
            // Bidirectional embeddings, overrides and isolates; zero-width characters.
            '\u{200b}'..='\u{200f}'
            | '\u{202a}'..='\u{202e}'
            | '\u{2066}'..='\u{2069}'
            | '\u{feff}' => false,
            _ => true,
        };
        if n >= max {
            out.push('…');
            return out;
        }
        if keep {
            out.push(c);
            n += 1;
        }
    }
    out
}

/// The fields of `schema`, or why the form cannot be shown.
pub fn fields(schema: &Value) -> Result<Vec<Field>, Text> {
    let props = schema
        .get("properties")
        .and_then(Value::as_object)
        .ok_or_else(|| reason("elicit-bad-schema-no-properties", vec![]))?;
    if props.len() > MAX_FIELDS {
        return Err(reason(
            "elicit-bad-schema-too-many-fields",
            vec![
                ("count", Arg::from(props.len())),
                ("limit", Arg::from(MAX_FIELDS)),
            ],
        ));
    }
    let required: Vec<&str> = schema
        .get("required")
        .and_then(Value::as_array)
        .map(|r| r.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    if let Some(missing) = required.iter().find(|r| !props.contains_key(**r)) {
        return Err(reason(
            "elicit-bad-schema-required-missing",
            vec![("field", Arg::from(screen(missing, MAX_LABEL_CHARS, false)))],
        ));
    }
    props
        .iter()
        .map(|(name, p)| {
            let shown = screen(name, MAX_LABEL_CHARS, false);
            let input = input(p).map_err(|why| {
                reason(
                    "elicit-bad-schema-field",
                    vec![
                        ("field", Arg::from(shown.clone())),
                        ("why", Arg::Text(Box::new(why))),
                    ],
                )
            })?;
            let label = p
                .get("title")
                .and_then(Value::as_str)
                .map(|t| screen(t, MAX_LABEL_CHARS, false))
                .filter(|t| !t.trim().is_empty())
                .unwrap_or_else(|| shown.clone());
            Ok(Field {
                name: name.clone(),
                label,
                description: p
                    .get("description")
                    .and_then(Value::as_str)
                    .map(|d| screen(d, MAX_DESCRIPTION_CHARS, false))
                    .filter(|d| !d.trim().is_empty()),
                required: required.contains(&name.as_str()),
                input,
            })
        })
        .collect()
}

fn reason(key: &str, args: Vec<(&str, Arg)>) -> Text {
    Text::new(key, args)
}

/// The options of an `enum` (with `enumNames`) or a `oneOf`/`anyOf` of `{const, title}`.
fn options(p: &Value) -> Option<Result<Vec<Choice>, Text>> {
    let list = if let Some(values) = p.get("enum").and_then(Value::as_array) {
        let names = p.get("enumNames").and_then(Value::as_array);
        values
            .iter()
            .enumerate()
            .map(|(i, v)| {
                let value = v.as_str()?.to_string();
                let label = names
                    .and_then(|n| n.get(i))
                    .and_then(Value::as_str)
                    .unwrap_or(&value)
                    .to_string();
                Some((value, label))
            })
            .collect::<Option<Vec<_>>>()
    } else if let Some(items) = p
        .get("oneOf")
        .or_else(|| p.get("anyOf"))
        .and_then(Value::as_array)
    {
        items
            .iter()
            .map(|o| {
                let value = o.get("const")?.as_str()?.to_string();
                let label = o
                    .get("title")
                    .and_then(Value::as_str)
                    .unwrap_or(&value)
                    .to_string();
                Some((value, label))
            })
            .collect::<Option<Vec<_>>>()
    } else {
        return None;
    };
    Some(match list {
        None => Err(reason("elicit-why-options", vec![])),
        Some(l) if l.is_empty() => Err(reason("elicit-why-options", vec![])),
        Some(l) if l.len() > MAX_OPTIONS => Err(reason(
            "elicit-why-too-many-options",
            vec![
                ("count", Arg::from(l.len())),
                ("limit", Arg::from(MAX_OPTIONS)),
            ],
        )),
        Some(l) => Ok(l
            .into_iter()
            .map(|(value, label)| Choice {
                label: screen(&label, MAX_LABEL_CHARS, false),
                value,
            })
            .collect()),
    })
}

fn u64_of(p: &Value, key: &str) -> Option<u64> {
    p.get(key).and_then(Value::as_u64)
}

/// One property's input, or why it cannot be shown.
fn input(p: &Value) -> Result<Input, Text> {
    let ty = p.get("type").and_then(Value::as_str).unwrap_or("");
    let default = p.get("default");
    match ty {
        "string" => {
            if let Some(opts) = options(p) {
                let options = opts?;
                let default = default
                    .and_then(Value::as_str)
                    .and_then(|d| options.iter().position(|o| o.value == d));
                return Ok(Input::Choice { options, default });
            }
            let format = match p.get("format").and_then(Value::as_str) {
                None => None,
                Some("email") => Some(TextFormat::Email),
                Some("uri") => Some(TextFormat::Uri),
                Some("date") => Some(TextFormat::Date),
                Some("date-time") => Some(TextFormat::DateTime),
                Some(other) => {
                    return Err(reason(
                        "elicit-why-format",
                        vec![("format", Arg::from(screen(other, MAX_LABEL_CHARS, false)))],
                    ));
                }
            };
            let min_len = u64_of(p, "minLength").map(|n| n.min(u64::from(u32::MAX)) as u32);
            let max_len = u64_of(p, "maxLength").map(|n| n.min(u64::from(u32::MAX)) as u32);
            if let (Some(a), Some(b)) = (min_len, max_len)
                && a > b
            {
                return Err(reason("elicit-why-range", vec![]));
            }
            Ok(Input::Text {
                min_len,
                max_len,
                format,
                default: default
                    .and_then(Value::as_str)
                    .map(|d| screen(d, MAX_DEFAULT_CHARS, false)),
            })
        }
        "number" | "integer" => {
            let integer = ty == "integer";
            let min = p.get("minimum").and_then(Value::as_f64);
            let max = p.get("maximum").and_then(Value::as_f64);
            if let (Some(a), Some(b)) = (min, max)
                && a > b
            {
                return Err(reason("elicit-why-range", vec![]));
            }
            let default = default.and_then(Value::as_f64).filter(|d| d.is_finite());
            Ok(Input::Number {
                integer,
                min,
                max,
                default,
            })
        }
        "boolean" => Ok(Input::Boolean {
            default: default.and_then(Value::as_bool),
        }),
        "array" => {
            let items = p.get("items").unwrap_or(&Value::Null);
            let options =
                options(items).unwrap_or_else(|| Err(reason("elicit-why-options", vec![])))?;
            let min = u64_of(p, "minItems");
            let max = u64_of(p, "maxItems");
            if let (Some(a), Some(b)) = (min, max)
                && a > b
            {
                return Err(reason("elicit-why-range", vec![]));
            }
            let default = default
                .and_then(Value::as_array)
                .map(|d| {
                    d.iter()
                        .filter_map(Value::as_str)
                        .filter_map(|d| options.iter().position(|o| o.value == d))
                        .collect()
                })
                .unwrap_or_default();
            Ok(Input::Choices {
                options,
                min,
                max,
                default,
            })
        }
        other => Err(reason(
            "elicit-why-type",
            vec![("type", Arg::from(screen(other, MAX_LABEL_CHARS, false)))],
        )),
    }
}
