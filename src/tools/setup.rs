//! The registry a session starts with: the built-in tools and the config's command tools.
//!
//! Apart from `registry.rs` because the sources build [`RegisteredTool`]s for the registry;
//! filling the registry from them sits above both.
//!
//! [`RegisteredTool`]: super::registry::RegisteredTool

use std::path::Path;

use super::registry::{ToolRegistry, ToolSource};
use super::{builtin, command, edit};
use crate::config::Config;

impl ToolRegistry {
    /// Built-in tools confined to `workspace_root` (registered disabled when
    /// `[tools.builtin] enabled = false`) and the config's command tools; the edit tools
    /// get a write scope of their own over the workspace.
    pub fn from_config(config: &Config, workspace_root: &Path) -> Self {
        let scope = edit::workspace_scope(workspace_root, crate::sandbox::SandboxMode::default());
        Self::from_config_with_scope(
            config,
            workspace_root,
            std::sync::Arc::new(std::sync::RwLock::new(scope)),
            Vec::new(),
        )
    }

    /// [`ToolRegistry::from_config`] with the session's write scope, the one `/mode`
    /// switches and the sandbox is built from (SPEC §14.2), and further built-ins that
    /// need the session (`shell`).
    pub fn from_config_with_scope(
        config: &Config,
        workspace_root: &Path,
        scope: crate::sandbox::SharedScope,
        more: Vec<super::registry::RegisteredTool>,
    ) -> Self {
        let mut r = ToolRegistry::new();
        let mut builtins = builtin::tools(workspace_root);
        builtins.extend(edit::tools(scope, builtin::DEFAULT_BUILTIN_TIMEOUT));
        builtins.extend(more);
        // The plan tool is declared from the first request: a plan never changes the tool
        // list (SPEC §15.3).
        builtins.push(super::plan::tool());
        // Name order, as the read-only built-ins are declared.
        builtins.sort_by(|a, b| a.schema.name.cmp(&b.schema.name));
        for t in &mut builtins {
            t.enabled = config.builtin_tools;
        }
        r.set_source_tools(ToolSource::Builtin, builtins);
        r.set_source_tools(ToolSource::Command, command::tools(config));
        r.set_defer_over(config.defer_tools_over);
        r
    }
}
