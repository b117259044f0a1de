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
    /// `[tools.builtin] enabled = false`) and the config's command tools.
    pub fn from_config(config: &Config, workspace_root: &Path) -> Self {
        let mut r = ToolRegistry::new();
        let mut builtins = builtin::tools(workspace_root);
        // The edit tools with a local write scope of the workspace (decision 0045); the
        // session replaces it with the sandbox's scope, shared with `/mode`.
        let scope = edit::workspace_scope(workspace_root, crate::sandbox::SandboxMode::default());
        builtins.extend(edit::tools(
            std::sync::Arc::new(std::sync::RwLock::new(scope)),
            builtin::DEFAULT_BUILTIN_TIMEOUT,
        ));
        for t in &mut builtins {
            t.enabled = config.builtin_tools;
        }
        r.set_source_tools(ToolSource::Builtin, builtins);
        r.set_source_tools(ToolSource::Command, command::tools(config));
        r
    }
}
