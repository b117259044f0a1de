//! The fold's checkpoint nodes (SPEC §14.3): the prompts seen and what rewinds took back,
//! a workspace checkpoint, undo or rewind as a node above the card it precedes.

use crate::session::event::{Event, EventKind};
use crate::ui::chat::cells::CheckpointNode;

use super::{Transcript, TurnSeen};

impl Transcript {
    /// The position of logged turn `turn` among the prompts that still count, from 1.
    pub(super) fn position_of_turn(&self, turn: u64) -> usize {
        let counting = self.turns.iter().filter(|t| !self.rewound.contains(t.seq));
        counting.take_while(|t| t.turn != turn).count() + 1
    }

    /// Records the prompts (rewound ones too) and what a rewind takes back; returns
    /// whether `ev` still counts (a rewound event makes no cell).
    pub(super) fn observe_checkpoints(&mut self, ev: &Event) -> bool {
        self.rewound.observe(ev);
        match &ev.kind {
            EventKind::TurnStart(t) => self.turns.push(TurnSeen {
                seq: ev.seq,
                turn: t.turn,
                prompt: String::new(),
            }),
            EventKind::UserMessage(u) if u.message.source.kind == "user" => {
                if let Some(t) = self.turns.last_mut()
                    && t.prompt.is_empty()
                {
                    t.prompt = crate::agent::mentions::split(&u.message).0;
                }
            }
            _ => {}
        }
        !self.rewound.contains(ev.seq)
    }

    /// The node of a checkpoint, an undo or a rewind (SPEC §14.3), if `ev` is one.
    pub(super) fn checkpoint_node(&self, ev: &Event) -> Option<CheckpointNode> {
        Some(match &ev.kind {
            EventKind::CheckpointTaken(c) => CheckpointNode::Taken {
                n: self.position_of_turn(c.turn),
                files: c.files,
                skipped: c.skipped.clone(),
            },
            EventKind::CheckpointUndo(c) => CheckpointNode::Undo {
                n: self.position_of_turn(c.turn),
                restored: c.restored.clone(),
                conflicts: c.conflicts.clone(),
            },
            EventKind::SessionRewind(r) => {
                let before = self
                    .turns
                    .iter()
                    .filter(|t| t.seq < r.to_seq && !self.rewound.contains(t.seq))
                    .count();
                let prompt = self
                    .turns
                    .iter()
                    .find(|t| t.seq == r.to_seq)
                    .map(|t| t.prompt.split_whitespace().collect::<Vec<_>>().join(" "))
                    .unwrap_or_default();
                CheckpointNode::Rewind {
                    n: before + 1,
                    prompt: crate::ui::text::truncate(&prompt, 60),
                    scope: r.scope,
                    restored: r.restored.len(),
                }
            }
            _ => return None,
        })
    }
}
