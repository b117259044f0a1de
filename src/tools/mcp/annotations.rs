//! A server's tool annotations (`readOnlyHint`, `destructiveHint`, `idempotentHint`,
//! `openWorldHint`; SPEC §15.2): kept from the screened listing, shown on the approval card
//! and in `/tools`.
//!
//! They are hints from the server, which may be lying: they never loosen approval by
//! themselves. Only a server configured `approval = "trust-read-only-hint"` has its tools
//! annotated read-only run without asking, and its other tools ask (decision 0165).

use rmcp::model::Tool;

use crate::i18n::{Arg, Text};

/// The four behaviour hints of one tool, as the server listed them (`None`: not given).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct ToolHints {
    /// `readOnlyHint`: the tool does not change its environment.
    pub read_only: Option<bool>,
    /// `destructiveHint`: it may delete or overwrite.
    pub destructive: Option<bool>,
    /// `idempotentHint`: repeating a call changes nothing more.
    pub idempotent: Option<bool>,
    /// `openWorldHint`: it reaches beyond a closed set of things (the web, other people).
    pub open_world: Option<bool>,
    /// The server's config says `approval = "trust-read-only-hint"` (the card says why a
    /// call asks, or why it did not).
    pub trusted: bool,
}

impl ToolHints {
    /// The hints `tool` declares, or `None` when it declares none.
    pub fn of(tool: &Tool, trusted: bool) -> Option<ToolHints> {
        let a = tool.annotations.as_ref()?;
        let hints = ToolHints {
            read_only: a.read_only_hint,
            destructive: a.destructive_hint,
            idempotent: a.idempotent_hint,
            open_world: a.open_world_hint,
            trusted,
        };
        hints.any().then_some(hints)
    }

    /// Whether any of the four hints is given.
    pub fn any(&self) -> bool {
        self.read_only.is_some()
            || self.destructive.is_some()
            || self.idempotent.is_some()
            || self.open_world.is_some()
    }

    /// Whether the server annotates the tool read-only.
    pub fn is_read_only(&self) -> bool {
        self.read_only == Some(true)
    }

    /// The given hints as one localized list ("read-only · idempotent · closed world"),
    /// `None` when none is given.
    pub fn text(&self) -> Option<Text> {
        let pairs = [
            (
                self.read_only,
                "mcp-hint-read-only",
                "mcp-hint-not-read-only",
            ),
            (
                self.destructive,
                "mcp-hint-destructive",
                "mcp-hint-not-destructive",
            ),
            (
                self.idempotent,
                "mcp-hint-idempotent",
                "mcp-hint-not-idempotent",
            ),
            (
                self.open_world,
                "mcp-hint-open-world",
                "mcp-hint-closed-world",
            ),
        ];
        pairs
            .into_iter()
            .filter_map(|(v, yes, no)| v.map(|v| Text::new(if v { yes } else { no }, vec![])))
            .reduce(|a, b| {
                Text::new(
                    "mcp-hints-join",
                    vec![("a", Arg::from(a)), ("b", Arg::from(b))],
                )
            })
    }

    /// Why a call of `tool`, a tool that asks, asks; with the server's hints when it gave
    /// any, for the user to weigh (they loosen nothing by themselves; SPEC §15.2).
    pub fn approval_why(tool: &str, hints: Option<ToolHints>) -> Text {
        let name = || Arg::from(tool);
        let why = match hints {
            // Asking although the user trusts this server's read-only hints: say why.
            Some(h) if h.trusted && !h.is_read_only() => {
                Text::new("approval-why-not-read-only", vec![("tool", name())])
            }
            _ => Text::new("approval-why-tool-asks", vec![("tool", name())]),
        };
        match hints.and_then(|h| h.text()) {
            Some(hints) => Text::new(
                "approval-why-with-hints",
                vec![("why", Arg::from(why)), ("hints", Arg::from(hints))],
            ),
            None => why,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::i18n::{Locale, Localizer};
    use serde_json::json;

    fn tool(annotations: serde_json::Value) -> Tool {
        serde_json::from_value(json!({
            "name": "t", "inputSchema": {"type": "object"}, "annotations": annotations
        }))
        .unwrap()
    }

    #[test]
    fn listed_hints_are_kept_and_shown_in_both_languages() {
        let h = ToolHints::of(
            &tool(json!({"readOnlyHint": true, "idempotentHint": true, "openWorldHint": false})),
            false,
        )
        .unwrap();
        assert!(h.is_read_only());
        assert_eq!(h.destructive, None);
        let en = Localizer::new(Locale::EnUs).text(&h.text().unwrap());
        assert_eq!(en, "read-only · idempotent · closed world");
        let zh = Localizer::new(Locale::ZhCn).text(&h.text().unwrap());
        assert!(zh.contains("只读"), "{zh}");
    }

    #[test]
    fn the_approval_card_names_the_servers_hints_and_why_a_trusted_server_still_asks() {
        let en = Localizer::new(Locale::EnUs);
        let destructive = ToolHints {
            destructive: Some(true),
            ..ToolHints::default()
        };
        assert_eq!(
            en.text(&ToolHints::approval_why("s__rm", Some(destructive))),
            "s__rm is set to ask before every call (approval = \"ask\"). \
             The server describes it as: destructive."
        );
        let trusted = ToolHints {
            trusted: true,
            ..destructive
        };
        let why = en.text(&ToolHints::approval_why("s__rm", Some(trusted)));
        assert!(why.contains("trust-read-only-hint"), "{why}");
        // No hints: the plain reason.
        assert_eq!(
            ToolHints::approval_why("s__x", None).key,
            "approval-why-tool-asks"
        );
        let zh =
            Localizer::new(Locale::ZhCn).text(&ToolHints::approval_why("s__rm", Some(trusted)));
        assert!(zh.contains("破坏性"), "{zh}");
    }

    #[test]
    fn a_tool_without_hints_has_none_and_a_title_alone_is_no_hint() {
        let bare: Tool =
            serde_json::from_value(json!({"name": "t", "inputSchema": {"type": "object"}}))
                .unwrap();
        assert_eq!(ToolHints::of(&bare, true), None);
        assert_eq!(ToolHints::of(&tool(json!({"title": "T"})), true), None);
        let h = ToolHints::of(&tool(json!({"destructiveHint": true})), false).unwrap();
        assert!(!h.is_read_only());
        let en = Localizer::new(Locale::EnUs).text(&h.text().unwrap());
        assert_eq!(en, "destructive");
    }
}
