//! The one builder of test config files: providers pointing at the simulator (or a hostile
//! loopback server), model entries, built-in tools, command tools and MCP servers. Tests say
//! what differs from the usual config instead of copying its TOML.
//!
//! ```ignore
//! let cfg = ConfigBuilder::new(&env.sim.base_url())
//!     .builtin_tools(false)
//!     .fixture_server("fx", "FIXTURE_TOOLS = \"echo\"")
//!     .write(env.dir.path());
//! ```

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use super::KEY_VAR;

/// The MCP fixture server binary (`src/bin/deepterm-mcp-fixture/`).
pub const MCP_FIXTURE: &str = env!("CARGO_BIN_EXE_deepterm-mcp-fixture");

/// One `[providers.NAME]` table and its `[[providers.NAME.models]]` entries.
#[derive(Debug, Clone)]
struct Provider {
    name: String,
    kind: String,
    base_url: String,
    key_env: String,
    models: Vec<String>,
}

/// A config file under construction; [`ConfigBuilder::text`] renders it.
#[derive(Debug, Clone)]
pub struct ConfigBuilder {
    route: String,
    providers: Vec<Provider>,
    builtin: Option<bool>,
    tables: Vec<String>,
}

impl ConfigBuilder {
    /// Provider `ds` in the Messages format at the simulator `sim_url` (its `/anthropic`
    /// endpoint), the key read from [`KEY_VAR`], and the route `ds/deepseek-flash`.
    pub fn new(sim_url: &str) -> Self {
        Self::with_provider("ds", "deepseek-messages", &format!("{sim_url}/anthropic"))
    }

    /// One provider `name` of `kind` at `base_url` as written, the key read from
    /// [`KEY_VAR`], and the route `NAME/deepseek-flash`.
    pub fn with_provider(name: &str, kind: &str, base_url: &str) -> Self {
        ConfigBuilder {
            route: format!("{name}/deepseek-flash"),
            providers: Vec::new(),
            builtin: None,
            tables: Vec::new(),
        }
        .provider(name, kind, base_url)
    }

    /// Adds another provider (the key read from [`KEY_VAR`]).
    pub fn provider(mut self, name: &str, kind: &str, base_url: &str) -> Self {
        self.providers.push(Provider {
            name: name.into(),
            kind: kind.into(),
            base_url: base_url.into(),
            key_env: KEY_VAR.into(),
            models: Vec::new(),
        });
        self
    }

    /// The variable the last provider reads its key from.
    pub fn key_env(mut self, var: &str) -> Self {
        self.last().key_env = var.into();
        self
    }

    /// A `[[providers.NAME.models]]` entry of the last provider (`body` has its `id`).
    pub fn model_entry(mut self, body: &str) -> Self {
        self.last().models.push(body.trim().to_string());
        self
    }

    /// The route the session starts on (`model = "…"`).
    pub fn route(mut self, route: &str) -> Self {
        self.route = route.into();
        self
    }

    /// `[tools.builtin] enabled = …` (left out, the built-ins are on).
    pub fn builtin_tools(mut self, enabled: bool) -> Self {
        self.builtin = Some(enabled);
        self
    }

    /// A `[tools.command.NAME]` table with `body`.
    pub fn command_tool(self, name: &str, body: &str) -> Self {
        self.table(&format!("[tools.command.{name}]\n{}", body.trim()))
    }

    /// An `[mcp.servers.NAME]` table with `body`.
    pub fn mcp_server(self, name: &str, body: &str) -> Self {
        self.table(&format!("[mcp.servers.{name}]\n{}", body.trim()))
    }

    /// The MCP fixture as server `name`, started by `/mcp connect NAME`, with `env` (the
    /// body of a TOML inline table, e.g. `FIXTURE_TOOLS = "echo"`).
    pub fn fixture_server(self, name: &str, env: &str) -> Self {
        self.mcp_server(
            name,
            &format!("command = \"{MCP_FIXTURE}\"\nenabled = false\nenv = {{ {env} }}"),
        )
    }

    /// Any more TOML, appended as written (tables after the providers and tools).
    pub fn table(mut self, toml: &str) -> Self {
        if !toml.trim().is_empty() {
            self.tables.push(toml.trim().to_string());
        }
        self
    }

    /// The config file's text.
    pub fn text(&self) -> String {
        let mut out = format!("\nmodel = \"{}\"\n", self.route);
        for p in &self.providers {
            let _ = write!(
                out,
                "\n[providers.{}]\nkind = \"{}\"\nbase_url = \"{}\"\napi_key_env = \"{}\"\n",
                p.name, p.kind, p.base_url, p.key_env
            );
            for m in &p.models {
                let _ = write!(out, "\n[[providers.{}.models]]\n{m}\n", p.name);
            }
        }
        if let Some(on) = self.builtin {
            let _ = write!(out, "\n[tools.builtin]\nenabled = {on}\n");
        }
        for t in &self.tables {
            let _ = write!(out, "\n{t}\n");
        }
        out
    }

    /// Writes `config.toml` in `dir` and returns its path.
    pub fn write(&self, dir: &Path) -> PathBuf {
        self.write_as(&dir.join("config.toml"))
    }

    /// Writes the config to `path` and returns it.
    pub fn write_as(&self, path: &Path) -> PathBuf {
        std::fs::write(path, self.text()).unwrap();
        path.to_path_buf()
    }

    fn last(&mut self) -> &mut Provider {
        self.providers.last_mut().expect("a provider to configure")
    }
}

/// A command tool (`[tools.command.NAME]` body) that prints `STAMPED`, without parameters.
pub const STAMP_TOOL: &str = r#"description = "Print a stamp."
command = ["echo", "STAMPED"]
parameters = { type = "object", properties = {} }"#;
