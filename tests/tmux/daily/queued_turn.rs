//! Scenario: a message queued while a turn answers is its own turn (decision 0092): the
//! Trajectory shows a TURN row for it and its request is labelled with its own turn, at 80
//! and 120 columns, in both locales.

use crate::common;

/// The words of one locale.
struct Texts {
    locale: &'static str,
    queued: &'static str,
    second_turn: &'static str,
    second_request: &'static str,
    /// The label the queued message's request had when it steered the first turn.
    steered: &'static str,
}

const EN: Texts = Texts {
    locale: "en-US",
    queued: "↳ queued: and a second question",
    second_turn: "TURN 2 · and a second question",
    second_request: "T2.S1",
    steered: "T1.S2",
};

const ZH: Texts = Texts {
    locale: "zh-CN",
    queued: "↳ 排队中：and a second question",
    second_turn: "第 2 轮 · and a second question",
    second_request: "2.1",
    steered: "1.2",
};

fn queued_message_is_its_own_turn(w: u16, t: &Texts) {
    let (tmux, _dir) =
        common::tmux::start_demo(&format!("queued-turn-{w}-{}", t.locale), w, 30, t.locale);
    tmux.type_line("explain the request cache of this terminal agent in a few words please");
    // Typed while the demo reply streams: it waits under the composer.
    tmux.type_line("and a second question");
    tmux.wait_for("the queued message", |s| s.contains(t.queued));
    if w < 100 {
        // One pane: Composer → Chat → Trajectory.
        tmux.key("Tab");
        tmux.key("Tab");
    }
    let s = tmux.wait_for("the second turn's request", |s| {
        s.contains(t.second_turn)
            && s.lines()
                .any(|l| l.contains("#2") && l.contains(t.second_request))
    });
    let turn_row = s.lines().position(|l| l.contains(t.second_turn)).unwrap();
    let request_row = s
        .lines()
        .position(|l| l.contains("#2") && l.contains(t.second_request))
        .unwrap();
    assert!(
        turn_row < request_row,
        "the TURN row heads its request:\n{s}"
    );
    assert!(
        !s.lines().any(|l| l.contains(&format!(" {} ", t.steered))),
        "no request of the first turn for it:\n{s}"
    );
}

#[test]
fn a_queued_message_gets_its_own_turn_row_80_en() {
    if common::require_external("tmux", common::tmux_available()) {
        queued_message_is_its_own_turn(80, &EN);
    }
}

#[test]
fn a_queued_message_gets_its_own_turn_row_80_zh() {
    if common::require_external("tmux", common::tmux_available()) {
        queued_message_is_its_own_turn(80, &ZH);
    }
}

#[test]
fn a_queued_message_gets_its_own_turn_row_120_en() {
    if common::require_external("tmux", common::tmux_available()) {
        queued_message_is_its_own_turn(120, &EN);
    }
}

#[test]
fn a_queued_message_gets_its_own_turn_row_120_zh() {
    if common::require_external("tmux", common::tmux_available()) {
        queued_message_is_its_own_turn(120, &ZH);
    }
}
