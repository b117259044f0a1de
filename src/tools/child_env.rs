//! What a child process (a command tool, an MCP server) may see of deepterm's environment,
//! and the redaction of key values from tool results (SPEC §13 `env_passthrough`; see
//! `docs/decisions/0006-child-env-scrubbing.md`).
//!
//! A child inherits the environment minus every configured `api_key_env` variable and
//! every variable whose name ends in `_API_KEY`, `_TOKEN` or `_SECRET` (or is exactly
//! `API_KEY`, `TOKEN` or `SECRET`), compared case-insensitively, so `github_token` goes
//! too. A name listed in the tool's or server's `env_passthrough` is kept (exact,
//! case-sensitive match, as environment names are on Unix). Variables set explicitly for
//! the child (an MCP server's `env` table) are applied after the scrubbing and stay.

use std::borrow::Cow;
use std::ffi::OsString;

use crate::config::Config;

/// Variables that hand a sandboxed command a socket outside its sandbox (the user's
/// ssh-agent and gpg-agent keys, a Docker daemon, which means root): removed from every
/// sandboxed command's environment (SPEC §15.5), whatever `env_passthrough` says.
pub const AGENT_SOCKET_VARS: [&str; 3] = ["SSH_AUTH_SOCK", "GPG_AGENT_INFO", "DOCKER_HOST"];

/// Name endings (compared in upper case) that mark a variable as a secret.
pub const SECRET_SUFFIXES: [&str; 3] = ["_API_KEY", "_TOKEN", "_SECRET"];

pub use crate::secret::{MIN_REDACTED_LEN, REDACTION_MARKER};

/// Whether `name` looks like a secret by itself (suffix rule, case-insensitive).
pub fn is_secret_name(name: &str) -> bool {
    let upper = name.to_ascii_uppercase();
    SECRET_SUFFIXES
        .iter()
        .any(|s| upper.ends_with(s) || upper == s[1..])
}

/// Every `api_key_env` variable the config names (built-in providers included) and every
/// remote MCP server's `bearer_token_env` (SPEC §15.2: a bearer value is a key like the
/// API key), sorted, without duplicates.
pub fn key_env_vars(config: &Config) -> Vec<String> {
    let mut vars: Vec<String> = config
        .providers
        .values()
        .map(|p| p.api_key_env.clone())
        .chain(
            config
                .mcp_servers
                .values()
                .filter_map(|s| s.remote.as_ref()?.bearer_token_env.clone()),
        )
        .filter(|v| !v.is_empty())
        .collect();
    vars.sort();
    vars.dedup();
    vars
}

/// The scrubbing rule for one child: the configured key variables and the tool's or
/// server's `env_passthrough` list.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ChildEnvPolicy {
    key_vars: Vec<String>,
    passthrough: Vec<String>,
}

impl ChildEnvPolicy {
    /// A policy removing `key_vars` and secret-looking names, except `passthrough`.
    pub fn new(key_vars: &[String], passthrough: &[String]) -> Self {
        ChildEnvPolicy {
            key_vars: key_vars.to_vec(),
            passthrough: passthrough.to_vec(),
        }
    }

    /// Whether the variable `name` is kept from the child.
    pub fn removes(&self, name: &str) -> bool {
        if self.passthrough.iter().any(|p| p == name) {
            return false;
        }
        self.key_vars.iter().any(|k| k == name) || is_secret_name(name)
    }

    /// The names to remove from an environment with these variable names (the configured
    /// key variables always, present or not).
    pub fn removed_names(&self, names: impl IntoIterator<Item = OsString>) -> Vec<OsString> {
        let mut out: Vec<OsString> = names
            .into_iter()
            .filter(|n| self.removes(&n.to_string_lossy()))
            .collect();
        for k in &self.key_vars {
            if self.removes(k) && !out.iter().any(|n| n == k.as_str()) {
                out.push(OsString::from(k));
            }
        }
        out
    }

    /// Removes the scrubbed variables of deepterm's current environment from what `cmd`
    /// will pass on (call it right before setting the child's explicit variables).
    pub fn apply(&self, cmd: &mut tokio::process::Command) {
        for name in self.removed_names(std::env::vars_os().map(|(k, _)| k)) {
            cmd.env_remove(name);
        }
    }
}

/// Replaces every occurrence of each secret value (at least [`MIN_REDACTED_LEN`] bytes
/// long) in `text` with [`REDACTION_MARKER`] ([`crate::secret::redact_values`]).
pub fn redact<'a>(text: &'a str, secrets: &[String]) -> Cow<'a, str> {
    crate::secret::redact_values(text, secrets)
}

/// The values of the config's key variables in deepterm's environment (to redact).
pub fn key_values(config: &Config) -> Vec<String> {
    key_env_vars(config)
        .iter()
        .filter_map(|v| std::env::var(v).ok())
        .map(|v| v.trim().to_string())
        .filter(|v| v.len() >= MIN_REDACTED_LEN)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(v: &[&str]) -> Vec<OsString> {
        v.iter().map(OsString::from).collect()
    }

    #[test]
    fn policy_removes_keys_and_secret_suffixes_case_insensitively() {
        let p = ChildEnvPolicy::new(&["MY_DS_KEY".to_string()], &[]);
        for n in [
            "MY_DS_KEY",
            "DEEPSEEK_API_KEY",
            "OPENAI_API_KEY",
            "GITHUB_TOKEN",
            "AWS_SECRET",
            "github_token",
            "Some_Api_Key",
            "TOKEN",
            "API_KEY",
            "SECRET",
        ] {
            assert!(p.removes(n), "{n} must be removed");
        }
        for n in [
            "PATH",
            "HOME",
            "MY_DS_KEY2",
            "TOKENS",
            "API_KEYS",
            "SECRETARY",
            "TOKEN_FILE",
            "XAPI_KEYX",
            "LANG",
        ] {
            assert!(!p.removes(n), "{n} must be kept");
        }
    }

    #[test]
    fn passthrough_keeps_exact_names_only() {
        let p = ChildEnvPolicy::new(
            &["MY_DS_KEY".to_string()],
            &["FOO_TOKEN".to_string(), "MY_DS_KEY".to_string()],
        );
        assert!(!p.removes("FOO_TOKEN"));
        assert!(!p.removes("MY_DS_KEY"), "explicitly passed on");
        assert!(p.removes("foo_token"), "passthrough is case-sensitive");
        assert!(p.removes("BAR_TOKEN"));
    }

    #[test]
    fn removed_names_include_absent_key_vars_once() {
        let p = ChildEnvPolicy::new(&["MY_DS_KEY".to_string(), "X_TOKEN".to_string()], &[]);
        let got = p.removed_names(names(&["PATH", "X_TOKEN", "A_SECRET", "HOME"]));
        assert_eq!(got, names(&["X_TOKEN", "A_SECRET", "MY_DS_KEY"]));
    }

    #[test]
    fn key_env_vars_lists_every_provider_once() {
        let c = Config::parse_in(
            "[providers.a]\nkind = \"openai-chat\"\nbase_url = \"http://127.0.0.1:1\"\n\
             api_key_env = \"A_KEY_VAR\"\n",
            None,
            std::path::Path::new("/"),
        )
        .unwrap();
        assert_eq!(key_env_vars(&c), ["A_KEY_VAR", "DEEPSEEK_API_KEY"]);
    }

    #[test]
    fn a_remote_servers_bearer_variable_is_scrubbed_like_an_api_key() {
        let c = Config::parse_in(
            "[mcp.servers.tracker]\nurl = \"https://mcp.example.com/mcp\"\n\
             bearer_token_env = \"TRACKER_BEARER\"\n",
            None,
            std::path::Path::new("/"),
        )
        .unwrap();
        let vars = key_env_vars(&c);
        assert_eq!(vars, ["DEEPSEEK_API_KEY", "TRACKER_BEARER"]);
        // The name has no secret-looking suffix: only the config naming it removes it.
        assert!(!ChildEnvPolicy::new(&[], &[]).removes("TRACKER_BEARER"));
        assert!(ChildEnvPolicy::new(&vars, &[]).removes("TRACKER_BEARER"));
    }

    #[test]
    fn env_passthrough_parses_for_tools_and_servers() {
        let c = Config::parse_in(
            "[tools.command.t]\ndescription = \"d\"\ncommand = [\"env\"]\n\
             env_passthrough = [\"GH_TOKEN\"]\n\
             [mcp.servers.s]\ncommand = \"x\"\nenv_passthrough = [\"A_SECRET\", \"B\"]\n",
            None,
            std::path::Path::new("/"),
        )
        .unwrap();
        assert_eq!(c.command_tools["t"].env_passthrough, ["GH_TOKEN"]);
        assert_eq!(c.mcp_servers["s"].env_passthrough, ["A_SECRET", "B"]);
        assert!(c.warnings.is_empty(), "{:?}", c.warnings);
        let e = Config::parse_in(
            "[mcp.servers.s]\ncommand = \"x\"\nenv_passthrough = \"A\"\n",
            None,
            std::path::Path::new("/"),
        )
        .unwrap_err();
        assert!(e.to_string().contains("env_passthrough"), "{e}");
    }

    #[test]
    fn redact_replaces_every_occurrence_of_long_values() {
        let secrets = vec!["sk-abcdef123456".to_string(), "demo".to_string()];
        let text = "k=sk-abcdef123456\nagain sk-abcdef123456 demo";
        assert_eq!(
            redact(text, &secrets),
            "k=[REDACTED]\nagain [REDACTED] demo"
        );
        assert!(matches!(redact("nothing here", &secrets), Cow::Borrowed(_)));
    }
}
