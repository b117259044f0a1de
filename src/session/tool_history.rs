//! The incremental tool-history fold (reference F-1…F-8, newer generation per SPEC §12.5).
//!
//! [`ToolHistoryFold`] consumes committed events one at a time and hands out immutable
//! `Arc<ToolHistory>` snapshots: the same `Arc` until something changes, and a snapshot
//! once handed out is never mutated. Per-event cost is independent of the log length;
//! a developer message costs O(updates in the current series) to publish the next
//! snapshot, and series are bounded by the context window (compaction starts a new one).

use std::collections::{HashMap, HashSet};
use std::sync::Arc;

use crate::session::event::{Block, Event, EventKind, ToolSchema};
use crate::session::vocab::{ToolHistory, ToolHistoryUpdate};

/// A fold failure.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ToolHistoryError {
    /// A tool-addition names a tool the referenced header does not define (FX10).
    #[error("tool history: missing definition for {0}")]
    MissingDefinition(String),
}

/// Canonical JSON text of a definition: key order preserved (serde_json
/// `preserve_order`). `Value ==` on maps ignores key order, so equality must compare text.
pub fn schema_json(tool: &ToolSchema) -> String {
    // Serializing plain data (strings, a JSON value) cannot fail.
    serde_json::to_string(tool).unwrap_or_default()
}

/// Whether two definitions are JSON-equal with key order significant.
pub fn schemas_json_equal(a: &ToolSchema, b: &ToolSchema) -> bool {
    schema_json(a) == schema_json(b)
}

/// Tool lists of the same length with pairwise JSON-equal schemas, in order.
pub fn tools_equal(a: &[ToolSchema], b: &[ToolSchema]) -> bool {
    a.len() == b.len() && a.iter().zip(b).all(|(x, y)| schemas_json_equal(x, y))
}

/// The fold state (F-2).
#[derive(Debug, Clone, Default)]
pub struct ToolHistoryFold {
    /// Tools of every header seen, by seq.
    headers: HashMap<u64, Arc<Vec<ToolSchema>>>,
    /// Definitions of the current series (including removed tools), with their JSON text.
    declared: HashMap<String, (ToolSchema, String)>,
    /// Tools of the latest header.
    active: Arc<Vec<ToolSchema>>,
    /// Names reconstructed from baseline + recorded updates.
    available: HashSet<String>,
    /// Header that started the current series.
    baseline_seq: Option<u64>,
    /// Baseline tools of the current series.
    base_tools: Arc<Vec<ToolSchema>>,
    /// Updates of the current series.
    updates: Vec<ToolHistoryUpdate>,
    /// Cached snapshot; `None` after a change.
    snapshot: Option<Arc<ToolHistory>>,
    /// The tool bridge's series (SPEC §15.1): the baseline and updates since
    /// the last series start that is not a redeclaration. A same-name definition change
    /// restarts the declaration series (F-3), but the bridge declares only this baseline
    /// and sends changes as text, so for it the series goes on.
    bridge_tools: Arc<Vec<ToolSchema>>,
    /// Updates since [`ToolHistoryFold::bridge_tools`].
    bridge_updates: Vec<ToolHistoryUpdate>,
    /// Cached bridge snapshot; `None` after a change.
    bridge_snapshot: Option<Arc<ToolHistory>>,
    /// Events consumed so far (all types).
    folded: u64,
}

impl ToolHistoryFold {
    /// An empty fold.
    pub fn new() -> Self {
        ToolHistoryFold::default()
    }

    /// Number of events consumed so far.
    pub fn folded_events(&self) -> u64 {
        self.folded
    }

    /// Seq of the header that started the current declaration series.
    pub fn baseline_seq(&self) -> Option<u64> {
        self.baseline_seq
    }

    /// Names the model could call after the events folded so far: the latest header's
    /// tools as the current series explains them (a retained removal is not available).
    /// `None` before the first header. Falls back to the header's names when the recorded
    /// updates do not explain them (as [`ToolHistoryFold::snapshot`] does).
    pub fn available_names(&self) -> Option<Vec<String>> {
        self.baseline_seq?;
        let active: HashSet<&str> = self.active.iter().map(|t| t.name.as_str()).collect();
        let mut names: Vec<String> = if self.available.iter().all(|n| active.contains(n.as_str())) {
            self.available.iter().cloned().collect()
        } else {
            active.iter().map(|n| n.to_string()).collect()
        };
        names.sort();
        Some(names)
    }

    /// Consumes the next committed event (F-3…F-5). On error nothing changes.
    pub fn apply(&mut self, ev: &Event) -> Result<(), ToolHistoryError> {
        match &ev.kind {
            EventKind::RequestHeader(h) => {
                let tools = Arc::new(h.header.tools.clone().unwrap_or_default());
                self.headers.insert(ev.seq, tools.clone());
                let texts: Vec<String> = tools.iter().map(schema_json).collect();
                let redeclared = tools.iter().zip(&texts).any(|(t, text)| {
                    self.declared
                        .get(&t.name)
                        .is_some_and(|(_, before)| before != text)
                });
                let series_start = self.baseline_seq.is_none()
                    || h.reason == crate::session::event::HeaderReason::Series
                    || h.starts_series == Some(true);
                if series_start {
                    self.bridge_tools = tools.clone();
                    self.bridge_updates = Vec::new();
                    self.bridge_snapshot = None;
                }
                if series_start || redeclared {
                    self.baseline_seq = Some(ev.seq);
                    self.declared = tools
                        .iter()
                        .zip(texts)
                        .map(|(t, text)| (t.name.clone(), (t.clone(), text)))
                        .collect();
                    self.available = tools.iter().map(|t| t.name.clone()).collect();
                    self.base_tools = tools.clone();
                    self.updates = Vec::new();
                }
                self.active = tools;
                self.snapshot = None;
            }
            EventKind::DeveloperMessage(d) => {
                let defs: &[ToolSchema] = d
                    .header_seq
                    .and_then(|h| self.headers.get(&h))
                    .map(|t| t.as_slice())
                    .unwrap_or(&[]);
                // Resolve every addition before mutating so a failure leaves the fold intact.
                let mut additions = Vec::new();
                for b in &d.message.content {
                    if let Block::ToolAddition { tool_name, .. } = b {
                        let def = defs.iter().find(|t| &t.name == tool_name).ok_or_else(|| {
                            ToolHistoryError::MissingDefinition(tool_name.clone())
                        })?;
                        additions.push(def.clone());
                    }
                }
                for t in &additions {
                    let text = schema_json(t);
                    self.declared.insert(t.name.clone(), (t.clone(), text));
                }
                for b in &d.message.content {
                    match b {
                        Block::ToolAddition { tool_name, .. } => {
                            self.available.insert(tool_name.clone());
                        }
                        Block::ToolRemoval { tool_name } => {
                            self.available.remove(tool_name);
                        }
                        _ => {}
                    }
                }
                self.bridge_updates.push(ToolHistoryUpdate {
                    message_id: d.message.id.clone(),
                    additions: additions.clone(),
                });
                self.bridge_snapshot = None;
                self.updates.push(ToolHistoryUpdate {
                    message_id: d.message.id.clone(),
                    additions,
                });
                self.snapshot = None;
            }
            _ => {}
        }
        self.folded += 1;
        Ok(())
    }

    /// The tool bridge's snapshot: its baseline and every update since, across
    /// redeclarations (see [`ToolHistoryFold::bridge_tools`]). The same `Arc` until the
    /// next change.
    pub fn bridge_snapshot(&mut self) -> Arc<ToolHistory> {
        if let Some(s) = &self.bridge_snapshot {
            return s.clone();
        }
        let snap = Arc::new(ToolHistory {
            tools: self.bridge_tools.as_ref().clone(),
            updates: self.bridge_updates.clone(),
        });
        self.bridge_snapshot = Some(snap.clone());
        snap
    }

    /// The current immutable snapshot (F-6): the series history, or a fallback
    /// `{tools: active, updates: []}` when the recorded updates do not explain the
    /// active tools. The same `Arc` is returned until the next change.
    pub fn snapshot(&mut self) -> Arc<ToolHistory> {
        if let Some(s) = &self.snapshot {
            return s.clone();
        }
        let consistent = self.active.len() == self.available.len()
            && self.active.iter().all(|t| self.available.contains(&t.name));
        let snap = if consistent {
            ToolHistory {
                tools: self.base_tools.as_ref().clone(),
                updates: self.updates.clone(),
            }
        } else {
            ToolHistory {
                tools: self.active.as_ref().clone(),
                updates: Vec::new(),
            }
        };
        let snap = Arc::new(snap);
        self.snapshot = Some(snap.clone());
        snap
    }
}
