//! Compact JSON written straight into a request body buffer, byte for byte what
//! `serde_json`'s compact serializer writes (decision 0100): the writers of both routes emit
//! keys as literals and escape only the history's strings, so no wire structs or JSON tree
//! are built per message. The provider's prefix cache depends on these bytes never changing.

use serde::Serialize;

use crate::llm::adapter::encode_error;
use crate::llm::types::LlmError;

/// How `serde_json` escapes each byte: 0 = as is, `u` = `\u00XX`, else `\` + that byte.
const ESCAPE: [u8; 256] = {
    let mut table = [0u8; 256];
    let mut b = 0;
    while b < 0x20 {
        table[b] = b'u';
        b += 1;
    }
    table[0x08] = b'b';
    table[0x09] = b't';
    table[0x0a] = b'n';
    table[0x0c] = b'f';
    table[0x0d] = b'r';
    table[b'"' as usize] = b'"';
    table[b'\\' as usize] = b'\\';
    table
};

const HEX: &[u8; 16] = b"0123456789abcdef";

const ONES: u64 = u64::from_ne_bytes([0x01; 8]);
const HIGH: u64 = u64::from_ne_bytes([0x80; 8]);

/// Whether any of the 8 bytes needs escaping: a control byte (< 0x20), `"` or `\`. Each
/// term has a byte's high bit set only if some byte is below the subtracted value (the
/// usual bit trick, exact for "any"); bytes of 0x80 and more are excluded by `!x`.
const fn needs_escape(word: u64) -> bool {
    let quote = word ^ (ONES * b'"' as u64);
    let backslash = word ^ (ONES * b'\\' as u64);
    let control = word.wrapping_sub(ONES * 0x20) & !word;
    let quote = quote.wrapping_sub(ONES) & !quote;
    let backslash = backslash.wrapping_sub(ONES) & !backslash;
    (control | quote | backslash) & HIGH != 0
}

/// Appends the escaped contents of `s` (no quotes), as `serde_json` escapes a string.
/// Runs of plain text are found eight bytes at a time and copied whole: escaping is most
/// of the work of writing a body.
pub(crate) fn escaped(out: &mut Vec<u8>, s: &str) {
    let bytes = s.as_bytes();
    out.reserve(bytes.len());
    let mut start = 0;
    let mut i = 0;
    while i < bytes.len() {
        if let Some(chunk) = bytes.get(i..i + 8) {
            let word = u64::from_ne_bytes(chunk.try_into().expect("8 bytes"));
            if !needs_escape(word) {
                i += 8;
                continue;
            }
        }
        let end = (i + 8).min(bytes.len());
        while i < end {
            let byte = bytes[i];
            let escape = ESCAPE[byte as usize];
            if escape != 0 {
                out.extend_from_slice(&bytes[start..i]);
                if escape == b'u' {
                    out.extend_from_slice(&[
                        b'\\',
                        b'u',
                        b'0',
                        b'0',
                        HEX[(byte >> 4) as usize],
                        HEX[(byte & 0xf) as usize],
                    ]);
                } else {
                    out.extend_from_slice(&[b'\\', escape]);
                }
                start = i + 1;
            }
            i += 1;
        }
    }
    out.extend_from_slice(&bytes[start..]);
}

/// Appends `s` as a JSON string.
pub(crate) fn string(out: &mut Vec<u8>, s: &str) {
    out.push(b'"');
    escaped(out, s);
    out.push(b'"');
}

/// Appends `"key":` for a key that needs no escaping (the wire's own field names).
pub(crate) fn key(out: &mut Vec<u8>, key: &str) {
    out.push(b'"');
    out.extend_from_slice(key.as_bytes());
    out.extend_from_slice(b"\":");
}

/// Appends `,"key":`.
pub(crate) fn next_key(out: &mut Vec<u8>, key_: &str) {
    out.push(b',');
    key(out, key_);
}

/// Appends `,"key":"value"` with `value` escaped.
pub(crate) fn string_field(out: &mut Vec<u8>, key_: &str, value: &str) {
    next_key(out, key_);
    string(out, value);
}

/// Appends any serializable value with `serde_json` (numbers, schemas, small fixed values
/// of the request; never the history's bulk).
pub(crate) fn value<T: Serialize + ?Sized>(out: &mut Vec<u8>, v: &T) -> Result<(), LlmError> {
    serde_json::to_writer(&mut *out, v).map_err(encode_error)
}

/// Deepest nesting copied as is; deeper text takes the parsing path (whose own limit is
/// higher), so both read it alike.
const MAX_DEPTH: usize = 64;
/// Most keys of one object copied as is (their uniqueness is checked pairwise).
const MAX_KEYS: usize = 16;

/// Whether `raw` is a JSON object written exactly as `serde_json` writes the object it
/// parses from `raw`: compact, keys unique (a repeated key is read as one), only the escapes
/// `serde_json` writes (`\/` or `\u0041` would be written back as `/` and `A`), and integers
/// only (a fraction or exponent is written back in `serde_json`'s float format, `-0` as
/// `-0.0`). Such text can be copied into the body instead of parsed and written again.
pub(crate) fn is_canonical_object(raw: &str) -> bool {
    let mut c = Canonical {
        b: raw.as_bytes(),
        i: 0,
        depth: 0,
    };
    raw.starts_with('{') && c.value() && c.i == raw.len()
}

/// A cursor over JSON text that accepts only `serde_json`'s compact form.
struct Canonical<'a> {
    b: &'a [u8],
    i: usize,
    depth: usize,
}

impl<'a> Canonical<'a> {
    fn peek(&self) -> Option<u8> {
        self.b.get(self.i).copied()
    }

    fn value(&mut self) -> bool {
        match self.peek() {
            Some(b'{') => self.object(),
            Some(b'[') => self.array(),
            Some(b'"') => self.string(),
            Some(b't') => self.literal(b"true"),
            Some(b'f') => self.literal(b"false"),
            Some(b'n') => self.literal(b"null"),
            Some(b'-' | b'0'..=b'9') => self.integer(),
            _ => false,
        }
    }

    fn literal(&mut self, word: &[u8]) -> bool {
        let found = self.b[self.i..].starts_with(word);
        self.i += word.len();
        found
    }

    fn integer(&mut self) -> bool {
        let negative = self.peek() == Some(b'-');
        if negative {
            self.i += 1;
        }
        let start = self.i;
        while matches!(self.peek(), Some(b'0'..=b'9')) {
            self.i += 1;
        }
        if matches!(self.peek(), Some(b'.' | b'e' | b'E')) {
            return false;
        }
        // Read back as a u64, or after `-` as an i64; `-0` and anything wider become floats.
        let digits = &self.b[start..self.i];
        if digits.len() > 1 && digits[0] == b'0' {
            return false;
        }
        match std::str::from_utf8(digits).map(str::parse::<u64>) {
            Ok(Ok(n)) => !negative || (n != 0 && n <= 1 << 63),
            _ => false,
        }
    }

    fn string(&mut self) -> bool {
        self.i += 1;
        loop {
            let Some(c) = self.peek() else {
                return false;
            };
            self.i += 1;
            match c {
                b'"' => return true,
                0..=0x1f => return false,
                b'\\' => {
                    let Some(e) = self.peek() else {
                        return false;
                    };
                    self.i += 1;
                    let short = matches!(e, b'"' | b'\\' | b'b' | b't' | b'n' | b'f' | b'r');
                    if e == b'u' {
                        let Some(h) = self.b.get(self.i..self.i + 4) else {
                            return false;
                        };
                        self.i += 4;
                        // `\u00XX` (lowercase) for a control byte with no short escape.
                        let Some(low) = HEX.iter().position(|&x| x == h[3]) else {
                            return false;
                        };
                        let byte = match h[..3] {
                            [b'0', b'0', b'0'] => low,
                            [b'0', b'0', b'1'] => 0x10 + low,
                            _ => return false,
                        };
                        if ESCAPE[byte] != b'u' {
                            return false;
                        }
                    } else if !short {
                        return false;
                    }
                }
                _ => {}
            }
        }
    }

    fn enter(&mut self) -> bool {
        self.i += 1;
        self.depth += 1;
        self.depth <= MAX_DEPTH
    }

    /// After a value in a container: `,` (true, more follow) or `close` (false, done).
    fn next(&mut self, close: u8) -> Option<bool> {
        let c = self.peek()?;
        self.i += 1;
        if c == b',' {
            Some(true)
        } else if c == close {
            self.depth -= 1;
            Some(false)
        } else {
            None
        }
    }

    fn array(&mut self) -> bool {
        if !self.enter() {
            return false;
        }
        if self.peek() == Some(b']') {
            self.i += 1;
            self.depth -= 1;
            return true;
        }
        loop {
            if !self.value() {
                return false;
            }
            match self.next(b']') {
                Some(true) => {}
                Some(false) => return true,
                None => return false,
            }
        }
    }

    fn object(&mut self) -> bool {
        if !self.enter() {
            return false;
        }
        if self.peek() == Some(b'}') {
            self.i += 1;
            self.depth -= 1;
            return true;
        }
        let mut keys: [&'a [u8]; MAX_KEYS] = [&[]; MAX_KEYS];
        let mut n = 0;
        loop {
            let start = self.i;
            if self.peek() != Some(b'"') || !self.string() {
                return false;
            }
            // Each character has one accepted spelling, so equal keys are equal text.
            let key = &self.b[start..self.i];
            if n == MAX_KEYS || keys[..n].contains(&key) {
                return false;
            }
            keys[n] = key;
            n += 1;
            if self.peek() != Some(b':') {
                return false;
            }
            self.i += 1;
            if !self.value() {
                return false;
            }
            match self.next(b'}') {
                Some(true) => {}
                Some(false) => return true,
                None => return false,
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;

    fn written(s: &str) -> String {
        let mut out = Vec::new();
        string(&mut out, s);
        String::from_utf8(out).unwrap()
    }

    /// What the parsing path writes for tool arguments: the object, or `{}`.
    fn reparsed(raw: &str) -> String {
        match serde_json::from_str::<serde_json::Value>(raw) {
            Ok(v @ serde_json::Value::Object(_)) => serde_json::to_string(&v).unwrap(),
            _ => "{}".to_string(),
        }
    }

    fn json_value() -> impl Strategy<Value = serde_json::Value> {
        use serde_json::Value;
        let leaf = prop_oneof![
            Just(Value::Null),
            any::<bool>().prop_map(Value::Bool),
            any::<i64>().prop_map(Value::from),
            any::<u64>().prop_map(Value::from),
            any::<f64>().prop_map(Value::from),
            any::<String>().prop_map(Value::String),
            "[\\x00-\\x1f\"\\\\/a]{0,6}".prop_map(Value::String),
        ];
        leaf.prop_recursive(4, 32, 6, |inner| {
            prop_oneof![
                proptest::collection::vec(inner.clone(), 0..6).prop_map(Value::Array),
                proptest::collection::vec(("[a-c\"\\\\]{0,2}", inner), 0..6)
                    .prop_map(|kv| Value::Object(kv.into_iter().collect())),
            ]
        })
    }

    #[test]
    fn text_serde_json_would_rewrite_is_not_copied() {
        for raw in [
            "{\"a\":1.0}",
            "{\"a\":1e3}",
            "{\"a\":-0}",
            "{\"a\":01}",
            "{\"a\":99999999999999999999}",
            "{\"a\":-9223372036854775809}",
            "{\"a\":1,\"a\":2}",
            "{\"a\":\"\\/\"}",
            "{\"a\":\"\\u0041\"}",
            "{\"a\":\"\\u000A\"}",
            "{\"a\":\"\\u000a\"}",
            "{ \"a\":1}",
            "{\"a\":1} ",
            "[1]",
            "{\"a\":",
            "",
        ] {
            assert!(!is_canonical_object(raw), "{raw}");
        }
        for raw in [
            "{}",
            "{\"path\":\"/tmp/x\"}",
            "{\"a\":[1,-2,true,null,{}],\"b\":\"\\u001f\\n\\\"\\\\é\"}",
            "{\"n\":18446744073709551615,\"m\":-9223372036854775808}",
        ] {
            assert!(is_canonical_object(raw), "{raw}");
            assert_eq!(reparsed(raw), raw);
        }
    }

    proptest! {
        /// Copied text is exactly what parsing and writing it again gives.
        #[test]
        fn copied_arguments_are_what_serde_json_writes_back(
            v in json_value(),
            pretty in any::<bool>(),
            cut in any::<proptest::sample::Index>(),
            insert in proptest::option::of(any::<char>()),
        ) {
            let mut raw = if pretty {
                serde_json::to_string_pretty(&v).unwrap()
            } else {
                serde_json::to_string(&v).unwrap()
            };
            if let Some(c) = insert {
                let at = cut.index(raw.len() + 1);
                if raw.is_char_boundary(at) {
                    raw.insert(at, c);
                }
            }
            if is_canonical_object(&raw) {
                prop_assert_eq!(reparsed(&raw), raw);
            }
        }

        /// The usual arguments, a compact object of strings and integers, are recognised as
        /// serde_json's own form (so the writer copies them).
        #[test]
        fn compact_objects_of_strings_and_integers_are_recognised_as_canonical(
            kv in proptest::collection::vec(("[a-z_]{1,8}", any::<String>(), any::<i64>()), 0..8)
        ) {
            let mut map = serde_json::Map::new();
            for (k, s, n) in kv {
                map.insert(format!("{k}_s"), s.into());
                map.insert(format!("{k}_n"), n.into());
            }
            let raw = serde_json::to_string(&map).unwrap();
            prop_assert!(is_canonical_object(&raw), "{}", raw);
        }
    }

    #[test]
    fn every_ascii_byte_is_escaped_as_serde_json_escapes_it() {
        for b in 0u8..0x80 {
            let s = (b as char).to_string();
            assert_eq!(written(&s), serde_json::to_string(&s).unwrap(), "{b:#x}");
        }
    }

    proptest! {
        #[test]
        fn any_string_is_written_as_serde_json_writes_it(s in any::<String>()) {
            prop_assert_eq!(written(&s), serde_json::to_string(&s).unwrap());
        }

        #[test]
        fn control_heavy_strings_are_written_as_serde_json_writes_them(
            s in "[\\x00-\\x1f\"\\\\a-z\u{7f}\u{e9}\u{1f600}]{0,40}"
        ) {
            prop_assert_eq!(written(&s), serde_json::to_string(&s).unwrap());
        }

        /// Plain runs of every length around the eight-byte steps, with an escape, a
        /// multi-byte character or nothing between them.
        #[test]
        fn mostly_plain_strings_are_written_as_serde_json_writes_them(
            s in "([a-z ]{0,17}[\\x00-\\x1f\"\\\\\u{80}-\u{7ff}\u{1f600}]?){0,8}"
        ) {
            prop_assert_eq!(written(&s), serde_json::to_string(&s).unwrap());
        }
    }
}
