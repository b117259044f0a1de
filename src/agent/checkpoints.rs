//! Checkpoints in the loop (SPEC §14.3, decision 0080): the first workspace-changing call
//! of a turn (an edit tool, or a `shell` call that runs) takes a checkpoint of the
//! workspace and logs it (`checkpoint/taken`); the end of such a turn logs the state it
//! left (`checkpoint/settled`). `/undo`, `/diff`, `/rewind` and a resume read turn →
//! checkpoint from the log alone ([`turn_records`]).

use crate::agent::protocol::AgentEvent;
use crate::agent::run::Agent;
use crate::agent::tool_runner::ToolCall;
pub use crate::checkpoint::checkpointer::Checkpointer;
use crate::i18n::Arg;
use crate::session::Session;
use crate::session::checkpoint_event::{CheckpointSettled, CheckpointTaken};
use crate::session::event::EventKind;

/// One prompt of the conversation that still counts, with its checkpoints.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TurnRecord {
    /// Its position among the prompts that still count, from 1 (what `/rewind N`,
    /// `/diff N` and the picker number).
    pub position: usize,
    /// The logged turn number.
    pub turn: u64,
    /// Seq of its `turn/start`.
    pub start_seq: u64,
    /// What the user typed.
    pub prompt: String,
    /// The checkpoint before its first workspace change.
    pub before: Option<String>,
    /// The state it left.
    pub after: Option<String>,
    /// Its changes were put back.
    pub undone: bool,
}

/// The prompts of `session` that still count (rewound ones left out), in order.
pub fn turn_records(session: &Session) -> Vec<TurnRecord> {
    let mut out: Vec<TurnRecord> = Vec::new();
    for e in session.effective_events() {
        match &e.kind {
            EventKind::TurnStart(t) => out.push(TurnRecord {
                position: out.len() + 1,
                turn: t.turn,
                start_seq: e.seq,
                prompt: String::new(),
                before: None,
                after: None,
                undone: false,
            }),
            EventKind::UserMessage(u) => {
                if let Some(r) = out.last_mut()
                    && r.prompt.is_empty()
                    && u.message.source.kind == "user"
                {
                    r.prompt = u.message.typed_text();
                }
            }
            EventKind::CheckpointTaken(c) => {
                if let Some(r) = out.iter_mut().rev().find(|r| r.turn == c.turn) {
                    r.before = Some(c.checkpoint.clone());
                }
            }
            EventKind::CheckpointSettled(c) => {
                if let Some(r) = out.iter_mut().rev().find(|r| r.turn == c.turn) {
                    r.after = Some(c.checkpoint.clone());
                }
            }
            // An undo that left conflicts alone is not complete: `/undo --force` goes
            // back to the same turn.
            EventKind::CheckpointUndo(c) if c.conflicts.is_empty() || c.forced => {
                if let Some(r) = out.iter_mut().rev().find(|r| r.turn == c.turn) {
                    r.undone = true;
                }
            }
            _ => {}
        }
    }
    out
}

/// The newest snapshot id in the log (the base of an incremental snapshot after a resume).
fn latest_snapshot_id(session: &Session) -> Option<String> {
    session.events().iter().rev().find_map(|e| match &e.kind {
        EventKind::CheckpointTaken(c) => Some(c.checkpoint.clone()),
        EventKind::CheckpointSettled(c) => Some(c.checkpoint.clone()),
        _ => None,
    })
}

/// Whether turn `turn` already logged its checkpoint (looked up back to its start).
fn taken_in(session: &Session, turn: u64) -> bool {
    for e in session.events().iter().rev() {
        match &e.kind {
            EventKind::CheckpointTaken(c) if c.turn == turn => return true,
            EventKind::TurnStart(t) if t.turn == turn => return false,
            _ => {}
        }
    }
    false
}

/// Whether a call changes the workspace when it runs (an edit tool or `shell`).
pub fn changes_workspace(name: &str) -> bool {
    crate::agent::acting::ActingPolicy::is_acting(name)
}

impl Agent {
    /// Turns checkpoints on (the app does, for the workspace it starts in).
    pub fn set_checkpoints(&mut self, c: Checkpointer) {
        self.checkpoints = c;
    }

    /// Before the calls run: when one of them will change the workspace (it was not
    /// refused) and this turn has no checkpoint yet, takes one and logs it.
    pub(crate) fn checkpoint_before_calls(
        &mut self,
        turn: u64,
        calls: &[ToolCall],
        decided: &[Option<String>],
    ) {
        let will_change = calls
            .iter()
            .zip(decided)
            .any(|(c, d)| d.is_none() && changes_workspace(&c.name));
        if !will_change || !self.checkpoints.enabled() || taken_in(self.session(), turn) {
            return;
        }
        let base = latest_snapshot_id(self.session());
        match self.checkpoints.take(base.as_deref()) {
            Ok((id, m)) => {
                // Chat folds its node from the logged event; `exec` says it.
                if !self.is_interactive() {
                    self.emit_notice(
                        crate::agent::protocol::NoticeLevel::Info,
                        "checkpoint-taken",
                        vec![
                            ("turn", Arg::from(turn)),
                            ("files", Arg::from(m.files.len())),
                        ],
                    );
                }
                let kind = EventKind::CheckpointTaken(CheckpointTaken {
                    turn,
                    checkpoint: id,
                    files: m.files.len() as u64,
                    skipped: m.skipped.iter().map(|s| s.path.clone()).collect(),
                });
                self.commit_checkpoint_event(kind);
                if !m.skipped.is_empty() {
                    let names: Vec<&str> = m.skipped.iter().map(|s| s.path.as_str()).collect();
                    self.emit_notice(
                        crate::agent::protocol::NoticeLevel::Warn,
                        "checkpoint-skipped",
                        vec![
                            ("count", Arg::from(m.skipped.len())),
                            ("files", Arg::from(names.join(", "))),
                        ],
                    );
                }
            }
            Err(e) => self.emit_notice(
                crate::agent::protocol::NoticeLevel::Warn,
                "checkpoint-failed",
                vec![("error", Arg::from(e.to_string()))],
            ),
        }
    }

    /// At the end of a turn that took a checkpoint: logs the state it left.
    pub(crate) fn settle_checkpoint(&mut self, turn: u64) {
        if !self.checkpoints.enabled() || !taken_in(self.session(), turn) {
            return;
        }
        match self.checkpoints.take(None) {
            Ok((id, _)) => {
                let kind = EventKind::CheckpointSettled(CheckpointSettled {
                    turn,
                    checkpoint: id,
                });
                self.commit_checkpoint_event(kind);
            }
            Err(e) => self.emit_notice(
                crate::agent::protocol::NoticeLevel::Warn,
                "checkpoint-failed",
                vec![("error", Arg::from(e.to_string()))],
            ),
        }
    }

    /// Appends a checkpoint event and tells the UI (a failed write is said, not fatal:
    /// the turn goes on without the checkpoint).
    pub(crate) fn commit_checkpoint_event(&mut self, kind: EventKind) -> bool {
        match self.state_mut().session.push(kind) {
            Ok(ev) => {
                self.emit_event(AgentEvent::Committed(ev));
                true
            }
            Err(e) => {
                self.emit_notice(
                    crate::agent::protocol::NoticeLevel::Error,
                    "agent-session-error",
                    vec![("error", Arg::from(e.to_string()))],
                );
                false
            }
        }
    }
}
