//! DeepSeek Messages (Anthropic-format) route: request serialization (W-rules) and stream
//! assembly.

pub mod serialize;
pub mod stream;

use reqwest::header::{HeaderMap, HeaderValue};

use crate::llm::adapter::{HeaderError, RequestParts, StreamAssembler, WireAdapter};
use crate::llm::types::LlmError;

/// The Messages wire protocol (`{base}/v1/messages`, `x-api-key`, `anthropic-beta`).
#[derive(Debug, Clone, Copy, Default)]
pub struct Messages;

impl WireAdapter for Messages {
    fn write_body(
        &self,
        parts: &RequestParts<'_>,
        out: &mut Vec<u8>,
    ) -> Result<Option<String>, LlmError> {
        serialize::write_body(parts, out)
    }

    fn endpoint(&self, base: &str) -> String {
        if base.ends_with("/v1") {
            format!("{base}/messages")
        } else {
            format!("{base}/v1/messages")
        }
    }

    fn auth_headers(
        &self,
        headers: &mut HeaderMap,
        key: &str,
        beta: Option<&str>,
    ) -> Result<(), HeaderError> {
        let mut v = HeaderValue::from_str(key).map_err(|_| HeaderError::BadKey)?;
        v.set_sensitive(true);
        headers.insert("x-api-key", v);
        headers.insert("anthropic-version", HeaderValue::from_static("2023-06-01"));
        if let Some(beta) = beta {
            let v = HeaderValue::from_str(beta).map_err(|_| HeaderError::BadBeta)?;
            headers.insert("anthropic-beta", v);
        }
        Ok(())
    }

    fn assembler(&self, max_reply_bytes: usize, context_window: u64) -> Box<dyn StreamAssembler> {
        Box::new(
            stream::MessagesAssembler::with_max_reply_bytes(max_reply_bytes)
                .with_context_window(context_window),
        )
    }

    fn end_marker(&self) -> &'static str {
        "message_stop"
    }
}
