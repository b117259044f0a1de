//! Esc Esc, the rewind picker and the `/diff` overlay in the App (SPEC §14.3): the keys
//! that open them never take over what Esc already does (cancel a turn, close a popup or
//! an overlay, leave a draft alone), and a rewind's fold is the same live and on resume.

use super::*;
use crate::agent::protocol::{DiffFile, DiffView, PromptChoice};
use crate::session::checkpoint_event::{
    CheckpointSettled, CheckpointTaken, CheckpointUndo, RewindScope, SessionRewind,
};
use crate::ui::chat::CheckpointNode;
use std::sync::Arc;

fn esc(app: &mut App) {
    app.on_key(key(KeyCode::Esc));
}

/// An idle session with one prompt answered.
fn idle_app() -> App {
    let mut s = Script::new();
    s.route(false).user(1, "first prompt");
    s.assistant(1, 1, "", "ok", &[]);
    s.push(AgentEvent::Phase(TurnPhase::Idle));
    let mut app = App::new(Locale::EnUs, false);
    for e in s.events {
        app.on_agent_event(e);
    }
    screen_at(&mut app, 120, 30);
    app.take_commands();
    app
}

fn prompts() -> Vec<PromptChoice> {
    vec![
        PromptChoice {
            n: 1,
            prompt: "first prompt".into(),
            changed_files: false,
        },
        PromptChoice {
            n: 2,
            prompt: "edit the files".into(),
            changed_files: true,
        },
    ]
}

#[test]
fn esc_esc_on_an_empty_idle_composer_opens_the_picker_and_its_choice_rewinds() {
    let mut app = idle_app();
    esc(&mut app);
    assert!(app.take_commands().is_empty(), "one Esc asks for nothing");
    let s = screen_at(&mut app, 120, 30);
    assert!(s.contains("Press Esc again to rewind"), "{s}");
    esc(&mut app);
    assert_eq!(submitted(&mut app), vec!["/rewind".to_string()]);
    app.on_agent_event(AgentEvent::RewindChoices(prompts()));
    assert!(app.rewind_picker().is_some());
    let s = screen_at(&mut app, 80, 24);
    assert!(
        s.contains("edit the files") && s.contains("first prompt"),
        "{s}"
    );
    // Enter chooses the newest prompt; ↓ Enter takes back the conversation only.
    app.on_key(key(KeyCode::Enter));
    app.on_key(key(KeyCode::Down));
    app.on_key(key(KeyCode::Enter));
    // The choice reaches the agent as a typed command, not a line to parse again.
    assert_eq!(
        app.take_commands(),
        vec![AgentCommand::Run(
            crate::agent::command_spec::Command::Rewind {
                to: Some(2),
                scope: RewindScope::Conversation,
                force: false,
            }
        )]
    );
    assert!(app.rewind_picker().is_none());
}

#[test]
fn esc_with_a_draft_is_only_esc_and_never_opens_the_picker() {
    let mut app = idle_app();
    for c in "draft".chars() {
        app.on_key(key(KeyCode::Char(c)));
    }
    esc(&mut app);
    esc(&mut app);
    assert!(app.take_commands().is_empty());
    assert_eq!(app.composer().text(), "draft");
    assert!(!screen_at(&mut app, 120, 30).contains("Press Esc again"));
}

#[test]
fn esc_during_a_turn_cancels_it_each_time_and_never_asks_for_the_prompts() {
    let mut app = idle_app();
    app.on_agent_event(AgentEvent::Phase(TurnPhase::Responding));
    esc(&mut app);
    esc(&mut app);
    assert_eq!(
        app.take_commands(),
        vec![AgentCommand::Cancel, AgentCommand::Cancel]
    );
    // The turn ended: a first Esc now only arms.
    app.on_agent_event(AgentEvent::Phase(TurnPhase::Idle));
    esc(&mut app);
    assert!(app.take_commands().is_empty());
}

#[test]
fn esc_that_closes_a_popup_or_an_overlay_does_not_count_as_the_first_of_two() {
    let mut app = idle_app();
    // The slash popup: Esc closes it (and the `/` stays, so Esc is only Esc after it).
    app.on_key(key(KeyCode::Char('/')));
    esc(&mut app);
    esc(&mut app);
    assert!(submitted(&mut app).is_empty());
    // The key help: Esc closes it; the next Esc only arms.
    let mut app = idle_app();
    app.on_key(key(KeyCode::F(1)));
    assert!(app.help_open());
    esc(&mut app);
    assert!(!app.help_open());
    esc(&mut app);
    assert!(submitted(&mut app).is_empty());
    esc(&mut app);
    assert_eq!(submitted(&mut app), vec!["/rewind".to_string()]);
}

#[test]
fn a_key_between_the_two_escs_or_a_slow_second_one_only_arms_again() {
    let mut app = idle_app();
    esc(&mut app);
    app.on_key(key(KeyCode::Tab));
    esc(&mut app);
    assert!(submitted(&mut app).is_empty());
    let mut app = idle_app();
    let t0 = std::time::Instant::now();
    app.set_now(t0);
    esc(&mut app);
    app.set_now(t0 + std::time::Duration::from_secs(3));
    esc(&mut app);
    assert!(submitted(&mut app).is_empty(), "too late: this Esc arms");
    esc(&mut app);
    assert_eq!(submitted(&mut app), vec!["/rewind".to_string()]);
}

#[test]
fn an_approval_waiting_keeps_esc_as_deny() {
    let mut app = approval_app(Locale::EnUs);
    app.on_agent_event(AgentEvent::Phase(TurnPhase::Idle));
    app.on_agent_event(AgentEvent::ApprovalRequest {
        call_id: "c1".into(),
        tool: "run_cmd".into(),
        arguments: "{}".into(),
    });
    esc(&mut app);
    esc(&mut app);
    let cmds = app.take_commands();
    assert!(
        cmds.iter().all(|c| !matches!(c, AgentCommand::Submit(_))),
        "{cmds:?}"
    );
    assert!(
        matches!(cmds.first(), Some(AgentCommand::Approve { .. })),
        "{cmds:?}"
    );
}

#[test]
fn the_diff_overlay_opens_on_the_agents_diff_and_esc_closes_it_without_arming() {
    let mut app = idle_app();
    // Armed just before the overlay opened: the Esc that closes it disarms.
    esc(&mut app);
    app.on_agent_event(AgentEvent::Diff(DiffView {
        title: crate::i18n::Text::new("diff-session-title", vec![("count", 1usize.into())]),
        files: vec![DiffFile::Text {
            path: "a.txt".into(),
            diff: "--- a/a.txt\n+++ b/a.txt\n@@ -1 +1 @@\n-alpha\n+ALPHA\n".into(),
        }],
    }));
    assert!(app.diff_overlay().is_some());
    for w in [80, 120] {
        let s = screen_at(&mut app, w, 24);
        assert!(
            s.contains("This session changed 1 file") && s.contains("+ALPHA"),
            "{s}"
        );
    }
    esc(&mut app);
    assert!(app.diff_overlay().is_none());
    esc(&mut app);
    assert!(
        submitted(&mut app).is_empty(),
        "the Esc that closed the overlay is not a first"
    );
}

/// A session whose second prompt edited files, was undone, then rewound: the events, and
/// the seq of the second prompt's `turn/start`.
fn rewound_session() -> (Vec<Arc<crate::session::event::Event>>, u64) {
    let mut s = Script::new();
    s.route(false).user(1, "first prompt");
    s.assistant(1, 1, "", "one", &[]);
    s.user(2, "edit the files");
    s.commit(EventKind::CheckpointTaken(CheckpointTaken {
        turn: 2,
        checkpoint: "c1".into(),
        files: 3,
        skipped: vec![],
    }));
    s.assistant(2, 1, "", "edited", &[]);
    s.commit(EventKind::CheckpointSettled(CheckpointSettled {
        turn: 2,
        checkpoint: "c2".into(),
    }));
    s.commit(EventKind::CheckpointUndo(CheckpointUndo {
        turn: 2,
        restored: vec!["a.txt".into()],
        conflicts: vec![],
        forced: false,
    }));
    let events: Vec<Arc<crate::session::event::Event>> = s
        .events
        .iter()
        .filter_map(|e| match e {
            AgentEvent::Committed(e) => Some(e.clone()),
            _ => None,
        })
        .collect();
    let to = events
        .iter()
        .find(|e| matches!(&e.kind, EventKind::TurnStart(t) if t.turn == 2))
        .unwrap()
        .seq;
    (events, to)
}

fn nodes(app: &App) -> Vec<CheckpointNode> {
    app.transcript()
        .cells()
        .iter()
        .filter_map(|c| match &c.kind {
            CellKind::Checkpoint(n) => Some(n.node.clone()),
            _ => None,
        })
        .collect()
}

fn users(app: &App) -> Vec<String> {
    app.transcript()
        .cells()
        .iter()
        .filter_map(|c| match &c.kind {
            CellKind::User(u) => Some(u.text.clone()),
            _ => None,
        })
        .collect()
}

#[test]
fn checkpoint_and_undo_nodes_are_folded_from_the_log_the_same_live_and_on_resume() {
    let (events, _) = rewound_session();
    let mut live = App::new(Locale::EnUs, false);
    for e in &events {
        live.on_agent_event(AgentEvent::Committed(e.clone()));
    }
    let want = vec![
        CheckpointNode::Taken {
            n: 2,
            files: 3,
            skipped: vec![],
        },
        CheckpointNode::Undo {
            n: 2,
            restored: vec!["a.txt".into()],
            conflicts: vec![],
        },
    ];
    assert_eq!(nodes(&live), want);
    let mut resumed = App::new(Locale::EnUs, false);
    resumed.on_agent_event(AgentEvent::SessionOpened {
        id: "s".into(),
        path: String::new(),
        history: events,
    });
    assert_eq!(nodes(&resumed), want);
    let s = screen_at(&mut resumed, 120, 30);
    assert!(
        s.contains("◇ Checkpoint before prompt 2 · 3 files kept"),
        "{s}"
    );
    assert!(s.contains("↶ Undid prompt 2 · 1 file put back"), "{s}");
}

#[test]
fn a_rewind_leaves_the_taken_back_prompt_out_of_chat_marks_its_requests_and_gives_it_back() {
    let (mut events, to) = rewound_session();
    let mut live = App::new(Locale::EnUs, false);
    for e in &events {
        live.on_agent_event(AgentEvent::Committed(e.clone()));
    }
    let rewind = Arc::new(crate::session::event::Event {
        kind: EventKind::SessionRewind(SessionRewind {
            restored: vec![],
            to_seq: to,
            scope: RewindScope::Both,
        }),
        seq: events.last().unwrap().seq + 1,
        time: "2026-01-01T00:00:00Z".into(),
        surface_op: None,
        source_event_seqs: None,
    });
    events.push(rewind.clone());
    live.on_agent_event(AgentEvent::Committed(rewind));
    live.on_agent_event(AgentEvent::Rewound {
        history: events.clone(),
        prompt: "edit the files".into(),
    });
    assert_eq!(live.composer().text(), "edit the files");
    let want_nodes = vec![CheckpointNode::Rewind {
        n: 2,
        prompt: "edit the files".into(),
        scope: RewindScope::Both,
        restored: 0,
    }];
    assert_eq!(users(&live), vec!["first prompt".to_string()]);
    assert_eq!(nodes(&live), want_nodes);
    // The Trajectory keeps both requests (both were paid for), the second one marked.
    let t = live.trajectory();
    let marked: Vec<bool> = (0..t.rows().len()).map(|i| t.row_rewound(i)).collect();
    let req_rows: Vec<(usize, bool)> = t
        .rows()
        .iter()
        .enumerate()
        .filter_map(|(i, r)| r.request_number().map(|n| (n, marked[i])))
        .collect();
    assert_eq!(req_rows, vec![(1, false), (2, true)]);
    let s = screen_at(&mut live, 120, 30);
    assert!(s.contains("↶ rewound"), "{s}");
    assert!(
        s.contains("Rewound to before prompt 2 (“edit the files”)"),
        "{s}"
    );
    // A resume folds the same log the same way.
    let mut resumed = App::new(Locale::EnUs, false);
    resumed.on_agent_event(AgentEvent::SessionOpened {
        id: "s".into(),
        path: String::new(),
        history: events,
    });
    assert_eq!(users(&resumed), vec!["first prompt".to_string()]);
    assert_eq!(nodes(&resumed), want_nodes);
    let zh = {
        resumed.on_agent_event(AgentEvent::LocaleChanged(Locale::ZhCn));
        screen_at(&mut resumed, 120, 30)
    };
    assert!(zh.contains("已回退"), "{zh}");
}
