//! OpenAI-format Chat Completions route.
