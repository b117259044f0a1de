//! A context node (U-1…U-3): a tool change, one cell per change, expanding to each tool's
//! source and description; other developer messages expand to their detail.

use ratatui::text::{Line, Span};

use crate::agent::protocol::ToolInfo;
use crate::i18n::{Arg, Localizer};
use crate::tools::registry::ToolSource;
use crate::ui::context_node::ContextKind;
use crate::ui::text::{sanitize, truncate, wrap_line};
use crate::ui::theme;

use super::base::{HistoryCell, Parts, dim_indented};
use crate::ui::model::RenderCtx;

/// A context node: what changed, and the infos giving each tool's source and description
/// for the expansion.
#[derive(Debug, Clone)]
pub struct ContextCell {
    /// What the node says.
    pub kind: ContextKind,
    /// The tools' infos, when known.
    pub tools: Vec<ToolInfo>,
}

impl HistoryCell for ContextCell {
    fn rows(&self, width: usize, ctx: &RenderCtx, expanded: bool) -> Parts {
        let (l, k) = (ctx.l, &self.kind);
        // `◆` one tool (expands to its source and description), `▸`/`▾` several.
        let marker = if k.is_tool_change() && !k.expandable() {
            "◆ "
        } else if expanded {
            "▾ "
        } else {
            "▸ "
        };
        let mut head = wrap_line(
            &Line::from(vec![
                Span::styled(marker, theme::accent()),
                Span::styled(k.one_line(l), theme::accent()),
            ]),
            width,
            0,
        );
        if expanded {
            match k {
                ContextKind::Tools { added, removed } => {
                    head.extend(node_detail(added, removed, &self.tools, l, width));
                }
                ContextKind::Generic { .. } => {
                    for s in k.detail(l) {
                        head.extend(dim_indented(&s, "    ", width));
                    }
                }
            }
        }
        Parts::separated(head)
    }

    fn selectable(&self) -> bool {
        // Every tool-change node expands.
        self.kind.is_tool_change() || self.kind.expandable()
    }
}

/// The info of `name` among `tools`, else what its name says (source) and no description.
fn tool_info(name: &str, tools: &[ToolInfo]) -> ToolInfo {
    tools
        .iter()
        .find(|t| t.name == name)
        .cloned()
        .unwrap_or_else(|| ToolInfo {
            name: name.to_string(),
            source: ToolSource::of_name(name).label(),
            description: String::new(),
        })
}

/// A tool-change node's expansion: one tool shows its source and
/// description; several are grouped under `Added` / `Removed`, then by source, one tool
/// per line (name and the description's first line, cut to the width), indented.
fn node_detail(
    added: &[String],
    removed: &[String],
    tools: &[ToolInfo],
    l: Localizer,
    width: usize,
) -> Vec<Line<'static>> {
    let mut out = Vec::new();
    if let ([one], []) | ([], [one]) = (added, removed) {
        let t = tool_info(one, tools);
        let source = l.text(&t.source);
        out.extend(dim_indented(
            &sanitize(&l.tra("tui-node-source", &[("source", Arg::from(source))])),
            "    ",
            width,
        ));
        let desc = if t.description.trim().is_empty() {
            l.tr("tui-node-no-description")
        } else {
            sanitize(t.description.trim())
        };
        out.extend(dim_indented(&desc, "    ", width));
        return out;
    }
    for (key, names) in [("tui-node-added", added), ("tui-node-removed", removed)] {
        if names.is_empty() {
            continue;
        }
        out.extend(wrap_line(
            &Line::from(Span::styled(format!("    {}", l.tr(key)), theme::accent())),
            width,
            0,
        ));
        // Groups in order of first appearance; names keep their order within a group.
        let mut groups: Vec<(String, Vec<ToolInfo>)> = Vec::new();
        for n in names {
            let t = tool_info(n, tools);
            let label = sanitize(&l.text(&t.source));
            match groups.iter_mut().find(|(g, _)| *g == label) {
                Some((_, v)) => v.push(t),
                None => groups.push((label, vec![t])),
            }
        }
        for (label, members) in groups {
            out.push(Line::from(Span::styled(
                truncate(&format!("      {label}"), width),
                theme::dim(),
            )));
            for t in members {
                let desc = t
                    .description
                    .lines()
                    .next()
                    .unwrap_or("")
                    .trim()
                    .to_string();
                let text = if desc.is_empty() {
                    format!("        {}", sanitize(&t.name))
                } else {
                    format!("        {} — {}", sanitize(&t.name), sanitize(&desc))
                };
                out.push(Line::from(Span::styled(
                    truncate(&text, width),
                    theme::dim(),
                )));
            }
        }
    }
    out
}
