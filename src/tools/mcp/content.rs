//! Turning an MCP `tools/call` result into the text the model sees.

use rmcp::model::{CallToolResult, ContentBlock, ResourceContents};

use crate::tools::{ToolOutcome, truncate_utf8};

/// Largest result text passed to the model; longer results are cut with a note.
pub const MAX_RESULT_BYTES: usize = 100 * 1024;

/// Approximate decoded size of base64 data.
fn b64_bytes(data: &str) -> usize {
    let len = data.trim_end_matches('=').len();
    len * 3 / 4
}

fn summarize(block: &ContentBlock) -> String {
    match block {
        ContentBlock::Text(t) => t.text.clone(),
        ContentBlock::Image(i) => format!(
            "[image: {}, {} bytes not shown]",
            i.mime_type,
            b64_bytes(&i.data)
        ),
        ContentBlock::Audio(a) => format!(
            "[audio: {}, {} bytes not shown]",
            a.mime_type,
            b64_bytes(&a.data)
        ),
        ContentBlock::Resource(r) => match &r.resource {
            ResourceContents::TextResourceContents {
                uri,
                mime_type,
                text,
                ..
            } => format!(
                "[resource {uri}: {}]\n{text}",
                mime_type.as_deref().unwrap_or("text/plain")
            ),
            ResourceContents::BlobResourceContents {
                uri,
                mime_type,
                blob,
                ..
            } => format!(
                "[resource {uri}: {}, {} bytes not shown]",
                mime_type.as_deref().unwrap_or("application/octet-stream"),
                b64_bytes(blob)
            ),
            _ => "[resource of an unsupported kind]".to_string(),
        },
        ContentBlock::ResourceLink(r) => {
            let mut s = format!("[resource link {}", r.uri);
            if let Some(m) = &r.mime_type {
                s.push_str(&format!(": {m}"));
            }
            s.push(']');
            if let Some(d) = &r.description {
                s.push(' ');
                s.push_str(d);
            }
            s
        }
        _ => "[content of an unsupported type]".to_string(),
    }
}

/// The model-facing outcome of a call: text blocks as text, images, audio and resources
/// summarized with their MIME type, structured content as pretty JSON when the result has
/// no text (SPEC §15.2), and `isError: true` as a tool error.
pub fn outcome_from_result(result: &CallToolResult) -> ToolOutcome {
    let mut parts: Vec<String> = result.content.iter().map(summarize).collect();
    let has_text = result
        .content
        .iter()
        .any(|b| matches!(b, ContentBlock::Text(t) if !t.text.trim().is_empty()));
    if !has_text && let Some(s) = &result.structured_content {
        parts.push(serde_json::to_string_pretty(s).unwrap_or_else(|_| s.to_string()));
    }
    let mut text = parts.join("\n");
    if truncate_utf8(&mut text, MAX_RESULT_BYTES) {
        text.push_str("\n[result truncated]");
    }
    if result.is_error == Some(true) {
        if text.is_empty() {
            text = "the tool reported an error".to_string();
        }
        ToolOutcome::error(text)
    } else {
        ToolOutcome::ok(text)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rmcp::model::{Resource, ResourceContents};

    #[test]
    fn text_blocks_join_and_media_is_summarized_with_mime_type() {
        let r = CallToolResult::success(vec![
            ContentBlock::text("hello"),
            ContentBlock::image("aGVsbG8=", "image/png"),
            ContentBlock::resource(ResourceContents::BlobResourceContents {
                uri: "file:///a.bin".into(),
                mime_type: Some("application/pdf".into()),
                blob: "AAAA".into(),
                meta: None,
            }),
            ContentBlock::embedded_text("file:///n.txt", "notes"),
            ContentBlock::resource_link(Resource::new("file:///x", "x")),
        ]);
        let o = outcome_from_result(&r);
        assert!(!o.is_error);
        assert_eq!(
            o.content,
            "hello\n[image: image/png, 5 bytes not shown]\n\
             [resource file:///a.bin: application/pdf, 3 bytes not shown]\n\
             [resource file:///n.txt: text/plain]\nnotes\n[resource link file:///x]"
        );
    }

    #[test]
    fn is_error_becomes_a_tool_error() {
        let o = outcome_from_result(&CallToolResult::error(vec![ContentBlock::text("boom")]));
        assert_eq!(o, ToolOutcome::error("boom"));
        let o = outcome_from_result(&CallToolResult::error(vec![]));
        assert!(o.is_error);
        assert!(!o.content.is_empty());
    }

    #[test]
    fn structured_content_is_shown_as_pretty_json_when_the_result_has_no_text() {
        let mut r = CallToolResult::structured(serde_json::json!({"n": 3}));
        r.content.clear();
        let o = outcome_from_result(&r);
        assert_eq!(o.content, "{\n  \"n\": 3\n}");
        // Next to an image only, it is still the only text.
        r.content = vec![ContentBlock::image("aGVsbG8=", "image/png")];
        let o = outcome_from_result(&r);
        assert!(o.content.ends_with("{\n  \"n\": 3\n}"), "{}", o.content);
        // With text, the text says it (servers send both for old clients).
        r.content = vec![ContentBlock::text("three")];
        assert_eq!(outcome_from_result(&r).content, "three");
    }
}
