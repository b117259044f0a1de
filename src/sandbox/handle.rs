//! The running session's handle on the sandbox: the write scope the acting tools read at
//! call time (`/mode` switches it in place) and the network setting.

use super::{SandboxMode, SharedScope, WriteScope};

/// The loop's view of the sandbox: the write scope the tools read at call time, and the
/// network setting shell commands get.
#[derive(Debug, Clone)]
pub struct SandboxHandle {
    /// Shared with the edit and shell tools.
    pub scope: SharedScope,
    /// `[sandbox] network`.
    pub network: bool,
    /// The user's mode is `plan` (SPEC §15.3): the scope is read-only and the model was
    /// told to plan. Only the loop reads it; the tools see the scope's mode.
    pub plan: bool,
}

impl SandboxHandle {
    /// A handle over `scope`.
    pub fn new(scope: WriteScope, network: bool) -> SandboxHandle {
        SandboxHandle {
            scope: std::sync::Arc::new(std::sync::RwLock::new(scope)),
            network,
            plan: false,
        }
    }

    /// The default for a loop built without one (tests, fixtures): `workspace-write` over
    /// the current directory, nothing protected beyond what the caller adds.
    pub fn for_workspace(workspace: &std::path::Path) -> SandboxHandle {
        let ws = workspace
            .canonicalize()
            .unwrap_or_else(|_| workspace.to_path_buf());
        SandboxHandle::new(
            WriteScope {
                mode: SandboxMode::WorkspaceWrite,
                workspace: ws.clone(),
                writable_roots: vec![ws],
                protected: Vec::new(),
            },
            false,
        )
    }

    /// The current mode.
    pub fn mode(&self) -> SandboxMode {
        self.scope.read().unwrap_or_else(|e| e.into_inner()).mode
    }

    /// Switches the mode the tools see from their next call.
    pub fn set_mode(&self, mode: SandboxMode) {
        self.scope.write().unwrap_or_else(|e| e.into_inner()).mode = mode;
    }

    /// The user's mode: the sandbox mode, or `plan`.
    pub fn agent_mode(&self) -> super::AgentMode {
        if self.plan {
            super::AgentMode::Plan
        } else {
            self.mode().into()
        }
    }

    /// Switches to the user's `mode`: the sandbox the tools see, and whether it is `plan`.
    pub fn set_agent_mode(&mut self, mode: super::AgentMode) {
        self.set_mode(mode.sandbox());
        self.plan = mode == super::AgentMode::Plan;
    }
}
