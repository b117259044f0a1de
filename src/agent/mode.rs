//! The sandbox mode as the loop holds it (SPEC §14.2): `/mode`, Shift+Tab
//! ([`crate::agent::protocol::AgentCommand::SetMode`]) and the note that tells the model.
//! `plan` (SPEC §15.3, decision 0176) is the read-only sandbox with a note that asks for a
//! plan through `update_plan` and no change; it is switched and restored like the others.
//!
//! A switch declares no tool and removes none: the edit tools stay declared and refuse in
//! `read-only`. The model learns its new mode from a text-only developer message
//! ([`MODE_NOTE_SOURCE`]) appended to the log, which the projection sends on every route as
//! user text at its position, so the next request repeats the previous bytes and adds only
//! the note's (decision 0060).

use crate::agent::commands::CommandContext;
use crate::agent::protocol::{AgentEvent, SandboxInfo};
use crate::agent::turn::LineOutcome;
use crate::i18n::Arg;
use crate::sandbox::{AgentMode, SandboxMode};
use crate::session::event::{
    Block, DeveloperMessageData, EventKind, MODE_NOTE_SOURCE, Message, Role, Source,
};

/// What the model is told it can do in `mode` (English and stable, §5): the system
/// prompt's sentence for the starting mode, and the note after a switch.
pub fn capabilities(mode: SandboxMode, network: bool) -> String {
    let net = if network {
        "with network access"
    } else {
        "without network access"
    };
    match mode {
        SandboxMode::ReadOnly => format!(
            "The sandbox mode is read-only: you can read files (read_file, list_dir, grep) and \
             run shell commands that change nothing ({net}); apply_patch, edit_file and \
             write_file refuse, and nothing is writable but $TMPDIR, a private temporary \
             directory that lasts for the session. Do not try to change files: say what \
             you would change, and the user can switch modes with /mode."
        ),
        SandboxMode::WorkspaceWrite => format!(
            "The sandbox mode is workspace-write: you can edit files inside the workspace and \
             its writable roots with apply_patch, edit_file and write_file, and run commands \
             with shell inside a sandbox ({net}). .git, .hg, .svn and .jj at any depth, \
             .deepterm/, .claude/, the config file and the session directory are protected. \
             Sandboxed commands share one private temporary directory for the session \
             ($TMPDIR, also /tmp where the sandbox can mount it; its files last until the \
             session ends) and may run a limited number of processes.{root} If a command \
             needs more, call shell with escalate = true and a justification; the user decides.",
            root = if crate::sandbox::probe::root_entries_limited() {
                " Here the sandbox cannot create, remove or rename entries directly in the \
                 workspace root (only below it); existing files there stay writable."
            } else {
                ""
            }
        ),
        SandboxMode::FullAccess => format!(
            "The sandbox mode is full-access: there is no sandbox; shell commands run as the \
             user ({net}) and edits may go anywhere, so every shell call and edit asks the \
             user first."
        ),
    }
}

/// The text of the note appended when the mode changes.
pub fn mode_note(mode: AgentMode, network: bool) -> String {
    match mode {
        AgentMode::Plan => format!(
            "[deepterm] The user switched to plan mode. {} Explore the workspace as much as \
             you need, then propose a plan: call update_plan with the steps (all pending), \
             say briefly what you found, and stop. Change nothing; the user reviews the plan \
             and decides whether you carry it out.",
            capabilities(SandboxMode::ReadOnly, network)
        ),
        m => format!(
            "[deepterm] The user switched the sandbox mode. {}",
            capabilities(m.sandbox(), network)
        ),
    }
}

impl CommandContext<'_> {
    /// `/mode` alone: the current mode and the choices. `/mode MODE`: switches.
    pub(crate) fn mode_command(&mut self, mode: Option<AgentMode>) -> LineOutcome {
        let current = self.services.sandbox.agent_mode();
        let Some(mode) = mode else {
            return self.info(
                "cmd-mode-current",
                vec![
                    ("mode", Arg::from(current.as_str())),
                    (
                        "network",
                        Arg::from(network_arg(self.services.sandbox.network)),
                    ),
                ],
            );
        };
        self.set_mode(mode)
    }

    /// Switches to `mode` (`/mode MODE`, Shift+Tab): logs the note once, tells the UI.
    pub(crate) fn set_mode(&mut self, mode: AgentMode) -> LineOutcome {
        if mode == self.services.sandbox.agent_mode() {
            return self.info("cmd-mode-same", vec![("mode", Arg::from(mode.as_str()))]);
        }
        if let Err(out) = self.log_mode_note(mode) {
            return out;
        }
        self.services.sandbox.set_agent_mode(mode);
        self.events
            .emit(AgentEvent::Sandbox(SandboxInfo::of(&self.services.sandbox)));
        self.info("cmd-mode-set", vec![("mode", Arg::from(mode.as_str()))])
    }

    /// Appends the note telling the model it is now in `mode` (with the mode as data in
    /// its source, for resume).
    fn log_mode_note(&mut self, mode: AgentMode) -> Result<(), LineOutcome> {
        let turn = self.current_turn();
        let mut source = Source::kind(MODE_NOTE_SOURCE);
        source
            .extra
            .insert("mode".into(), serde_json::Value::from(mode.as_str()));
        let note = Message::new(
            Role::Developer,
            vec![Block::text(mode_note(mode, self.services.sandbox.network))],
            source,
        );
        let logged = self
            .session_mut()
            .push(EventKind::DeveloperMessage(DeveloperMessageData {
                turn,
                step: 0,
                message: note,
                header_seq: None,
            }));
        match logged {
            Ok(_) => Ok(()),
            // Not logged, so not switched: the model would not know.
            Err(e) => Err(self.warn("agent-session-error", vec![("error", Arg::from(e.text()))])),
        }
    }

    /// On resume: the session's last logged mode comes back when it is no looser than the
    /// mode this start was configured with (a log is not trusted to widen the sandbox).
    /// When it would be looser, the configured mode stays and a note tells the model, so
    /// the model and the sandbox agree.
    pub(crate) fn restore_mode(&mut self) {
        let logged = self
            .session()
            .events()
            .iter()
            .rev()
            .find_map(|e| match &e.kind {
                EventKind::DeveloperMessage(d) if d.message.is_mode_note() => d
                    .message
                    .source
                    .extra
                    .get("mode")
                    .and_then(|v| v.as_str())
                    .and_then(AgentMode::parse),
                _ => None,
            });
        let Some(logged) = logged else { return };
        let current = self.services.sandbox.agent_mode();
        if logged == current {
            return;
        }
        if strictness(logged.sandbox()) >= strictness(current.sandbox()) {
            self.services.sandbox.set_agent_mode(logged);
            self.events
                .emit(AgentEvent::Sandbox(SandboxInfo::of(&self.services.sandbox)));
        } else if self.log_mode_note(current).is_ok() {
            self.events
                .emit(AgentEvent::Sandbox(SandboxInfo::of(&self.services.sandbox)));
        }
    }
}

/// The modes Shift+Tab cycles through, in order (SPEC §15.3): workspace-write → plan →
/// read-only → workspace-write. `full-access` is not one of them: it is reached only by
/// `/mode full-access`, which asks to confirm. One table, so a mode added to the cycle is
/// one entry here.
pub const SHIFT_TAB_CYCLE: &[AgentMode] = &[
    AgentMode::WorkspaceWrite,
    AgentMode::Plan,
    AgentMode::ReadOnly,
];

/// The mode Shift+Tab switches to from `current`: the next one in [`SHIFT_TAB_CYCLE`],
/// wrapping; from a mode outside the cycle (`full-access`), the cycle's first.
pub fn shift_tab_next(current: AgentMode) -> AgentMode {
    match SHIFT_TAB_CYCLE.iter().position(|m| *m == current) {
        Some(i) => SHIFT_TAB_CYCLE[(i + 1) % SHIFT_TAB_CYCLE.len()],
        None => SHIFT_TAB_CYCLE[0],
    }
}

/// How much a mode forbids: read-only is the strictest.
fn strictness(mode: SandboxMode) -> u8 {
    match mode {
        SandboxMode::ReadOnly => 2,
        SandboxMode::WorkspaceWrite => 1,
        SandboxMode::FullAccess => 0,
    }
}

/// The Fluent selector value for the network setting.
pub fn network_arg(network: bool) -> &'static str {
    if network { "on" } else { "off" }
}
