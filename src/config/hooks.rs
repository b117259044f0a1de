//! `[hooks]` (SPEC §14.4): commands run at fixed points of a session, with one JSON object
//! on stdin in Claude Code's format. This file holds the configuration types and their
//! parser; the runner lives in `crate::agent::hooks` (decision 0088).
//!
//! ```toml
//! [[hooks.pre_tool_use]]
//! command = ["./check.py"]
//! matcher = "shell|apply_patch"   # regex of tool names (tool hooks only)
//! timeout_secs = 30
//! ```

use std::path::Path;

use toml::{Table, Value};

use super::error::{ConfigError, ConfigWarning, Problem};

/// Default hook timeout.
pub const DEFAULT_HOOK_TIMEOUT_SECS: u64 = 30;
/// The longest a hook may be given (a longer one would hold a tool call for too long).
pub const MAX_HOOK_TIMEOUT_SECS: u64 = 600;

/// When a hook runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum HookEvent {
    /// Before a tool call runs (exit 2 refuses the call).
    PreToolUse,
    /// After a tool call returned.
    PostToolUse,
    /// Before a prompt is sent (exit 2 refuses the prompt).
    UserPromptSubmit,
    /// When a turn finished.
    Stop,
    /// When a session starts or is resumed.
    SessionStart,
}

impl HookEvent {
    /// Every event, in config order.
    pub const ALL: [HookEvent; 5] = [
        HookEvent::PreToolUse,
        HookEvent::PostToolUse,
        HookEvent::UserPromptSubmit,
        HookEvent::Stop,
        HookEvent::SessionStart,
    ];

    /// The config key (`pre_tool_use`).
    pub fn key(self) -> &'static str {
        match self {
            HookEvent::PreToolUse => "pre_tool_use",
            HookEvent::PostToolUse => "post_tool_use",
            HookEvent::UserPromptSubmit => "user_prompt_submit",
            HookEvent::Stop => "stop",
            HookEvent::SessionStart => "session_start",
        }
    }

    /// Claude Code's name of the event (`hook_event_name` on stdin), so its scripts run
    /// unchanged.
    pub fn claude_name(self) -> &'static str {
        match self {
            HookEvent::PreToolUse => "PreToolUse",
            HookEvent::PostToolUse => "PostToolUse",
            HookEvent::UserPromptSubmit => "UserPromptSubmit",
            HookEvent::Stop => "Stop",
            HookEvent::SessionStart => "SessionStart",
        }
    }

    /// The event for a config key.
    pub fn from_key(key: &str) -> Option<HookEvent> {
        HookEvent::ALL.into_iter().find(|e| e.key() == key)
    }

    /// Whether the event concerns one tool call (and so takes a `matcher`).
    pub fn is_tool_event(self) -> bool {
        matches!(self, HookEvent::PreToolUse | HookEvent::PostToolUse)
    }
}

/// One `[[hooks.EVENT]]` entry.
#[derive(Debug, Clone)]
pub struct HookConfig {
    /// Program and arguments (run directly, not through a shell).
    pub command: Vec<String>,
    /// Which tools it applies to (anchored: `shell` matches only `shell`); `None` = all.
    pub matcher: Option<regex::Regex>,
    /// Killed (with its process group) after this many seconds.
    pub timeout_secs: u64,
}

impl PartialEq for HookConfig {
    fn eq(&self, other: &Self) -> bool {
        self.command == other.command
            && self.timeout_secs == other.timeout_secs
            && self.matcher.as_ref().map(regex::Regex::as_str)
                == other.matcher.as_ref().map(regex::Regex::as_str)
    }
}

impl HookConfig {
    /// Whether the hook applies to a call of `tool` (every tool when it has no matcher).
    pub fn matches(&self, tool: &str) -> bool {
        self.matcher.as_ref().is_none_or(|m| m.is_match(tool))
    }
}

/// Every configured hook, by event, in config order.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct HooksConfig {
    /// `(event, hook)` pairs in the order they are run.
    pub hooks: Vec<(HookEvent, HookConfig)>,
}

impl HooksConfig {
    /// The hooks of `event`, in config order.
    pub fn of(&self, event: HookEvent) -> impl Iterator<Item = &HookConfig> {
        self.hooks
            .iter()
            .filter(move |(e, _)| *e == event)
            .map(|(_, h)| h)
    }

    /// Whether no hook is configured.
    pub fn is_empty(&self) -> bool {
        self.hooks.is_empty()
    }
}

/// Compiles a matcher the way Claude Code reads one: empty or `*` matches every tool, a
/// plain name matches that tool only, anything else is a regex matched against the whole
/// name (`Edit|Write`).
pub fn compile_matcher(m: &str) -> Result<Option<regex::Regex>, regex::Error> {
    let m = m.trim();
    if m.is_empty() || m == "*" {
        return Ok(None);
    }
    regex::RegexBuilder::new(&format!("^(?:{m})$"))
        .size_limit(1 << 20)
        .build()
        .map(Some)
}

type Res<T> = Result<T, ConfigError>;

fn invalid(file: Option<&Path>, key: String, problem: Problem) -> ConfigError {
    ConfigError::Invalid {
        file: file.map(Path::to_path_buf),
        key,
        problem,
    }
}

fn unknown(file: Option<&Path>, key: String) -> ConfigWarning {
    ConfigWarning::UnknownKey {
        file: file.map(Path::to_path_buf),
        key,
        suggestion: None,
    }
}

/// Parses the `[hooks]` table; unknown keys become `warnings`.
pub(crate) fn parse_hooks(
    table: Table,
    file: Option<&Path>,
    warnings: &mut Vec<ConfigWarning>,
) -> Res<HooksConfig> {
    let mut out = HooksConfig::default();
    for (key, value) in table {
        let Some(event) = HookEvent::from_key(&key) else {
            warnings.push(unknown(file, format!("hooks.{key}")));
            continue;
        };
        let Value::Array(items) = value else {
            return Err(invalid(
                file,
                format!("hooks.{key}"),
                Problem::Type { expected: "array" },
            ));
        };
        for (i, item) in items.into_iter().enumerate() {
            let prefix = format!("hooks.{key}[{i}]");
            let Value::Table(t) = item else {
                return Err(invalid(file, prefix, Problem::Type { expected: "table" }));
            };
            let hook = parse_hook(event, t, &prefix, file, warnings)?;
            out.hooks.push((event, hook));
        }
    }
    // Config order: by event (the TOML table is sorted by key), then as written.
    out.hooks.sort_by_key(|(e, _)| *e);
    Ok(out)
}

fn parse_hook(
    event: HookEvent,
    mut t: Table,
    prefix: &str,
    file: Option<&Path>,
    warnings: &mut Vec<ConfigWarning>,
) -> Res<HookConfig> {
    let at = |k: &str| format!("{prefix}.{k}");
    let command = match t.remove("command") {
        None => return Err(invalid(file, at("command"), Problem::Required)),
        Some(Value::Array(items)) => items
            .into_iter()
            .enumerate()
            .map(|(i, v)| match v {
                Value::String(s) => Ok(s),
                _ => Err(invalid(
                    file,
                    format!("{}[{i}]", at("command")),
                    Problem::Type { expected: "string" },
                )),
            })
            .collect::<Res<Vec<String>>>()?,
        Some(_) => {
            return Err(invalid(
                file,
                at("command"),
                Problem::Type { expected: "array" },
            ));
        }
    };
    if command.first().is_none_or(|c| c.trim().is_empty()) {
        return Err(invalid(file, at("command"), Problem::EmptyCommand));
    }
    let matcher = match t.remove("matcher") {
        None => None,
        Some(_) if !event.is_tool_event() => {
            return Err(invalid(file, at("matcher"), Problem::HookMatcherNotTool));
        }
        Some(Value::String(s)) => compile_matcher(&s).map_err(|e| {
            let detail = e.to_string();
            invalid(file, at("matcher"), Problem::HookMatcher { detail })
        })?,
        Some(_) => {
            return Err(invalid(
                file,
                at("matcher"),
                Problem::Type { expected: "string" },
            ));
        }
    };
    let timeout_secs = match t.remove("timeout_secs") {
        None => DEFAULT_HOOK_TIMEOUT_SECS,
        Some(Value::Integer(n)) if (1..=MAX_HOOK_TIMEOUT_SECS as i64).contains(&n) => n as u64,
        Some(Value::Integer(_)) => {
            return Err(invalid(
                file,
                at("timeout_secs"),
                Problem::HookTimeout {
                    max: MAX_HOOK_TIMEOUT_SECS,
                },
            ));
        }
        Some(_) => {
            return Err(invalid(
                file,
                at("timeout_secs"),
                Problem::Type {
                    expected: "integer",
                },
            ));
        }
    };
    for key in t.keys() {
        warnings.push(unknown(file, at(key)));
    }
    Ok(HookConfig {
        command,
        matcher,
        timeout_secs,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::i18n::{Locale, Localizer};

    fn parse(text: &str) -> (Res<HooksConfig>, Vec<ConfigWarning>) {
        let mut root: Table = text.parse().unwrap();
        let Some(Value::Table(t)) = root.remove("hooks") else {
            panic!("no hooks table");
        };
        let mut w = vec![];
        let r = parse_hooks(t, Some(Path::new("/c.toml")), &mut w);
        (r, w)
    }

    #[test]
    fn every_event_parses_with_defaults_and_a_whole_name_matcher() {
        let (r, w) = parse(
            "[[hooks.pre_tool_use]]\ncommand = [\"a\"]\nmatcher = \"shell|edit_file\"\n\
             [[hooks.post_tool_use]]\ncommand = [\"b\", \"x\"]\ntimeout_secs = 5\n\
             [[hooks.user_prompt_submit]]\ncommand = [\"c\"]\n\
             [[hooks.stop]]\ncommand = [\"d\"]\n[[hooks.session_start]]\ncommand = [\"e\"]\n",
        );
        let h = r.unwrap();
        assert!(w.is_empty(), "{w:?}");
        assert_eq!(h.hooks.len(), 5);
        let pre = h.of(HookEvent::PreToolUse).next().unwrap();
        assert!(pre.matches("shell") && pre.matches("edit_file"));
        // Anchored, as Claude Code matches: `shell` is not `shellcheck`.
        assert!(!pre.matches("shellcheck") && !pre.matches("grep"));
        assert_eq!(pre.timeout_secs, DEFAULT_HOOK_TIMEOUT_SECS);
        let post = h.of(HookEvent::PostToolUse).next().unwrap();
        assert!(post.matches("anything"));
        assert_eq!(post.timeout_secs, 5);
        assert_eq!(post.command, vec!["b", "x"]);
    }

    #[test]
    fn star_and_empty_matchers_match_every_tool() {
        for m in ["*", ""] {
            let (r, _) = parse(&format!(
                "[[hooks.pre_tool_use]]\ncommand = [\"a\"]\nmatcher = \"{m}\"\n"
            ));
            assert!(r.unwrap().hooks[0].1.matches("write_file"));
        }
    }

    #[test]
    fn bad_hooks_are_clear_errors_in_both_locales() {
        let cases = [
            (
                "[[hooks.stop]]\ntimeout_secs = 3\n",
                "hooks.stop[0].command",
            ),
            ("[[hooks.stop]]\ncommand = []\n", "hooks.stop[0].command"),
            (
                "[[hooks.pre_tool_use]]\ncommand = [\"a\"]\nmatcher = \"(\"\n",
                "hooks.pre_tool_use[0].matcher",
            ),
            (
                "[[hooks.stop]]\ncommand = [\"a\"]\nmatcher = \"x\"\n",
                "hooks.stop[0].matcher",
            ),
            (
                "[[hooks.stop]]\ncommand = [\"a\"]\ntimeout_secs = 9999\n",
                "hooks.stop[0].timeout_secs",
            ),
            ("[hooks]\nstop = 3\n", "hooks.stop"),
        ];
        for (text, key) in cases {
            let err = parse(text).0.unwrap_err();
            let ConfigError::Invalid { key: k, .. } = &err else {
                panic!("{err:?}");
            };
            assert_eq!(k, key, "{text}");
            let en = err.localized(Localizer::new(Locale::EnUs));
            let zh = err.localized(Localizer::new(Locale::ZhCn));
            assert!(en.contains(key) && zh.contains(key), "{en} / {zh}");
            assert_ne!(en, zh);
        }
    }

    #[test]
    fn unknown_events_and_keys_are_warnings() {
        let (r, w) = parse(
            "[[hooks.pre_tool]]\ncommand = [\"a\"]\n[[hooks.stop]]\ncommand = [\"a\"]\ncolour = 1\n",
        );
        assert_eq!(r.unwrap().hooks.len(), 1);
        let keys: Vec<&str> = w.iter().map(ConfigWarning::key).collect();
        assert_eq!(keys, vec!["hooks.pre_tool", "hooks.stop[0].colour"]);
    }
}
