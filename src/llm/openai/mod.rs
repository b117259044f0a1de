//! OpenAI-format Chat Completions route: request serialization and stream assembly.

pub mod serialize;
pub mod stream;

use reqwest::header::{HeaderMap, HeaderValue};

use crate::llm::adapter::{HeaderError, RequestParts, StreamAssembler, WireAdapter};
use crate::llm::types::LlmError;

/// The Chat Completions wire protocol (`{base}/chat/completions`, bearer key).
#[derive(Debug, Clone, Copy, Default)]
pub struct Chat;

impl WireAdapter for Chat {
    fn write_body(
        &self,
        parts: &RequestParts<'_>,
        out: &mut Vec<u8>,
    ) -> Result<Option<String>, LlmError> {
        serialize::write_body(parts, out)
    }

    fn endpoint(&self, base: &str) -> String {
        format!("{base}/chat/completions")
    }

    fn auth_headers(
        &self,
        headers: &mut HeaderMap,
        key: &str,
        _beta: Option<&str>,
    ) -> Result<(), HeaderError> {
        let mut v =
            HeaderValue::from_str(&format!("Bearer {key}")).map_err(|_| HeaderError::BadKey)?;
        v.set_sensitive(true);
        headers.insert(reqwest::header::AUTHORIZATION, v);
        Ok(())
    }

    fn assembler(&self, max_reply_bytes: usize, context_window: u64) -> Box<dyn StreamAssembler> {
        Box::new(
            stream::ChatAssembler::with_max_reply_bytes(max_reply_bytes)
                .with_context_window(context_window),
        )
    }

    fn end_marker(&self) -> &'static str {
        "[DONE]"
    }
}
