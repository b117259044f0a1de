//! Checkpoints in the loop (SPEC §14.3, decision 0080): the first workspace-changing call
//! of a turn (an edit tool, or a `shell` call that runs) takes a checkpoint of the
//! workspace and logs it (`checkpoint/taken`); the end of such a turn logs the state it
//! left (`checkpoint/settled`). `/undo`, `/diff`, `/rewind` and a resume read turn →
//! checkpoint from the log alone ([`turn_records`]).

mod steps;

pub use crate::checkpoint::checkpointer::Checkpointer;
use crate::session::Session;
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
    // The seq of the undo that marked each turn undone.
    let mut undone_at: std::collections::HashMap<u64, u64> = std::collections::HashMap::new();
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
                    undone_at.insert(c.turn, e.seq);
                }
            }
            // A code rewind to a point before an undo took that undo back: the turn's
            // change is in the files again.
            EventKind::SessionRewind(w) if w.scope.code() => {
                for r in out.iter_mut().filter(|r| r.undone) {
                    if undone_at.get(&r.turn).is_some_and(|&at| at >= w.to_seq) {
                        r.undone = false;
                        undone_at.remove(&r.turn);
                    }
                }
            }
            _ => {}
        }
    }
    out
}

/// The newest snapshot id in the log (the base of an incremental snapshot after a resume).
pub(crate) fn latest_snapshot_id(session: &Session) -> Option<String> {
    session.events().iter().rev().find_map(|e| match &e.kind {
        EventKind::CheckpointTaken(c) => Some(c.checkpoint.clone()),
        EventKind::CheckpointSettled(c) => Some(c.checkpoint.clone()),
        _ => None,
    })
}

/// Whether turn `turn` already logged its checkpoint (looked up back to its start).
pub(crate) fn taken_in(session: &Session, turn: u64) -> bool {
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
    crate::agent::acting_policy::ActingPolicy::is_acting(name)
}
