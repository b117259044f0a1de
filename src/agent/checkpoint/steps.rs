//! Checkpoints around a turn's tool calls (SPEC §14.3, decision 0080): the loop's side of
//! [`crate::agent::checkpoint`], kept apart from the checkpointer so the loop's type and
//! the checkpointer it holds do not name each other.

use crate::agent::checkpoint::{changes_workspace, latest_snapshot_id, taken_in};
use crate::agent::protocol::AgentEvent;
use crate::agent::tool_runner::ToolCall;
use crate::agent::turn::TurnRunner;
use crate::i18n::Arg;
use crate::session::checkpoint_event::{CheckpointSettled, CheckpointTaken};
use crate::session::event::EventKind;

impl TurnRunner<'_> {
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
        if !will_change
            || !self.services.checkpoints.enabled()
            || taken_in(&self.state.session, turn)
        {
            return;
        }
        let base = latest_snapshot_id(&self.state.session);
        match self.services.checkpoints.take(base.as_deref()) {
            Ok((id, m)) => {
                // Chat folds its node from the logged event; `exec` says it.
                if !self.is_interactive() {
                    self.events.emit(crate::agent::protocol::Notice::new(
                        crate::agent::protocol::NoticeLevel::Info,
                        "checkpoint-taken",
                        vec![
                            ("turn", Arg::from(turn)),
                            ("files", Arg::from(m.files.len())),
                        ],
                    ));
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
                    self.events.emit(crate::agent::protocol::Notice::new(
                        crate::agent::protocol::NoticeLevel::Warn,
                        "checkpoint-skipped",
                        vec![
                            ("count", Arg::from(m.skipped.len())),
                            ("files", Arg::from(names.join(", "))),
                        ],
                    ));
                }
            }
            Err(e) => self.events.emit(crate::agent::protocol::Notice::new(
                crate::agent::protocol::NoticeLevel::Warn,
                "checkpoint-failed",
                vec![("error", Arg::from(e.text()))],
            )),
        }
    }

    /// At the end of a turn that took a checkpoint: logs the state it left.
    pub(crate) fn settle_checkpoint(&mut self, turn: u64) {
        if !self.services.checkpoints.enabled() || !taken_in(&self.state.session, turn) {
            return;
        }
        match self.services.checkpoints.take(None) {
            Ok((id, _)) => {
                let kind = EventKind::CheckpointSettled(CheckpointSettled {
                    turn,
                    checkpoint: id,
                });
                self.commit_checkpoint_event(kind);
            }
            Err(e) => self.events.emit(crate::agent::protocol::Notice::new(
                crate::agent::protocol::NoticeLevel::Warn,
                "checkpoint-failed",
                vec![("error", Arg::from(e.text()))],
            )),
        }
    }

    /// Appends a checkpoint event and tells the UI (a failed write is said, not fatal:
    /// the turn goes on without the checkpoint).
    pub(crate) fn commit_checkpoint_event(&mut self, kind: EventKind) -> bool {
        match self.state.session.push(kind) {
            Ok(ev) => {
                self.events.emit(AgentEvent::Committed(ev));
                true
            }
            Err(e) => {
                self.events.emit(crate::agent::protocol::Notice::new(
                    crate::agent::protocol::NoticeLevel::Error,
                    "agent-session-error",
                    vec![("error", Arg::from(e.text()))],
                ));
                false
            }
        }
    }
}
