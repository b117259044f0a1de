//! The inspector's account of a request (§14.5): what differed, where, and what it cost, in
//! the Trajectory's words (the same Fluent ids as its cache-break reasons, so the two can
//! never disagree: `context compacted`, `model changed`, …) and with one numbering from 1
//! for tool entries and messages.

use crate::agent::inspect::data::{DiffReason, InspectorData};
use crate::i18n::{Arg, Localizer};

impl DiffReason {
    /// Fluent id of the localized text. Reasons the Trajectory names on a cache break use
    /// its ids.
    pub fn message_id(&self) -> &'static str {
        match self {
            DiffReason::FirstRequest => "tui-inspector-reason-first",
            DiffReason::ToolAdditionAppended => "tui-inspector-reason-tool-addition",
            DiffReason::ToolRemovalAppended => "tui-inspector-reason-tool-removal",
            DiffReason::PromptUpdateAppended => "tui-inspector-reason-prompt-update",
            DiffReason::Consolidation => "tui-inspector-reason-consolidation",
            DiffReason::NewSeries => "tui-traj-break-header",
            DiffReason::Compacted => "tui-traj-break-compaction",
            DiffReason::ModelChanged => "tui-traj-break-model",
            DiffReason::RouteChanged => "tui-traj-break-route",
            DiffReason::RemovalOnAdditionOnly => "tui-inspector-reason-removal-addition-only",
            DiffReason::RemovalRetained => "tui-inspector-reason-removal-retained",
            DiffReason::HistoryAppended => "tui-inspector-reason-history",
            DiffReason::AfterRewind => "tui-inspector-reason-rewind",
            DiffReason::Identical => "tui-inspector-reason-identical",
            DiffReason::RouteDowngraded => "cache-first-inspector-downgrade",
        }
    }

    /// Whether the change is appended after the previous request's bytes, so the cached
    /// prefix survives it.
    pub fn keeps_prefix(&self) -> bool {
        matches!(
            self,
            DiffReason::FirstRequest
                | DiffReason::ToolAdditionAppended
                | DiffReason::ToolRemovalAppended
                | DiffReason::PromptUpdateAppended
                | DiffReason::RemovalRetained
                | DiffReason::HistoryAppended
                | DiffReason::AfterRewind
                | DiffReason::Identical
                | DiffReason::RouteDowngraded
        )
    }
}

/// The localized one-line divergence summary. It names the first differing part in the
/// order the provider reads a request, which is the order its prefix cache compares:
/// the tool declarations, then the system prompt, then the messages. (The byte offset of
/// the compact JSON body is no guide: its keys are sorted, so `messages` precede `tools`.)
/// When every reason keeps the prefix, a deferred declaration added at the end of the tool
/// list is said to be appended (the provider reads it after the cached prefix), not "the
/// first difference", which would read like a full break on a 93 % hit.
pub fn divergence_line(d: &InspectorData, l: Localizer) -> String {
    let Some(prev) = &d.previous else {
        return l.tr("tui-inspector-no-previous");
    };
    let Some(off) = d.divergence.body_offset else {
        return l.tr("tui-inspector-identical");
    };
    let kept = d.reasons.iter().all(DiffReason::keeps_prefix);
    if let Some(i) = d.divergence.tool {
        // The entry as it was and as it is (`grep → fetch`), or the one side that exists.
        let name = match (prev.tools.get(i), d.selected.tools.get(i)) {
            (Some((a, _)), Some((b, _))) if a != b => format!("{a} → {b}"),
            (_, Some((b, _))) => b.clone(),
            (Some((a, _)), None) => a.clone(),
            (None, None) => String::new(),
        };
        let appended =
            i >= prev.tools.len() && d.selected.tools[i..].iter().all(|(_, deferred)| *deferred);
        let key = match kept && appended {
            true => "tui-inspector-appended-tools",
            false => "tui-inspector-diverges-tools",
        };
        return l.tra(
            key,
            &[("index", Arg::from(i + 1)), ("name", Arg::from(name))],
        );
    }
    if d.divergence.system {
        return l.tr("tui-inspector-diverges-system");
    }
    match d.divergence.message {
        Some(i) => {
            let key = match kept && i >= prev.messages.len().saturating_sub(1) {
                true => "tui-inspector-appended-message",
                false => "tui-inspector-diverges-message-n",
            };
            l.tra(
                key,
                &[("offset", Arg::from(off)), ("index", Arg::from(i + 1))],
            )
        }
        None => l.tra("tui-inspector-diverges", &[("offset", Arg::from(off))]),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::agent::inspect::data::{Divergence, InspectedRequest};
    use crate::i18n::Locale;

    fn req(tools: &[(&str, bool)], messages: usize) -> InspectedRequest {
        InspectedRequest {
            n: Some(1),
            label: None,
            route: "ds/deepseek-flash".into(),
            system: None,
            tools: tools.iter().map(|(n, d)| (n.to_string(), *d)).collect(),
            messages: (0..messages).map(|i| format!("user: {i}")).collect(),
            body: String::new(),
            beta: None,
        }
    }

    fn data(
        prev: InspectedRequest,
        sel: InspectedRequest,
        div: Divergence,
        reasons: Vec<DiffReason>,
    ) -> InspectorData {
        InspectorData {
            previous: Some(prev),
            selected: sel,
            divergence: div,
            reasons,
        }
    }

    #[test]
    fn an_appended_deferred_tool_is_not_called_the_first_difference() {
        let tools = [("a", false), ("b", false), ("c", false), ("d", false)];
        let mut more = tools.to_vec();
        more.push(("word_count", true));
        let div = Divergence {
            body_offset: Some(10),
            tool: Some(4),
            ..Divergence::default()
        };
        let l = Localizer::new(Locale::EnUs);
        let d = data(
            req(&tools, 2),
            req(&more, 3),
            div,
            vec![DiffReason::ToolAdditionAppended],
        );
        let line = divergence_line(&d, l);
        assert!(line.contains("entry 5 (word_count)"), "{line}");
        assert!(!line.contains("First difference"), "{line}");
        assert!(line.contains("prefix is kept"), "{line}");
        // The same place after a removal that rewrote the history is the first difference.
        let d = data(
            req(&tools, 2),
            req(&more, 3),
            div,
            vec![DiffReason::RemovalOnAdditionOnly],
        );
        assert!(divergence_line(&d, l).starts_with("First difference"));
    }

    #[test]
    fn messages_are_numbered_from_1_like_tool_entries() {
        let div = Divergence {
            body_offset: Some(99),
            message: Some(0),
            ..Divergence::default()
        };
        let l = Localizer::new(Locale::EnUs);
        let d = data(req(&[], 2), req(&[], 2), div, vec![DiffReason::NewSeries]);
        let line = divergence_line(&d, l);
        assert!(line.contains("message 1"), "{line}");
        assert!(!line.contains("messages[0]"), "{line}");
    }

    #[test]
    fn compaction_and_model_switch_use_the_trajectorys_words() {
        let l = Localizer::new(Locale::EnUs);
        assert_eq!(
            l.tr(DiffReason::Compacted.message_id()),
            "context compacted"
        );
        assert_eq!(l.tr(DiffReason::ModelChanged.message_id()), "model changed");
        assert!(!DiffReason::Compacted.keeps_prefix());
    }
}
