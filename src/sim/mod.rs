//! DeepSeek-compatible simulator.
