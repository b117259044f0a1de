//! TOML text → [`Config`], validating every value and naming its dotted key path.
//!
//! The walker consumes each table: known keys are removed as they are read, so whatever
//! is left over is an unknown key and becomes a warning rather than an error.

use std::path::Path;

use toml::{Table, Value};

use crate::config::Config;
use crate::config::error::{ConfigError, Problem};
use crate::i18n::Locale;
use crate::session::vocab::BUILTIN_TOOL_NAMES;

mod keys;
mod sections;
mod walker;

use sections::*;
use walker::*;
pub(crate) use walker::{check_base_url, toml_error};

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
    cfg.effort = sections::parse_effort(&w, &mut root, "")?;

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
    cfg.instructions.roots = crate::config::instructions::instruction_roots(cwd, file);

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
        if let Some(n) = w.non_negative(&mut tools, "tools", "defer_tools_over")? {
            cfg.defer_tools_over = usize::try_from(n).unwrap_or(usize::MAX);
        }
        if let Some(n) = w.non_negative(&mut tools, "tools", "max_subagents")? {
            cfg.max_subagents = usize::try_from(n).unwrap_or(usize::MAX);
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
        cfg.hooks = crate::config::hooks::parse_hooks(t, file, &mut w.warnings)?;
    }

    w.leftovers("", root);
    cfg.warnings = w.warnings;
    Ok(cfg)
}

#[cfg(test)]
mod tests;
