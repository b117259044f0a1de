//! DeepSeek Messages (Anthropic-format) route: request serialization (W-rules) and stream
//! assembly.

pub mod serialize;
pub mod stream;
