//! DeepSeek Messages (Anthropic-format) route.
