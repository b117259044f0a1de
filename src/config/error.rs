//! Configuration errors and warnings, localized at display time.

use std::path::PathBuf;

use crate::i18n::{Arg, Locale, Localizer};

/// What was wrong with one config value: the expectation the user must meet.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Problem {
    /// The value has the wrong TOML type; `expected` is `string`, `table`, `array`,
    /// `boolean`, `integer` or `number`.
    Type {
        /// Expected TOML type.
        expected: &'static str,
    },
    /// A required key is missing.
    Required,
    /// Not a provider kind.
    ProviderKind {
        /// The value found.
        got: String,
    },
    /// Not a tool update mode (W-12).
    ToolUpdate {
        /// The value found.
        got: String,
    },
    /// Not a system prompt update mode.
    SystemPromptUpdate {
        /// The value found.
        got: String,
    },
    /// Not an approval policy.
    Approval {
        /// The value found.
        got: String,
    },
    /// Not an MCP server's `approval` (`ask`, `never`, `trust-read-only-hint`; SPEC §15.2).
    McpApproval {
        /// The value found.
        got: String,
    },
    /// Not an `[approval] policy` (§14.2).
    ApprovalPolicy {
        /// The value found.
        got: String,
    },
    /// Not an effort level (SPEC §14.4).
    Effort {
        /// The value found.
        got: String,
    },
    /// Not a supported locale.
    Locale {
        /// The value found.
        got: String,
    },
    /// Not a `[sandbox] mode`.
    SandboxMode {
        /// The value found.
        got: String,
    },
    /// Not a `[sandbox] backend`.
    SandboxBackend {
        /// The value found.
        got: String,
    },
    /// Not `provider/model`.
    RouteSyntax {
        /// The value found.
        got: String,
    },
    /// The route names a provider that is not configured.
    UnknownProvider {
        /// The provider named.
        provider: String,
        /// Configured provider names (joined with the locale's separator when shown).
        available: Vec<String>,
    },
    /// A command tool's `command` array is empty.
    EmptyCommand,
    /// An empty string where text is needed.
    EmptyString,
    /// An integer that must be at least 1.
    PositiveInteger,
    /// An integer that must be 0 or more (`0` switches the feature off).
    NonNegativeInteger,
    /// An invalid tool or server name.
    Name {
        /// The value found.
        got: String,
    },
    /// An invalid MCP server name (also must not contain `__`).
    ServerName {
        /// The value found.
        got: String,
    },
    /// The same model id is listed twice for one provider.
    DuplicateModel {
        /// The repeated id.
        id: String,
    },
    /// A command tool name that a built-in tool already uses.
    ReservedToolName {
        /// The name.
        name: String,
    },
    /// Update modes declared on a provider kind that cannot send them.
    ModesUnsupported {
        /// The provider kind.
        kind: &'static str,
    },
    /// A tool's `parameters` is not a JSON-schema object (`type = "object"`).
    ParametersNotObject,
    /// Not an `http://` or `https://` URL with a host.
    Url {
        /// The value found.
        got: String,
    },
    /// Not a tool removal policy.
    ToolRemoval {
        /// The value found.
        got: String,
    },
    /// A price that is negative or not finite.
    Price,
    /// Some but not all of a model entry's three price keys.
    PricesIncomplete,
    /// A hook's `matcher` is not a valid regex (SPEC §14.4).
    HookMatcher {
        /// The regex parser's explanation (English).
        detail: String,
    },
    /// A `matcher` on a hook that is not about a tool call.
    HookMatcherNotTool,
    /// An MCP server with both or neither of `command` and `url` (SPEC §15.2).
    McpCommandOrUrl,
    /// A key of the other kind of MCP server: `args`/`env`/`env_passthrough` with `url`
    /// (`remote`), or `headers`/`bearer_token_env`/`auth`/`client_id` with `command`.
    McpKeyNotFor {
        /// The server is a remote one.
        remote: bool,
    },
    /// Not an MCP `auth` mode (only `oauth`).
    McpAuth {
        /// The value found.
        got: String,
    },
    /// Not a header name deepterm may send (invalid, or one the transport sets itself).
    HeaderName {
        /// The name found.
        got: String,
    },
    /// A header value with characters a header cannot carry.
    HeaderValue,
    /// Not an environment variable name.
    EnvName {
        /// The value found.
        got: String,
    },
    /// `bearer_token_env` and `auth = "oauth"` together.
    BearerAndOauth,
    /// A hook timeout outside 1..=`max` seconds.
    HookTimeout {
        /// The largest allowed.
        max: u64,
    },
}

/// A configuration failure. Render it with [`ConfigError::localized`]; `Display` gives the
/// English text. Never contains an API key (only the name of its variable).
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum ConfigError {
    /// The file could not be read (other than not existing at the default location).
    #[error("{}", self.localized(Localizer::new(Locale::EnUs)))]
    Read {
        /// The file.
        file: PathBuf,
        /// The OS error text.
        detail: String,
    },
    /// The config path (after following symlinks) is not a regular file: a FIFO would
    /// block the start and a device such as `/dev/zero` would never end.
    #[error("{}", self.localized(Localizer::new(Locale::EnUs)))]
    NotRegular {
        /// The file.
        file: PathBuf,
        /// What it is instead.
        kind: crate::fs_guard::SpecialKind,
    },
    /// The config file is larger than [`super::MAX_CONFIG_BYTES`].
    #[error("{}", self.localized(Localizer::new(Locale::EnUs)))]
    TooLarge {
        /// The file.
        file: PathBuf,
        /// Its size in bytes (at least `limit + 1` when it grew while read).
        size: u64,
        /// The cap in bytes.
        limit: u64,
    },
    /// A config file given explicitly (`--config`, `$DEEPTERM_CONFIG`) does not exist.
    #[error("{}", self.localized(Localizer::new(Locale::EnUs)))]
    NotFound {
        /// The file.
        file: PathBuf,
    },
    /// The file could not be written (`/lang`).
    #[error("{}", self.localized(Localizer::new(Locale::EnUs)))]
    Write {
        /// The file.
        file: PathBuf,
        /// The OS error text.
        detail: String,
    },
    /// The file is not valid TOML.
    #[error("{}", self.localized(Localizer::new(Locale::EnUs)))]
    Syntax {
        /// The file.
        file: PathBuf,
        /// 1-based line.
        line: usize,
        /// 1-based column (in characters).
        column: usize,
        /// The parser's explanation (English).
        detail: String,
    },
    /// A key (or table) is defined twice.
    #[error("{}", self.localized(Localizer::new(Locale::EnUs)))]
    DuplicateKey {
        /// The file.
        file: PathBuf,
        /// 1-based line of the second definition.
        line: usize,
        /// 1-based column (in characters).
        column: usize,
        /// Dotted key path, e.g. `providers.deepseek.base_url`.
        key: String,
    },
    /// A value is invalid.
    #[error("{}", self.localized(Localizer::new(Locale::EnUs)))]
    Invalid {
        /// The file (`None` for the built-in defaults).
        file: Option<PathBuf>,
        /// Dotted key path, e.g. `providers.deepseek.models[0].tool_update`.
        key: String,
        /// What was expected.
        problem: Problem,
    },
    /// A route given at run time (`--model`, `/model`) is not `provider/model`.
    #[error("{}", self.localized(Localizer::new(Locale::EnUs)))]
    BadRoute {
        /// The route as given.
        spec: String,
    },
    /// A route given at run time names an unconfigured provider.
    #[error("{}", self.localized(Localizer::new(Locale::EnUs)))]
    UnknownProvider {
        /// The route as given.
        spec: String,
        /// The provider named.
        provider: String,
        /// Configured provider names (joined with the locale's separator when shown).
        available: Vec<String>,
    },
    /// `--base-url` is not an `http://` or `https://` URL with a host.
    #[error("{}", self.localized(Localizer::new(Locale::EnUs)))]
    BadBaseUrl {
        /// The value given.
        url: String,
    },
    /// The provider's API key variable is unset or empty.
    #[error("{}", self.localized(Localizer::new(Locale::EnUs)))]
    MissingKey {
        /// Provider name.
        provider: String,
        /// The environment variable to set.
        var: String,
    },
}

/// The Fluent id naming what a non-regular file is (`config-file-kind-fifo`, …).
pub(crate) fn kind_key(kind: crate::fs_guard::SpecialKind) -> String {
    format!("config-file-kind-{}", kind.id())
}

fn show(p: &std::path::Path) -> String {
    p.display().to_string()
}

impl Problem {
    /// The localized expectation text (e.g. `must be "in-history" or "addition-only"`).
    pub fn localized(&self, l: Localizer) -> String {
        match self {
            Problem::Type { expected } => {
                let ty = l.tr(&format!("config-type-{expected}"));
                l.tra("config-expected-type", &[("type", ty.into())])
            }
            Problem::Required => l.tr("config-expected-required"),
            Problem::ProviderKind { got } => {
                l.tra("config-expected-provider-kind", &[("got", got.into())])
            }
            Problem::ToolUpdate { got } => {
                l.tra("config-expected-tool-update", &[("got", got.into())])
            }
            Problem::SystemPromptUpdate { got } => l.tra(
                "config-expected-system-prompt-update",
                &[("got", got.into())],
            ),
            Problem::Approval { got } => l.tra("config-expected-approval", &[("got", got.into())]),
            Problem::McpApproval { got } => {
                l.tra("config-expected-mcp-approval", &[("got", got.into())])
            }
            Problem::ApprovalPolicy { got } => {
                l.tra("config-expected-approval-policy", &[("got", got.into())])
            }
            Problem::Locale { got } => l.tra("config-expected-locale", &[("got", got.into())]),
            Problem::Effort { got } => l.tra("config-expected-effort", &[("got", got.into())]),
            Problem::SandboxMode { got } => {
                l.tra("config-expected-sandbox-mode", &[("got", got.into())])
            }
            Problem::SandboxBackend { got } => {
                l.tra("config-expected-sandbox-backend", &[("got", got.into())])
            }
            Problem::RouteSyntax { got } => l.tra("config-expected-route", &[("got", got.into())]),
            Problem::UnknownProvider {
                provider,
                available,
            } => l.tra(
                "config-expected-known-provider",
                &[
                    ("provider", provider.into()),
                    ("available", Arg::List(available.clone())),
                ],
            ),
            Problem::EmptyCommand => l.tr("config-expected-command"),
            Problem::EmptyString => l.tr("config-expected-non-empty"),
            Problem::PositiveInteger => l.tr("config-expected-positive"),
            Problem::NonNegativeInteger => l.tr("cache-first-config-non-negative"),
            Problem::Name { got } => l.tra("config-expected-name", &[("got", got.into())]),
            Problem::ServerName { got } => {
                l.tra("config-expected-server-name", &[("got", got.into())])
            }
            Problem::DuplicateModel { id } => {
                l.tra("config-expected-unique-model", &[("id", id.into())])
            }
            Problem::ReservedToolName { name } => {
                l.tra("config-expected-unreserved-name", &[("name", name.into())])
            }
            Problem::ModesUnsupported { kind } => {
                l.tra("config-expected-no-modes", &[("kind", Arg::from(*kind))])
            }
            Problem::ParametersNotObject => l.tr("config-expected-parameters"),
            Problem::Url { got } => l.tra("config-expected-url", &[("got", got.into())]),
            Problem::McpCommandOrUrl => l.tr("config-expected-mcp-command-or-url"),
            Problem::McpKeyNotFor { remote: true } => l.tr("config-expected-mcp-stdio-key"),
            Problem::McpKeyNotFor { remote: false } => l.tr("config-expected-mcp-remote-key"),
            Problem::McpAuth { got } => l.tra("config-expected-mcp-auth", &[("got", got.into())]),
            Problem::HeaderName { got } => {
                l.tra("config-expected-header-name", &[("got", got.into())])
            }
            Problem::HeaderValue => l.tr("config-expected-header-value"),
            Problem::EnvName { got } => l.tra("config-expected-env-name", &[("got", got.into())]),
            Problem::BearerAndOauth => l.tr("config-expected-bearer-or-oauth"),
            Problem::ToolRemoval { got } => {
                l.tra("config-expected-tool-removal", &[("got", got.into())])
            }
            Problem::Price => l.tr("config-expected-price"),
            Problem::PricesIncomplete => l.tr("config-expected-prices-complete"),
            Problem::HookMatcher { detail } => {
                l.tra("config-expected-hook-matcher", &[("detail", detail.into())])
            }
            Problem::HookMatcherNotTool => l.tr("config-expected-hook-matcher-tool"),
            Problem::HookTimeout { max } => {
                l.tra("config-expected-hook-timeout", &[("max", Arg::from(*max))])
            }
        }
    }
}

impl ConfigError {
    /// The full localized message.
    pub fn localized(&self, l: Localizer) -> String {
        match self {
            ConfigError::Read { file, detail } => l.tra(
                "config-error-read",
                &[("file", show(file).into()), ("detail", detail.into())],
            ),
            ConfigError::NotFound { file } => {
                l.tra("config-error-not-found", &[("file", show(file).into())])
            }
            ConfigError::NotRegular { file, kind } => l.tra(
                "config-error-not-regular",
                &[
                    ("file", show(file).into()),
                    ("kind", l.tr(&kind_key(*kind)).into()),
                ],
            ),
            ConfigError::TooLarge { file, size, limit } => l.tra(
                "config-error-too-large",
                &[
                    ("file", show(file).into()),
                    ("size", Arg::from(*size)),
                    ("mib", Arg::from(*limit / (1024 * 1024))),
                ],
            ),
            ConfigError::Write { file, detail } => l.tra(
                "config-error-write",
                &[("file", show(file).into()), ("detail", detail.into())],
            ),
            ConfigError::Syntax {
                file,
                line,
                column,
                detail,
            } => l.tra(
                "config-error-syntax",
                &[
                    ("file", show(file).into()),
                    ("line", Arg::from(*line)),
                    ("column", Arg::from(*column)),
                    ("detail", detail.into()),
                ],
            ),
            ConfigError::DuplicateKey {
                file,
                line,
                column,
                key,
            } => l.tra(
                "config-error-duplicate-key",
                &[
                    ("file", show(file).into()),
                    ("line", Arg::from(*line)),
                    ("column", Arg::from(*column)),
                    ("key", key.into()),
                ],
            ),
            ConfigError::Invalid { file, key, problem } => {
                let file = match file {
                    Some(f) => show(f),
                    None => l.tr("config-builtin-defaults"),
                };
                l.tra(
                    "config-error-invalid",
                    &[
                        ("file", file.into()),
                        ("key", key.into()),
                        ("expected", problem.localized(l).into()),
                    ],
                )
            }
            ConfigError::BadRoute { spec } => {
                l.tra("config-error-route-syntax", &[("spec", spec.into())])
            }
            ConfigError::UnknownProvider {
                spec,
                provider,
                available,
            } => l.tra(
                "config-error-unknown-provider",
                &[
                    ("spec", spec.into()),
                    ("provider", provider.into()),
                    ("available", Arg::List(available.clone())),
                ],
            ),
            ConfigError::BadBaseUrl { url } => {
                l.tra("config-error-base-url-arg", &[("url", url.into())])
            }
            ConfigError::MissingKey { provider, var } => l.tra(
                "config-error-missing-key",
                &[("provider", provider.into()), ("var", var.into())],
            ),
        }
    }
}

/// Something in the config that is ignored but worth telling the user.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ConfigWarning {
    /// A key deepterm does not know (a typo, most likely).
    UnknownKey {
        /// The file (`None` when the text did not come from a file).
        file: Option<PathBuf>,
        /// Dotted key path.
        key: String,
        /// The dotted path of a known key it closely resembles (`model` for `modle`).
        suggestion: Option<String>,
    },
    /// An `[instructions] files` entry that was not found; it is skipped.
    MissingInstructionFile {
        /// The file (`None` when the text did not come from a file).
        file: Option<PathBuf>,
        /// Dotted key path (`instructions.files[0]`).
        key: String,
        /// The path as written.
        path: String,
    },
}

impl ConfigWarning {
    /// The dotted key path the warning is about.
    pub fn key(&self) -> &str {
        match self {
            ConfigWarning::UnknownKey { key, .. }
            | ConfigWarning::MissingInstructionFile { key, .. } => key,
        }
    }

    /// The Fluent message id and its arguments (for a notice that re-renders on `/lang`).
    /// `l` only names a config that did not come from a file.
    pub fn message(&self, l: Localizer) -> (&'static str, Vec<(&'static str, Arg)>) {
        let file_arg = |f: &Option<PathBuf>| -> Arg {
            match f {
                Some(f) => show(f).into(),
                None => l.tr("config-unnamed").into(),
            }
        };
        match self {
            ConfigWarning::UnknownKey {
                file,
                key,
                suggestion: None,
            } => (
                "config-warning-unknown-key",
                vec![("file", file_arg(file)), ("key", key.into())],
            ),
            ConfigWarning::UnknownKey {
                file,
                key,
                suggestion: Some(s),
            } => (
                "config-warning-unknown-key-suggest",
                vec![
                    ("file", file_arg(file)),
                    ("key", key.into()),
                    ("suggestion", s.into()),
                ],
            ),
            ConfigWarning::MissingInstructionFile { file, key, path } => (
                "config-warning-missing-instructions",
                vec![
                    ("file", file_arg(file)),
                    ("key", key.into()),
                    ("path", path.into()),
                ],
            ),
        }
    }

    /// The localized one-line warning, naming the file and the key.
    pub fn localized(&self, l: Localizer) -> String {
        let (id, args) = self.message(l);
        l.tra(id, &args)
    }
}
