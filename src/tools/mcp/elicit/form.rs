//! What a server's elicitation asks for, as the UI shows it (SPEC §15.2), and the checks an
//! answer passes before it goes back: plain serde data (it travels in `AgentEvent`), every
//! string from the server already screened (`schema.rs`), every error a localized [`Text`].

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::i18n::{Arg, Text};

/// One elicitation the user is asked to answer.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ElicitationRequest {
    /// Names the pending answer (`AgentCommand::Elicit`).
    pub id: u64,
    /// The configured server name.
    pub server: String,
    /// What the server says it needs (screened, capped; may hold newlines).
    pub message: String,
    /// A form, or a URL to open.
    pub kind: ElicitKind,
}

/// Form mode or URL mode.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "mode", rename_all = "camelCase")]
pub enum ElicitKind {
    /// Fields to fill in, in the server's order.
    Form {
        /// The fields.
        fields: Vec<Field>,
    },
    /// A page to open in the browser (http or https, printable ASCII).
    Url {
        /// The URL.
        url: String,
    },
}

/// The user's answer.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "action", content = "content", rename_all = "camelCase")]
pub enum ElicitAnswer {
    /// Submitted: the form's content (empty for URL mode, where it means "open it").
    Accept(Map<String, Value>),
    /// Declined to answer; the server's operation goes on without it.
    Decline,
    /// Dismissed (Esc): the server's operation stops.
    Cancel,
}

/// One field of a form.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Field {
    /// The property name the answer uses.
    pub name: String,
    /// What the form shows (the schema's title, else the name).
    pub label: String,
    /// The schema's description.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// Whether the form cannot be submitted without it.
    pub required: bool,
    /// What it takes.
    pub input: Input,
}

/// The format a text field must have (the four the MCP specification allows).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum TextFormat {
    /// `name@domain.tld`.
    Email,
    /// `scheme:rest`.
    Uri,
    /// `YYYY-MM-DD`.
    Date,
    /// RFC 3339, `YYYY-MM-DDThh:mm:ssZ` or with an offset.
    DateTime,
}

/// One option of a choice.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Choice {
    /// What the answer carries.
    pub value: String,
    /// What the form shows.
    pub label: String,
}

/// What a field takes.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "camelCase")]
pub enum Input {
    /// A line of text.
    #[serde(rename_all = "camelCase")]
    Text {
        min_len: Option<u32>,
        max_len: Option<u32>,
        format: Option<TextFormat>,
        default: Option<String>,
    },
    /// A number (`integer`: whole numbers only).
    #[serde(rename_all = "camelCase")]
    Number {
        integer: bool,
        min: Option<f64>,
        max: Option<f64>,
        default: Option<f64>,
    },
    /// Yes or no.
    Boolean { default: Option<bool> },
    /// One of the options.
    Choice {
        options: Vec<Choice>,
        default: Option<usize>,
    },
    /// Any number of the options (within `min`..=`max`).
    #[serde(rename_all = "camelCase")]
    Choices {
        options: Vec<Choice>,
        min: Option<u64>,
        max: Option<u64>,
        default: Vec<usize>,
    },
}

/// What the user has entered in one field so far.
#[derive(Debug, Clone, PartialEq)]
pub enum Entry {
    /// Typed text (a text or number field).
    Text(String),
    /// A yes/no field.
    Bool(bool),
    /// The chosen option, if any.
    Choice(Option<usize>),
    /// Which options are ticked.
    Choices(Vec<bool>),
}

impl Field {
    /// The field's entry before the user touches it: the schema's default.
    pub fn initial(&self) -> Entry {
        match &self.input {
            Input::Text { default, .. } => Entry::Text(default.clone().unwrap_or_default()),
            Input::Number { default, .. } => {
                Entry::Text(default.map(|d| d.to_string()).unwrap_or_default())
            }
            Input::Boolean { default } => Entry::Bool(default.unwrap_or(false)),
            Input::Choice { default, .. } => Entry::Choice(*default),
            Input::Choices {
                options, default, ..
            } => Entry::Choices((0..options.len()).map(|i| default.contains(&i)).collect()),
        }
    }

    /// The value `entry` gives this field in the answer (`None`: left out, an optional
    /// field left empty), or why it cannot be submitted.
    pub fn read(&self, entry: &Entry) -> Result<Option<Value>, Text> {
        let missing = || {
            if self.required {
                Err(err("elicit-err-required", vec![]))
            } else {
                Ok(None)
            }
        };
        match (&self.input, entry) {
            (
                Input::Text {
                    min_len,
                    max_len,
                    format,
                    ..
                },
                Entry::Text(s),
            ) => {
                if s.is_empty() {
                    return missing();
                }
                let n = s.chars().count() as u64;
                if let Some(min) = min_len.filter(|m| n < u64::from(*m)) {
                    return Err(err("elicit-err-too-short", vec![("min", Arg::from(min))]));
                }
                if let Some(max) = max_len.filter(|m| n > u64::from(*m)) {
                    return Err(err("elicit-err-too-long", vec![("max", Arg::from(max))]));
                }
                if let Some(f) = format
                    && !format_ok(*f, s)
                {
                    return Err(err(format_key(*f), vec![]));
                }
                Ok(Some(Value::String(s.clone())))
            }
            (
                Input::Number {
                    integer, min, max, ..
                },
                Entry::Text(s),
            ) => {
                let s = s.trim();
                if s.is_empty() {
                    return missing();
                }
                let (value, n) = if *integer {
                    let i: i64 = s.parse().map_err(|_| err("elicit-err-integer", vec![]))?;
                    (Value::from(i), i as f64)
                } else {
                    let f: f64 = s
                        .parse()
                        .ok()
                        .filter(|f: &f64| f.is_finite())
                        .ok_or_else(|| err("elicit-err-number", vec![]))?;
                    let v = serde_json::Number::from_f64(f)
                        .map(Value::Number)
                        .ok_or_else(|| err("elicit-err-number", vec![]))?;
                    (v, f)
                };
                if let Some(min) = min.filter(|m| n < *m) {
                    return Err(err("elicit-err-min", vec![("min", Arg::from(number(min)))]));
                }
                if let Some(max) = max.filter(|m| n > *m) {
                    return Err(err("elicit-err-max", vec![("max", Arg::from(number(max)))]));
                }
                Ok(Some(value))
            }
            (Input::Boolean { .. }, Entry::Bool(b)) => Ok(Some(Value::Bool(*b))),
            (Input::Choice { options, .. }, Entry::Choice(c)) => {
                match c.and_then(|i| options.get(i)) {
                    Some(o) => Ok(Some(Value::String(o.value.clone()))),
                    None => missing(),
                }
            }
            (
                Input::Choices {
                    options, min, max, ..
                },
                Entry::Choices(ticked),
            ) => {
                let chosen: Vec<Value> = options
                    .iter()
                    .zip(ticked)
                    .filter(|(_, t)| **t)
                    .map(|(o, _)| Value::String(o.value.clone()))
                    .collect();
                let n = chosen.len() as u64;
                if n == 0 && min.is_none_or(|m| m == 0) {
                    return if self.required {
                        Err(err("elicit-err-required", vec![]))
                    } else {
                        Ok(None)
                    };
                }
                if let Some(min) = min.filter(|m| n < *m) {
                    return Err(err("elicit-err-min-items", vec![("min", Arg::from(min))]));
                }
                if let Some(max) = max.filter(|m| n > *m) {
                    return Err(err("elicit-err-max-items", vec![("max", Arg::from(max))]));
                }
                Ok(Some(Value::Array(chosen)))
            }
            // The form builds each entry from its field: a mismatch is a bug, not input.
            _ => Err(err("elicit-err-required", vec![])),
        }
    }
}

/// The answer's content from the form's entries, or each field's error by index.
pub fn content(
    fields: &[Field],
    entries: &[Entry],
) -> Result<Map<String, Value>, Vec<(usize, Text)>> {
    let mut out = Map::new();
    let mut errors = Vec::new();
    for (i, (f, e)) in fields.iter().zip(entries).enumerate() {
        match f.read(e) {
            Ok(Some(v)) => {
                out.insert(f.name.clone(), v);
            }
            Ok(None) => {}
            Err(t) => errors.push((i, t)),
        }
    }
    if errors.is_empty() {
        Ok(out)
    } else {
        Err(errors)
    }
}

fn err(key: &str, args: Vec<(&str, Arg)>) -> Text {
    Text::new(key, args)
}

/// A bound as the user would write it (`5`, not `5.0`).
fn number(n: f64) -> String {
    if n.fract() == 0.0 && n.abs() < 1e15 {
        format!("{}", n as i64)
    } else {
        n.to_string()
    }
}

fn format_key(f: TextFormat) -> &'static str {
    match f {
        TextFormat::Email => "elicit-err-email",
        TextFormat::Uri => "elicit-err-uri",
        TextFormat::Date => "elicit-err-date",
        TextFormat::DateTime => "elicit-err-date-time",
    }
}

/// Whether `s` has format `f`. Deliberately plain checks (the server validates again):
/// enough to catch a typo before the answer is sent.
pub fn format_ok(f: TextFormat, s: &str) -> bool {
    if s.chars().any(char::is_whitespace) {
        return false;
    }
    match f {
        TextFormat::Email => match s.split_once('@') {
            Some((local, domain)) => {
                !local.is_empty()
                    && !domain.contains('@')
                    && domain.contains('.')
                    && !domain.starts_with('.')
                    && !domain.ends_with('.')
            }
            None => false,
        },
        TextFormat::Uri => match s.split_once(':') {
            Some((scheme, rest)) => {
                scheme
                    .chars()
                    .next()
                    .is_some_and(|c| c.is_ascii_alphabetic())
                    && scheme
                        .chars()
                        .all(|c| c.is_ascii_alphanumeric() || matches!(c, '+' | '-' | '.'))
                    && !rest.is_empty()
            }
            None => false,
        },
        TextFormat::Date => {
            chrono::NaiveDate::parse_from_str(s, "%Y-%m-%d").is_ok() && s.len() == 10
        }
        TextFormat::DateTime => chrono::DateTime::parse_from_rfc3339(s).is_ok(),
    }
}
