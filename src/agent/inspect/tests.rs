//! Rebuilding, classifying and comparing logged requests for the inspector.

use super::*;
use crate::session::event::Capabilities;
use crate::session::event::{
    DeveloperMessageData, Message, RequestHeaderData, Role, Source, StepMessage,
};

fn ev(kind: EventKind, op: Option<SurfaceOp>) -> Arc<Event> {
    Arc::new(Event {
        kind,
        seq: 0,
        time: String::new(),
        surface_op: op,
        source_event_seqs: None,
    })
}

fn ctx(mode: Option<ToolUpdateMode>) -> RequestContext {
    RequestContext {
        provider: "ds".into(),
        model: "m".into(),
        // `rewrite`, the opt-out: these cases are about what a removal costs there.
        caps: Capabilities {
            tool_update: mode,
            tool_removal: ToolRemoval::Omit,
            ..Capabilities::plain(0)
        },
        protocol: None,
        effort: None,
    }
}

fn dev(blocks: Vec<Block>) -> Arc<Event> {
    ev(
        EventKind::DeveloperMessage(DeveloperMessageData {
            turn: 1,
            step: 1,
            message: Message::new(Role::Developer, blocks, Source::kind("tool-registry")),
            header_seq: None,
        }),
        Some(SurfaceOp::append()),
    )
}

#[test]
fn classify_names_removal_on_addition_only_before_plain_history() {
    let between = vec![dev(vec![Block::removal("grep")])];
    let c = ctx(Some(ToolUpdateMode::AdditionOnly));
    assert_eq!(
        classify(&between, Some(&c), Some(&c), false),
        vec![DiffReason::RemovalOnAdditionOnly]
    );
    let c = ctx(Some(ToolUpdateMode::InHistory));
    assert_eq!(
        classify(&between, Some(&c), Some(&c), false),
        vec![DiffReason::ToolRemovalAppended]
    );
    assert_eq!(
        classify(&[], Some(&c), Some(&c), false),
        vec![DiffReason::HistoryAppended]
    );
    assert_eq!(
        classify(&[], Some(&c), Some(&c), true),
        vec![DiffReason::Identical]
    );
}

#[test]
fn classify_removal_with_retain_keeps_the_prefix_and_default_names_retain() {
    let between = vec![dev(vec![Block::removal("grep")])];
    let mut c = ctx(Some(ToolUpdateMode::AdditionOnly));
    c.caps.tool_removal = ToolRemoval::Retain;
    assert_eq!(
        classify(&between, Some(&c), Some(&c), false),
        vec![DiffReason::RemovalRetained]
    );
    // Switching the option changes the bytes: a route change.
    let d = ctx(Some(ToolUpdateMode::AdditionOnly));
    assert_eq!(
        classify(&[], Some(&d), Some(&c), false),
        vec![DiffReason::RouteChanged]
    );
    // The default's why line says that retain would have kept the cache.
    for locale in [crate::i18n::Locale::EnUs, crate::i18n::Locale::ZhCn] {
        let l = Localizer::new(locale);
        let text = l.tr(DiffReason::RemovalOnAdditionOnly.message_id());
        assert!(text.contains("tool_removal = \"retain\""), "{text}");
        let kept = l.tr(DiffReason::RemovalRetained.message_id());
        assert!(kept.contains("tool_removal = \"retain\""), "{kept}");
    }
}

#[test]
fn classify_orders_series_and_consolidation_first() {
    let sys = |op| {
        ev(
            EventKind::SystemMessage(StepMessage {
                turn: 1,
                step: 1,
                message: Message::text(Role::System, "p", Source::kind("system-prompt")),
            }),
            Some(op),
        )
    };
    let header = ev(
        EventKind::RequestHeader(RequestHeaderData {
            header: crate::session::event::RequestHeader {
                config: crate::session::event::CallConfig {
                    provider: "ds".into(),
                    model: "m".into(),
                    reasoning_effort: None,
                    temperature: None,
                    max_tokens: None,
                    stop: None,
                },
                adapter_defaults: None,
                tools: None,
            },
            reason: HeaderReason::Change,
            starts_series: Some(true),
        }),
        None,
    );
    let between = vec![
        dev(vec![Block::addition("fetch")]),
        sys(SurfaceOp::replace(1, 1)),
        header,
    ];
    let (a, b) = (ctx(None), ctx(Some(ToolUpdateMode::InHistory)));
    let r = classify(&between, Some(&a), Some(&b), false);
    assert_eq!(
        r,
        vec![
            DiffReason::Consolidation,
            DiffReason::NewSeries,
            DiffReason::RouteChanged,
            DiffReason::ToolAdditionAppended
        ]
    );
    assert_eq!(
        classify(&[sys(SurfaceOp::append())], Some(&a), Some(&a), false),
        vec![DiffReason::PromptUpdateAppended]
    );
}

#[test]
fn divergence_finds_first_differing_message_and_byte() {
    let a = SerializedBody {
        body: serde_json::json!({"model": "m", "messages": [{"role": "user", "content": "hi"}]}),
        beta: None,
    };
    let b = SerializedBody {
        body: serde_json::json!({"model": "m", "messages": [
            {"role": "user", "content": "hi"},
            {"role": "system", "content": [{"type": "tool_addition", "tool": {"type": "tool_reference", "name": "fetch"}}]}
        ]}),
        beta: None,
    };
    let d = divergence(&a, &b);
    assert_eq!(d.message, Some(1));
    assert_eq!(d.tool, None);
    assert!(!d.system);
    let off = d.body_offset.unwrap();
    assert_eq!(&a.body.to_string()[..off], &b.body.to_string()[..off]);
    assert_eq!(divergence(&a, &a).body_offset, None);
    let sb = serde_json::json!({"role": "system", "content": [{"type": "tool_addition", "tool": {"type": "tool_reference", "name": "fetch"}}]});
    assert_eq!(message_summary(&sb), "system: tool_addition fetch");
}

fn req(n: usize, tools: &[&str], system: &str, messages: &[&str]) -> InspectedRequest {
    InspectedRequest {
        n: Some(n),
        label: None,
        route: "ds/m".into(),
        system: Some(system.into()),
        tools: tools.iter().map(|t| (t.to_string(), false)).collect(),
        messages: messages.iter().map(|m| m.to_string()).collect(),
        body: String::new(),
        beta: None,
    }
}

#[test]
fn first_difference_names_the_tools_before_the_messages() {
    // The tool list differs at its first entry and the messages differ too: the line
    // names the tools (what the provider reads first), not the body byte in messages.
    let a = SerializedBody {
        body: serde_json::json!({"messages": [{"role": "user", "content": "hi"}],
            "system": "p", "tools": [{"name": "grep"}, {"name": "ls"}]}),
        beta: None,
    };
    let b = SerializedBody {
        body: serde_json::json!({"messages": [{"role": "user", "content": "hi!"}],
            "system": "p", "tools": [{"name": "fetch"}, {"name": "ls"}]}),
        beta: None,
    };
    let div = divergence(&a, &b);
    assert_eq!(div.tool, Some(0));
    assert_eq!(div.message, Some(0));
    let data = InspectorData {
        previous: Some(req(1, &["grep", "ls"], "p", &["user: hi"])),
        selected: req(2, &["fetch", "ls"], "p", &["user: hi!"]),
        divergence: div,
        reasons: vec![DiffReason::RemovalOnAdditionOnly],
    };
    let en = divergence_line(&data, Localizer::new(crate::i18n::Locale::EnUs));
    assert!(en.contains("tool list, entry 1 (grep → fetch)"), "{en}");
    let zh = divergence_line(&data, Localizer::new(crate::i18n::Locale::ZhCn));
    assert!(zh.contains("工具列表第 1 项（grep → fetch）"), "{zh}");
    // Same tools, different system prompt: the system prompt is named.
    let mut sys = data.clone();
    sys.divergence = Divergence {
        body_offset: Some(3),
        system: true,
        tool: None,
        message: Some(0),
    };
    let en = divergence_line(&sys, Localizer::new(crate::i18n::Locale::EnUs));
    assert!(en.contains("system prompt"), "{en}");
    // Only the messages differ: the message index.
    sys.divergence.system = false;
    let en = divergence_line(&sys, Localizer::new(crate::i18n::Locale::EnUs));
    assert!(en.contains("message 1 "), "{en}");
}

#[test]
fn an_inspector_error_reads_in_the_interface_language_around_the_number() {
    use crate::i18n::{Arg, Locale, Text};
    let frame = |l: Locale, e: InspectError| {
        Localizer::new(l).text(&Text::new(
            "tui-inspector-failed",
            vec![("error", Arg::from(e.text()))],
        ))
    };
    let zh = frame(Locale::ZhCn, InspectError::NoSuchRequest(999));
    assert!(zh.contains("没有第 999 号请求"), "{zh}");
    assert!(!zh.contains("no request"), "one language: {zh}");
    let en = frame(Locale::EnUs, InspectError::NoContext(3));
    assert!(en.contains("request #3 has no route record"), "{en}");
}
