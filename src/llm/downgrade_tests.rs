//! How narrow a downgrade is (SPEC §15.1, decision 0121).

use super::*;
use crate::session::event::SystemPromptUpdate;

fn caps(mode: Option<ToolUpdateMode>) -> Capabilities {
    Capabilities {
        tool_update: mode,
        system_prompt_update: Some(SystemPromptUpdate::InHistory),
        ..Capabilities::plain(1000)
    }
}
fn bad(message: &str) -> LlmError {
    LlmError {
        code: ErrorCode::InvalidRequest,
        status: Some(400),
        message: message.into(),
        retry_after: None,
    }
}

#[test]
fn a_route_refusing_only_removals_keeps_additions_and_is_told_of_removals_in_text() {
    let e = bad("messages.3.content.0: `tool_removal` is not supported");
    let (to, blocks) = narrowing(&caps(Some(ToolUpdateMode::InHistory)), &e).unwrap();
    assert_eq!(blocks, ["tool_removal"]);
    assert_eq!(to.tool_update, Some(ToolUpdateMode::AdditionOnly));
    assert_eq!(to.system_prompt_update, Some(SystemPromptUpdate::InHistory));
    assert_eq!(
        to.apply(&caps(Some(ToolUpdateMode::InHistory)))
            .tool_removal,
        ToolRemoval::Retain
    );
}

#[test]
fn a_refused_addition_or_system_block_sends_every_change_through_the_bridge() {
    let c = caps(Some(ToolUpdateMode::AdditionOnly));
    let (to, _) = narrowing(&c, &bad("unknown block type tool_addition")).unwrap();
    assert_eq!(to.tool_update, None);
    let (to, blocks) = narrowing(
        &c,
        &bad("messages.2: role 'system' is not allowed inside messages"),
    )
    .unwrap();
    assert_eq!((to.tool_update, to.system_prompt_update), (None, None));
    assert_eq!(blocks, ["system"]);
}

#[test]
fn other_errors_and_refusals_already_taken_into_account_do_not_downgrade() {
    let c = caps(Some(ToolUpdateMode::InHistory));
    assert!(narrowing(&c, &bad("max_tokens too large")).is_none());
    let mut e = bad("tool_removal is not supported");
    e.status = Some(429);
    e.code = ErrorCode::RateLimit;
    assert!(narrowing(&c, &e).is_none());
    let bridged = Capabilities {
        tool_update: None,
        system_prompt_update: None,
        tool_removal: ToolRemoval::Retain,
        ..Capabilities::plain(1000)
    };
    assert!(narrowing(&bridged, &bad("tool_addition is not supported")).is_none());
}
