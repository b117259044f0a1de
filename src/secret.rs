//! The API key type and the redaction of key values ([`Secrets`]). It depends on nothing
//! else in the crate, so `config` (which reads keys from the environment), `llm` (which
//! sends them) and `session` (whose log must never hold them) can all use it without a
//! module cycle.

use std::borrow::Cow;
use std::fmt;
use std::io::Write;
use std::sync::{Arc, RwLock};

use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::Value;

/// The text shown wherever a key would otherwise be printed.
pub const REDACTED: &str = "<redacted>";

/// An API key read from the environment. Neither `Debug` nor `Display` shows the value;
/// only [`ApiKey::expose`] does, for the request header.
#[derive(Clone, PartialEq, Eq)]
pub struct ApiKey(String);

impl ApiKey {
    /// Wraps a key.
    pub fn new(key: impl Into<String>) -> Self {
        ApiKey(key.into())
    }

    /// The key itself, for the `x-api-key` / `Authorization` header only.
    pub fn expose(&self) -> &str {
        &self.0
    }

    /// `text` with every occurrence of the key replaced by `<redacted>`.
    pub fn scrub(&self, text: &str) -> String {
        if self.0.is_empty() {
            text.to_string()
        } else {
            text.replace(&self.0, REDACTED)
        }
    }
}

impl fmt::Debug for ApiKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "ApiKey({REDACTED})")
    }
}

impl fmt::Display for ApiKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(REDACTED)
    }
}

/// What replaces a key value in anything logged or sent (tool results, messages, the
/// system prompt).
pub const REDACTION_MARKER: &str = "[REDACTED]";

/// Key values shorter than this are not redacted (a placeholder such as the demo mode's
/// `demo` would otherwise mangle ordinary text; real provider keys are much longer).
pub const MIN_REDACTED_LEN: usize = 8;

/// The key values to keep out of the log and every request body: one shared, growing set
/// (a `/model` switch may add a key). Cloning shares the set.
/// Redacting where the log is written means no later reader can meet a key.
#[derive(Clone, Default)]
pub struct Secrets(Arc<RwLock<Vec<String>>>);

impl fmt::Debug for Secrets {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Secrets({} values)", self.values().len())
    }
}

impl Secrets {
    /// An empty set.
    pub fn new() -> Self {
        Secrets::default()
    }

    /// Adds a value (trimmed); values shorter than [`MIN_REDACTED_LEN`] are ignored.
    pub fn add(&self, value: &str) {
        let value = value.trim();
        if value.len() < MIN_REDACTED_LEN {
            return;
        }
        let mut v = self.0.write().unwrap_or_else(|p| p.into_inner());
        if !v.iter().any(|s| s == value) {
            v.push(value.to_string());
            // Longest first, so a key that contains another is replaced whole.
            v.sort_by_key(|s| std::cmp::Reverse(s.len()));
        }
    }

    /// The values, longest first.
    pub fn values(&self) -> Vec<String> {
        self.0.read().unwrap_or_else(|p| p.into_inner()).clone()
    }

    /// Whether there is nothing to redact.
    pub fn is_empty(&self) -> bool {
        self.0.read().map(|v| v.is_empty()).unwrap_or(true)
    }

    /// `text` with every occurrence of every value replaced by [`REDACTION_MARKER`].
    pub fn redact<'a>(&self, text: &'a str) -> Cow<'a, str> {
        redact_values(text, &self.values())
    }

    /// `value` with every string in it (object keys too) redacted, as a new value of the
    /// same type; `Ok(None)` when it holds no key value (the common case, found without
    /// building anything: the serialized form is scanned as it is written). An error
    /// means a key value is there and could not be taken out: the caller must not use
    /// `value` (fail closed).
    pub fn redact_serde<T: Serialize + DeserializeOwned>(
        &self,
        value: &T,
    ) -> Result<Option<T>, serde_json::Error> {
        let values = self.values();
        if values.is_empty() || !serialized_contains(value, &values) {
            return Ok(None);
        }
        let mut json = serde_json::to_value(value)?;
        redact_json(&mut json, &values);
        serde_json::from_value(json).map(Some)
    }
}

/// Replaces every occurrence of each value (at least [`MIN_REDACTED_LEN`] bytes long) in
/// `text` with [`REDACTION_MARKER`].
pub fn redact_values<'a>(text: &'a str, values: &[String]) -> Cow<'a, str> {
    let mut out = Cow::Borrowed(text);
    for s in values {
        if s.len() >= MIN_REDACTED_LEN && out.contains(s.as_str()) {
            out = Cow::Owned(out.replace(s.as_str(), REDACTION_MARKER));
        }
    }
    out
}

/// Redacts every string of a JSON value in place, object keys included.
fn redact_json(v: &mut Value, values: &[String]) {
    match v {
        Value::String(s) => {
            if let Cow::Owned(r) = redact_values(s, values) {
                *s = r;
            }
        }
        Value::Array(a) => a.iter_mut().for_each(|x| redact_json(x, values)),
        Value::Object(m) => {
            let keyed = m
                .keys()
                .any(|k| matches!(redact_values(k, values), Cow::Owned(_)));
            if keyed {
                let old = std::mem::take(m);
                for (k, mut x) in old {
                    redact_json(&mut x, values);
                    m.insert(redact_values(&k, values).into_owned(), x);
                }
            } else {
                m.values_mut().for_each(|x| redact_json(x, values));
            }
        }
        _ => {}
    }
}

/// Whether the JSON serialization of `value` contains any of `values` (as JSON escapes
/// it, so a value inside any string is found), scanned while it is written: nothing of
/// the size of `value` is allocated.
fn serialized_contains<T: Serialize>(value: &T, values: &[String]) -> bool {
    let needles: Vec<Vec<u8>> = values
        .iter()
        .filter_map(|v| serde_json::to_string(v).ok())
        .map(|q| q.as_bytes()[1..q.len() - 1].to_vec())
        .filter(|n| !n.is_empty())
        .collect();
    let mut scan = Scan::new(&needles);
    // `Found` stops the serializer early.
    let _ = serde_json::to_writer(&mut scan, value);
    scan.found
}

/// A writer that looks for needles across write boundaries.
struct Scan<'a> {
    finders: Vec<memchr::memmem::Finder<'a>>,
    /// The last `longest - 1` bytes written, for matches that span two writes.
    tail: Vec<u8>,
    longest: usize,
    found: bool,
}

impl<'a> Scan<'a> {
    fn new(needles: &'a [Vec<u8>]) -> Self {
        Scan {
            finders: needles.iter().map(memchr::memmem::Finder::new).collect(),
            tail: Vec::new(),
            longest: needles.iter().map(Vec::len).max().unwrap_or(0),
            found: false,
        }
    }

    fn hit(&self, hay: &[u8]) -> bool {
        self.finders.iter().any(|f| f.find(hay).is_some())
    }
}

impl Write for Scan<'_> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        if self.found || self.longest == 0 {
            return Ok(buf.len());
        }
        let keep = self.longest - 1;
        // A match spanning the boundary lies in the tail plus the first `keep` bytes.
        let mut edge = std::mem::take(&mut self.tail);
        edge.extend_from_slice(&buf[..buf.len().min(keep)]);
        if self.hit(&edge) || self.hit(buf) {
            self.found = true;
            return Err(std::io::Error::other("found"));
        }
        if buf.len() >= keep {
            edge.clear();
            edge.extend_from_slice(&buf[buf.len() - keep..]);
        } else {
            let start = edge.len().saturating_sub(keep);
            edge.drain(..start);
        }
        self.tail = edge;
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn debug_and_display_never_show_the_key() {
        let k = ApiKey::new("sk-secret-123");
        for shown in [
            format!("{k:?}"),
            format!("{k:#?}"),
            format!("{k}"),
            format!("{k:>40}"),
            k.to_string(),
            format!("{:?}", Some(k.clone())),
            format!("{:?}", vec![k.clone()]),
        ] {
            assert!(!shown.contains("sk-secret"), "{shown}");
            assert!(shown.contains(REDACTED), "{shown}");
        }
        assert_eq!(k.expose(), "sk-secret-123");
    }

    #[test]
    fn scrub_removes_every_occurrence_and_an_empty_key_changes_nothing() {
        let k = ApiKey::new("sk-secret-123");
        assert_eq!(
            k.scrub("bad key sk-secret-123! (sk-secret-123)"),
            "bad key <redacted>! (<redacted>)"
        );
        assert_eq!(ApiKey::new("").scrub("text"), "text");
    }

    fn secrets(values: &[&str]) -> Secrets {
        let s = Secrets::new();
        for v in values {
            s.add(v);
        }
        s
    }

    #[test]
    fn a_system_text_holding_the_key_is_redacted() {
        let s = secrets(&["sk-deepterm-canary-0123456789"]);
        let prompt = "You are deepterm.\n\nDEEPSEEK_API_KEY=sk-deepterm-canary-0123456789\0HOME=/h";
        let out = s.redact(prompt);
        assert!(!out.contains("sk-deepterm-canary"), "{out}");
        assert!(out.contains("DEEPSEEK_API_KEY=[REDACTED]"), "{out}");
        // Text without the key is left as it is, unallocated.
        assert!(matches!(s.redact("plain"), Cow::Borrowed("plain")));
    }

    #[test]
    fn short_values_are_not_redacted_and_the_longest_value_wins() {
        let s = secrets(&["demo", "sk-abcdefgh", "sk-abcdefgh-longer"]);
        assert_eq!(s.redact("demo sk-abcdefgh-longer"), "demo [REDACTED]");
        assert_eq!(s.values().len(), 2);
    }

    #[test]
    fn every_string_of_a_structure_is_redacted_keys_included() {
        let s = secrets(&["sk-canary-12345678"]);
        let v = serde_json::json!({
            "role": "user",
            "content": [{"type": "text", "text": "my key is sk-canary-12345678"}],
            "args": {"sk-canary-12345678": ["x sk-canary-12345678 y", 3]},
            "n": 1.5
        });
        let r: Value = s.redact_serde(&v).unwrap().unwrap();
        let text = r.to_string();
        assert!(!text.contains("sk-canary"), "{text}");
        assert_eq!(r["content"][0]["text"], "my key is [REDACTED]");
        assert_eq!(r["args"]["[REDACTED]"][0], "x [REDACTED] y");
        assert_eq!(r["n"], 1.5);
        // Nothing to redact: `None`, the caller keeps its value.
        assert!(
            s.redact_serde(&serde_json::json!({"a": "b"}))
                .unwrap()
                .is_none()
        );
        assert!(Secrets::new().redact_serde(&v).unwrap().is_none());
    }

    #[test]
    fn a_value_that_json_escapes_is_found_and_a_match_across_writes_too() {
        let s = secrets(&["sk-quo\"te\\slash-123"]);
        let v = serde_json::json!(["a", "x sk-quo\"te\\slash-123 y"]);
        let r: Value = s.redact_serde(&v).unwrap().unwrap();
        assert_eq!(r[1], "x [REDACTED] y");
        // The serializer writes the escaped key in pieces; the scan joins them.
        let needles = vec![b"abcdefgh".to_vec()];
        let mut scan = Scan::new(&needles);
        for piece in [&b"xxab"[..], b"c", b"de", b"fghzz"] {
            let _ = scan.write(piece);
        }
        assert!(scan.found);
        let mut scan = Scan::new(&needles);
        for piece in [&b"xxab"[..], b"c", b"de", b"fg", b"zh"] {
            let _ = scan.write(piece);
        }
        assert!(!scan.found);
    }
}
