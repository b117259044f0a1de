//! The fold's side of approvals: a call's preview and why it asks, the card marked as
//! waiting (or an approval cell when no card was logged), the queue position, the answer.

use crate::agent::protocol::ApprovalDecision;
use crate::ui::chat::cells::{ApprovalCell, CellKind, ToolApproval, ToolCell};

use super::Transcript;

impl Transcript {
    /// Keeps what call `call` would do, for its card while it waits.
    pub fn set_preview(&mut self, call: &str, p: crate::agent::protocol::ApprovalPreview) {
        if let Some(&i) = self.by_call.get(call)
            && let CellKind::Tool(ToolCell { preview, .. }) = &mut self.cells[i].kind
        {
            *preview = Some(Box::new(crate::ui::chat::acting_card::sanitized(p)));
            self.touch(i);
        }
    }

    /// Keeps why call `call` asks and what `a` does, for its card and the key bar.
    pub fn set_ask_info(&mut self, call: &str, info: crate::ui::approval_keys::AskInfo) {
        if let Some(&i) = self.by_call.get(call)
            && let CellKind::Tool(ToolCell { ask, .. }) = &mut self.cells[i].kind
        {
            *ask = Some(Box::new(info));
            self.touch(i);
        }
    }

    /// Why call `call` asks, if the agent said.
    pub fn ask_info(&self, call: &str) -> Option<crate::ui::approval_keys::AskInfo> {
        let &i = self.by_call.get(call)?;
        match &self.cells[i].kind {
            CellKind::Tool(ToolCell { ask, .. }) => ask.as_deref().cloned(),
            _ => None,
        }
    }

    /// Marks call `call`'s tool card as waiting for the user; returns the
    /// card's index. Without a card for the call (none was logged), an approval cell shows
    /// the tool and arguments instead.
    pub fn request_approval(&mut self, call: &str, tool: &str, arguments: &str) -> usize {
        if let Some(&i) = self.by_call.get(call)
            && let CellKind::Tool(ToolCell { approval, .. }) = &mut self.cells[i].kind
        {
            *approval = Some(ToolApproval::Waiting);
            self.touch(i);
            // The step's other calls without a result wait too: none runs before every
            // call of the step is decided.
            self.set_queued(Some(i));
            return i;
        }
        self.push(CellKind::Approval(ApprovalCell {
            call_id: call.to_string(),
            tool: tool.to_string(),
            arguments: arguments.to_string(),
            ..ApprovalCell::default()
        }))
    }

    /// Marks every result-less tool card that needs no answer as queued behind the one
    /// waiting (`Some(waiting)`), or clears those marks (`None`).
    pub(super) fn set_queued(&mut self, waiting: Option<usize>) {
        let open: Vec<usize> = self.by_call.values().copied().collect();
        for j in open {
            if Some(j) == waiting {
                continue;
            }
            if let CellKind::Tool(ToolCell {
                result: None,
                approval,
                ..
            }) = &mut self.cells[j].kind
            {
                let next = match (*approval, waiting) {
                    (None, Some(_)) => Some(ToolApproval::Queued),
                    (Some(ToolApproval::Queued), None) => None,
                    _ => continue,
                };
                *approval = next;
                self.touch(j);
            }
        }
    }

    /// Records a decision on call `call`'s tool card (or approval cell).
    pub fn decide(&mut self, call: &str, d: ApprovalDecision) {
        if let Some(&i) = self.by_call.get(call)
            && let CellKind::Tool(ToolCell { approval, .. }) = &mut self.cells[i].kind
        {
            *approval = Some(ToolApproval::Decided(d));
            self.touch(i);
            self.set_queued(None);
            return;
        }
        let found = self
            .cells
            .iter()
            .rposition(|c| matches!(&c.kind, CellKind::Approval(a) if a.call_id == call));
        if let Some(i) = found {
            if let CellKind::Approval(a) = &mut self.cells[i].kind {
                a.decision = Some(d);
            }
            self.touch(i);
        }
        // A subagent's call: its `task` card stops waiting for the user.
        self.subagent_answered(call);
    }
}
