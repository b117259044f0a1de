//! Built-in model catalog and capability resolution (W-11, W-12, D-7).
//!
//! A route's capabilities come from, in order: the provider's `[[models]]` entry with the
//! same id (which replaces the built-in entry entirely, except that a missing
//! `context_window` falls back to the built-in one), else the built-in catalog of the
//! provider's kind, else nothing: an uncatalogued model id is allowed and resolves with no
//! update modes, text-only input and [`DEFAULT_CONTEXT_WINDOW`] (W-12). Like the context
//! window, a missing `max_tools` falls back to the built-in entry, else
//! [`DEFAULT_MAX_TOOLS`]. Prices work the same way: an entry that sets none inherits the
//! built-in prices of its model id; a model with no price known shows no cost.

use crate::llm::types::{ProviderKind, Route};
use crate::session::event::{SystemPromptUpdate, ToolUpdateMode};

/// Context window of the DeepSeek V4 family.
pub const DEEPSEEK_V4_CONTEXT_WINDOW: u64 = 1_048_576;

pub use crate::session::event::{Capabilities, DEFAULT_CONTEXT_WINDOW, DEFAULT_MAX_TOOLS, Prices};

/// DeepSeek's published V4.1-Flash prices (api-docs.deepseek.com "Models & Pricing"):
/// $0.0028 per million cache-hit input
/// tokens, $0.14 cache-miss input, $0.28 output. Config entries override them.
pub const DEEPSEEK_FLASH_PRICES: Prices = Prices {
    input_hit: 0.0028,
    input_miss: 0.14,
    output: 0.28,
};

/// Formats a cost in USD in at most 9 columns (for amounts under $100,000), with about
/// two significant digits for tiny amounts: `$1.23`, `$0.0123`, `$0.00042`, `$0.000094`,
/// `<$0.00001`, and `$0` for nothing.
pub fn format_usd(usd: f64) -> String {
    if usd <= 0.0 {
        "$0".to_string()
    } else if usd >= 1.0 {
        format!("${usd:.2}")
    } else if usd >= 0.001 {
        format!("${usd:.4}")
    } else if usd >= 0.0001 {
        format!("${usd:.5}")
    } else if usd >= 0.00001 {
        format!("${usd:.6}")
    } else {
        "<$0.00001".to_string()
    }
}

/// One catalog entry: a model id and what it supports.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ModelSpec {
    /// Model id as sent on the wire (e.g. `deepseek-flash`).
    pub id: String,
    /// What the model supports.
    pub caps: Capabilities,
    /// The entry's `effort` (SPEC §14.4; config only): overrides the top-level one.
    pub effort: Option<crate::session::effort::Effort>,
}

/// What a `[[models]]` entry leaves unset falls back to: the built-in entry with its id.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Unset {
    /// No `context_window`: the built-in one, else [`DEFAULT_CONTEXT_WINDOW`].
    pub context_window: bool,
    /// No `max_tools`: the built-in one, else [`DEFAULT_MAX_TOOLS`].
    pub max_tools: bool,
    /// No prices: the built-in ones of the id, else unknown (no cost is shown).
    pub prices: bool,
}

impl ModelSpec {
    /// A configured entry for `id` on a provider of `kind`: `declared` replaces the
    /// built-in entry entirely, except for what `unset` names, which comes from it.
    pub fn configured(kind: ProviderKind, id: &str, declared: Capabilities, unset: Unset) -> Self {
        let builtin = builtin_models(kind).into_iter().find(|m| m.id == id);
        let builtin = builtin.as_ref().map(|m| &m.caps);
        let mut caps = declared;
        if unset.context_window {
            caps.context_window = builtin.map_or(DEFAULT_CONTEXT_WINDOW, |b| b.context_window);
        }
        if unset.max_tools {
            caps.max_tools = builtin.map_or(DEFAULT_MAX_TOOLS, |b| b.max_tools);
        }
        if unset.prices {
            caps.prices = builtin
                .and_then(|b| b.prices)
                .or_else(|| builtin_prices(id));
        }
        ModelSpec {
            id: id.to_string(),
            caps,
            effort: None,
        }
    }
}

/// DeepSeek's published price for a model id, for the ids DeepSeek bills:
/// `deepseek-flash`, its legacy ids `deepseek-v4-flash` and `deepseek-v4-flash-vision-exp`
/// (billed as Flash), and `deepseek-v4-pro`, which since 2026-09-14 DeepSeek routes to
/// V4.1-Flash and bills at Flash rates "until V4.1-Pro launches" (DeepSeek news
/// 2026-09-10; the DeepSeek wire reference §1.2). The vision id has no capability
/// entry (it resolves as uncatalogued, W-12) but is still priced. Config overrides these.
pub fn builtin_prices(model: &str) -> Option<Prices> {
    matches!(
        model,
        "deepseek-flash" | "deepseek-v4-flash" | "deepseek-v4-flash-vision-exp" | "deepseek-v4-pro"
    )
    .then_some(DEEPSEEK_FLASH_PRICES)
}

/// `deepseek-flash` as the catalog declares it (W-11).
fn deepseek_flash(id: &str) -> ModelSpec {
    ModelSpec {
        id: id.to_string(),
        caps: Capabilities {
            system_prompt_update: Some(SystemPromptUpdate::InHistory),
            tool_update: Some(ToolUpdateMode::AdditionOnly),
            image_input: true,
            prices: builtin_prices(id),
            ..Capabilities::plain(DEEPSEEK_V4_CONTEXT_WINDOW)
        },
        effort: None,
    }
}

/// A catalogued id with no update modes and text-only input, at its DeepSeek price.
fn plain_priced(id: &str) -> ModelSpec {
    ModelSpec {
        id: id.to_string(),
        caps: Capabilities {
            prices: builtin_prices(id),
            ..Capabilities::plain(DEEPSEEK_V4_CONTEXT_WINDOW)
        },
        effort: None,
    }
}

/// The built-in catalog for a provider kind.
///
/// `deepseek-messages`: `deepseek-flash` (in-history prompt updates, `addition-only` tool
/// updates, image input), its legacy id `deepseek-v4-flash`, and `deepseek-v4-pro` (no
/// modes). `openai-chat`: the same ids with their context windows but no update modes and
/// text-only input (the OpenAI-format route declares no tool-update mode, W-11). Each
/// carries its DeepSeek price ([`builtin_prices`]).
pub fn builtin_models(kind: ProviderKind) -> Vec<ModelSpec> {
    match kind {
        ProviderKind::DeepseekMessages => vec![
            deepseek_flash("deepseek-flash"),
            deepseek_flash("deepseek-v4-flash"),
            plain_priced("deepseek-v4-pro"),
        ],
        ProviderKind::OpenaiChat => ["deepseek-flash", "deepseek-v4-flash", "deepseek-v4-pro"]
            .into_iter()
            .map(plain_priced)
            .collect(),
    }
}

/// Resolves `model` on a provider of `kind` whose config lists `overrides`: the
/// configured entry with its id (already completed from the built-in one,
/// [`ModelSpec::configured`]), else the built-in entry, else an uncatalogued model (W-12)
/// at its DeepSeek price, if it has one.
pub fn resolve(kind: ProviderKind, overrides: &[ModelSpec], model: &str) -> Capabilities {
    if let Some(m) = overrides.iter().find(|m| m.id == model) {
        return m.caps;
    }
    match builtin_models(kind).into_iter().find(|m| m.id == model) {
        Some(m) => m.caps,
        None => Capabilities {
            prices: builtin_prices(model),
            ..Capabilities::plain(DEFAULT_CONTEXT_WINDOW)
        },
    }
}

impl Route {
    /// The same route with its base URL replaced (the `--base-url` flag); a trailing slash
    /// is dropped.
    pub fn with_base_url(mut self, base_url: &str) -> Route {
        self.base_url = base_url.trim_end_matches('/').to_string();
        self
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::session::event::Usage;

    /// A `[[models]]` entry for `deepseek-flash` declaring only what `edit` sets.
    fn flash_entry(edit: impl FnOnce(&mut Capabilities, &mut Unset)) -> ModelSpec {
        let mut caps = Capabilities::plain(0);
        let mut unset = Unset {
            context_window: true,
            max_tools: true,
            prices: true,
        };
        edit(&mut caps, &mut unset);
        ModelSpec::configured(
            ProviderKind::DeepseekMessages,
            "deepseek-flash",
            caps,
            unset,
        )
    }

    #[test]
    fn flash_has_both_modes_and_images() {
        let c = resolve(ProviderKind::DeepseekMessages, &[], "deepseek-flash");
        assert_eq!(c.tool_update, Some(ToolUpdateMode::AdditionOnly));
        assert_eq!(c.system_prompt_update, Some(SystemPromptUpdate::InHistory));
        assert!(c.image_input);
        assert_eq!(c.context_window, 1_048_576);
        let legacy = resolve(ProviderKind::DeepseekMessages, &[], "deepseek-v4-flash");
        assert_eq!(legacy, c);
    }

    #[test]
    fn v4_pro_and_openai_chat_have_no_modes() {
        let pro = resolve(ProviderKind::DeepseekMessages, &[], "deepseek-v4-pro");
        assert_eq!((pro.tool_update, pro.system_prompt_update), (None, None));
        assert_eq!(pro.context_window, 1_048_576);
        let oa = resolve(ProviderKind::OpenaiChat, &[], "deepseek-flash");
        assert_eq!((oa.tool_update, oa.system_prompt_update), (None, None));
        assert!(!oa.image_input);
    }

    #[test]
    fn an_uncatalogued_model_has_no_tool_update() {
        let c = resolve(ProviderKind::DeepseekMessages, &[], "some-future-model");
        assert_eq!(c.tool_update, None);
        assert_eq!(c.system_prompt_update, None);
        assert!(!c.image_input);
        assert_eq!(c.context_window, DEFAULT_CONTEXT_WINDOW);
    }

    #[test]
    fn override_replaces_entry_but_keeps_builtin_window() {
        let o = flash_entry(|c, _| c.tool_update = Some(ToolUpdateMode::InHistory));
        let c = resolve(ProviderKind::DeepseekMessages, &[o], "deepseek-flash");
        assert_eq!(c.tool_update, Some(ToolUpdateMode::InHistory));
        assert_eq!(c.system_prompt_update, None);
        assert!(!c.image_input);
        assert_eq!(c.context_window, 1_048_576);
    }

    #[test]
    fn max_tools_is_per_route_with_a_default_of_128() {
        for (kind, id) in [
            (ProviderKind::DeepseekMessages, "deepseek-flash"),
            (ProviderKind::DeepseekMessages, "deepseek-v4-pro"),
            (ProviderKind::OpenaiChat, "deepseek-flash"),
            (ProviderKind::DeepseekMessages, "some-future-model"),
        ] {
            assert_eq!(resolve(kind, &[], id).max_tools, 128, "{id}");
        }
        let o = flash_entry(|c, u| {
            c.max_tools = 7;
            u.max_tools = false;
        });
        let c = resolve(ProviderKind::DeepseekMessages, &[o], "deepseek-flash");
        assert_eq!(c.max_tools, 7);
        // An override without `max_tools` keeps the built-in limit.
        let o = flash_entry(|_, _| {});
        let c = resolve(ProviderKind::DeepseekMessages, &[o], "deepseek-flash");
        assert_eq!(c.max_tools, 128);
    }

    #[test]
    fn cost_arithmetic_prices_cache_hit_tokens_at_the_hit_price() {
        let u = Usage {
            input_tokens: 1_000_000,
            cache_read_tokens: 2_000_000,
            output_tokens: 500_000,
        };
        // 1M miss × $0.14 + 2M hit × $0.0028 + 0.5M out × $0.28.
        let cost = DEEPSEEK_FLASH_PRICES.cost(&u);
        assert!((cost - 0.2856).abs() < 1e-12, "{cost}");
        // The cache saved 2M × ($0.14 − $0.0028).
        let saved = DEEPSEEK_FLASH_PRICES.cache_saving(&u);
        assert!((saved - 0.2744).abs() < 1e-12, "{saved}");
        // The same input read uncached costs exactly the saving more.
        let cold = Usage {
            input_tokens: 3_000_000,
            cache_read_tokens: 0,
            output_tokens: 500_000,
        };
        assert!((DEEPSEEK_FLASH_PRICES.cost(&cold) - cost - saved).abs() < 1e-12);
        // Each price applies to its own tokens.
        let p = Prices {
            input_hit: 1.0,
            input_miss: 10.0,
            output: 100.0,
        };
        let one = |i, c, o| {
            p.cost(&Usage {
                input_tokens: i,
                cache_read_tokens: c,
                output_tokens: o,
            })
        };
        assert_eq!(one(0, 1_000_000, 0), 1.0);
        assert_eq!(one(1_000_000, 0, 0), 10.0);
        assert_eq!(one(0, 0, 1_000_000), 100.0);
        assert_eq!(p.cache_saving(&Usage::default()), 0.0);
    }

    #[test]
    fn cost_overrides_inherit_builtin_prices_and_unknown_models_have_none() {
        for id in [
            "deepseek-flash",
            "deepseek-v4-flash",
            "deepseek-v4-flash-vision-exp",
            "deepseek-v4-pro",
        ] {
            for kind in [ProviderKind::DeepseekMessages, ProviderKind::OpenaiChat] {
                assert_eq!(
                    resolve(kind, &[], id).prices,
                    Some(DEEPSEEK_FLASH_PRICES),
                    "{id}"
                );
            }
        }
        assert_eq!(
            resolve(ProviderKind::DeepseekMessages, &[], "some-future-model").prices,
            None
        );
        // An entry without prices keeps the built-in ones; one with prices wins.
        let o = flash_entry(|_, _| {});
        let c = resolve(ProviderKind::DeepseekMessages, &[o], "deepseek-flash");
        assert_eq!(c.prices, Some(DEEPSEEK_FLASH_PRICES));
        let own = Prices {
            input_hit: 0.1,
            input_miss: 1.0,
            output: 2.0,
        };
        let o = flash_entry(|c, u| {
            c.prices = Some(own);
            u.prices = false;
        });
        let c = resolve(ProviderKind::DeepseekMessages, &[o], "deepseek-flash");
        assert_eq!(c.prices, Some(own));
    }

    #[test]
    fn cost_format_keeps_tiny_amounts_readable_in_nine_columns() {
        for (usd, want) in [
            (0.0, "$0"),
            (0.00000028, "<$0.00001"),
            (0.000094, "$0.000094"),
            (0.00042, "$0.00042"),
            (0.0123, "$0.0123"),
            (0.5, "$0.5000"),
            (1.234, "$1.23"),
            (999.99, "$999.99"),
        ] {
            let got = format_usd(usd);
            assert_eq!(got, want);
            assert!(got.chars().count() <= 9, "{got}");
        }
    }
}
