//! TOML text → [`Config`], validating every value and naming its dotted key path.
//!
//! The walker consumes each table: known keys are removed as they are read, so whatever
//! is left over is an unknown key and becomes a warning rather than an error.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde_json::Value as Json;
use toml::{Table, Value};

use super::error::{ConfigError, ConfigWarning, Problem};
use super::{
    CommandToolConfig, Config, DEFAULT_COMMAND_TIMEOUT_SECS, Instructions, McpServerConfig,
    ProviderConfig, default_providers,
};
use crate::i18n::Locale;
use crate::llm::catalog::{ModelSpec, Prices};
use crate::llm::types::ProviderKind;
use crate::session::event::{SystemPromptUpdate, ToolRemoval, ToolUpdateMode};
use crate::session::vocab::{Approval, BUILTIN_TOOL_NAMES};

type Res<T> = Result<T, ConfigError>;

/// Appends `key` to a dotted path, quoting keys that are not bare TOML keys.
fn join(prefix: &str, key: &str) -> String {
    let bare = !key.is_empty()
        && key
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-');
    let key = if bare {
        key.to_string()
    } else {
        format!("{key:?}")
    };
    if prefix.is_empty() {
        key
    } else {
        format!("{prefix}.{key}")
    }
}

/// 1-based line and column (in characters) of a byte offset.
fn line_col(text: &str, offset: usize) -> (usize, usize) {
    let offset = offset.min(text.len());
    let before = text.get(..offset).unwrap_or(text);
    let line = before.matches('\n').count() + 1;
    let line_start = before.rfind('\n').map(|i| i + 1).unwrap_or(0);
    let column = before
        .get(line_start..)
        .map(|s| s.chars().count())
        .unwrap_or(0)
        + 1;
    (line, column)
}

const TOP_KEYS: &[&str] = &[
    "locale",
    "model",
    "effort",
    "providers",
    "instructions",
    "mcp",
    "tools",
    "limits",
    "ui",
    "sandbox",
    "approval",
    "checkpoints",
    "hooks",
];
const PROVIDER_KEYS: &[&str] = &["kind", "base_url", "api_key_env", "models"];
const MODEL_KEYS: &[&str] = &[
    "id",
    "context_window",
    "system_prompt_update",
    "tool_update",
    "image_input",
    "max_tools",
    "tool_removal",
    "price_input_hit",
    "price_input_miss",
    "price_output",
    "effort",
];
const INSTRUCTIONS_KEYS: &[&str] = &["text", "files"];
const MCP_KEYS: &[&str] = &["servers", "startup_wait_secs"];
const MCP_SERVER_KEYS: &[&str] = &[
    "command",
    "args",
    "env",
    "enabled",
    "approval",
    "timeout_secs",
    "env_passthrough",
    "max_message_bytes",
    "parallel",
];
const TOOLS_KEYS: &[&str] = &["command", "builtin"];
const BUILTIN_KEYS: &[&str] = &["enabled"];
const COMMAND_TOOL_KEYS: &[&str] = &[
    "description",
    "command",
    "parameters",
    "enabled",
    "approval",
    "timeout_secs",
    "env_passthrough",
    "parallel",
];
const UI_KEYS: &[&str] = &["notify"];
const SANDBOX_KEYS: &[&str] = &["mode", "network", "writable_roots", "backend"];
const APPROVAL_KEYS: &[&str] = &["policy"];
const CHECKPOINT_KEYS: &[&str] = &["enabled", "max_file_bytes"];
const LIMITS_KEYS: &[&str] = &[
    "max_event_bytes",
    "max_reply_bytes",
    "no_progress_timeout_secs",
];

/// The keys the table at dotted path `prefix` accepts (`providers.X`,
/// `providers.X.models[i]`, `mcp.servers.X` and `tools.command.X` by shape).
fn known_keys(prefix: &str) -> &'static [&'static str] {
    match prefix {
        "" => TOP_KEYS,
        "instructions" => INSTRUCTIONS_KEYS,
        "mcp" => MCP_KEYS,
        "tools" => TOOLS_KEYS,
        "tools.builtin" => BUILTIN_KEYS,
        "limits" => LIMITS_KEYS,
        "ui" => UI_KEYS,
        "sandbox" => SANDBOX_KEYS,
        "approval" => APPROVAL_KEYS,
        "checkpoints" => CHECKPOINT_KEYS,
        p if p.starts_with("providers.") && p.ends_with(']') => MODEL_KEYS,
        p if p.starts_with("providers.") => PROVIDER_KEYS,
        p if p.starts_with("mcp.servers.") => MCP_SERVER_KEYS,
        p if p.starts_with("tools.command.") => COMMAND_TOOL_KEYS,
        _ => &[],
    }
}

/// Edit distance with adjacent transpositions (optimal string alignment), over chars.
fn edit_distance(a: &str, b: &str) -> usize {
    let a: Vec<char> = a.chars().collect();
    let b: Vec<char> = b.chars().collect();
    let mut d = vec![vec![0usize; b.len() + 1]; a.len() + 1];
    for (i, row) in d.iter_mut().enumerate() {
        row[0] = i;
    }
    for (j, cell) in d[0].iter_mut().enumerate() {
        *cell = j;
    }
    for i in 1..=a.len() {
        for j in 1..=b.len() {
            let cost = usize::from(a[i - 1] != b[j - 1]);
            let mut v = (d[i - 1][j] + 1)
                .min(d[i][j - 1] + 1)
                .min(d[i - 1][j - 1] + cost);
            if i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] {
                v = v.min(d[i - 2][j - 2] + 1);
            }
            d[i][j] = v;
        }
    }
    d[a.len()][b.len()]
}

/// The known key an unknown one most likely meant: case and `-`/`_` are ignored, and at
/// most two edits are allowed (one for keys of up to five characters).
fn suggest(key: &str, known: &[&'static str]) -> Option<&'static str> {
    // Long keys are not typos of short ones; this also bounds the distance table.
    if key.chars().count() > 64 {
        return None;
    }
    let norm = key.to_lowercase().replace('-', "_");
    known
        .iter()
        .map(|k| (edit_distance(&norm, k), *k))
        .filter(|(d, k)| *d <= if k.len() <= 5 { 1 } else { 2 })
        .min_by_key(|(d, _)| *d)
        .map(|(_, k)| k)
}

/// Checks a provider base URL: an `http://` or `https://` URL with a host. Returns it
/// trimmed, without a trailing slash.
pub(crate) fn check_base_url(s: &str) -> Result<String, Problem> {
    let url = s.trim().trim_end_matches('/');
    let ok = reqwest::Url::parse(url).is_ok_and(|u| {
        matches!(u.scheme(), "http" | "https") && u.host_str().is_some_and(|h| !h.is_empty())
    });
    if ok {
        Ok(url.to_string())
    } else {
        Err(Problem::Url { got: s.to_string() })
    }
}

/// A TOML parser error as a [`ConfigError`]. The parser says only "duplicate key" and
/// points at the repeated key, so that case becomes [`ConfigError::DuplicateKey`] with the
/// key's dotted path.
pub(crate) fn toml_error(
    text: &str,
    file: Option<&Path>,
    message: &str,
    span: Option<std::ops::Range<usize>>,
) -> ConfigError {
    let (line, column) = span
        .as_ref()
        .map(|s| line_col(text, s.start))
        .unwrap_or((1, 1));
    let file = file.map(Path::to_path_buf).unwrap_or_default();
    let message = message.trim();
    if message.starts_with("duplicate key")
        && let Some(key) = span.and_then(|s| duplicate_key_path(text, s))
    {
        return ConfigError::DuplicateKey {
            file,
            line,
            column,
            key,
        };
    }
    ConfigError::Syntax {
        file,
        line,
        column,
        detail: message.to_string(),
    }
}

/// The segments of a dotted TOML key as written (`a."b.c"` → `a`, `b.c`).
fn key_segments(s: &str) -> Option<Vec<String>> {
    toml_edit::Key::parse(s.trim())
        .ok()
        .map(|keys| keys.iter().map(|k| k.get().to_string()).collect())
}

/// Renders a key path, marking entries of arrays of tables with their index
/// (`providers.p.models[1].id`). `arrays` maps each array-of-tables path to the number of
/// its entries so far.
fn render_path(path: &[String], arrays: &BTreeMap<Vec<String>, usize>) -> String {
    let mut out = String::new();
    for i in 0..path.len() {
        out = join(&out, &path[i]);
        if i + 1 < path.len()
            && let Some(n) = arrays.get(&path[..=i])
        {
            out.push_str(&format!("[{}]", n.saturating_sub(1)));
        }
    }
    out
}

/// The dotted path of the key at `span`, reported as a duplicate: the table headers above
/// it give the table (a best-effort line scan), the key's own line gives the rest.
fn duplicate_key_path(text: &str, span: std::ops::Range<usize>) -> Option<String> {
    let segment = text.get(span.clone())?;
    let line_start = text.get(..span.start)?.rfind('\n').map_or(0, |i| i + 1);
    let mut table: Vec<String> = vec![];
    let mut arrays: BTreeMap<Vec<String>, usize> = BTreeMap::new();
    for line in text.get(..line_start)?.lines() {
        let l = line.trim_start();
        if let Some(h) = l.strip_prefix("[[") {
            if let Some(p) = h.split("]]").next().and_then(key_segments) {
                *arrays.entry(p.clone()).or_default() += 1;
                table = p;
            }
        } else if let Some(h) = l.strip_prefix('[')
            && let Some(p) = h.split(']').next().and_then(key_segments)
        {
            table = p;
        }
    }
    let own = text.get(line_start..span.end)?.trim_start();
    let path: Vec<String> = if let Some(h) = own.strip_prefix("[[") {
        key_segments(h)?
    } else if let Some(h) = own.strip_prefix('[') {
        key_segments(h)?
    } else if let Some(k) = key_segments(own) {
        table.extend(k);
        table
    } else {
        // Inside an inline table: the key alone.
        key_segments(segment)?
    };
    Some(render_path(&path, &arrays))
}

struct Walker<'a> {
    file: Option<&'a Path>,
    warnings: Vec<ConfigWarning>,
}

impl Walker<'_> {
    fn err(&self, key: String, problem: Problem) -> ConfigError {
        ConfigError::Invalid {
            file: self.file.map(Path::to_path_buf),
            key,
            problem,
        }
    }

    /// Warns about every key left in `table` that the table does not accept, suggesting
    /// a known key it closely resembles. Known keys that are still there (read by code
    /// elsewhere) are not warned about.
    fn leftovers(&mut self, prefix: &str, table: Table) {
        self.warn_unknown(prefix, &table);
    }

    fn warn_unknown(&mut self, prefix: &str, table: &Table) {
        let known = known_keys(prefix);
        for key in table.keys() {
            if known.contains(&key.as_str()) {
                continue;
            }
            let key_path = join(prefix, key);
            if self.warnings.iter().any(|w| w.key() == key_path) {
                continue;
            }
            self.warnings.push(ConfigWarning::UnknownKey {
                file: self.file.map(Path::to_path_buf),
                key: key_path,
                suggestion: suggest(key, known).map(|k| join(prefix, k)),
            });
        }
    }

    fn table(&self, t: &mut Table, prefix: &str, key: &str) -> Res<Option<Table>> {
        match t.remove(key) {
            None => Ok(None),
            Some(Value::Table(x)) => Ok(Some(x)),
            Some(_) => Err(self.err(join(prefix, key), Problem::Type { expected: "table" })),
        }
    }

    fn string(&self, t: &mut Table, prefix: &str, key: &str) -> Res<Option<String>> {
        match t.remove(key) {
            None => Ok(None),
            Some(Value::String(s)) => Ok(Some(s)),
            Some(_) => Err(self.err(join(prefix, key), Problem::Type { expected: "string" })),
        }
    }

    fn non_empty(&self, t: &mut Table, prefix: &str, key: &str) -> Res<Option<String>> {
        match self.string(t, prefix, key)? {
            Some(s) if s.trim().is_empty() => {
                Err(self.err(join(prefix, key), Problem::EmptyString))
            }
            other => Ok(other),
        }
    }

    fn bool(&self, t: &mut Table, prefix: &str, key: &str) -> Res<Option<bool>> {
        match t.remove(key) {
            None => Ok(None),
            Some(Value::Boolean(b)) => Ok(Some(b)),
            Some(_) => Err(self.err(
                join(prefix, key),
                Problem::Type {
                    expected: "boolean",
                },
            )),
        }
    }

    fn positive(&self, t: &mut Table, prefix: &str, key: &str) -> Res<Option<u64>> {
        match t.remove(key) {
            None => Ok(None),
            Some(Value::Integer(n)) if n >= 1 => Ok(Some(n as u64)),
            Some(Value::Integer(_)) => Err(self.err(join(prefix, key), Problem::PositiveInteger)),
            Some(_) => Err(self.err(
                join(prefix, key),
                Problem::Type {
                    expected: "integer",
                },
            )),
        }
    }

    fn strings(&self, t: &mut Table, prefix: &str, key: &str) -> Res<Option<Vec<String>>> {
        let path = join(prefix, key);
        match t.remove(key) {
            None => Ok(None),
            Some(Value::Array(items)) => items
                .into_iter()
                .enumerate()
                .map(|(i, v)| match v {
                    Value::String(s) => Ok(s),
                    _ => {
                        Err(self.err(format!("{path}[{i}]"), Problem::Type { expected: "string" }))
                    }
                })
                .collect::<Res<Vec<_>>>()
                .map(Some),
            Some(_) => Err(self.err(path, Problem::Type { expected: "array" })),
        }
    }

    fn approval(&self, t: &mut Table, prefix: &str) -> Res<Approval> {
        match self.string(t, prefix, "approval")? {
            None => Ok(Approval::Never),
            Some(s) => Approval::parse(&s)
                .ok_or_else(|| self.err(join(prefix, "approval"), Problem::Approval { got: s })),
        }
    }
}

/// Whether `name` is a valid model-facing tool name (`[A-Za-z0-9_-]{1,64}`).
pub(crate) fn valid_tool_name(name: &str) -> bool {
    (1..=64).contains(&name.len())
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
}

/// Whether `name` is a valid MCP server name (tool names become `<server>__<tool>`).
fn valid_server_name(name: &str) -> bool {
    valid_tool_name(name) && !name.contains("__")
}

/// TOML value → JSON, keeping table order.
fn to_json(v: Value) -> Json {
    match v {
        Value::String(s) => Json::String(s),
        Value::Integer(n) => Json::from(n),
        Value::Float(f) => serde_json::Number::from_f64(f).map_or(Json::Null, Json::Number),
        Value::Boolean(b) => Json::Bool(b),
        Value::Datetime(d) => Json::String(d.to_string()),
        Value::Array(a) => Json::Array(a.into_iter().map(to_json).collect()),
        Value::Table(t) => Json::Object(t.into_iter().map(|(k, v)| (k, to_json(v))).collect()),
    }
}

/// Parses and validates config text. `file` names the file in errors and anchors
/// relative instruction files; `cwd` is the other anchor.
pub(crate) fn parse(text: &str, file: Option<&Path>, cwd: &Path) -> Res<Config> {
    let mut root: Table = text
        .parse()
        .map_err(|e: toml::de::Error| toml_error(text, file, e.message(), e.span()))?;
    let mut w = Walker {
        file,
        warnings: vec![],
    };
    let mut cfg = Config {
        path: file.map(Path::to_path_buf),
        ..Config::default()
    };

    if let Some(s) = w.string(&mut root, "", "locale")? {
        cfg.locale = Some(
            Locale::parse(&s).ok_or_else(|| w.err("locale".into(), Problem::Locale { got: s }))?,
        );
    }
    let model = w.string(&mut root, "", "model")?;
    cfg.effort = parse_effort(&w, &mut root, "")?;

    if let Some(providers) = w.table(&mut root, "", "providers")? {
        for (name, value) in providers {
            let prefix = join("providers", &name);
            if !valid_tool_name(&name) {
                return Err(w.err(prefix, Problem::Name { got: name }));
            }
            let Value::Table(t) = value else {
                return Err(w.err(prefix, Problem::Type { expected: "table" }));
            };
            let p = parse_provider(&mut w, &name, &prefix, t)?;
            cfg.providers.insert(name, p);
        }
    }

    if let Some(spec) = model {
        cfg.resolve_route(Some(&spec)).map_err(|e| {
            let problem = match e {
                ConfigError::UnknownProvider {
                    provider,
                    available,
                    ..
                } => Problem::UnknownProvider {
                    provider,
                    available,
                },
                _ => Problem::RouteSyntax { got: spec.clone() },
            };
            w.err("model".into(), problem)
        })?;
        cfg.model = spec;
    }

    if let Some(mut t) = w.table(&mut root, "", "instructions")? {
        cfg.instructions = parse_instructions(&mut w, &mut t, file, cwd)?;
        w.leftovers("instructions", t);
    }
    cfg.instructions.roots = super::instructions::instruction_roots(cwd, file);

    if let Some(mut mcp) = w.table(&mut root, "", "mcp")? {
        if let Some(servers) = w.table(&mut mcp, "mcp", "servers")? {
            for (name, value) in servers {
                let prefix = join("mcp.servers", &name);
                if !valid_server_name(&name) {
                    return Err(w.err(prefix, Problem::ServerName { got: name }));
                }
                let Value::Table(t) = value else {
                    return Err(w.err(prefix, Problem::Type { expected: "table" }));
                };
                let s = parse_mcp_server(&mut w, &prefix, t)?;
                cfg.mcp_servers.insert(name, s);
            }
        }
        cfg.mcp_startup_wait_secs = w.positive(&mut mcp, "mcp", "startup_wait_secs")?;
        w.leftovers("mcp", mcp);
    }

    if let Some(mut tools) = w.table(&mut root, "", "tools")? {
        if let Some(commands) = w.table(&mut tools, "tools", "command")? {
            for (name, value) in commands {
                let prefix = join("tools.command", &name);
                if !valid_tool_name(&name) {
                    return Err(w.err(prefix, Problem::Name { got: name }));
                }
                if BUILTIN_TOOL_NAMES.contains(&name.as_str()) {
                    return Err(w.err(prefix, Problem::ReservedToolName { name }));
                }
                let Value::Table(t) = value else {
                    return Err(w.err(prefix, Problem::Type { expected: "table" }));
                };
                let c = parse_command_tool(&mut w, &prefix, t)?;
                cfg.command_tools.insert(name, c);
            }
        }
        if let Some(mut b) = w.table(&mut tools, "tools", "builtin")? {
            if let Some(on) = w.bool(&mut b, "tools.builtin", "enabled")? {
                cfg.builtin_tools = on;
            }
            w.leftovers("tools.builtin", b);
        }
        w.leftovers("tools", tools);
    }

    if let Some(t) = w.table(&mut root, "", "limits")? {
        cfg.limits = parse_limits(&mut w, t)?;
    }

    if let Some(mut ui) = w.table(&mut root, "", "ui")? {
        if let Some(on) = w.bool(&mut ui, "ui", "notify")? {
            cfg.ui_notify = on;
        }
        w.leftovers("ui", ui);
    }

    if let Some(t) = w.table(&mut root, "", "sandbox")? {
        cfg.sandbox = parse_sandbox(&mut w, t)?;
    }

    if let Some(mut t) = w.table(&mut root, "", "approval")? {
        if let Some(s) = w.string(&mut t, "approval", "policy")? {
            cfg.approval_policy = Some(
                crate::session::vocab::ApprovalPolicy::parse(&s).ok_or_else(|| {
                    w.err("approval.policy".into(), Problem::ApprovalPolicy { got: s })
                })?,
            );
        }
        w.leftovers("approval", t);
    }

    // `[checkpoints]` (SPEC §14.3).
    if let Some(mut t) = w.table(&mut root, "", "checkpoints")? {
        if let Some(on) = w.bool(&mut t, "checkpoints", "enabled")? {
            cfg.checkpoints.enabled = on;
        }
        if let Some(n) = w.positive(&mut t, "checkpoints", "max_file_bytes")? {
            cfg.checkpoints.max_file_bytes = n;
        }
        w.leftovers("checkpoints", t);
    }

    // `[[hooks.EVENT]]` (SPEC §14.4), parsed in its own file.
    if let Some(t) = w.table(&mut root, "", "hooks")? {
        cfg.hooks = super::hooks::parse_hooks(t, file, &mut w.warnings)?;
    }

    w.leftovers("", root);
    cfg.warnings = w.warnings;
    Ok(cfg)
}

fn parse_provider(
    w: &mut Walker<'_>,
    name: &str,
    prefix: &str,
    mut t: Table,
) -> Res<ProviderConfig> {
    // A provider that shares a built-in provider's name inherits its unset fields, so
    // `[[providers.deepseek.models]]` alone is a complete override.
    let builtin = default_providers().remove(name);
    let kind = match w.string(&mut t, prefix, "kind")? {
        Some(s) => match s.as_str() {
            "deepseek-messages" => ProviderKind::DeepseekMessages,
            "openai-chat" => ProviderKind::OpenaiChat,
            _ => return Err(w.err(join(prefix, "kind"), Problem::ProviderKind { got: s })),
        },
        None => match &builtin {
            Some(b) => b.kind,
            None => return Err(w.err(join(prefix, "kind"), Problem::Required)),
        },
    };
    let base_url = match w.non_empty(&mut t, prefix, "base_url")? {
        Some(s) => check_base_url(&s).map_err(|p| w.err(join(prefix, "base_url"), p))?,
        None => match &builtin {
            Some(b) => b.base_url.clone(),
            None => return Err(w.err(join(prefix, "base_url"), Problem::Required)),
        },
    };
    let api_key_env = match w.non_empty(&mut t, prefix, "api_key_env")? {
        Some(s) => s.trim().to_string(),
        None => match &builtin {
            Some(b) => b.api_key_env.clone(),
            None => return Err(w.err(join(prefix, "api_key_env"), Problem::Required)),
        },
    };
    let mut models: Vec<ModelSpec> = vec![];
    let models_path = join(prefix, "models");
    match t.remove("models") {
        None => {}
        Some(Value::Array(items)) => {
            for (i, item) in items.into_iter().enumerate() {
                let mp = format!("{models_path}[{i}]");
                let Value::Table(mt) = item else {
                    return Err(w.err(mp, Problem::Type { expected: "table" }));
                };
                let spec = parse_model(w, kind, &mp, mt)?;
                if models.iter().any(|m| m.id == spec.id) {
                    return Err(w.err(join(&mp, "id"), Problem::DuplicateModel { id: spec.id }));
                }
                models.push(spec);
            }
        }
        Some(_) => return Err(w.err(models_path, Problem::Type { expected: "array" })),
    }
    w.leftovers(prefix, t);
    Ok(ProviderConfig {
        kind,
        base_url,
        api_key_env,
        models,
    })
}

fn parse_model(
    w: &mut Walker<'_>,
    kind: ProviderKind,
    prefix: &str,
    mut t: Table,
) -> Res<ModelSpec> {
    let id = w
        .non_empty(&mut t, prefix, "id")?
        .ok_or_else(|| w.err(join(prefix, "id"), Problem::Required))?;
    let context_window = w.positive(&mut t, prefix, "context_window")?;
    // An entry naming a built-in id inherits every key it does not set from the built-in
    // entry (decision 0091), so `tool_removal = "retain"` alone is a whole entry; "none"
    // turns a built-in mode off.
    let builtin = crate::llm::catalog::builtin_models(kind)
        .into_iter()
        .find(|m| m.id == id.trim());
    let system_prompt_update = match w.string(&mut t, prefix, "system_prompt_update")? {
        None => builtin.as_ref().and_then(|b| b.system_prompt_update),
        Some(s) if s == "none" => None,
        Some(s) if s == "in-history" => Some(SystemPromptUpdate::InHistory),
        Some(s) => {
            return Err(w.err(
                join(prefix, "system_prompt_update"),
                Problem::SystemPromptUpdate { got: s },
            ));
        }
    };
    let tool_update = match w.string(&mut t, prefix, "tool_update")? {
        None => builtin.as_ref().and_then(|b| b.tool_update),
        Some(s) => match s.as_str() {
            "none" => None,
            "in-history" => Some(ToolUpdateMode::InHistory),
            "addition-only" => Some(ToolUpdateMode::AdditionOnly),
            _ => {
                return Err(w.err(join(prefix, "tool_update"), Problem::ToolUpdate { got: s }));
            }
        },
    };
    let tool_removal = match w.string(&mut t, prefix, "tool_removal")? {
        None => builtin
            .as_ref()
            .map_or(ToolRemoval::Omit, |b| b.tool_removal),
        Some(s) => match s.as_str() {
            "omit" => ToolRemoval::Omit,
            "retain" => ToolRemoval::Retain,
            _ => {
                return Err(w.err(
                    join(prefix, "tool_removal"),
                    Problem::ToolRemoval { got: s },
                ));
            }
        },
    };
    // `retain` only means something where removals would otherwise rewrite history
    // (P-6); the entry's own or inherited `tool_update` decides.
    if tool_removal == ToolRemoval::Retain && tool_update != Some(ToolUpdateMode::AdditionOnly) {
        return Err(w.err(
            join(prefix, "tool_removal"),
            Problem::RetainNeedsAdditionOnly {
                tool_update: tool_update.map(|m| m.as_str()),
            },
        ));
    }
    let image_input = w
        .bool(&mut t, prefix, "image_input")?
        .unwrap_or_else(|| builtin.as_ref().is_some_and(|b| b.image_input));
    let max_tools = w
        .positive(&mut t, prefix, "max_tools")?
        .map(|n| usize::try_from(n).unwrap_or(usize::MAX));
    if kind == ProviderKind::OpenaiChat {
        let field = if tool_update.is_some() {
            Some("tool_update")
        } else if system_prompt_update.is_some() {
            Some("system_prompt_update")
        } else {
            None
        };
        if let Some(field) = field {
            return Err(w.err(
                join(prefix, field),
                Problem::ModesUnsupported {
                    kind: kind.as_str(),
                },
            ));
        }
    }
    let prices = parse_prices(w, prefix, &mut t)?;
    let effort = parse_effort(w, &mut t, prefix)?;
    w.leftovers(prefix, t);
    Ok(ModelSpec {
        id: id.trim().to_string(),
        context_window,
        system_prompt_update,
        tool_update,
        tool_removal,
        image_input,
        max_tools,
        prices,
        effort,
    })
}

/// `effort = "off|low|high|max"` at the top level or in a model entry (SPEC §14.4).
fn parse_effort(
    w: &Walker<'_>,
    t: &mut Table,
    prefix: &str,
) -> Res<Option<crate::session::effort::Effort>> {
    match w.string(t, prefix, "effort")? {
        None => Ok(None),
        Some(s) => crate::session::effort::Effort::parse(s.trim())
            .map(Some)
            .ok_or_else(|| w.err(join(prefix, "effort"), Problem::Effort { got: s })),
    }
}

/// The price keys of a model entry, in USD per million tokens.
const PRICE_KEYS: [&str; 3] = ["price_input_hit", "price_input_miss", "price_output"];

/// A model entry's prices: all three keys or none (none inherits the built-in prices of
/// the id). Each is a finite number ≥ 0; integers are accepted.
fn parse_prices(w: &Walker<'_>, prefix: &str, t: &mut Table) -> Res<Option<Prices>> {
    let mut got = [None; 3];
    for (slot, key) in got.iter_mut().zip(PRICE_KEYS) {
        *slot = match t.remove(key) {
            None => None,
            Some(Value::Float(f)) if f.is_finite() && f >= 0.0 => Some(f),
            Some(Value::Integer(n)) if n >= 0 => Some(n as f64),
            Some(Value::Float(_) | Value::Integer(_)) => {
                return Err(w.err(join(prefix, key), Problem::Price));
            }
            Some(_) => {
                return Err(w.err(join(prefix, key), Problem::Type { expected: "number" }));
            }
        };
    }
    match got {
        [None, None, None] => Ok(None),
        [Some(input_hit), Some(input_miss), Some(output)] => Ok(Some(Prices {
            input_hit,
            input_miss,
            output,
        })),
        _ => {
            let missing = PRICE_KEYS
                .iter()
                .zip(got)
                .find(|(_, v)| v.is_none())
                .map_or(PRICE_KEYS[0], |(k, _)| *k);
            Err(w.err(join(prefix, missing), Problem::PricesIncomplete))
        }
    }
}

fn parse_instructions(
    w: &mut Walker<'_>,
    t: &mut Table,
    file: Option<&Path>,
    cwd: &Path,
) -> Res<Instructions> {
    let text = w.string(t, "instructions", "text")?;
    let mut files = vec![];
    let config_dir = file.and_then(Path::parent);
    for (i, f) in w
        .strings(t, "instructions", "files")?
        .unwrap_or_default()
        .into_iter()
        .enumerate()
    {
        let p = PathBuf::from(&f);
        // The working directory comes first: a global config naming `AGENTS.md` means
        // the project's file.
        let candidates: Vec<PathBuf> = if p.is_absolute() {
            vec![p]
        } else {
            let mut c = vec![cwd.join(&p)];
            if let Some(d) = config_dir {
                c.push(d.join(&p));
            }
            c
        };
        // The first entry that exists and is not a directory is the file: whether it may
        // be read (a regular text file inside the roots) is decided on every read, which
        // names the file and the reason when it refuses (decision 0031).
        let exists = |c: &PathBuf| {
            std::fs::symlink_metadata(c).is_ok() && !std::fs::metadata(c).is_ok_and(|m| m.is_dir())
        };
        match candidates.into_iter().find(exists) {
            Some(found) => files.push(found),
            None => w.warnings.push(ConfigWarning::MissingInstructionFile {
                file: file.map(Path::to_path_buf),
                key: format!("instructions.files[{i}]"),
                path: f,
            }),
        }
    }
    Ok(Instructions {
        text,
        files,
        roots: vec![],
    })
}

fn parse_mcp_server(w: &mut Walker<'_>, prefix: &str, mut t: Table) -> Res<McpServerConfig> {
    let command = w
        .non_empty(&mut t, prefix, "command")?
        .ok_or_else(|| w.err(join(prefix, "command"), Problem::Required))?;
    let args = w.strings(&mut t, prefix, "args")?.unwrap_or_default();
    let mut env = BTreeMap::new();
    if let Some(e) = w.table(&mut t, prefix, "env")? {
        let env_prefix = join(prefix, "env");
        for (k, v) in e {
            match v {
                Value::String(s) => {
                    env.insert(k, s);
                }
                _ => return Err(w.err(join(&env_prefix, &k), Problem::Type { expected: "string" })),
            }
        }
    }
    let enabled = w.bool(&mut t, prefix, "enabled")?.unwrap_or(true);
    let approval = w.approval(&mut t, prefix)?;
    let timeout_secs = w.positive(&mut t, prefix, "timeout_secs")?;
    let max_message_bytes = w.positive(&mut t, prefix, "max_message_bytes")?;
    let env_passthrough = w
        .strings(&mut t, prefix, "env_passthrough")?
        .unwrap_or_default();
    let parallel = w.bool(&mut t, prefix, "parallel")?.unwrap_or(false);
    w.leftovers(prefix, t);
    Ok(McpServerConfig {
        parallel,
        command,
        args,
        env,
        env_passthrough,
        enabled,
        approval,
        timeout_secs,
        max_message_bytes,
    })
}

fn parse_command_tool(w: &mut Walker<'_>, prefix: &str, mut t: Table) -> Res<CommandToolConfig> {
    let description = w
        .non_empty(&mut t, prefix, "description")?
        .ok_or_else(|| w.err(join(prefix, "description"), Problem::Required))?;
    let command = w
        .strings(&mut t, prefix, "command")?
        .ok_or_else(|| w.err(join(prefix, "command"), Problem::Required))?;
    if command.first().is_none_or(|c| c.trim().is_empty()) {
        return Err(w.err(join(prefix, "command"), Problem::EmptyCommand));
    }
    let params_path = join(prefix, "parameters");
    let parameters = match t.remove("parameters") {
        None => serde_json::json!({"type": "object", "properties": {}}),
        Some(Value::Table(pt)) => {
            let mut obj = serde_json::Map::new();
            match pt.get("type") {
                None => {
                    obj.insert("type".into(), Json::from("object"));
                }
                Some(Value::String(s)) if s == "object" => {}
                Some(_) => {
                    return Err(w.err(join(&params_path, "type"), Problem::ParametersNotObject));
                }
            }
            for (k, v) in pt {
                obj.insert(k, to_json(v));
            }
            Json::Object(obj)
        }
        Some(_) => return Err(w.err(params_path, Problem::Type { expected: "table" })),
    };
    let enabled = w.bool(&mut t, prefix, "enabled")?.unwrap_or(true);
    let approval = w.approval(&mut t, prefix)?;
    let timeout_secs = w
        .positive(&mut t, prefix, "timeout_secs")?
        .unwrap_or(DEFAULT_COMMAND_TIMEOUT_SECS);
    let env_passthrough = w
        .strings(&mut t, prefix, "env_passthrough")?
        .unwrap_or_default();
    let parallel = w.bool(&mut t, prefix, "parallel")?.unwrap_or(false);
    w.leftovers(prefix, t);
    Ok(CommandToolConfig {
        parallel,
        description,
        command,
        parameters,
        enabled,
        approval,
        timeout_secs,
        env_passthrough,
    })
}

/// `[limits]`: positive integers; other keys are warned about.
fn parse_limits(w: &mut Walker<'_>, mut t: Table) -> Res<super::Limits> {
    let [event, reply, progress] = super::Limits::KEYS;
    let limits = super::Limits {
        max_event_bytes: w.positive(&mut t, "limits", event)?,
        max_reply_bytes: w.positive(&mut t, "limits", reply)?,
        no_progress_timeout_secs: w.positive(&mut t, "limits", progress)?,
    };
    w.leftovers("limits", t);
    Ok(limits)
}

/// `[sandbox]` (SPEC §14.2); relative `writable_roots` are resolved against the workspace
/// later ([`crate::sandbox::WriteScope::new`]).
fn parse_sandbox(w: &mut Walker<'_>, mut t: Table) -> Res<crate::sandbox::SandboxSettings> {
    use crate::sandbox::{BackendChoice, SandboxMode, SandboxSettings};
    let mut s = SandboxSettings::default();
    if let Some(m) = w.string(&mut t, "sandbox", "mode")? {
        s.mode = SandboxMode::parse(&m)
            .ok_or_else(|| w.err("sandbox.mode".into(), Problem::SandboxMode { got: m }))?;
    }
    if let Some(b) = w.string(&mut t, "sandbox", "backend")? {
        s.backend = match b.as_str() {
            "auto" => BackendChoice::Auto,
            "bwrap" => BackendChoice::Bwrap,
            "landlock" => BackendChoice::Landlock,
            _ => return Err(w.err("sandbox.backend".into(), Problem::SandboxBackend { got: b })),
        };
    }
    s.network = w.bool(&mut t, "sandbox", "network")?.unwrap_or(false);
    if let Some(roots) = w.strings(&mut t, "sandbox", "writable_roots")? {
        s.writable_roots = roots.into_iter().map(PathBuf::from).collect();
    }
    w.leftovers("sandbox", t);
    Ok(s)
}

#[cfg(test)]
mod tests {
    use super::*;

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
    fn tool_removal_retain_reaches_the_route_on_addition_only() {
        let text = retain_entry(
            "tool_update = \"addition-only\"",
            "tool_removal = \"retain\"",
        );
        let cfg = parse(&text, None, Path::new(".")).unwrap();
        assert!(cfg.warnings.is_empty(), "{:?}", cfg.warnings);
        let route = cfg.resolve_route(None).unwrap();
        assert_eq!(route.tool_removal, ToolRemoval::Retain);
        // Absent or "omit": the default.
        for removal in ["", "tool_removal = \"omit\""] {
            let text = retain_entry("tool_update = \"addition-only\"", removal);
            let cfg = parse(&text, None, Path::new(".")).unwrap();
            assert_eq!(
                cfg.resolve_route(None).unwrap().tool_removal,
                ToolRemoval::Omit
            );
        }
    }

    #[test]
    fn tool_removal_retain_off_addition_only_is_a_clear_error_in_both_locales() {
        use crate::i18n::{Locale, Localizer};
        for (tool_update, en_needle, zh_needle) in [
            (
                "tool_update = \"in-history\"",
                "tool_update = \"in-history\"",
                "“in-history”",
            ),
            ("", "sets no tool_update", "未设置 tool_update"),
        ] {
            let text = retain_entry(tool_update, "tool_removal = \"retain\"");
            let err = parse(&text, None, Path::new(".")).unwrap_err();
            let en = err.localized(Localizer::new(Locale::EnUs));
            assert!(en.contains("providers.p.models[0].tool_removal"), "{en}");
            assert!(en.contains("\"addition-only\""), "{en}");
            assert!(en.contains(en_needle), "{en}");
            let zh = err.localized(Localizer::new(Locale::ZhCn));
            assert!(zh.contains(zh_needle), "{zh}");
        }
        let text = retain_entry("tool_update = \"addition-only\"", "tool_removal = \"keep\"");
        let en = parse(&text, None, Path::new("."))
            .unwrap_err()
            .localized(Localizer::new(Locale::EnUs));
        assert!(
            en.contains("\"omit\" or \"retain\"") && en.contains("keep"),
            "{en}"
        );
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
}
