//! What a `task` call's card shows while its subagent runs (SPEC §15.3); folded by
//! `fold/subagent.rs` from the logged subagent events.

use crate::i18n::{Arg, Localizer};

/// What a running subagent's card shows.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct SubagentLive {
    /// Its id (`a1`).
    pub agent: String,
    /// Its current step (0 before its first request).
    pub step: u64,
    /// The tool its current step called, if any.
    pub tool: Option<String>,
    /// Its replies' text and its tool calls, one entry each.
    pub transcript: Vec<String>,
    /// The call (id, tool) whose approval question waits for the user (`inherit` mode).
    pub waiting: Option<(String, String)>,
}

impl SubagentLive {
    /// "running · a1 · step 2 · read_file", or "waiting for you · a1 · step 2 · run_cmd"
    /// while its call's question waits for the user (SPEC §15.3: its approvals reach the
    /// user naming it, and its card says it is stopped on you, not running).
    pub fn status(&self, l: Localizer) -> String {
        let mut args = vec![
            ("agent", Arg::from(self.agent.clone())),
            ("step", Arg::from(self.step)),
        ];
        if let Some((_, tool)) = &self.waiting {
            args.push(("tool", Arg::from(tool.clone())));
            return l.tra("tui-task-waiting", &args);
        }
        match &self.tool {
            Some(t) => {
                args.push(("tool", Arg::from(t.clone())));
                l.tra("tui-task-running-tool", &args)
            }
            None => l.tra("tui-task-running", &args),
        }
    }
}
