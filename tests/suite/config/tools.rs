//! Configuration, catalog, tool registry, built-in and command tools.
use deepterm::config::{
    CommandToolConfig, Config, ConfigError, ConfigLocation, ConfigWarning, save_locale,
};
use deepterm::i18n::{Locale, Localizer};
use deepterm::llm::types::ProviderKind;
use deepterm::session::event::{SystemPromptUpdate, ToolUpdateMode};
use deepterm::tools::command::CommandTool;
use deepterm::tools::{
    Approval, RegisteredTool, ToolError, ToolExecutor, ToolRegistry, ToolSource, builtin, command,
};
use std::time::{Duration, Instant};
use tokio_util::sync::CancellationToken;

use std::path::{Path, PathBuf};

const EN: Localizer = Localizer {
    locale: Locale::EnUs,
};

const ZH: Localizer = Localizer {
    locale: Locale::ZhCn,
};

fn parse_err(text: &str) -> ConfigError {
    let file = Path::new("/cfg/deepterm.toml");
    match Config::parse_in(text, Some(file), Path::new("/nonexistent")) {
        Ok(_) => panic!("expected an error for:\n{text}"),
        Err(e) => e,
    }
}

// ---------------------------------------------------------------- configuration

#[test]
fn defaults_have_both_providers_and_the_flash_route() {
    let c = Config::load_from(None).unwrap();
    assert_eq!(c.model, "deepseek/deepseek-flash");
    let ds = &c.providers["deepseek"];
    assert_eq!(ds.kind, ProviderKind::DeepseekMessages);
    assert_eq!(ds.base_url, "https://api.deepseek.com/anthropic");
    assert_eq!(ds.api_key_env, "DEEPSEEK_API_KEY");
    let oa = &c.providers["deepseek-openai"];
    assert_eq!(oa.kind, ProviderKind::OpenaiChat);
    assert_eq!(oa.base_url, "https://api.deepseek.com");
    assert!(c.builtin_tools);
    let r = c.resolve_route(None).unwrap();
    assert_eq!(r.id(), "deepseek/deepseek-flash");
}

#[test]
fn missing_file_is_defaults_at_default_location_but_an_error_when_explicit() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("nope.toml");
    let implicit = ConfigLocation {
        path: path.clone(),
        explicit: false,
    };
    let c = Config::load_from(Some(&implicit)).unwrap();
    assert_eq!(c.path.as_deref(), Some(path.as_path()));
    assert_eq!(c.model, "deepseek/deepseek-flash");
    let explicit = ConfigLocation {
        path: path.clone(),
        explicit: true,
    };
    let e = Config::load_from(Some(&explicit)).unwrap_err();
    assert!(matches!(e, ConfigError::NotFound { .. }));
    assert!(e.localized(EN).contains(&path.display().to_string()));
    assert!(e.localized(ZH).contains("不存在"));
}

#[test]
fn example_config_parses_with_only_the_missing_instructions_warning() {
    let text = include_str!("../../../assets/config.example.toml");
    let cwd = tempfile::tempdir().unwrap();
    let c = Config::parse_in(text, Some(Path::new("/cfg/config.toml")), cwd.path()).unwrap();
    assert_eq!(c.locale, Some(Locale::EnUs));
    assert_eq!(
        c.warnings,
        vec![ConfigWarning::MissingInstructionFile {
            file: Some("/cfg/config.toml".into()),
            key: "instructions.files[0]".into(),
            path: "AGENTS.md".into()
        }]
    );
    let fs = &c.mcp_servers["fs"];
    assert_eq!((fs.enabled, fs.approval), (false, Approval::Ask));
    let wc = &c.command_tools["word_count"];
    assert_eq!(wc.timeout_secs, 10);
    assert_eq!(wc.command, vec!["sh", "-c", "wc -w"]);
    assert_eq!(wc.parameters["type"], "object");
    assert_eq!(wc.parameters["required"][0], "text");
}

#[test]
fn full_config_values_and_defaults() {
    let text = r#"
model = "deepseek-openai/deepseek-v4-pro"
[mcp.servers.git]
command = "mcp-git"
args = ["--repo", "."]
env = { A = "1" }
timeout_secs = 5
[tools.command.t]
description = "d"
command = ["true"]
"#;

    let c = Config::parse_in(text, None, Path::new("/")).unwrap();

    assert!(c.warnings.is_empty());

    let git = &c.mcp_servers["git"];

    assert_eq!(git.args, vec!["--repo", "."]);

    assert_eq!(git.env["A"], "1");

    assert_eq!(
        (git.enabled, git.approval, git.timeout_secs),
        (true, Approval::Never, Some(5))
    );
    let t = &c.command_tools["t"];
    assert_eq!(
        (t.enabled, t.approval, t.timeout_secs),
        (true, Approval::Never, 30)
    );
    // A table without `type` gets `"type": "object"` first.
    assert_eq!(
        t.parameters.to_string(),
        r#"{"type":"object","properties":{}}"#
    );
    assert_eq!(
        c.resolve_route(None).unwrap().id(),
        "deepseek-openai/deepseek-v4-pro"
    );
}

/// Each invalid config names the file and the key and says what was expected, in both
/// locales. Columns: TOML, key path, English expectation, Chinese fragment.
#[test]
fn validation_errors_name_file_key_and_expectation_in_both_locales() {
    let cases: &[(&str, &str, &str, &str)] = &[
        (
            "[providers.x]\nkind = \"grpc\"\nbase_url = \"u\"\napi_key_env = \"K\"",
            "providers.x.kind",
            r#"must be "deepseek-messages" or "openai-chat" (found "grpc")"#,
            "必须是“deepseek-messages”或“openai-chat”",
        ),
        (
            "[providers.x]\nkind = \"openai-chat\"\napi_key_env = \"K\"",
            "providers.x.base_url",
            "is required",
            "是必填项",
        ),
        (
            "[providers.x]\nkind = \"openai-chat\"\nbase_url = \"http://h\"",
            "providers.x.api_key_env",
            "is required",
            "是必填项",
        ),
        (
            "[providers.x]\nbase_url = \"http://h\"\napi_key_env = \"K\"",
            "providers.x.kind",
            "is required",
            "是必填项",
        ),
        (
            "model = \"deepseek\"",
            "model",
            r#"must be "PROVIDER/MODEL""#,
            "提供方/模型",
        ),
        (
            "model = \"nope/deepseek-flash\"",
            "model",
            r#"must name a configured provider; "nope" is not one (configured: deepseek, deepseek-openai)"#,
            "已配置：deepseek、deepseek-openai",
        ),
        (
            "[[providers.deepseek.models]]\nid = \"deepseek-flash\"\ntool_update = \"sometimes\"",
            "providers.deepseek.models[0].tool_update",
            r#"must be "in-history", "addition-only" or "none" when present"#,
            "必须是“in-history”“addition-only”或“none”",
        ),
        (
            "[[providers.deepseek.models]]\nid = \"a\"\n[[providers.deepseek.models]]\nid = \"b\"\nsystem_prompt_update = \"always\"",
            "providers.deepseek.models[1].system_prompt_update",
            r#"must be "in-history" or "none" when present"#,
            "必须是“in-history”",
        ),
        (
            "[[providers.deepseek-openai.models]]\nid = \"deepseek-flash\"\ntool_update = \"in-history\"",
            "providers.deepseek-openai.models[0].tool_update",
            "is not supported by openai-chat providers",
            "不适用于 openai-chat",
        ),
        (
            "[[providers.deepseek.models]]\nid = \"a\"\n[[providers.deepseek.models]]\nid = \"a\"",
            "providers.deepseek.models[1].id",
            r#"model "a" is listed twice"#,
            "出现了两次",
        ),
        (
            "[[providers.deepseek.models]]\nid = \"a\"\ncontext_window = 0",
            "providers.deepseek.models[0].context_window",
            "must be a positive integer",
            "必须是正整数",
        ),
        (
            "[tools.command.t]\ndescription = \"d\"\ncommand = []",
            "tools.command.t.command",
            "must be a non-empty array",
            "必须是非空数组",
        ),
        (
            "[tools.command.t]\ndescription = \"d\"\ncommand = [\"\"]",
            "tools.command.t.command",
            "must be a non-empty array",
            "必须是非空数组",
        ),
        (
            "[tools.command.t]\ndescription = \"d\"\ncommand = \"ls\"",
            "tools.command.t.command",
            "must be an array",
            "必须是数组",
        ),
        (
            "[tools.command.t]\ndescription = \"d\"\ncommand = [\"ls\"]\napproval = \"maybe\"",
            "tools.command.t.approval",
            r#"must be "ask" or "never" (found "maybe")"#,
            "必须是“ask”或“never”",
        ),
        (
            "[mcp.servers.fs]\ncommand = \"x\"\napproval = \"sometimes\"",
            "mcp.servers.fs.approval",
            r#"must be "ask", "never" or "trust-read-only-hint""#,
            "必须是“ask”、“never”或“trust-read-only-hint”",
        ),
        (
            "[mcp.servers.a__b]\ncommand = \"x\"",
            "mcp.servers.a__b",
            r#"without "__""#,
            "不能含有“__”",
        ),
        (
            "[mcp.servers.fs]\nargs = []",
            "mcp.servers.fs.command",
            "needs exactly one of command",
            "必须且只能设置 command",
        ),
        (
            "[tools.command.read_file]\ndescription = \"d\"\ncommand = [\"cat\"]",
            "tools.command.read_file",
            r#"built-in tool "read_file""#,
            "内置工具“read_file”",
        ),
        (
            "[tools.command.t]\ndescription = \"d\"\ncommand = [\"ls\"]\nparameters = { type = \"string\" }",
            "tools.command.t.parameters.type",
            r#"must be "object""#,
            "必须是“object”",
        ),
        (
            "locale = \"fr-FR\"",
            "locale",
            r#"must be "en-US" or "zh-CN" (found "fr-FR")"#,
            "必须是“en-US”或“zh-CN”",
        ),
        (
            "[tools.builtin]\nenabled = \"yes\"",
            "tools.builtin.enabled",
            "must be true or false",
            "必须是布尔值（true 或 false）",
        ),
        ("providers = 3", "providers", "must be a table", "必须是表"),
    ];
    for (text, key, en, zh) in cases {
        let e = parse_err(text);
        let (en_text, zh_text) = (e.localized(EN), e.localized(ZH));
        for t in [&en_text, &zh_text] {
            assert!(t.contains("/cfg/deepterm.toml"), "file missing in {t:?}");
            assert!(
                t.contains(&format!("`{key}`")),
                "key {key} missing in {t:?}"
            );
        }
        assert!(en_text.contains(en), "{en:?} missing in {en_text:?}");
        assert!(zh_text.contains(zh), "{zh:?} missing in {zh_text:?}");
        assert_eq!(e.to_string(), en_text);
    }
}

#[test]
fn syntax_error_reports_line_and_column() {
    let e = parse_err("locale = \"en-US\"\nmodel = = 3\n");
    let ConfigError::Syntax { line, column, .. } = &e else {
        panic!("not a syntax error: {e:?}");
    };
    assert_eq!((*line, *column), (2, 9));
    assert!(
        e.localized(EN)
            .contains("/cfg/deepterm.toml, line 2, column 9: invalid TOML")
    );
    assert!(e.localized(ZH).contains("第 2 行第 9 列"));
}

#[test]
fn unknown_keys_are_warnings_not_errors() {
    let c = Config::parse_in(
        "colour = 1\n[tools.builtin]\nenabled = false\nfoo = 1\n[providers.deepseek]\nretries = 2",
        None,
        Path::new("/"),
    )
    .unwrap();
    assert!(!c.builtin_tools);
    let keys: Vec<_> = c
        .warnings
        .iter()
        .map(|w| match w {
            ConfigWarning::UnknownKey { key, .. } => key.clone(),
            other => panic!("{other:?}"),
        })
        .collect();
    assert_eq!(
        keys,
        ["providers.deepseek.retries", "tools.builtin.foo", "colour"]
    );
    assert!(c.warnings[2].localized(EN).contains("`colour`"));
    assert!(
        c.warnings[2]
            .localized(ZH)
            .contains("未知的配置项 `colour`")
    );
}

#[test]
fn instruction_files_resolve_against_cwd_then_config_dir() {
    let cwd = tempfile::tempdir().unwrap();
    let cfg_dir = tempfile::tempdir().unwrap();
    std::fs::write(cwd.path().join("AGENTS.md"), "project rules\n").unwrap();
    std::fs::write(cfg_dir.path().join("global.md"), "global rules\n").unwrap();
    let file = cfg_dir.path().join("config.toml");
    let c = Config::parse_in(
        "[instructions]\ntext = \"be brief\"\nfiles = [\"AGENTS.md\", \"global.md\"]",
        Some(&file),
        cwd.path(),
    )
    .unwrap();
    assert!(c.warnings.is_empty());
    let read = c.read_instructions();
    assert_eq!(
        read.text.as_deref(),
        Some("be brief\n\nproject rules\n\nglobal rules")
    );
    assert!(read.problems.is_empty(), "{:?}", read.problems);
}

// ---------------------------------------------------------------- catalog and routes

#[test]
fn the_catalog_resolves_per_provider_kind() {
    let c = Config::default();
    let flash = c.resolve_route(Some("deepseek/deepseek-flash")).unwrap();
    assert_eq!(flash.caps.tool_update, Some(ToolUpdateMode::AdditionOnly));
    assert_eq!(
        flash.caps.system_prompt_update,
        Some(SystemPromptUpdate::InHistory)
    );
    assert!(flash.caps.image_input);
    assert_eq!(flash.caps.context_window, 1_048_576);
    assert_eq!(flash.base_url, "https://api.deepseek.com/anthropic");
    let legacy = c.resolve_route(Some("deepseek/deepseek-v4-flash")).unwrap();
    assert_eq!(legacy.caps.tool_update, Some(ToolUpdateMode::AdditionOnly));
    let pro = c.resolve_route(Some("deepseek/deepseek-v4-pro")).unwrap();
    assert_eq!(
        (pro.caps.tool_update, pro.caps.system_prompt_update),
        (None, None)
    );
    assert_eq!(pro.caps.context_window, 1_048_576);
    let oa = c
        .resolve_route(Some("deepseek-openai/deepseek-flash"))
        .unwrap();
    assert_eq!(oa.kind, ProviderKind::OpenaiChat);
    assert_eq!(
        (oa.caps.tool_update, oa.caps.system_prompt_update),
        (None, None)
    );
}

#[test]
fn an_uncatalogued_model_is_allowed_without_modes() {
    let r = Config::default()
        .resolve_route(Some("deepseek/deepseek-next"))
        .unwrap();
    assert_eq!(
        (
            r.caps.tool_update,
            r.caps.system_prompt_update,
            r.caps.image_input
        ),
        (None, None, false)
    );
    assert_eq!(
        r.caps.context_window,
        deepterm::llm::catalog::DEFAULT_CONTEXT_WINDOW
    );
}

#[test]
fn a_models_entry_overrides_the_catalog_entry_by_id() {
    let c = Config::parse_in(
        r#"
[[providers.deepseek.models]]
id = "deepseek-v4-flash"
system_prompt_update = "in-history"
tool_update = "in-history"
[[providers.deepseek.models]]
id = "my-model"
context_window = 64000
tool_update = "addition-only"
"#,
        None,
        Path::new("/"),
    )
    .unwrap();
    let v4 = c.resolve_route(Some("deepseek/deepseek-v4-flash")).unwrap();
    assert_eq!(v4.caps.tool_update, Some(ToolUpdateMode::InHistory));
    assert_eq!(
        v4.caps.system_prompt_update,
        Some(SystemPromptUpdate::InHistory)
    );
    // Keys the override does not set come from the built-in entry.
    assert!(
        v4.caps.image_input,
        "image input inherited from the built-in entry"
    );
    assert_eq!(
        v4.caps.context_window, 1_048_576,
        "window falls back to the catalog"
    );
    let mine = c.resolve_route(Some("deepseek/my-model")).unwrap();
    assert_eq!(
        (mine.caps.tool_update, mine.caps.context_window),
        (Some(ToolUpdateMode::AdditionOnly), 64000)
    );
    // Untouched entries keep the catalog values; the inherited provider fields stay.
    let flash = c.resolve_route(Some("deepseek/deepseek-flash")).unwrap();
    assert_eq!(flash.caps.tool_update, Some(ToolUpdateMode::AdditionOnly));
    assert_eq!(flash.api_key_env, "DEEPSEEK_API_KEY");
    assert!(c.known_routes().contains(&"deepseek/my-model".to_string()));
}

#[test]
fn route_resolution_errors_are_localized() {
    let c = Config::default();
    for bad in ["deepseek", "/deepseek-flash", "deepseek/", ""] {
        let e = c.resolve_route(Some(bad)).unwrap_err();
        assert!(matches!(e, ConfigError::BadRoute { .. }), "{bad}: {e:?}");
        assert!(e.localized(EN).contains("expected PROVIDER/MODEL"));
        assert!(e.localized(ZH).contains("应为 提供方/模型"));
    }
    let e = c.resolve_route(Some("openai/gpt")).unwrap_err();
    assert_eq!(
        e.localized(EN),
        "Unknown provider \"openai\" in route \"openai/gpt\". Configured providers: deepseek, deepseek-openai."
    );
    assert!(e.localized(ZH).contains("提供方“openai”不存在"));
    let r = c
        .resolve_route(Some("deepseek/deepseek-flash"))
        .unwrap()
        .with_base_url("http://127.0.0.1:9/anthropic/");
    assert_eq!(r.base_url, "http://127.0.0.1:9/anthropic");
}

#[test]
fn missing_api_key_names_the_variable() {
    let c = Config::parse_in(
        "[providers.p]\nkind = \"openai-chat\"\nbase_url = \"http://h\"\napi_key_env = \"DEEPTERM_TEST_NEVER_SET_KEY_7Q\"",
        None,
        Path::new("/"),
    )
    .unwrap();
    let route = c.resolve_route(Some("p/m")).unwrap();
    let e = c.api_key(&route).unwrap_err();
    assert_eq!(
        e.localized(EN),
        "No API key for provider \"p\": set the environment variable DEEPTERM_TEST_NEVER_SET_KEY_7Q."
    );
    assert!(
        e.localized(ZH)
            .contains("请设置环境变量 DEEPTERM_TEST_NEVER_SET_KEY_7Q")
    );

    // SAFETY: the variable name is unique to this test; no other thread reads it.
    unsafe { std::env::set_var("DEEPTERM_TEST_SET_KEY_7Q", "sk-test-secret") };
    let mut route = route;
    route.api_key_env = "DEEPTERM_TEST_SET_KEY_7Q".into();
    let key = c.api_key(&route).unwrap();
    assert_eq!(key.expose(), "sk-test-secret");
    assert!(!format!("{key:?}").contains("sk-test-secret"));
}

#[test]
fn save_locale_round_trip_keeps_comments() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("config.toml");
    let original = "# my settings\nmodel = \"deepseek/deepseek-v4-pro\" # pro please\n\n[tools.builtin]\n# keep them\nenabled = true\n";
    std::fs::write(&path, original).unwrap();
    save_locale(&path, Locale::ZhCn).unwrap();
    let text = std::fs::read_to_string(&path).unwrap();
    assert!(text.contains("# my settings"));
    assert!(text.contains("# pro please"));
    assert!(text.contains("# keep them"));
    let c = Config::load(Some(&path)).unwrap();
    assert_eq!(c.locale, Some(Locale::ZhCn));
    assert_eq!(c.model, "deepseek/deepseek-v4-pro");
    assert!(c.warnings.is_empty());

    // Replacing keeps a single key and its trailing comment.
    let with_comment = text.replace("locale = \"zh-CN\"", "locale = \"zh-CN\" # ui language");
    std::fs::write(&path, with_comment).unwrap();
    save_locale(&path, Locale::EnUs).unwrap();
    let text = std::fs::read_to_string(&path).unwrap();
    assert_eq!(text.matches("locale").count(), 1, "{text}");
    assert!(text.contains("locale = \"en-US\" # ui language"), "{text}");

    // Absent file and directory are created.
    let fresh = dir.path().join("a/b/config.toml");
    save_locale(&fresh, Locale::ZhCn).unwrap();
    assert_eq!(
        std::fs::read_to_string(&fresh).unwrap(),
        "locale = \"zh-CN\"\n"
    );

    // A broken file is not overwritten.
    std::fs::write(&path, "locale = [\n").unwrap();
    let e = save_locale(&path, Locale::ZhCn).unwrap_err();
    assert!(matches!(e, ConfigError::Syntax { .. }));
    assert_eq!(std::fs::read_to_string(&path).unwrap(), "locale = [\n");
}

// ---------------------------------------------------------------- registry

fn cmd_config(
    description: &str,
    command: &[&str],
    enabled: bool,
    approval: Approval,
) -> CommandToolConfig {
    CommandToolConfig {
        description: description.into(),
        command: command.iter().map(|s| s.to_string()).collect(),
        parameters: serde_json::json!({"type": "object"}),
        enabled,
        approval,
        timeout_secs: 30,
        env_passthrough: vec![],
        parallel: false,
    }
}

fn cmd(name: &str, command: &[&str]) -> RegisteredTool {
    command::tool(name, &cmd_config("d", command, true, Approval::Never))
}

fn names(r: &ToolRegistry) -> Vec<String> {
    r.active_tools().into_iter().map(|t| t.name).collect()
}

fn workspace_registry() -> (tempfile::TempDir, ToolRegistry) {
    let dir = tempfile::tempdir().unwrap();
    let c = Config::default();
    let r = ToolRegistry::from_config(&c, dir.path());
    (dir, r)
}

// ---------------------------------------------------------------- built-in tools

struct Ws {
    _parent: tempfile::TempDir,
    root: PathBuf,
    outside: PathBuf,
    reg: ToolRegistry,
}

fn ws() -> Ws {
    let parent = tempfile::tempdir().unwrap();
    let root = parent.path().join("root");
    std::fs::create_dir(&root).unwrap();
    let outside = parent.path().join("secret.txt");
    std::fs::write(&outside, "top secret\n").unwrap();
    let mut reg = ToolRegistry::new();
    reg.set_source_tools(ToolSource::Builtin, builtin::tools(&root));
    Ws {
        _parent: parent,
        root,
        outside,
        reg,
    }
}

async fn call(
    r: &ToolRegistry,
    name: &str,
    args: serde_json::Value,
) -> deepterm::tools::ToolOutcome {
    r.call(name, &args.to_string(), &CancellationToken::new())
        .await
}

// ---------------------------------------------------------------- prices

#[test]
fn cost_builtin_catalog_carries_deepseek_prices_and_v4_pro_is_billed_as_flash() {
    let c = Config::default();
    for route in [
        "deepseek/deepseek-flash",
        "deepseek/deepseek-v4-flash",
        "deepseek/deepseek-v4-flash-vision-exp",
        "deepseek/deepseek-v4-pro",
        "deepseek-openai/deepseek-flash",
        "deepseek-openai/deepseek-v4-pro",
    ] {
        let p = c.resolve_route(Some(route)).unwrap().caps.prices;
        assert_eq!(
            p,
            Some(deepterm::llm::catalog::Prices {
                input_hit: 0.0028,
                input_miss: 0.14,
                output: 0.28,
            }),
            "{route}"
        );
    }
    // An uncatalogued model has no price: no cost is shown for it.
    let r = c.resolve_route(Some("deepseek/deepseek-next")).unwrap();
    assert_eq!(r.caps.prices, None);
}

#[test]
fn cost_config_prices_override_and_an_entry_without_prices_inherits() {
    let c = Config::parse_in(
        r#"
[[providers.deepseek.models]]
id = "deepseek-flash"
price_input_hit = 0.01
price_input_miss = 0.5
price_output = 2
[[providers.deepseek.models]]
id = "deepseek-v4-pro"
context_window = 64000
[[providers.deepseek.models]]
id = "my-model"
price_input_hit = 0
price_input_miss = 1.25
price_output = 3.5
[[providers.deepseek.models]]
id = "other-model"
"#,
        None,
        Path::new("/"),
    )
    .unwrap();
    assert!(c.warnings.is_empty(), "{:?}", c.warnings);
    let price = |r: &str| {
        c.resolve_route(Some(r))
            .unwrap()
            .caps
            .prices
            .map(|p| (p.input_hit, p.input_miss, p.output))
    };
    assert_eq!(price("deepseek/deepseek-flash"), Some((0.01, 0.5, 2.0)));
    // Sets no prices: keeps the built-in ones of its id.
    assert_eq!(
        price("deepseek/deepseek-v4-pro"),
        Some((0.0028, 0.14, 0.28))
    );
    assert_eq!(price("deepseek/my-model"), Some((0.0, 1.25, 3.5)));
    // Not in the catalog and no prices in the config: unknown.
    assert_eq!(price("deepseek/other-model"), None);
    // The override of one provider leaves the other's built-in prices alone.
    assert_eq!(
        price("deepseek-openai/deepseek-flash"),
        Some((0.0028, 0.14, 0.28))
    );
}

#[test]
fn cost_bad_or_partial_prices_are_localized_errors() {
    let cases: &[(&str, &str, &str, &str)] = &[
        (
            "price_input_hit = -1\nprice_input_miss = 1\nprice_output = 1",
            "providers.deepseek.models[0].price_input_hit",
            "must be a number of US dollars per million tokens, 0 or more",
            "必须是不小于 0 的数字（单位：美元/百万 token）",
        ),
        (
            "price_input_hit = 1\nprice_input_miss = nan\nprice_output = 1",
            "providers.deepseek.models[0].price_input_miss",
            "0 or more",
            "不小于 0",
        ),
        (
            "price_input_hit = 1\nprice_input_miss = 1\nprice_output = \"cheap\"",
            "providers.deepseek.models[0].price_output",
            "must be a number",
            "必须是数字",
        ),
        (
            "price_input_hit = 1\nprice_output = 1",
            "providers.deepseek.models[0].price_input_miss",
            "all three of price_input_hit, price_input_miss and price_output, or none of them",
            "要么同时设置 price_input_hit、price_input_miss 和 price_output 三项，要么一项都不设",
        ),
    ];
    for (body, key, en, zh) in cases {
        let text = format!("[[providers.deepseek.models]]\nid = \"deepseek-flash\"\n{body}");
        let e = parse_err(&text);
        let (le, lz) = (e.localized(EN), e.localized(ZH));
        assert!(le.contains(key) && le.contains(en), "{le}");
        assert!(lz.contains(key) && lz.contains(zh), "{lz}");
        assert!(le.contains("/cfg/deepterm.toml"), "{le}");
    }
}

mod builtin_tools;
mod command_tools;
mod registry;
