//! Checkpoints in the loop (SPEC §14.3, decision 0080): the first workspace-changing call
//! of a turn (an edit tool, or a `shell` call that runs) takes a checkpoint of the
//! workspace and logs it (`checkpoint/taken`); the end of such a turn logs the state it
//! left (`checkpoint/settled`). `/undo`, `/diff`, `/rewind` and a resume read turn →
//! checkpoint from the log alone ([`turn_records`]).

use std::sync::Arc;

use crate::checkpoint::store::Store;
use crate::checkpoint::walk::{WalkSpec, snapshot};
use crate::checkpoint::{CheckpointError, Manifest};
use crate::session::Session;
use crate::session::event::EventKind;

/// How many loaded snapshots are kept in memory (the latest ones are reused most).
const CACHED_MANIFESTS: usize = 4;

/// The loop's checkpoint store and workspace, and the latest snapshot (the base of the
/// next incremental one).
#[derive(Debug, Default)]
pub struct Checkpointer {
    inner: Option<Inner>,
}

#[derive(Debug)]
struct Inner {
    store: Arc<Store>,
    spec: WalkSpec,
    last: Option<Manifest>,
    cache: Vec<(String, Manifest)>,
}

impl Checkpointer {
    /// Checkpoints of `spec.workspace` kept in the store at `root`.
    pub fn new(root: std::path::PathBuf, mut spec: WalkSpec) -> Checkpointer {
        // The store (and the session directory) may lie inside the workspace: never walked.
        spec.exclude.push(root.clone());
        Checkpointer {
            inner: Some(Inner {
                store: Arc::new(Store::new(root)),
                spec,
                last: None,
                cache: Vec::new(),
            }),
        }
    }

    /// Whether checkpoints are on.
    pub fn enabled(&self) -> bool {
        self.inner.is_some()
    }

    /// The store and walk, for restores and diffs.
    pub fn parts(&self) -> Option<(&Store, &WalkSpec)> {
        self.inner.as_ref().map(|i| (i.store.as_ref(), &i.spec))
    }

    /// Takes a snapshot (incremental over the latest one, or over `base` when this
    /// process has none yet) and saves it.
    pub fn take(&mut self, base: Option<&str>) -> Result<(String, Manifest), CheckpointError> {
        let Some(i) = self.inner.as_mut() else {
            return Err(CheckpointError::Store {
                path: String::new(),
                error: "checkpoints are off".into(),
            });
        };
        if i.last.is_none()
            && let Some(id) = base
        {
            i.last = i.store.load_manifest(id).ok();
        }
        let m = snapshot(&i.spec, &i.store, i.last.as_ref())?;
        let id = i.store.save_manifest(&m)?;
        i.last = Some(m.clone());
        remember(&mut i.cache, &id, &m);
        Ok((id, m))
    }

    /// Loads snapshot `id` (cached).
    pub fn load(&mut self, id: &str) -> Result<Manifest, CheckpointError> {
        let Some(i) = self.inner.as_mut() else {
            return Err(CheckpointError::Store {
                path: String::new(),
                error: "checkpoints are off".into(),
            });
        };
        if let Some((_, m)) = i.cache.iter().find(|(k, _)| k == id) {
            return Ok(m.clone());
        }
        let m = i.store.load_manifest(id)?;
        remember(&mut i.cache, id, &m);
        Ok(m)
    }
}

fn remember(cache: &mut Vec<(String, Manifest)>, id: &str, m: &Manifest) {
    cache.retain(|(k, _)| k != id);
    cache.push((id.to_string(), m.clone()));
    if cache.len() > CACHED_MANIFESTS {
        cache.remove(0);
    }
}

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
    crate::agent::acting::ActingPolicy::is_acting(name)
}
