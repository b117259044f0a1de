//! Property tests of the config parser
//! (`Config::parse_in`). Generated valid configs parse back to what was generated (with
//! any added unknown keys reported as warnings); arbitrary TOML-ish text and arbitrary
//! mutations of valid configs never panic and give either a config or an error that names
//! a key or a line. Cases: `DEEPTERM_PROPTEST_CASES`, else 10,000 per property.

use std::collections::BTreeMap;
use std::path::Path;

use deepterm::config::{Config, ConfigError, ConfigWarning};
use deepterm::i18n::{Locale, Localizer};
use deepterm::llm::types::ProviderKind;
use deepterm::tools::{Approval, BUILTIN_TOOL_NAMES};
use proptest::prelude::*;
use toml::{Table, Value};

const FILE: &str = "/cfg/deepterm.toml";

fn parse(text: &str) -> Result<Config, ConfigError> {
    Config::parse_in(text, Some(Path::new(FILE)), Path::new("/nonexistent-cwd"))
}

// ------------------------------------------------------------------ generated configs

#[derive(Debug, Clone)]
struct GenModel {
    id: String,
    context_window: Option<u64>,
    image_input: Option<bool>,
    in_history: bool,
}

#[derive(Debug, Clone)]
struct GenProvider {
    kind: ProviderKind,
    base_url: String,
    api_key_env: String,
    models: Vec<GenModel>,
}

#[derive(Debug, Clone)]
struct GenTool {
    description: String,
    command: Vec<String>,
    enabled: Option<bool>,
    ask: Option<bool>,
    timeout_secs: Option<u64>,
}

#[derive(Debug, Clone)]
struct GenServer {
    command: String,
    args: Vec<String>,
    env: BTreeMap<String, String>,
    enabled: Option<bool>,
    timeout_secs: Option<u64>,
}

#[derive(Debug, Clone)]
struct GenConfig {
    locale: Option<Locale>,
    providers: BTreeMap<String, GenProvider>,
    /// Index into the providers and a model id for `model`.
    route: Option<(usize, String)>,
    tools: BTreeMap<String, GenTool>,
    servers: BTreeMap<String, GenServer>,
    builtin: Option<bool>,
    /// Unknown keys to add: (table selector, key).
    unknown: Vec<(usize, String)>,
}

fn name() -> impl Strategy<Value = String> {
    "[a-z][a-z0-9_-]{0,10}".prop_filter("no __ and not built in", |n| {
        !n.contains("__") && !BUILTIN_TOOL_NAMES.contains(&n.as_str())
    })
}

/// Text with characters TOML must quote or escape.
fn text() -> impl Strategy<Value = String> {
    "[a-zA-Z0-9 ._/'\"\\\\é中\t#=\\[\\]{}-]{1,16}"
        .prop_filter("not blank", |s| !s.trim().is_empty())
}

fn model() -> impl Strategy<Value = GenModel> {
    (
        "[a-z][a-z0-9.-]{0,12}",
        proptest::option::of(1u64..2_000_000),
        proptest::option::of(any::<bool>()),
        any::<bool>(),
    )
        .prop_map(|(id, context_window, image_input, in_history)| GenModel {
            id,
            context_window,
            image_input,
            in_history,
        })
}

fn provider() -> impl Strategy<Value = GenProvider> {
    (
        any::<bool>(),
        prop_oneof![Just("http"), Just("https")],
        "[a-z][a-z0-9]{0,10}(\\.[a-z]{2,5}){0,2}",
        proptest::option::of(1u16..),
        "(/[a-z0-9_-]{1,8}){0,3}",
        "[A-Z][A-Z0-9_]{0,15}",
        proptest::collection::vec(model(), 0..3),
    )
        .prop_map(|(messages, scheme, host, port, path, env, models)| {
            let mut seen = std::collections::HashSet::new();
            let models = models
                .into_iter()
                .filter(|m| seen.insert(m.id.clone()))
                .collect();
            GenProvider {
                kind: if messages {
                    ProviderKind::DeepseekMessages
                } else {
                    ProviderKind::OpenaiChat
                },
                base_url: match port {
                    Some(p) => format!("{scheme}://{host}:{p}{path}"),
                    None => format!("{scheme}://{host}{path}"),
                },
                api_key_env: env,
                models,
            }
        })
}

fn tool() -> impl Strategy<Value = GenTool> {
    (
        text(),
        proptest::collection::vec(text(), 1..4),
        proptest::option::of(any::<bool>()),
        proptest::option::of(any::<bool>()),
        proptest::option::of(1u64..10_000),
    )
        .prop_map(
            |(description, command, enabled, ask, timeout_secs)| GenTool {
                description,
                command,
                enabled,
                ask,
                timeout_secs,
            },
        )
}

fn server() -> impl Strategy<Value = GenServer> {
    (
        text(),
        proptest::collection::vec(text(), 0..3),
        proptest::collection::btree_map("[A-Z_]{1,8}", text(), 0..3),
        proptest::option::of(any::<bool>()),
        proptest::option::of(1u64..10_000),
    )
        .prop_map(|(command, args, env, enabled, timeout_secs)| GenServer {
            command,
            args,
            env,
            enabled,
            timeout_secs,
        })
}

fn gen_config() -> impl Strategy<Value = GenConfig> {
    (
        proptest::option::of(prop_oneof![Just(Locale::EnUs), Just(Locale::ZhCn)]),
        proptest::collection::btree_map(name(), provider(), 0..3),
        proptest::option::of((any::<usize>(), "[a-z][a-z0-9.-]{0,12}")),
        proptest::collection::btree_map(name(), tool(), 0..3),
        proptest::collection::btree_map(name(), server(), 0..3),
        proptest::option::of(any::<bool>()),
        // Unknown keys end in `x`, which no known key does.
        proptest::collection::vec((0usize..8, "[a-z][a-z_]{0,8}x"), 0..4),
    )
        .prop_map(
            |(locale, providers, route, tools, servers, builtin, unknown)| GenConfig {
                locale,
                providers,
                route,
                tools,
                servers,
                builtin,
                unknown,
            },
        )
}

fn route_of(g: &GenConfig) -> Option<String> {
    let (i, model) = g.route.as_ref()?;
    let names: Vec<&String> = g.providers.keys().collect();
    if names.is_empty() {
        return None;
    }
    Some(format!("{}/{model}", names[i % names.len()]))
}

/// Renders the generated config as TOML (through the `toml` serializer, so every string
/// is quoted correctly) and returns the unknown keys added, as dotted paths.
fn render(g: &GenConfig) -> (String, Vec<String>) {
    let mut root = Table::new();
    if let Some(l) = g.locale {
        root.insert("locale".into(), Value::from(l.tag()));
    }
    if let Some(r) = route_of(g) {
        root.insert("model".into(), Value::from(r));
    }
    let mut providers = Table::new();
    for (name, p) in &g.providers {
        let mut t = Table::new();
        t.insert("kind".into(), Value::from(p.kind.as_str()));
        t.insert("base_url".into(), Value::from(p.base_url.clone()));
        t.insert("api_key_env".into(), Value::from(p.api_key_env.clone()));
        if !p.models.is_empty() {
            let models = p
                .models
                .iter()
                .map(|m| {
                    let mut mt = Table::new();
                    mt.insert("id".into(), Value::from(m.id.clone()));
                    if let Some(c) = m.context_window {
                        mt.insert("context_window".into(), Value::from(c as i64));
                    }
                    if let Some(b) = m.image_input {
                        mt.insert("image_input".into(), Value::from(b));
                    }
                    if m.in_history && p.kind == ProviderKind::DeepseekMessages {
                        mt.insert("tool_update".into(), Value::from("in-history"));
                        mt.insert("system_prompt_update".into(), Value::from("in-history"));
                    }
                    Value::Table(mt)
                })
                .collect();
            t.insert("models".into(), Value::Array(models));
        }
        providers.insert(name.clone(), Value::Table(t));
    }
    if !providers.is_empty() {
        root.insert("providers".into(), Value::Table(providers));
    }
    let mut tools = Table::new();
    let mut commands = Table::new();
    for (name, c) in &g.tools {
        let mut t = Table::new();
        t.insert("description".into(), Value::from(c.description.clone()));
        t.insert(
            "command".into(),
            Value::Array(c.command.iter().cloned().map(Value::from).collect()),
        );
        if let Some(e) = c.enabled {
            t.insert("enabled".into(), Value::from(e));
        }
        if let Some(a) = c.ask {
            t.insert(
                "approval".into(),
                Value::from(if a { "ask" } else { "never" }),
            );
        }
        if let Some(s) = c.timeout_secs {
            t.insert("timeout_secs".into(), Value::from(s as i64));
        }
        commands.insert(name.clone(), Value::Table(t));
    }
    if !commands.is_empty() {
        tools.insert("command".into(), Value::Table(commands));
    }
    if let Some(b) = g.builtin {
        let mut t = Table::new();
        t.insert("enabled".into(), Value::from(b));
        tools.insert("builtin".into(), Value::Table(t));
    }
    if !tools.is_empty() {
        root.insert("tools".into(), Value::Table(tools));
    }
    let mut servers = Table::new();
    for (name, s) in &g.servers {
        let mut t = Table::new();
        t.insert("command".into(), Value::from(s.command.clone()));
        t.insert(
            "args".into(),
            Value::Array(s.args.iter().cloned().map(Value::from).collect()),
        );
        let env: Table = s
            .env
            .iter()
            .map(|(k, v)| (k.clone(), Value::from(v.clone())))
            .collect();
        t.insert("env".into(), Value::Table(env));
        if let Some(e) = s.enabled {
            t.insert("enabled".into(), Value::from(e));
        }
        if let Some(x) = s.timeout_secs {
            t.insert("timeout_secs".into(), Value::from(x as i64));
        }
        servers.insert(name.clone(), Value::Table(t));
    }
    if !servers.is_empty() {
        let mut mcp = Table::new();
        mcp.insert("servers".into(), Value::Table(servers));
        root.insert("mcp".into(), Value::Table(mcp));
    }
    // Unknown keys: at the top, or in the first provider / tool / server when present.
    let mut unknown = vec![];
    for (sel, key) in &g.unknown {
        let (table, prefix): (Option<&mut Table>, String) = match sel {
            1 => first_table(&mut root, &["providers"]),
            2 => first_table(&mut root, &["tools", "command"]),
            3 => first_table(&mut root, &["mcp", "servers"]),
            _ => (Some(&mut root), String::new()),
        };
        let Some(table) = table else { continue };
        if table.contains_key(key) {
            continue;
        }
        table.insert(key.clone(), Value::from(1));
        unknown.push(if prefix.is_empty() {
            key.clone()
        } else {
            format!("{prefix}.{key}")
        });
    }
    (toml::to_string(&root).expect("serializable"), unknown)
}

/// The first sub-table under `path` and its dotted path.
fn first_table<'a>(root: &'a mut Table, path: &[&str]) -> (Option<&'a mut Table>, String) {
    let mut t = root;
    for p in path {
        match t.get_mut(*p) {
            Some(Value::Table(x)) => t = x,
            _ => return (None, String::new()),
        }
    }
    let Some((name, Value::Table(first))) = t.iter_mut().next() else {
        return (None, String::new());
    };
    let prefix = format!("{}.{name}", path.join("."));
    (Some(first), prefix)
}

fn check_round_trip(g: &GenConfig, c: &Config, unknown: &[String]) -> Result<(), TestCaseError> {
    prop_assert_eq!(c.locale, g.locale);
    match route_of(g) {
        Some(r) => prop_assert_eq!(&c.model, &r),
        None => prop_assert_eq!(c.model.as_str(), deepterm::config::DEFAULT_MODEL),
    }
    for (name, p) in &g.providers {
        let got = &c.providers[name];
        prop_assert_eq!(got.kind, p.kind);
        prop_assert_eq!(&got.base_url, &p.base_url);
        prop_assert_eq!(&got.api_key_env, &p.api_key_env);
        prop_assert_eq!(got.models.len(), p.models.len());
        for (m, gm) in got.models.iter().zip(&p.models) {
            prop_assert_eq!(&m.id, &gm.id);
            if let Some(window) = gm.context_window {
                prop_assert_eq!(m.caps.context_window, window);
            }
            prop_assert_eq!(m.caps.image_input, gm.image_input.unwrap_or(false));
            let in_history = gm.in_history && p.kind == ProviderKind::DeepseekMessages;
            prop_assert_eq!(m.caps.tool_update.is_some(), in_history);
        }
    }
    prop_assert_eq!(c.command_tools.len(), g.tools.len());
    for (name, t) in &g.tools {
        let got = &c.command_tools[name];
        prop_assert_eq!(&got.description, &t.description);
        prop_assert_eq!(&got.command, &t.command);
        prop_assert_eq!(got.enabled, t.enabled.unwrap_or(true));
        let approval = if t.ask == Some(true) {
            Approval::Ask
        } else {
            Approval::Never
        };
        prop_assert_eq!(got.approval, approval);
        prop_assert_eq!(got.timeout_secs, t.timeout_secs.unwrap_or(30));
    }
    prop_assert_eq!(c.mcp_servers.len(), g.servers.len());
    for (name, s) in &g.servers {
        let got = &c.mcp_servers[name];
        prop_assert_eq!(&got.command, &s.command);
        prop_assert_eq!(&got.args, &s.args);
        prop_assert_eq!(&got.env, &s.env);
        prop_assert_eq!(got.enabled, s.enabled.unwrap_or(true));
        prop_assert_eq!(got.timeout_secs, s.timeout_secs);
    }
    prop_assert_eq!(c.builtin_tools, g.builtin.unwrap_or(true));
    let mut warned: Vec<String> = c
        .warnings
        .iter()
        .map(|w| match w {
            ConfigWarning::UnknownKey { key, .. } => key.clone(),
            other => format!("unexpected {other:?}"),
        })
        .collect();
    warned.sort();
    let mut want = unknown.to_vec();
    want.sort();
    prop_assert_eq!(warned, want);
    Ok(())
}

// ------------------------------------------------------------------ errors name a key or line

/// Every parse outcome must be a config or an error that names a key or a line, in both
/// languages, and never mentions a variant that parsing cannot produce.
fn check_outcome(text: &str, r: Result<Config, ConfigError>) -> Result<(), TestCaseError> {
    let Err(e) = r else { return Ok(()) };
    let lines = text.split('\n').count();
    for l in [Localizer::new(Locale::EnUs), Localizer::new(Locale::ZhCn)] {
        let shown = e.localized(l);
        prop_assert!(!shown.is_empty());
        match &e {
            ConfigError::Syntax { file, line, .. }
            | ConfigError::DuplicateKey { file, line, .. } => {
                prop_assert_eq!(file.as_path(), Path::new(FILE));
                prop_assert!(*line >= 1 && *line <= lines, "line {} of {}", line, lines);
                prop_assert!(shown.contains(&line.to_string()), "{}", shown);
                if let ConfigError::DuplicateKey { key, .. } = &e {
                    prop_assert!(!key.is_empty());
                    prop_assert!(shown.contains(&format!("`{key}`")), "{}", shown);
                }
            }
            ConfigError::Invalid { file, key, .. } => {
                prop_assert_eq!(file.as_deref(), Some(Path::new(FILE)));
                prop_assert!(!key.is_empty());
                prop_assert!(shown.contains(&format!("`{key}`")), "{}", shown);
            }
            other => prop_assert!(false, "parsing cannot give {:?}", other),
        }
    }
    Ok(())
}

/// TOML-ish lines: headers, key/value pairs with known and unknown keys, broken pieces.
fn tomlish_line() -> impl Strategy<Value = String> {
    let key = prop_oneof![
        Just("model".to_string()),
        Just("locale".to_string()),
        Just("kind".to_string()),
        Just("base_url".to_string()),
        Just("api_key_env".to_string()),
        Just("id".to_string()),
        Just("command".to_string()),
        Just("description".to_string()),
        Just("enabled".to_string()),
        Just("approval".to_string()),
        Just("timeout_secs".to_string()),
        Just("files".to_string()),
        Just("text".to_string()),
        Just("tool_update".to_string()),
        Just("parameters".to_string()),
        Just("env".to_string()),
        Just("args".to_string()),
        "[a-z_]{1,8}",
        "\"[a-z. ]{0,6}\"",
    ];
    let value = prop_oneof![
        "\"[a-zA-Z0-9/:._ -]{0,20}\"",
        Just("\"deepseek/deepseek-flash\"".to_string()),
        Just("\"https://api.deepseek.com\"".to_string()),
        Just("\"openai-chat\"".to_string()),
        Just("\"deepseek-messages\"".to_string()),
        Just("\"in-history\"".to_string()),
        Just("\"ask\"".to_string()),
        "-?[0-9]{1,20}",
        Just("true".to_string()),
        Just("1.5".to_string()),
        Just("1979-05-27T07:32:00Z".to_string()),
        Just("[]".to_string()),
        Just("[\"a\", \"b\"]".to_string()),
        Just("[1, \"x\"]".to_string()),
        Just("{ type = \"object\" }".to_string()),
        Just("{ a = 1, a = 2 }".to_string()),
        Just("{}".to_string()),
        Just("\"\"\"multi\nline\"\"\"".to_string()),
        Just("'lit'".to_string()),
        "[^\n]{0,8}",
    ];
    let table = prop_oneof![
        Just("providers.p".to_string()),
        Just("providers.deepseek".to_string()),
        Just("mcp.servers.s".to_string()),
        Just("tools.command.t".to_string()),
        Just("tools.builtin".to_string()),
        Just("instructions".to_string()),
        Just("limits".to_string()),
        Just("mcp".to_string()),
        Just("tools".to_string()),
        "[a-z._]{1,12}",
    ];
    prop_oneof![
        4 => (key.clone(), value).prop_map(|(k, v)| format!("{k} = {v}")),
        2 => table.clone().prop_map(|t| format!("[{t}]")),
        1 => table.prop_map(|t| format!("[[{t}.models]]")),
        1 => key.prop_map(|k| format!("{k}.x = 1")),
        1 => "[^\n]{0,20}",
        1 => Just(String::new()),
        1 => Just("# comment".to_string()),
    ]
}

#[derive(Debug, Clone)]
enum Mutation {
    /// Remove bytes `[at, at + len)` (clamped to char boundaries).
    Delete(usize, usize),
    /// Insert text at a byte offset.
    Insert(usize, String),
    /// Repeat a line.
    DuplicateLine(usize),
    /// Swap two lines.
    SwapLines(usize, usize),
    /// Cut the text.
    Truncate(usize),
}

fn mutation() -> impl Strategy<Value = Mutation> {
    prop_oneof![
        (any::<usize>(), 1usize..12).prop_map(|(a, l)| Mutation::Delete(a, l)),
        (
            any::<usize>(),
            prop_oneof![
                Just("=".to_string()),
                Just("\"".to_string()),
                Just("[".to_string()),
                Just("]".to_string()),
                Just("\n".to_string()),
                Just(".".to_string()),
                Just("#".to_string()),
                Just("x".to_string()),
                Just("\\".to_string()),
                Just("é".to_string()),
                "[^\u{0}]{1,4}",
            ]
        )
            .prop_map(|(a, s)| Mutation::Insert(a, s)),
        any::<usize>().prop_map(Mutation::DuplicateLine),
        (any::<usize>(), any::<usize>()).prop_map(|(a, b)| Mutation::SwapLines(a, b)),
        any::<usize>().prop_map(Mutation::Truncate),
    ]
}

fn floor_boundary(s: &str, mut i: usize) -> usize {
    i = i.min(s.len());
    while !s.is_char_boundary(i) {
        i -= 1;
    }
    i
}

fn apply(text: &str, m: &Mutation) -> String {
    let mut s = text.to_string();
    match m {
        Mutation::Delete(at, len) => {
            if !s.is_empty() {
                let a = floor_boundary(&s, at % (s.len() + 1));
                let b = floor_boundary(&s, a + len);
                s.replace_range(a..b, "");
            }
        }
        Mutation::Insert(at, t) => {
            let a = floor_boundary(&s, at % (s.len() + 1));
            s.insert_str(a, t);
        }
        Mutation::DuplicateLine(i) => {
            let mut lines: Vec<&str> = text.split('\n').collect();
            let i = i % lines.len();
            let line = lines[i];
            lines.insert(i, line);
            s = lines.join("\n");
        }
        Mutation::SwapLines(a, b) => {
            let mut lines: Vec<&str> = text.split('\n').collect();
            let n = lines.len();
            lines.swap(a % n, b % n);
            s = lines.join("\n");
        }
        Mutation::Truncate(at) => {
            let a = floor_boundary(&s, at % (s.len() + 1));
            s.truncate(a);
        }
    }
    s
}

proptest! {
    #![proptest_config(ProptestConfig { cases: deepterm::testing::proptest_cases(10_000), ..ProptestConfig::default() })]

    #[test]
    fn proptest_config_generated_configs_round_trip(g in gen_config()) {
        let (text, unknown) = render(&g);
        let c = parse(&text).map_err(|e| TestCaseError::fail(format!("{e}\n---\n{text}")))?;
        check_round_trip(&g, &c, &unknown)?;
    }

    #[test]
    fn proptest_config_mutated_configs_never_panic_and_errors_name_a_key_or_line(
        g in gen_config(),
        muts in proptest::collection::vec(mutation(), 1..4),
    ) {
        let (mut text, _) = render(&g);
        for m in &muts {
            text = apply(&text, m);
        }
        let r = parse(&text);
        check_outcome(&text, r)?;
    }

    #[test]
    fn proptest_config_tomlish_text_never_panics_and_errors_name_a_key_or_line(
        lines in proptest::collection::vec(tomlish_line(), 0..24),
        crlf in any::<bool>(),
    ) {
        let text = lines.join(if crlf { "\r\n" } else { "\n" });
        let r = parse(&text);
        check_outcome(&text, r)?;
    }
}
