//! A model entry naming a built-in id inherits the keys it does not set (decision 0091).

use std::path::Path;

use super::parse::parse;
use crate::session::event::{SystemPromptUpdate, ToolRemoval, ToolUpdateMode};

fn entry(kind: &str, body: &str) -> String {
    format!(
        "model = \"p/deepseek-flash\"\n[providers.p]\nkind = \"{kind}\"\n\
         base_url = \"http://127.0.0.1:1\"\napi_key_env = \"K\"\n\
         [[providers.p.models]]\nid = \"deepseek-flash\"\n{body}\n"
    )
}

#[test]
fn one_retain_line_on_a_built_in_id_keeps_the_built_in_modes() {
    let cfg = parse(
        &entry("deepseek-messages", "tool_removal = \"retain\""),
        None,
        Path::new("."),
    )
    .unwrap();
    let route = cfg.resolve_route(None).unwrap();
    assert_eq!(route.caps.tool_removal, ToolRemoval::Retain);
    assert_eq!(route.caps.tool_update, Some(ToolUpdateMode::AdditionOnly));
    assert_eq!(
        route.caps.system_prompt_update,
        Some(SystemPromptUpdate::InHistory)
    );
    assert!(route.caps.image_input);
    assert!(route.caps.prices.is_some());
}

#[test]
fn none_turns_a_built_in_mode_off_and_retain_then_means_the_bridge() {
    let cfg = parse(
        &entry(
            "deepseek-messages",
            "tool_update = \"none\"\nsystem_prompt_update = \"none\"",
        ),
        None,
        Path::new("."),
    )
    .unwrap();
    let route = cfg.resolve_route(None).unwrap();
    assert_eq!(
        (route.caps.tool_update, route.caps.system_prompt_update),
        (None, None)
    );
    // Without a mode, `retain` is the tool bridge (SPEC §15.1): accepted.
    let cfg = parse(
        &entry(
            "deepseek-messages",
            "tool_update = \"none\"\ntool_removal = \"retain\"",
        ),
        None,
        Path::new("."),
    )
    .unwrap();
    let route = cfg.resolve_route(None).unwrap();
    assert_eq!(
        (route.caps.tool_update, route.caps.tool_removal),
        (None, ToolRemoval::Retain)
    );
}

#[test]
fn an_entry_for_an_unknown_id_inherits_nothing() {
    let text = entry("deepseek-messages", "").replace("deepseek-flash", "custom-model");
    let cfg = parse(&text, None, Path::new(".")).unwrap();
    let route = cfg.resolve_route(None).unwrap();
    assert_eq!(route.caps.tool_update, None);
    assert!(!route.caps.image_input);
}
