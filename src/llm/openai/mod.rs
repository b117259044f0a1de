//! OpenAI-format Chat Completions route: request serialization and stream assembly.

pub mod serialize;
pub mod stream;
