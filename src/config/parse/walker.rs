//! The walker over TOML tables (known keys consumed, the rest warned about), dotted key
//! paths and TOML errors with line and column.

use std::collections::BTreeMap;
use std::path::Path;

use serde_json::Value as Json;
use toml::{Table, Value};

use crate::config::error::{ConfigError, ConfigWarning, Problem};
use crate::session::vocab::Approval;

use super::keys::{known_keys, suggest};

pub(super) type Res<T> = Result<T, ConfigError>;

/// Appends `key` to a dotted path, quoting keys that are not bare TOML keys.
pub(super) fn join(prefix: &str, key: &str) -> String {
    let bare = !key.is_empty()
        && key
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-');
    let key = if bare {
        key.to_string()
    } else {
        format!("{key:?}")
    };
    if prefix.is_empty() {
        key
    } else {
        format!("{prefix}.{key}")
    }
}

/// 1-based line and column (in characters) of a byte offset.
pub(super) fn line_col(text: &str, offset: usize) -> (usize, usize) {
    let offset = offset.min(text.len());
    let before = text.get(..offset).unwrap_or(text);
    let line = before.matches('\n').count() + 1;
    let line_start = before.rfind('\n').map(|i| i + 1).unwrap_or(0);
    let column = before
        .get(line_start..)
        .map(|s| s.chars().count())
        .unwrap_or(0)
        + 1;
    (line, column)
}

/// Checks a provider base URL: an `http://` or `https://` URL with a host. Returns it
/// trimmed, without a trailing slash.
pub(crate) fn check_base_url(s: &str) -> Result<String, Problem> {
    let url = s.trim().trim_end_matches('/');
    let ok = reqwest::Url::parse(url).is_ok_and(|u| {
        matches!(u.scheme(), "http" | "https") && u.host_str().is_some_and(|h| !h.is_empty())
    });
    if ok {
        Ok(url.to_string())
    } else {
        Err(Problem::Url { got: s.to_string() })
    }
}

/// A TOML parser error as a [`ConfigError`]. The parser says only "duplicate key" and
/// points at the repeated key, so that case becomes [`ConfigError::DuplicateKey`] with the
/// key's dotted path.
pub(crate) fn toml_error(
    text: &str,
    file: Option<&Path>,
    message: &str,
    span: Option<std::ops::Range<usize>>,
) -> ConfigError {
    let (line, column) = span
        .as_ref()
        .map(|s| line_col(text, s.start))
        .unwrap_or((1, 1));
    let file = file.map(Path::to_path_buf).unwrap_or_default();
    let message = message.trim();
    if message.starts_with("duplicate key")
        && let Some(key) = span.and_then(|s| duplicate_key_path(text, s))
    {
        return ConfigError::DuplicateKey {
            file,
            line,
            column,
            key,
        };
    }
    ConfigError::Syntax {
        file,
        line,
        column,
        detail: message.to_string(),
    }
}

/// The segments of a dotted TOML key as written (`a."b.c"` → `a`, `b.c`).
pub(super) fn key_segments(s: &str) -> Option<Vec<String>> {
    toml_edit::Key::parse(s.trim())
        .ok()
        .map(|keys| keys.iter().map(|k| k.get().to_string()).collect())
}

/// Renders a key path, marking entries of arrays of tables with their index
/// (`providers.p.models[1].id`). `arrays` maps each array-of-tables path to the number of
/// its entries so far.
pub(super) fn render_path(path: &[String], arrays: &BTreeMap<Vec<String>, usize>) -> String {
    let mut out = String::new();
    for i in 0..path.len() {
        out = join(&out, &path[i]);
        if i + 1 < path.len()
            && let Some(n) = arrays.get(&path[..=i])
        {
            out.push_str(&format!("[{}]", n.saturating_sub(1)));
        }
    }
    out
}

/// The dotted path of the key at `span`, reported as a duplicate: the table headers above
/// it give the table (a best-effort line scan), the key's own line gives the rest.
pub(super) fn duplicate_key_path(text: &str, span: std::ops::Range<usize>) -> Option<String> {
    let segment = text.get(span.clone())?;
    let line_start = text.get(..span.start)?.rfind('\n').map_or(0, |i| i + 1);
    let mut table: Vec<String> = vec![];
    let mut arrays: BTreeMap<Vec<String>, usize> = BTreeMap::new();
    for line in text.get(..line_start)?.lines() {
        let l = line.trim_start();
        if let Some(h) = l.strip_prefix("[[") {
            if let Some(p) = h.split("]]").next().and_then(key_segments) {
                *arrays.entry(p.clone()).or_default() += 1;
                table = p;
            }
        } else if let Some(h) = l.strip_prefix('[')
            && let Some(p) = h.split(']').next().and_then(key_segments)
        {
            table = p;
        }
    }
    let own = text.get(line_start..span.end)?.trim_start();
    let path: Vec<String> = if let Some(h) = own.strip_prefix("[[") {
        key_segments(h)?
    } else if let Some(h) = own.strip_prefix('[') {
        key_segments(h)?
    } else if let Some(k) = key_segments(own) {
        table.extend(k);
        table
    } else {
        // Inside an inline table: the key alone.
        key_segments(segment)?
    };
    Some(render_path(&path, &arrays))
}

pub(super) struct Walker<'a> {
    pub(super) file: Option<&'a Path>,
    pub(super) warnings: Vec<ConfigWarning>,
}

impl Walker<'_> {
    pub(super) fn err(&self, key: String, problem: Problem) -> ConfigError {
        ConfigError::Invalid {
            file: self.file.map(Path::to_path_buf),
            key,
            problem,
        }
    }

    /// Warns about every key left in `table` that the table does not accept, suggesting
    /// a known key it closely resembles. Known keys that are still there (read by code
    /// elsewhere) are not warned about.
    pub(super) fn leftovers(&mut self, prefix: &str, table: Table) {
        self.warn_unknown(prefix, &table);
    }

    pub(super) fn warn_unknown(&mut self, prefix: &str, table: &Table) {
        let known = known_keys(prefix);
        for key in table.keys() {
            if known.contains(&key.as_str()) {
                continue;
            }
            let key_path = join(prefix, key);
            if self.warnings.iter().any(|w| w.key() == key_path) {
                continue;
            }
            self.warnings.push(ConfigWarning::UnknownKey {
                file: self.file.map(Path::to_path_buf),
                key: key_path,
                suggestion: suggest(key, known).map(|k| join(prefix, k)),
            });
        }
    }

    pub(super) fn table(&self, t: &mut Table, prefix: &str, key: &str) -> Res<Option<Table>> {
        match t.remove(key) {
            None => Ok(None),
            Some(Value::Table(x)) => Ok(Some(x)),
            Some(_) => Err(self.err(join(prefix, key), Problem::Type { expected: "table" })),
        }
    }

    pub(super) fn string(&self, t: &mut Table, prefix: &str, key: &str) -> Res<Option<String>> {
        match t.remove(key) {
            None => Ok(None),
            Some(Value::String(s)) => Ok(Some(s)),
            Some(_) => Err(self.err(join(prefix, key), Problem::Type { expected: "string" })),
        }
    }

    pub(super) fn non_empty(&self, t: &mut Table, prefix: &str, key: &str) -> Res<Option<String>> {
        match self.string(t, prefix, key)? {
            Some(s) if s.trim().is_empty() => {
                Err(self.err(join(prefix, key), Problem::EmptyString))
            }
            other => Ok(other),
        }
    }

    pub(super) fn bool(&self, t: &mut Table, prefix: &str, key: &str) -> Res<Option<bool>> {
        match t.remove(key) {
            None => Ok(None),
            Some(Value::Boolean(b)) => Ok(Some(b)),
            Some(_) => Err(self.err(
                join(prefix, key),
                Problem::Type {
                    expected: "boolean",
                },
            )),
        }
    }

    pub(super) fn positive(&self, t: &mut Table, prefix: &str, key: &str) -> Res<Option<u64>> {
        match t.remove(key) {
            None => Ok(None),
            Some(Value::Integer(n)) if n >= 1 => Ok(Some(n as u64)),
            Some(Value::Integer(_)) => Err(self.err(join(prefix, key), Problem::PositiveInteger)),
            Some(_) => Err(self.err(
                join(prefix, key),
                Problem::Type {
                    expected: "integer",
                },
            )),
        }
    }

    /// An integer of 0 or more, for keys where `0` means "off".
    pub(super) fn non_negative(&self, t: &mut Table, prefix: &str, key: &str) -> Res<Option<u64>> {
        match t.remove(key) {
            None => Ok(None),
            Some(Value::Integer(n)) if n >= 0 => Ok(Some(n as u64)),
            Some(Value::Integer(_)) => {
                Err(self.err(join(prefix, key), Problem::NonNegativeInteger))
            }
            Some(_) => Err(self.err(
                join(prefix, key),
                Problem::Type {
                    expected: "integer",
                },
            )),
        }
    }

    pub(super) fn strings(
        &self,
        t: &mut Table,
        prefix: &str,
        key: &str,
    ) -> Res<Option<Vec<String>>> {
        let path = join(prefix, key);
        match t.remove(key) {
            None => Ok(None),
            Some(Value::Array(items)) => items
                .into_iter()
                .enumerate()
                .map(|(i, v)| match v {
                    Value::String(s) => Ok(s),
                    _ => {
                        Err(self.err(format!("{path}[{i}]"), Problem::Type { expected: "string" }))
                    }
                })
                .collect::<Res<Vec<_>>>()
                .map(Some),
            Some(_) => Err(self.err(path, Problem::Type { expected: "array" })),
        }
    }

    pub(super) fn approval(&self, t: &mut Table, prefix: &str) -> Res<Approval> {
        match self.string(t, prefix, "approval")? {
            None => Ok(Approval::Never),
            Some(s) => Approval::parse(&s)
                .ok_or_else(|| self.err(join(prefix, "approval"), Problem::Approval { got: s })),
        }
    }
}

/// TOML value → JSON, keeping table order.
pub(super) fn to_json(v: Value) -> Json {
    match v {
        Value::String(s) => Json::String(s),
        Value::Integer(n) => Json::from(n),
        Value::Float(f) => serde_json::Number::from_f64(f).map_or(Json::Null, Json::Number),
        Value::Boolean(b) => Json::Bool(b),
        Value::Datetime(d) => Json::String(d.to_string()),
        Value::Array(a) => Json::Array(a.into_iter().map(to_json).collect()),
        Value::Table(t) => Json::Object(t.into_iter().map(|(k, v)| (k, to_json(v))).collect()),
    }
}
