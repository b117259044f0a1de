//! The mode the user picks (`/mode`, Shift+Tab; SPEC §14.2, §15.3): a sandbox mode, or
//! `plan`, which is the read-only sandbox with a note asking the model to explore and
//! propose a plan (decision 0176). The tools only ever see the [`SandboxMode`].

use serde::{Deserialize, Serialize};

use super::SandboxMode;

/// A mode `/mode` takes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum AgentMode {
    /// Nothing is writable.
    ReadOnly,
    /// Read-only, and the model is asked to explore and propose a plan, then stop.
    Plan,
    /// The workspace is writable.
    #[default]
    WorkspaceWrite,
    /// No sandbox.
    FullAccess,
}

impl AgentMode {
    /// The `/mode` and log spelling.
    pub fn as_str(self) -> &'static str {
        match self {
            AgentMode::Plan => "plan",
            m => m.sandbox().as_str(),
        }
    }

    /// Parses the `/mode` and log spelling.
    pub fn parse(s: &str) -> Option<AgentMode> {
        match s {
            "plan" => Some(AgentMode::Plan),
            s => SandboxMode::parse(s).map(AgentMode::from),
        }
    }

    /// The sandbox the tools run in.
    pub fn sandbox(self) -> SandboxMode {
        match self {
            AgentMode::ReadOnly | AgentMode::Plan => SandboxMode::ReadOnly,
            AgentMode::WorkspaceWrite => SandboxMode::WorkspaceWrite,
            AgentMode::FullAccess => SandboxMode::FullAccess,
        }
    }
}

impl From<SandboxMode> for AgentMode {
    fn from(m: SandboxMode) -> AgentMode {
        match m {
            SandboxMode::ReadOnly => AgentMode::ReadOnly,
            SandboxMode::WorkspaceWrite => AgentMode::WorkspaceWrite,
            SandboxMode::FullAccess => AgentMode::FullAccess,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plan_mode_runs_the_tools_read_only_and_every_spelling_round_trips() {
        assert_eq!(AgentMode::Plan.sandbox(), SandboxMode::ReadOnly);
        for m in [
            AgentMode::ReadOnly,
            AgentMode::Plan,
            AgentMode::WorkspaceWrite,
            AgentMode::FullAccess,
        ] {
            assert_eq!(AgentMode::parse(m.as_str()), Some(m));
            let json = serde_json::to_string(&m).unwrap();
            assert_eq!(json, format!("\"{}\"", m.as_str()));
        }
        assert_eq!(AgentMode::parse("planning"), None);
    }
}
