//! TOML configuration (SPEC §3): location, defaults, validation, route resolution, API
//! keys, and persisting the `/lang` choice.
//!
//! Every invalid value is a [`ConfigError`] naming the file, the dotted key and what was
//! expected, localized with [`ConfigError::localized`]. Unknown keys are warnings
//! ([`Config::warnings`]), not errors.

pub mod agents_md;
mod error;
mod file;
pub mod hooks;
#[cfg(test)]
mod inherit_tests;
pub mod instructions;
mod limits;
mod parse;
#[cfg(test)]
mod remote_tests;
pub mod trust;

use std::collections::BTreeMap;
use std::ffi::OsString;
use std::path::{Path, PathBuf};

/// The key type lives in [`crate::secret`] (below both `config` and `llm`).
pub use crate::secret::ApiKey;
pub(crate) use error::kind_key;
pub use error::{ConfigError, ConfigWarning, Problem};
pub use file::{MAX_CONFIG_BYTES, check_base_url_arg, save_locale};
pub(crate) use file::{replace_file, resolve_symlinks};
pub use instructions::{InstructionProblem, InstructionsRead};
pub use limits::Limits;

use crate::i18n::Locale;
use crate::llm::catalog::{self, ModelSpec};
use crate::llm::types::{ProviderKind, Route};
use crate::session::vocab::Approval;

/// Environment variable naming the config file.
pub const CONFIG_ENV: &str = "DEEPTERM_CONFIG";

/// Default route when the config names none.
pub const DEFAULT_MODEL: &str = "deepseek/deepseek-flash";

/// Default command tool timeout.
pub const DEFAULT_COMMAND_TIMEOUT_SECS: u64 = 30;

/// The default of `[tools] defer_tools_over` (SPEC §15.1).
pub const DEFAULT_DEFER_TOOLS_OVER: usize = 32;

/// The default of `max_subagents`: how many `task` subagents run at once (SPEC §15.3).
pub const DEFAULT_MAX_SUBAGENTS: usize = 4;

/// One `[providers.NAME]` table.
#[derive(Debug, Clone, PartialEq)]
pub struct ProviderConfig {
    /// Wire protocol.
    pub kind: ProviderKind,
    /// Base URL, without a trailing slash.
    pub base_url: String,
    /// Environment variable holding the API key.
    pub api_key_env: String,
    /// `[[providers.NAME.models]]` entries; each replaces the catalog entry with its id.
    pub models: Vec<ModelSpec>,
}

/// `[instructions]`: base system prompt additions.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Instructions {
    /// Inline text.
    pub text: Option<String>,
    /// Instruction files that were found, resolved (cwd first, then the config dir).
    pub files: Vec<PathBuf>,
    /// The canonical directories they may be read from, after resolving symlinks
    /// ([`instructions::instruction_roots`]: the workspace, the config file's directory,
    /// the user config directory).
    pub roots: Vec<PathBuf>,
}

/// One `[mcp.servers.NAME]` table.
#[derive(Debug, Clone, PartialEq)]
pub struct McpServerConfig {
    /// Program to start (empty for a remote server: see `remote`).
    pub command: String,
    /// Its arguments.
    pub args: Vec<String>,
    /// Extra environment variables.
    pub env: BTreeMap<String, String>,
    /// Inherited variables kept although they look secret (`env_passthrough`).
    pub env_passthrough: Vec<String>,
    /// Connect at start.
    pub enabled: bool,
    /// Whether calls need the user's approval.
    pub approval: Approval,
    /// `approval = "trust-read-only-hint"`: calls of tools the server annotates read-only
    /// run without asking, the others ask (`approval` is then `Ask`; SPEC §15.2).
    pub trust_read_only_hint: bool,
    /// Per-call timeout.
    pub timeout_secs: Option<u64>,
    /// Largest message the server may send (bytes); `None` = the default (64 MiB).
    pub max_message_bytes: Option<u64>,
    /// `parallel = true`: its calls may overlap each other and other tools' calls (by
    /// default calls that may have side effects run one at a time, in call order).
    pub parallel: bool,
    /// `url = "…"`: a remote server spoken to over Streamable HTTP (SPEC §15.2) instead of
    /// a process started from `command`.
    pub remote: Option<RemoteMcpConfig>,
}

/// The remote half of a `[mcp.servers.NAME]` table (SPEC §15.2).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct RemoteMcpConfig {
    /// The server's MCP endpoint (`http://` or `https://`).
    pub url: String,
    /// Extra headers sent on every request (`headers = { … }`).
    pub headers: BTreeMap<String, String>,
    /// `bearer_token_env`: the variable whose value is sent as `Authorization: Bearer …`.
    /// Only the name is kept; the value is read from the environment at each connect.
    pub bearer_token_env: Option<String>,
    /// `auth = "oauth"`: OAuth 2.1 with tokens from `/mcp login NAME`.
    pub oauth: bool,
    /// `client_id`: a client registered beforehand (otherwise one is registered
    /// dynamically at login).
    pub client_id: Option<String>,
}

/// One `[tools.command.NAME]` table.
#[derive(Debug, Clone, PartialEq)]
pub struct CommandToolConfig {
    /// Description shown to the model.
    pub description: String,
    /// Program and arguments (non-empty).
    pub command: Vec<String>,
    /// JSON Schema of the arguments (an object schema).
    pub parameters: serde_json::Value,
    /// Active at start (`/tool enable` turns a disabled one on).
    pub enabled: bool,
    /// Whether calls need the user's approval.
    pub approval: Approval,
    /// Kill the command after this many seconds.
    pub timeout_secs: u64,
    /// Inherited variables kept although they look secret (`env_passthrough`).
    pub env_passthrough: Vec<String>,
    /// `parallel = true`: its calls may overlap other calls (default: one at a time).
    pub parallel: bool,
}

/// The whole configuration.
#[derive(Debug, Clone, PartialEq)]
pub struct Config {
    /// The config file: where it was read from, or where `/lang` would create it.
    pub path: Option<PathBuf>,
    /// Interface locale (`None` = negotiate from the environment).
    pub locale: Option<Locale>,
    /// Top-level `effort` (SPEC §14.4); a model entry's own `effort` wins.
    pub effort: Option<crate::session::effort::Effort>,
    /// Default route, `provider/model`.
    pub model: String,
    /// Providers by name (the built-in `deepseek` and `deepseek-openai` are always there
    /// unless overridden).
    pub providers: BTreeMap<String, ProviderConfig>,
    /// Base system prompt additions.
    pub instructions: Instructions,
    /// MCP servers by name.
    pub mcp_servers: BTreeMap<String, McpServerConfig>,
    /// `[mcp] startup_wait_secs`: how long `exec` waits for servers with `enabled = true`
    /// before its first line (`None` = 30 s).
    pub mcp_startup_wait_secs: Option<u64>,
    /// Command tools by name.
    pub command_tools: BTreeMap<String, CommandToolConfig>,
    /// `[tools.builtin] enabled`.
    pub builtin_tools: bool,
    /// `[tools] defer_tools_over`: past this many command and MCP tools, they are announced
    /// and loaded by `tool_search` instead of declared up front (SPEC §15.1); `0` never defers.
    pub defer_tools_over: usize,
    /// `[tools] max_subagents`: how many subagents of one step run at once (SPEC §15.3);
    /// `0` offers no `task` tool.
    pub max_subagents: usize,
    /// `[limits]`: stream size and progress caps.
    pub limits: Limits,
    /// `[ui] notify`: an OSC 9 notification when a turn ends while the terminal is
    /// unfocused (off by default).
    pub ui_notify: bool,
    /// `[sandbox]` (SPEC §14.2).
    pub sandbox: crate::sandbox::SandboxSettings,
    /// `[checkpoints]` (§14.3): whether turns take checkpoints, and the file size cap.
    pub checkpoints: CheckpointSettings,
    /// `[approval] policy` (§14.2); `None` = the run kind's default
    /// (`approval::effective_policy`).
    pub approval_policy: Option<crate::session::vocab::ApprovalPolicy>,
    /// `[[hooks.EVENT]]` (SPEC §14.4).
    pub hooks: hooks::HooksConfig,
    /// Ignored keys and missing instruction files.
    pub warnings: Vec<ConfigWarning>,
}

/// The built-in providers.
pub(crate) fn default_providers() -> BTreeMap<String, ProviderConfig> {
    let mut m = BTreeMap::new();
    m.insert(
        "deepseek".to_string(),
        ProviderConfig {
            kind: ProviderKind::DeepseekMessages,
            base_url: "https://api.deepseek.com/anthropic".to_string(),
            api_key_env: "DEEPSEEK_API_KEY".to_string(),
            models: vec![],
        },
    );
    m.insert(
        "deepseek-openai".to_string(),
        ProviderConfig {
            kind: ProviderKind::OpenaiChat,
            base_url: "https://api.deepseek.com".to_string(),
            api_key_env: "DEEPSEEK_API_KEY".to_string(),
            models: vec![],
        },
    );
    m
}

impl Default for Config {
    fn default() -> Self {
        Config {
            path: None,
            locale: None,
            effort: None,
            model: DEFAULT_MODEL.to_string(),
            providers: default_providers(),
            instructions: Instructions::default(),
            mcp_servers: BTreeMap::new(),
            mcp_startup_wait_secs: None,
            command_tools: BTreeMap::new(),
            builtin_tools: true,
            defer_tools_over: DEFAULT_DEFER_TOOLS_OVER,
            max_subagents: DEFAULT_MAX_SUBAGENTS,
            limits: Limits::default(),
            ui_notify: false,
            sandbox: crate::sandbox::SandboxSettings::default(),
            approval_policy: None,
            checkpoints: CheckpointSettings::default(),
            hooks: hooks::HooksConfig::default(),
            warnings: vec![],
        }
    }
}

/// The default cap on a file kept in a checkpoint (SPEC §14.3): 16 MiB. Defined here, the
/// lower layer, so the config does not depend on the checkpoint store.
pub const DEFAULT_CHECKPOINT_MAX_FILE_BYTES: u64 = 16 * 1024 * 1024;

/// `[checkpoints]` (SPEC §14.3).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CheckpointSettings {
    /// `enabled` (default true).
    pub enabled: bool,
    /// `max_file_bytes`: larger files are listed as not restorable (default 16 MiB).
    pub max_file_bytes: u64,
}

impl Default for CheckpointSettings {
    fn default() -> Self {
        CheckpointSettings {
            enabled: true,
            max_file_bytes: DEFAULT_CHECKPOINT_MAX_FILE_BYTES,
        }
    }
}

/// Where the config file is and whether the user named it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConfigLocation {
    /// The file.
    pub path: PathBuf,
    /// Named by `--config` or `$DEEPTERM_CONFIG`: a missing file is an error.
    pub explicit: bool,
}

/// Finds the config file: `--config`, else `$DEEPTERM_CONFIG`, else the platform config
/// dir's `config.toml`. `None` when there is no home directory to derive it from.
pub fn locate(cli: Option<&Path>) -> Option<ConfigLocation> {
    let default_dir =
        directories::ProjectDirs::from("", "", "deepterm").map(|d| d.config_dir().to_path_buf());
    locate_from(cli, std::env::var_os(CONFIG_ENV), default_dir)
}

/// [`locate`] with the environment and platform dir passed in (for tests).
pub fn locate_from(
    cli: Option<&Path>,
    env: Option<OsString>,
    default_dir: Option<PathBuf>,
) -> Option<ConfigLocation> {
    if let Some(p) = cli {
        return Some(ConfigLocation {
            path: p.to_path_buf(),
            explicit: true,
        });
    }
    if let Some(e) = env.filter(|e| !e.is_empty()) {
        return Some(ConfigLocation {
            path: PathBuf::from(e),
            explicit: true,
        });
    }
    default_dir.map(|d| ConfigLocation {
        path: d.join("config.toml"),
        explicit: false,
    })
}

impl Config {
    /// Resolves `provider/model` (or the configured default when `spec` is `None`) to a
    /// route with its catalog capabilities. Unknown model ids are allowed and get no update
    /// modes (W-12). Apply `--base-url` with [`Route::with_base_url`].
    pub fn resolve_route(&self, spec: Option<&str>) -> Result<Route, ConfigError> {
        let spec = spec.unwrap_or(&self.model).trim();
        let bad = || ConfigError::BadRoute {
            spec: spec.to_string(),
        };
        let (provider, model) = spec.split_once('/').ok_or_else(bad)?;
        let (provider, model) = (provider.trim(), model.trim());
        if provider.is_empty() || model.is_empty() {
            return Err(bad());
        }
        let p = self
            .providers
            .get(provider)
            .ok_or_else(|| ConfigError::UnknownProvider {
                spec: spec.to_string(),
                provider: provider.to_string(),
                available: self.providers.keys().cloned().collect(),
            })?;
        let caps = catalog::resolve(p.kind, &p.models, model);
        Ok(Route {
            provider: provider.to_string(),
            model: model.to_string(),
            kind: p.kind,
            base_url: p.base_url.clone(),
            api_key_env: p.api_key_env.clone(),
            caps,
        })
    }

    /// The effort the config sets for `provider/model` (SPEC §14.4): the model entry's
    /// `effort`, else the top-level one.
    pub fn effort_for(
        &self,
        provider: &str,
        model: &str,
    ) -> Option<crate::session::effort::Effort> {
        self.providers
            .get(provider)
            .and_then(|p| p.models.iter().find(|m| m.id == model))
            .and_then(|m| m.effort)
            .or(self.effort)
    }

    /// Every `provider/model` the catalog and config know, sorted (for `/model` help).
    pub fn known_routes(&self) -> Vec<String> {
        let mut out = vec![];
        for (name, p) in &self.providers {
            let mut ids: Vec<String> = catalog::builtin_models(p.kind)
                .into_iter()
                .map(|m| m.id)
                .collect();
            ids.extend(p.models.iter().map(|m| m.id.clone()));
            ids.sort();
            ids.dedup();
            out.extend(ids.into_iter().map(|id| format!("{name}/{id}")));
        }
        out
    }

    /// Reads the route's API key from the variable its provider names. Unset or empty is
    /// [`ConfigError::MissingKey`], which names the variable (the caller may fall back to
    /// demo mode).
    pub fn api_key(&self, route: &Route) -> Result<ApiKey, ConfigError> {
        match std::env::var(&route.api_key_env) {
            Ok(k) if !k.trim().is_empty() => Ok(ApiKey::new(k.trim())),
            _ => Err(ConfigError::MissingKey {
                provider: route.provider.clone(),
                var: route.api_key_env.clone(),
            }),
        }
    }

    /// The base instructions: `[instructions] text` then each file's contents, separated
    /// by blank lines, with what went wrong. Files are re-read on every call, each only
    /// if it is a regular text file inside [`Instructions::roots`] after resolving
    /// symlinks, and at most [`instructions::MAX_INSTRUCTION_BYTES`] of it.
    pub fn read_instructions(&self) -> InstructionsRead {
        instructions::read_instructions(
            self.instructions.text.as_deref(),
            &self.instructions.files,
            &self.instructions.roots,
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn locate_prefers_cli_then_env_then_default() {
        let d = Some(PathBuf::from("/home/u/.config/deepterm"));
        let cli = locate_from(
            Some(Path::new("/a.toml")),
            Some("/b.toml".into()),
            d.clone(),
        );
        assert_eq!(
            cli.map(|l| (l.path, l.explicit)),
            Some(("/a.toml".into(), true))
        );
        let env = locate_from(None, Some("/b.toml".into()), d.clone());
        assert_eq!(
            env.map(|l| (l.path, l.explicit)),
            Some(("/b.toml".into(), true))
        );
        let def = locate_from(None, Some("".into()), d);
        assert_eq!(
            def.map(|l| (l.path, l.explicit)),
            Some(("/home/u/.config/deepterm/config.toml".into(), false))
        );
    }
}
