//! The surface fold: the ordered model-visible nodes built from surface events
//! (reference E-2, E-15, SURF) and the request messages derived from them.
//!
//! Appends push a node; a replacement shadows a contiguous range of current nodes with
//! one new node and bumps `content_generation` (used by L-1b). The derived message list
//! is kept up to date as nodes are appended and rebuilt only after a replacement, so
//! deriving is the clone of one `Arc`; the tool-call id scan (decision 0009) and the positions of
//! the system nodes are kept the same way, so no per-request step walks the history.

use std::sync::Arc;

use crate::session::event::{Event, EventKind, Message, SurfaceOp};
use crate::session::message_list::MessageList;
use crate::session::tool_ids::RepairScan;
use crate::session::validate::ValidationError;

/// One current surface node.
#[derive(Debug, Clone)]
pub struct SurfaceNode {
    /// Seq of the event that produced the node.
    pub seq: u64,
    /// The event's type name.
    pub event_type: &'static str,
    /// The node's message (shared with every derived request).
    pub message: Arc<Message>,
}

impl SurfaceNode {
    /// Whether the node derives a request message: empty system, developer and
    /// assistant messages keep their position but derive none (SURF, E-15).
    pub fn derives_message(&self) -> bool {
        !(self.message.content.is_empty()
            && matches!(
                self.event_type,
                "system/message" | "developer/message" | "assistant/message"
            ))
    }
}

/// A validated surface transition that has not been applied yet.
#[derive(Debug, Clone)]
pub enum SurfacePlan {
    /// The event is not a surface event.
    None,
    /// Append a node.
    Append,
    /// Replace nodes `start_idx..=end_idx` with the event's node.
    Replace {
        /// Index of the first shadowed node.
        start_idx: usize,
        /// Index of the last shadowed node.
        end_idx: usize,
    },
}

/// The current surface: nodes, derived messages and generation counters.
#[derive(Debug, Clone, Default)]
pub struct Surface {
    nodes: Vec<SurfaceNode>,
    derived: MessageList,
    /// The dispatch-time id repair run over `derived` so far (while it found nothing).
    scan: RepairScan,
    /// Indices of the `system/message` nodes, ascending.
    system_nodes: Vec<usize>,
    content_generation: u64,
}

impl Surface {
    /// An empty surface.
    pub fn new() -> Self {
        Surface::default()
    }

    /// Current nodes in model-visible order.
    pub fn nodes(&self) -> &[SurfaceNode] {
        &self.nodes
    }

    /// Monotonic count of committed replacements.
    pub fn content_generation(&self) -> u64 {
        self.content_generation
    }

    /// Sets the replacement count (a rewind rebuilds the surface and counts as a change).
    pub(crate) fn set_content_generation(&mut self, generation: u64) {
        self.content_generation = generation;
    }

    /// Request messages derived from the current nodes (O(1): a shared snapshot).
    pub fn derive_messages(&self) -> MessageList {
        self.derived.clone()
    }

    /// The `system/message` nodes, in order (without a walk over the other nodes).
    pub fn system_nodes(&self) -> impl Iterator<Item = &SurfaceNode> {
        self.system_nodes.iter().filter_map(|&i| self.nodes.get(i))
    }

    /// Adds a node's message to the derived list, scanning its tool-call ids once.
    fn push_derived(&mut self, message: Arc<Message>) {
        if self.derived.ids_clean() && self.scan.step(&message).is_some() {
            // The log needs the repair; every request runs it in full from now on.
            self.derived.set_ids_clean(false);
        }
        self.derived.push(message);
    }

    /// The derived messages without cloning.
    pub fn messages(&self) -> &[Arc<Message>] {
        &self.derived
    }

    /// Seqs of the current nodes that a replacement of `start..=end` would shadow, or
    /// `None` when the range is not a contiguous range of current nodes.
    pub fn shadowed_by(&self, start_seq: u64, end_seq: u64) -> Option<Vec<u64>> {
        let (s, e) = self.range(start_seq, end_seq)?;
        Some(self.nodes[s..=e].iter().map(|n| n.seq).collect())
    }

    fn range(&self, start_seq: u64, end_seq: u64) -> Option<(usize, usize)> {
        // Replacements are rare (consolidation, compaction); a linear search is fine.
        let s = self.nodes.iter().position(|n| n.seq == start_seq)?;
        let e = self.nodes[s..].iter().position(|n| n.seq == end_seq)? + s;
        Some((s, e))
    }

    /// Validates the surface side of `ev` (E-2, E-15) without changing anything.
    pub fn plan(&self, ev: &Event) -> Result<SurfacePlan, ValidationError> {
        let Some(op) = &ev.surface_op else {
            return Ok(SurfacePlan::None);
        };
        let r = match op {
            SurfaceOp::Append(_) => return Ok(SurfacePlan::Append),
            SurfaceOp::Replace(r) => r,
        };
        let Some(s) = self.nodes.iter().position(|n| n.seq == r.start_seq) else {
            return Err(ValidationError::new(
                ev,
                "E-2",
                format!(
                    "surface replace: start seq {} not found in surface",
                    r.start_seq
                ),
            ));
        };
        let Some(e) = self.nodes.iter().position(|n| n.seq == r.end_seq) else {
            return Err(ValidationError::new(
                ev,
                "E-2",
                format!(
                    "surface replace: end seq {} not found in surface",
                    r.end_seq
                ),
            ));
        };
        if s > e {
            return Err(ValidationError::new(
                ev,
                "E-2",
                format!(
                    "surface replace: start seq {} is after end seq {}",
                    r.start_seq, r.end_seq
                ),
            ));
        }
        let cited = ev.source_event_seqs.as_deref().unwrap_or(&[]);
        let missing: Vec<String> = self.nodes[s..=e]
            .iter()
            .filter(|n| !cited.contains(&n.seq))
            .map(|n| n.seq.to_string())
            .collect();
        if !missing.is_empty() {
            return Err(ValidationError::new(
                ev,
                "E-2",
                format!(
                    "surface replace: sourceEventSeqs must include every shadowed surface node; missing {}",
                    missing.join(", ")
                ),
            ));
        }
        // The system prompt at node 0 may only be rewritten by a system message over
        // exactly that node (SURF), so consolidation and compaction cannot lose it.
        if s == 0
            && self.nodes[0].event_type == "system/message"
            && (!matches!(ev.kind, EventKind::SystemMessage(_)) || e != 0)
        {
            return Err(ValidationError::new(
                ev,
                "E-2",
                "surface replace: node 0 holds the system prompt and may be rewritten only by a system/message over exactly that node",
            ));
        }
        Ok(SurfacePlan::Replace {
            start_idx: s,
            end_idx: e,
        })
    }

    /// Applies a plan made by [`Surface::plan`] for the same event.
    pub fn apply(&mut self, ev: &Event, plan: SurfacePlan) {
        let Some(message) = ev.kind.message() else {
            return;
        };
        let node = SurfaceNode {
            seq: ev.seq,
            event_type: ev.kind.type_name(),
            message: Arc::new(message.clone()),
        };
        match plan {
            SurfacePlan::None => {}
            SurfacePlan::Append => {
                if node.derives_message() {
                    self.push_derived(node.message.clone());
                }
                if node.event_type == "system/message" {
                    self.system_nodes.push(self.nodes.len());
                }
                self.nodes.push(node);
            }
            SurfacePlan::Replace { start_idx, end_idx } => {
                self.nodes
                    .splice(start_idx..=end_idx, std::iter::once(node));
                self.content_generation += 1;
                // Replacements are rare (consolidation, compaction): rebuild in full.
                self.derived = MessageList::new();
                self.scan = RepairScan::default();
                let derived: Vec<Arc<Message>> = self
                    .nodes
                    .iter()
                    .filter(|n| n.derives_message())
                    .map(|n| n.message.clone())
                    .collect();
                for m in derived {
                    self.push_derived(m);
                }
                self.system_nodes = self
                    .nodes
                    .iter()
                    .enumerate()
                    .filter(|(_, n)| n.event_type == "system/message")
                    .map(|(i, _)| i)
                    .collect();
            }
        }
    }
}
