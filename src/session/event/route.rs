//! What a route supports (D-7, W-11) and the `request/context` that logs it (E-4).

use serde::{Deserialize, Serialize};

use super::usage::Usage;

/// How a route accepts mid-conversation tool changes (D-7).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum ToolUpdateMode {
    /// Additions and removals stay in history.
    InHistory,
    /// Additions of deferred tools only; removals rewrite history.
    AdditionOnly,
}

impl ToolUpdateMode {
    /// The config/wire spelling.
    pub fn as_str(&self) -> &'static str {
        match self {
            ToolUpdateMode::InHistory => "in-history",
            ToolUpdateMode::AdditionOnly => "addition-only",
        }
    }
}

/// What a route does with a removed tool (SPEC §15.1 "Config"). A route's configuration
/// defaults to [`ToolRemoval::Retain`] on every route ([`ToolRemoval::CONFIG_DEFAULT`]);
/// the type's own default stays `Omit` because a `request/context` line without the field
/// was written before `retain` existed and its requests must rebuild as they were sent.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum ToolRemoval {
    /// Rewrite: drop its declaration and earlier addition (P-6), or on a route without
    /// `tool_update` the tool list (P-1). Configured as `"rewrite"` (`"omit"` is the older
    /// spelling); what a log line without the field means.
    #[default]
    Omit,
    /// Keep its declaration and earlier addition, so the request prefix is unchanged; on a
    /// route without `tool_update` the tool bridge (SPEC §15.1).
    Retain,
}

impl ToolRemoval {
    /// What a route gets when its configuration says nothing (SPEC §15.1).
    pub const CONFIG_DEFAULT: ToolRemoval = ToolRemoval::Retain;

    /// The config spelling.
    pub fn as_str(&self) -> &'static str {
        match self {
            ToolRemoval::Omit => "rewrite",
            ToolRemoval::Retain => "retain",
        }
    }

    /// Whether this is `omit`; the log leaves it out (older logs have no field).
    pub fn is_omit(&self) -> bool {
        *self == ToolRemoval::Omit
    }
}

/// How a route accepts mid-conversation system prompt changes (D-7).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum SystemPromptUpdate {
    /// The latest system message anywhere is the effective prompt.
    InHistory,
}

/// Most tools one request may declare when the catalog entry says nothing else: the
/// providers reject a longer `tools` array ("maximum length 128").
pub const DEFAULT_MAX_TOOLS: usize = 128;

/// Context window assumed for a model the catalog does not know.
pub const DEFAULT_CONTEXT_WINDOW: u64 = 131_072;

/// What a model costs, in USD per million tokens: cache-hit input, cache-miss
/// input and output, as DeepSeek publishes them.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Prices {
    /// Input tokens read from the prefix cache.
    pub input_hit: f64,
    /// Uncached input tokens.
    pub input_miss: f64,
    /// Output tokens.
    pub output: f64,
}

// Prices are finite and non-negative (the catalog's constants and validated config values),
// never NaN, so equality is reflexive.
impl Eq for Prices {}

impl Prices {
    /// The cost in USD of a request with usage `u`: cache-read tokens at the hit price,
    /// uncached input at the miss price, output at the output price.
    pub fn cost(&self, u: &Usage) -> f64 {
        (u.cache_read_tokens as f64 * self.input_hit
            + u.input_tokens as f64 * self.input_miss
            + u.output_tokens as f64 * self.output)
            / 1_000_000.0
    }

    /// What the cache saved on a request with usage `u`, in USD: its cache-read tokens at
    /// the miss price minus what they cost at the hit price.
    pub fn cache_saving(&self, u: &Usage) -> f64 {
        (self.input_miss - self.input_hit).max(0.0) * u.cache_read_tokens as f64 / 1_000_000.0
    }
}

/// What a route supports (D-7, W-11): the one type the catalog resolves, a `Route`
/// carries, `request/context` logs and the UI's route facts show.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Capabilities {
    /// Context window in tokens (0 = unknown: a log written before it was recorded).
    pub context_window: u64,
    /// In-history system prompt updates.
    pub system_prompt_update: Option<SystemPromptUpdate>,
    /// Mid-conversation tool update mode.
    pub tool_update: Option<ToolUpdateMode>,
    /// What the route does with a removed tool (`retain` unless configured, SPEC §15.1).
    pub tool_removal: ToolRemoval,
    /// Accepts image input.
    pub image_input: bool,
    /// Most tools one request may declare.
    pub max_tools: usize,
    /// Prices in USD per million tokens, when known (`None` shows no cost).
    pub prices: Option<Prices>,
}

impl Capabilities {
    /// A model with no update modes, text-only input, the default tool limit and no
    /// known price: what an uncatalogued model gets (W-12) with its context window.
    pub const fn plain(context_window: u64) -> Self {
        Capabilities {
            context_window,
            system_prompt_update: None,
            tool_update: None,
            tool_removal: ToolRemoval::CONFIG_DEFAULT,
            image_input: false,
            max_tools: DEFAULT_MAX_TOOLS,
            prices: None,
        }
    }

    /// The facts `request/context` records, those a wire body depends on (context
    /// window, update modes, `tool_removal`); the others as [`Capabilities::plain`].
    pub fn logged(&self) -> Self {
        Capabilities {
            system_prompt_update: self.system_prompt_update,
            tool_update: self.tool_update,
            tool_removal: self.tool_removal,
            ..Capabilities::plain(self.context_window)
        }
    }
}

/// `request/context` payload (E-4 plus `toolUpdate`, SPEC §12.1): the route of the
/// requests that follow, with the capabilities a wire body depends on
/// ([`Capabilities::logged`]).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(from = "ContextRecord", into = "ContextRecord")]
pub struct RequestContext {
    /// Provider name.
    pub provider: String,
    /// Model id.
    pub model: String,
    /// The route's logged capabilities.
    pub caps: Capabilities,
    /// Wire protocol of the route (`deepseek-messages` / `openai-chat`), so a request
    /// can be rebuilt without the config. Absent in logs written before it was recorded.
    pub protocol: Option<String>,
    /// The reasoning effort the request was sent with (SPEC §14.4); absent when none was
    /// set (the provider's default) and in logs written before it was recorded.
    pub effort: Option<crate::session::effort::Effort>,
}

impl RequestContext {
    /// The context logging a route's `caps` (only the logged facts are kept, so two
    /// contexts compare equal exactly when their log lines do).
    pub fn new(provider: &str, model: &str, protocol: &str, caps: &Capabilities) -> Self {
        RequestContext {
            provider: provider.to_string(),
            model: model.to_string(),
            caps: caps.logged(),
            protocol: Some(protocol.to_string()),
            effort: None,
        }
    }
}

/// `request/context` as written on disk (camelCase; defaults left out).
#[derive(Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
struct ContextRecord {
    provider: String,
    model: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    context_window: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    system_prompt_update: Option<SystemPromptUpdate>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    tool_update: Option<ToolUpdateMode>,
    // Omitted when `omit` (older logs have none).
    #[serde(default, skip_serializing_if = "ToolRemoval::is_omit")]
    tool_removal: ToolRemoval,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    protocol: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    effort: Option<crate::session::effort::Effort>,
}

impl From<ContextRecord> for RequestContext {
    fn from(r: ContextRecord) -> Self {
        RequestContext {
            provider: r.provider,
            model: r.model,
            caps: Capabilities {
                system_prompt_update: r.system_prompt_update,
                tool_update: r.tool_update,
                tool_removal: r.tool_removal,
                ..Capabilities::plain(r.context_window.unwrap_or(0))
            },
            protocol: r.protocol,
            effort: r.effort,
        }
    }
}

impl From<RequestContext> for ContextRecord {
    fn from(c: RequestContext) -> Self {
        ContextRecord {
            provider: c.provider,
            model: c.model,
            // 0 is how a log without the field loads; a live route's window is positive.
            context_window: (c.caps.context_window != 0).then_some(c.caps.context_window),
            system_prompt_update: c.caps.system_prompt_update,
            tool_update: c.caps.tool_update,
            tool_removal: c.caps.tool_removal,
            protocol: c.protocol,
            effort: c.effort,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn request_context_is_written_as_before_and_old_logs_load() {
        let caps = Capabilities {
            system_prompt_update: Some(SystemPromptUpdate::InHistory),
            tool_update: Some(ToolUpdateMode::AdditionOnly),
            tool_removal: ToolRemoval::Retain,
            image_input: true,
            prices: Some(Prices {
                input_hit: 1.0,
                input_miss: 2.0,
                output: 3.0,
            }),
            ..Capabilities::plain(1_048_576)
        };
        let ctx = RequestContext::new("deepseek", "deepseek-flash", "deepseek-messages", &caps);
        let line = serde_json::to_string(&ctx).unwrap();
        assert_eq!(
            line,
            r#"{"provider":"deepseek","model":"deepseek-flash","contextWindow":1048576,"systemPromptUpdate":"in-history","toolUpdate":"addition-only","toolRemoval":"retain","protocol":"deepseek-messages"}"#
        );
        // Only the logged facts are kept, so a reloaded context equals the written one.
        assert_eq!(ctx.caps, caps.logged());
        assert_eq!(serde_json::from_str::<RequestContext>(&line).unwrap(), ctx);
        // A log written before the window, the removal mode and the protocol were recorded.
        let old = r#"{"provider":"p","model":"m"}"#;
        let parsed: RequestContext = serde_json::from_str(old).unwrap();
        // Such a log removed tools by rewriting: its requests rebuild as they were sent.
        let before_retain = Capabilities {
            tool_removal: ToolRemoval::Omit,
            ..Capabilities::plain(0)
        };
        assert_eq!(parsed.caps, before_retain);
        assert_eq!(parsed.protocol, None);
        assert_eq!(serde_json::to_string(&parsed).unwrap(), old);
    }
}
