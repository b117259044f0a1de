//! The fold's tool-change nodes: a logged `tools/changed` event as one netted node per
//! request, and the tools a developer message names.

use crate::agent::protocol::ToolInfo;
use crate::session::tools_event::ToolsChangedData;
use crate::tools::registry::ToolSource;
use crate::ui::chat::cells::{Cell, CellKind, ContextCell};
use crate::ui::context_node::ContextKind;
use crate::ui::text::sanitize;

use super::{MAX_TOOL_INFOS, Transcript};

impl Transcript {
    /// A logged `tools/changed` event: one node, made when the change
    /// happened, the same live and on a resumed log. Every change until the next request
    /// goes into that one node, netted (a change and its reversal cancel out, leaving "no
    /// net change"): a server that changes its list in a loop is one node per request,
    /// not one per change.
    pub(super) fn tools_changed(&mut self, c: &ToolsChangedData) {
        self.logs_tool_changes = true;
        // A server that invents new names on every change must not grow this without
        // bound; the nodes keep their own copies.
        if self.tool_infos.len() > MAX_TOOL_INFOS {
            self.tool_infos.clear();
        }
        let infos: Vec<ToolInfo> = c
            .added
            .iter()
            .chain(&c.removed)
            .map(|t| ToolInfo {
                name: t.name.clone(),
                source: ToolSource::from_logged(&t.source).label(),
                description: t.description.clone(),
            })
            .collect();
        for t in &infos {
            self.tool_infos.insert(t.name.clone(), t.clone());
        }
        let added: Vec<String> = c.added.iter().map(|t| sanitize(&t.name)).collect();
        let removed: Vec<String> = c.removed.iter().map(|t| sanitize(&t.name)).collect();
        if let Some(i) = self.open_node
            && let Some(Cell {
                kind: CellKind::Context(ContextCell { kind, tools: shown }),
                ..
            }) = self.cells.get_mut(i)
            && kind.merge_tools(&added, &removed)
        {
            let before = std::mem::take(shown);
            *shown = kind
                .tool_names()
                .filter_map(|n| {
                    let earlier = || before.iter().find(|t| sanitize(&t.name) == *n);
                    self.tool_infos.get(n).or_else(earlier).cloned()
                })
                .collect();
            self.touch(i);
            return;
        }
        let kind = ContextKind::Tools { added, removed };
        let i = self.push(CellKind::Context(ContextCell { kind, tools: infos }));
        self.open_node = Some(i);
    }

    /// A logged tool-change developer message, in a log written before `tools/changed`
    /// existed: there the message is the only record of the change, so
    /// it makes the node. On a resumed log a change logged by a turn's first request goes
    /// before that turn's message, where the change was made.
    pub(super) fn developer_tools(
        &mut self,
        added: Vec<String>,
        removed: Vec<String>,
        first_step: bool,
    ) {
        if self.logs_tool_changes {
            return;
        }
        let infos = added
            .iter()
            .chain(&removed)
            .filter_map(|n| self.tool_infos.get(n).cloned())
            .collect();
        let kind = ContextKind::Tools { added, removed };
        let i = self.push(CellKind::Context(ContextCell { kind, tools: infos }));
        // The user message's attachment lines stay with it.
        let user = self.cells[..i]
            .iter()
            .rposition(|c| !matches!(c.kind, CellKind::Attachment(_)));
        if self.replaying
            && first_step
            && let Some(j) = user
            && matches!(self.cells[j].kind, CellKind::User(_))
        {
            self.cells[j..=i].rotate_right(1);
        }
    }
}
