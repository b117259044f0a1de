//! Text from outside (the model, a provider's error body, an MCP server, a file, a session
//! log) made safe to print on a terminal: only deepterm itself emits escape sequences.
//! The TUI escapes every such text before it reaches a cell, and `exec` before it reaches
//! stdout or stderr (docs/decisions/0035-exec-output-is-escaped.md).

/// Escapes C0/C1 control characters (except newline) as visible `\xNN`; a tab becomes four
/// spaces and a carriage return is dropped. ESC, BEL, CSI (`\u{9b}`) and OSC therefore
/// never survive, so no sequence can set the clipboard or the title or clear the screen.
pub fn sanitize(s: &str) -> String {
    sanitized(s).into_owned()
}

/// [`sanitize`], borrowing `s` when it has nothing to escape.
pub fn sanitized(s: &str) -> std::borrow::Cow<'_, str> {
    if !s.chars().any(|c| c.is_control() && c != '\n') {
        return std::borrow::Cow::Borrowed(s);
    }
    let mut out = String::with_capacity(s.len() + 8);
    for c in s.chars() {
        match c {
            '\n' => out.push('\n'),
            '\t' => out.push_str("    "),
            '\r' => {}
            c if c.is_control() => {
                let n = c as u32;
                out.push_str(&format!("\\x{n:02X}"));
            }
            c => out.push(c),
        }
    }
    std::borrow::Cow::Owned(out)
}

/// `json` (serde_json's output) with DEL and the C1 controls written as `\u` escapes as
/// well: serde_json escapes only C0, and a raw `\u{9b}` is a CSI to many terminals. The
/// JSON means the same; only its spelling changes.
pub fn escape_json_controls(json: &str) -> String {
    if !json.chars().any(|c| ('\u{7f}'..='\u{9f}').contains(&c)) {
        return json.to_string();
    }
    let mut out = String::with_capacity(json.len() + 16);
    for c in json.chars() {
        if ('\u{7f}'..='\u{9f}').contains(&c) {
            out.push_str(&format!("\\u{:04x}", c as u32));
        } else {
            out.push(c);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escape_sequences_become_visible_text() {
        let hostile = "a\u{1b}]52;c;aGk=\u{7}b\u{1b}[2Jc\u{9b}31md\te\r\nf";
        let safe = sanitize(hostile);
        assert_eq!(safe, "a\\x1B]52;c;aGk=\\x07b\\x1B[2Jc\\x9B31md    e\nf");
        assert!(!safe.chars().any(|c| c.is_control() && c != '\n'));
        assert_eq!(sanitize("plain 文本\n"), "plain 文本\n");
    }

    #[test]
    fn json_keeps_its_meaning_without_raw_c1_controls() {
        let v = serde_json::json!({"t": "x\u{1b}[2J\u{9b}1m\u{7f}"});
        let line = escape_json_controls(&serde_json::to_string(&v).unwrap());
        assert!(!line.chars().any(char::is_control), "{line:?}");
        let back: serde_json::Value = serde_json::from_str(&line).unwrap();
        assert_eq!(back, v);
    }
}
