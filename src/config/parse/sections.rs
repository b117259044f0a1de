//! The config's tables one by one: providers and their models, instructions, MCP
//! servers, command tools, limits and the sandbox.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde_json::Value as Json;
use toml::{Table, Value};

use crate::config::error::{ConfigWarning, Problem};
use crate::config::{
    CommandToolConfig, DEFAULT_COMMAND_TIMEOUT_SECS, Instructions, McpServerConfig, ProviderConfig,
    RemoteMcpConfig, default_providers,
};
use crate::llm::catalog::{Capabilities, ModelSpec, Prices, Unset};
use crate::llm::types::ProviderKind;
use crate::session::event::{SystemPromptUpdate, ToolRemoval, ToolUpdateMode};
use crate::session::vocab::Approval;

use super::walker::*;

/// Whether `name` is a valid model-facing tool name (`[A-Za-z0-9_-]{1,64}`).
pub(crate) fn valid_tool_name(name: &str) -> bool {
    (1..=64).contains(&name.len())
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
}

/// Whether `name` is a valid MCP server name (tool names become `<server>__<tool>`).
pub(super) fn valid_server_name(name: &str) -> bool {
    valid_tool_name(name) && !name.contains("__")
}

pub(super) fn parse_provider(
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

pub(super) fn parse_model(
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
    // entry, so `tool_removal = "retain"` alone is a whole entry; "none"
    // turns a built-in mode off.
    let builtin = crate::llm::catalog::builtin_models(kind)
        .into_iter()
        .find(|m| m.id == id.trim())
        .map(|m| m.caps);
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
            .map_or(ToolRemoval::CONFIG_DEFAULT, |b| b.tool_removal),
        Some(s) => match s.as_str() {
            "rewrite" | "omit" => ToolRemoval::Omit,
            "retain" => ToolRemoval::Retain,
            _ => {
                return Err(w.err(
                    join(prefix, "tool_removal"),
                    Problem::ToolRemoval { got: s },
                ));
            }
        },
    };
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
    let declared = Capabilities {
        context_window: context_window.unwrap_or(0),
        system_prompt_update,
        tool_update,
        tool_removal,
        image_input,
        max_tools: max_tools.unwrap_or(0),
        prices,
    };
    let unset = Unset {
        context_window: context_window.is_none(),
        max_tools: max_tools.is_none(),
        prices: prices.is_none(),
    };
    let mut spec = ModelSpec::configured(kind, id.trim(), declared, unset);
    spec.effort = effort;
    Ok(spec)
}

/// `effort = "off|low|high|max"` at the top level or in a model entry (SPEC §14.4).
pub(super) fn parse_effort(
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
pub(super) const PRICE_KEYS: [&str; 3] = ["price_input_hit", "price_input_miss", "price_output"];

/// A model entry's prices: all three keys or none (none inherits the built-in prices of
/// the id). Each is a finite number ≥ 0; integers are accepted.
pub(super) fn parse_prices(w: &Walker<'_>, prefix: &str, t: &mut Table) -> Res<Option<Prices>> {
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

pub(super) fn parse_instructions(
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
        // names the file and the reason when it refuses.
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

pub(super) fn parse_mcp_server(
    w: &mut Walker<'_>,
    prefix: &str,
    mut t: Table,
) -> Res<McpServerConfig> {
    let command = w.non_empty(&mut t, prefix, "command")?;
    let url = w.non_empty(&mut t, prefix, "url")?;
    // A server is either started here or reached over HTTP (SPEC §15.2), never both.
    let remote_url = match (command.is_some(), url) {
        (true, None) => None,
        (false, Some(u)) => Some(check_base_url(&u).map_err(|p| w.err(join(prefix, "url"), p))?),
        (true, Some(_)) => return Err(w.err(join(prefix, "url"), Problem::McpCommandOrUrl)),
        (false, None) => return Err(w.err(join(prefix, "command"), Problem::McpCommandOrUrl)),
    };
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
    // One more value than other tools' `approval`: the server's read-only hints may be
    // trusted, but only when the user says so (SPEC §15.2).
    let (approval, trust_read_only_hint) = match w.string(&mut t, prefix, "approval")? {
        None => (Approval::Never, false),
        Some(s) if s == "trust-read-only-hint" => (Approval::Ask, true),
        Some(s) => match Approval::parse(&s) {
            Some(a) => (a, false),
            None => return Err(w.err(join(prefix, "approval"), Problem::McpApproval { got: s })),
        },
    };
    let timeout_secs = w.positive(&mut t, prefix, "timeout_secs")?;
    let max_message_bytes = w.positive(&mut t, prefix, "max_message_bytes")?;
    let env_passthrough = w
        .strings(&mut t, prefix, "env_passthrough")?
        .unwrap_or_default();
    let parallel = w.bool(&mut t, prefix, "parallel")?.unwrap_or(false);
    let remote = match remote_url {
        Some(url) => {
            for (key, set) in [
                ("args", !args.is_empty()),
                ("env", !env.is_empty()),
                ("env_passthrough", !env_passthrough.is_empty()),
            ] {
                if set {
                    return Err(w.err(join(prefix, key), Problem::McpKeyNotFor { remote: true }));
                }
            }
            Some(parse_remote(w, prefix, &mut t, url)?)
        }
        None => {
            for key in ["headers", "bearer_token_env", "auth", "client_id"] {
                if t.contains_key(key) {
                    return Err(w.err(join(prefix, key), Problem::McpKeyNotFor { remote: false }));
                }
            }
            None
        }
    };
    w.leftovers(prefix, t);
    Ok(McpServerConfig {
        parallel,
        command: command.unwrap_or_default(),
        args,
        env,
        env_passthrough,
        enabled,
        approval,
        trust_read_only_hint,
        timeout_secs,
        max_message_bytes,
        remote,
    })
}

/// Headers the transport sets itself: a configured one would break the protocol or, for
/// `Authorization`, bypass `bearer_token_env` and put a secret in the config file.
const RESERVED_HEADERS: [&str; 7] = [
    "authorization",
    "accept",
    "content-type",
    "host",
    "last-event-id",
    "mcp-protocol-version",
    "mcp-session-id",
];

/// The remote keys of an `[mcp.servers.NAME]` with `url` (SPEC §15.2).
fn parse_remote(
    w: &mut Walker<'_>,
    prefix: &str,
    t: &mut Table,
    url: String,
) -> Res<RemoteMcpConfig> {
    let mut headers = BTreeMap::new();
    if let Some(h) = w.table(t, prefix, "headers")? {
        let headers_prefix = join(prefix, "headers");
        for (k, v) in h {
            let key = join(&headers_prefix, &k);
            let Value::String(v) = v else {
                return Err(w.err(key, Problem::Type { expected: "string" }));
            };
            let name_ok = reqwest::header::HeaderName::from_bytes(k.as_bytes()).is_ok()
                && !RESERVED_HEADERS.contains(&k.to_ascii_lowercase().as_str());
            if !name_ok {
                return Err(w.err(key, Problem::HeaderName { got: k }));
            }
            if reqwest::header::HeaderValue::from_str(&v).is_err() {
                return Err(w.err(key, Problem::HeaderValue));
            }
            headers.insert(k, v);
        }
    }
    let bearer_token_env = w.non_empty(t, prefix, "bearer_token_env")?;
    if let Some(name) = &bearer_token_env {
        let valid = name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
            && !name.starts_with(|c: char| c.is_ascii_digit());
        if !valid {
            return Err(w.err(
                join(prefix, "bearer_token_env"),
                Problem::EnvName { got: name.clone() },
            ));
        }
    }
    let oauth = match w.string(t, prefix, "auth")? {
        None => false,
        Some(s) if s == "oauth" => true,
        Some(s) => return Err(w.err(join(prefix, "auth"), Problem::McpAuth { got: s })),
    };
    if oauth && bearer_token_env.is_some() {
        return Err(w.err(join(prefix, "auth"), Problem::BearerAndOauth));
    }
    let client_id = w.non_empty(t, prefix, "client_id")?;
    Ok(RemoteMcpConfig {
        url,
        headers,
        bearer_token_env,
        oauth,
        client_id,
    })
}

pub(super) fn parse_command_tool(
    w: &mut Walker<'_>,
    prefix: &str,
    mut t: Table,
) -> Res<CommandToolConfig> {
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
pub(super) fn parse_limits(w: &mut Walker<'_>, mut t: Table) -> Res<crate::config::Limits> {
    let [event, reply, progress] = crate::config::Limits::KEYS;
    let limits = crate::config::Limits {
        max_event_bytes: w.positive(&mut t, "limits", event)?,
        max_reply_bytes: w.positive(&mut t, "limits", reply)?,
        no_progress_timeout_secs: w.positive(&mut t, "limits", progress)?,
    };
    w.leftovers("limits", t);
    Ok(limits)
}

/// `[sandbox]` (SPEC §14.2); relative `writable_roots` are resolved against the workspace
/// later ([`crate::sandbox::WriteScope::new`]).
pub(super) fn parse_sandbox(
    w: &mut Walker<'_>,
    mut t: Table,
) -> Res<crate::sandbox::SandboxSettings> {
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
    if let Some(n) = w.positive(&mut t, "sandbox", "max_processes")? {
        // More than the kernel's own pid space is no limit at all; keep it a u32.
        s.max_processes = u32::try_from(n).unwrap_or(u32::MAX);
    }
    w.leftovers("sandbox", t);
    Ok(s)
}
