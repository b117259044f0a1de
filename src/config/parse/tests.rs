//! The parser's unit tests.

use super::keys::*;
use super::*;
use crate::config::ConfigWarning;
use crate::session::event::ToolRemoval;

#[test]
fn limits_table_parses_and_warns_on_unknown_keys() {
    let cfg = parse(
        "[limits]\nmax_event_bytes = 1024\nno_progress_timeout_secs = 2\nmax_reply = 1\n",
        None,
        Path::new("."),
    )
    .unwrap();
    assert_eq!(cfg.limits.max_event_bytes, Some(1024));
    assert_eq!(cfg.limits.max_reply_bytes, None);
    let s = cfg.limits.stream_limits();
    assert_eq!(s.max_event_bytes, 1024);
    assert_eq!(
        s.max_reply_bytes,
        crate::llm::client::DEFAULT_MAX_REPLY_BYTES
    );
    assert_eq!(s.no_progress_timeout, std::time::Duration::from_secs(2));
    assert_eq!(
        cfg.warnings,
        vec![ConfigWarning::UnknownKey {
            file: None,
            key: "limits.max_reply".into(),
            suggestion: None,
        }]
    );
    let e = parse("[limits]\nmax_reply_bytes = 0\n", None, Path::new(".")).unwrap_err();
    assert!(format!("{e:?}").contains("limits.max_reply_bytes"), "{e:?}");
}

#[test]
fn line_col_counts_characters() {
    assert_eq!(line_col("ab\ncdé\nx", 0), (1, 1));
    assert_eq!(line_col("ab\ncdé\nx", 3), (2, 1));
    assert_eq!(line_col("ab\ncdé\nx", 7), (2, 4));
    assert_eq!(line_col("ab\ncdé\nx", 8), (3, 1));
}

#[test]
fn suggestions_allow_transpositions_case_and_dashes() {
    assert_eq!(edit_distance("modle", "model"), 1);
    assert_eq!(edit_distance("bsae_url", "base_url"), 1);
    assert_eq!(edit_distance("", "abc"), 3);
    assert_eq!(suggest("modle", TOP_KEYS), Some("model"));
    assert_eq!(suggest("Model", TOP_KEYS), Some("model"));
    assert_eq!(suggest("base-url", PROVIDER_KEYS), Some("base_url"));
    assert_eq!(suggest("apikey_env", PROVIDER_KEYS), Some("api_key_env"));
    // Short keys allow one edit only; unrelated keys get nothing.
    assert_eq!(suggest("mdl", TOP_KEYS), None);
    assert_eq!(suggest("colour", TOP_KEYS), None);
    assert_eq!(suggest(&"x".repeat(1000), TOP_KEYS), None);
}

#[test]
fn known_keys_by_table_shape() {
    assert_eq!(known_keys(""), TOP_KEYS);
    assert_eq!(known_keys("providers.p"), PROVIDER_KEYS);
    assert_eq!(known_keys("providers.p.models[2]"), MODEL_KEYS);
    assert_eq!(known_keys("mcp.servers.fs"), MCP_SERVER_KEYS);
    assert_eq!(known_keys("tools.command.wc"), COMMAND_TOOL_KEYS);
    assert_eq!(known_keys("limits"), LIMITS_KEYS);
}

#[test]
fn join_quotes_dotted_keys() {
    assert_eq!(join("", "model"), "model");
    assert_eq!(
        join("providers", "deepseek-openai"),
        "providers.deepseek-openai"
    );
    assert_eq!(join("providers", "a.b"), "providers.\"a.b\"");
}

fn retain_entry(tool_update: &str, removal: &str) -> String {
    format!(
        "model = \"p/m\"\n[providers.p]\nkind = \"deepseek-messages\"\n\
         base_url = \"http://127.0.0.1:1\"\napi_key_env = \"K\"\n\
         [[providers.p.models]]\nid = \"m\"\n{tool_update}\n{removal}\n"
    )
}

#[test]
fn tool_removal_is_retain_by_default_on_every_route_and_rewrite_opts_out() {
    for tool_update in [
        "tool_update = \"addition-only\"",
        "tool_update = \"in-history\"",
        "",
    ] {
        for (removal, want) in [
            ("", ToolRemoval::Retain),
            ("tool_removal = \"retain\"", ToolRemoval::Retain),
            ("tool_removal = \"rewrite\"", ToolRemoval::Omit),
            ("tool_removal = \"omit\"", ToolRemoval::Omit),
        ] {
            let text = retain_entry(tool_update, removal);
            let cfg = parse(&text, None, Path::new(".")).unwrap();
            assert!(cfg.warnings.is_empty(), "{:?}", cfg.warnings);
            let got = cfg.resolve_route(None).unwrap().caps.tool_removal;
            assert_eq!(got, want, "{tool_update} {removal}");
        }
    }
}

#[test]
fn an_unknown_tool_removal_is_a_clear_error_naming_both_values() {
    use crate::i18n::{Locale, Localizer};
    let text = retain_entry("tool_update = \"addition-only\"", "tool_removal = \"keep\"");
    let err = parse(&text, None, Path::new(".")).unwrap_err();
    let en = err.localized(Localizer::new(Locale::EnUs));
    assert!(en.contains("providers.p.models[0].tool_removal"), "{en}");
    assert!(
        en.contains("\"retain\"") && en.contains("\"rewrite\"") && en.contains("keep"),
        "{en}"
    );
    let zh = err.localized(Localizer::new(Locale::ZhCn));
    assert!(zh.contains("rewrite") && zh.contains("keep"), "{zh}");
}

#[test]
fn ui_notify_is_off_by_default_and_parsed_with_clear_errors() {
    use crate::i18n::{Locale, Localizer};
    let cwd = Path::new(".");
    assert!(!parse("", None, cwd).unwrap().ui_notify);
    assert!(!Config::default().ui_notify);
    let cfg = parse("[ui]\nnotify = true\n", None, cwd).unwrap();
    assert!(cfg.ui_notify);
    assert!(cfg.warnings.is_empty(), "{:?}", cfg.warnings);
    assert!(
        !parse("[ui]\nnotify = false\n", None, cwd)
            .unwrap()
            .ui_notify
    );
    // A misspelt key is a warning with a suggestion, not an error.
    let cfg = parse("[ui]\nnotfy = true\n", None, cwd).unwrap();
    assert!(!cfg.ui_notify);
    assert_eq!(
        cfg.warnings,
        vec![ConfigWarning::UnknownKey {
            file: None,
            key: "ui.notfy".into(),
            suggestion: Some("ui.notify".into()),
        }]
    );
    let err = parse("[ui]\nnotify = \"yes\"\n", None, cwd).unwrap_err();
    let en = err.localized(Localizer::new(Locale::EnUs));
    let zh = err.localized(Localizer::new(Locale::ZhCn));
    assert!(
        en.contains("ui.notify") && en.contains("true or false"),
        "{en}"
    );
    assert!(zh.contains("ui.notify") && zh != en, "{zh}");
}

#[test]
fn defer_tools_over_defaults_to_32_accepts_0_and_rejects_negatives_and_text() {
    use crate::i18n::{Locale, Localizer};
    let cfg = parse("", None, Path::new(".")).unwrap();
    assert_eq!(cfg.defer_tools_over, 32);
    for (text, want) in [("0", 0), ("33", 33)] {
        let cfg = parse(
            &format!("[tools]\ndefer_tools_over = {text}\n"),
            None,
            Path::new("."),
        )
        .unwrap();
        assert!(cfg.warnings.is_empty(), "{:?}", cfg.warnings);
        assert_eq!(cfg.defer_tools_over, want);
    }
    let err = parse("[tools]\ndefer_tools_over = -1\n", None, Path::new(".")).unwrap_err();
    let en = err.localized(Localizer::new(Locale::EnUs));
    assert!(
        en.contains("tools.defer_tools_over") && en.contains("0"),
        "{en}"
    );
    let zh = err.localized(Localizer::new(Locale::ZhCn));
    assert!(zh.contains("tools.defer_tools_over"), "{zh}");
    let err = parse(
        "[tools]\ndefer_tools_over = \"many\"\n",
        None,
        Path::new("."),
    )
    .unwrap_err();
    let en = err.localized(Localizer::new(Locale::EnUs));
    assert!(
        en.contains("tools.defer_tools_over") && en.contains("integer"),
        "{en}"
    );
}
