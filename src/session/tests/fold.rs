//! The tool-history fold (F-1…F-8, SPEC §12.5): snapshots per header, additions against the baseline,
//! removals, series restarts, redeclarations and restore.

use super::*;

#[test]
fn a_single_header_snapshot_is_stable() {
    let mut s = new_session();
    header(&mut s, &[tool("search")], HeaderReason::Initial);
    let a = s.tool_history().unwrap();
    assert_eq!(*a, hist(vec![tool("search")], vec![]));
    let b = s.tool_history().unwrap();
    assert!(Arc::ptr_eq(&a, &b));
    // Unrelated events keep the same snapshot object.
    s.push(user_kind("u")).unwrap();
    assert!(Arc::ptr_eq(&a, &s.tool_history().unwrap()));
}

#[test]
fn a_change_without_a_developer_message_falls_back() {
    let mut s = new_session();
    header(&mut s, &[tool("search")], HeaderReason::Initial);
    header(
        &mut s,
        &[tool("search"), tool("fetch")],
        HeaderReason::Change,
    );
    let a = s.tool_history().unwrap();
    assert_eq!(*a, hist(vec![tool("search"), tool("fetch")], vec![]));
    assert!(Arc::ptr_eq(&a, &s.tool_history().unwrap()));
}

#[test]
fn an_addition_is_recorded_against_the_baseline() {
    let (_, _, id_a, _, snap) = fx3();
    assert_eq!(
        *snap,
        hist(vec![tool("search")], vec![upd(&id_a, vec![tool("fetch")])])
    );
}

#[test]
fn a_removal_leaves_earlier_snapshots_unchanged() {
    let (mut s, _, id_a, fx1, fx3_snap) = fx3();
    let fx1_before = (*fx1).clone();
    let fx3_before = (*fx3_snap).clone();
    header(&mut s, &[tool("search")], HeaderReason::Change);
    assert_eq!(
        *s.tool_history().unwrap(),
        hist(vec![tool("search")], vec![])
    );
    let id_r = dev(
        &mut s,
        vec![Block::removal("fetch"), Block::text("gone")],
        None,
    );
    assert_eq!(
        *s.tool_history().unwrap(),
        hist(
            vec![tool("search")],
            vec![upd(&id_a, vec![tool("fetch")]), upd(&id_r, vec![])]
        )
    );
    assert_eq!(*fx1, fx1_before);
    assert_eq!(*fx3_snap, fx3_before);
}

#[test]
fn a_series_header_restarts_the_declarations() {
    for starts in [false, true] {
        let (mut s, _, _, _, _) = fx3();
        let reason = if starts {
            HeaderReason::Change
        } else {
            HeaderReason::Series
        };
        let h = s
            .push(header_kind(
                &[tool("search"), tool("fetch")],
                reason,
                starts,
            ))
            .unwrap()
            .seq;
        assert_eq!(
            *s.tool_history().unwrap(),
            hist(vec![tool("search"), tool("fetch")], vec![])
        );
        let id = dev(&mut s, vec![Block::addition("fetch")], Some(h));
        assert_eq!(
            *s.tool_history().unwrap(),
            hist(
                vec![tool("search"), tool("fetch")],
                vec![upd(&id, vec![tool("fetch")])]
            )
        );
    }
}

#[test]
fn a_redeclared_definition_rebuilds_the_series() {
    let mut s = new_session();
    header(
        &mut s,
        &[tool("search"), tool("fetch")],
        HeaderReason::Initial,
    );
    header(&mut s, &[tool("search")], HeaderReason::Change);
    dev(&mut s, vec![Block::removal("fetch")], None);
    let mut f2 = tool("fetch");
    f2.description = "Fetch a URL".into();
    let h = header(&mut s, &[tool("search"), f2.clone()], HeaderReason::Change);
    let id = dev(&mut s, vec![Block::addition("fetch")], Some(h));
    assert_eq!(
        *s.tool_history().unwrap(),
        hist(vec![tool("search"), f2.clone()], vec![upd(&id, vec![f2])])
    );
}

#[test]
fn an_unchanged_restore_continues_the_series() {
    let mut s = new_session();
    header(
        &mut s,
        &[tool("search"), tool("fetch")],
        HeaderReason::Initial,
    );
    header(&mut s, &[tool("search")], HeaderReason::Change);
    let id_r = dev(&mut s, vec![Block::removal("fetch")], None);
    let h = header(
        &mut s,
        &[tool("search"), tool("fetch")],
        HeaderReason::Change,
    );
    let id_t = dev(&mut s, vec![Block::addition("fetch")], Some(h));
    assert_eq!(
        *s.tool_history().unwrap(),
        hist(
            vec![tool("search"), tool("fetch")],
            vec![upd(&id_r, vec![]), upd(&id_t, vec![tool("fetch")])]
        )
    );
}

#[test]
fn the_key_order_of_parameters_counts_as_a_redeclaration() {
    let mut a = tool("fetch");
    a.parameters = json!({"type": "object", "properties": {}});
    let mut b = tool("fetch");
    b.parameters = json!({"properties": {}, "type": "object"});
    // serde_json's Value equality ignores map key order; ours must not.
    assert_eq!(a.parameters, b.parameters);
    assert!(!schemas_json_equal(&a, &b));
    let mut s = new_session();
    header(&mut s, &[tool("search"), a], HeaderReason::Initial);
    let h = header(&mut s, &[tool("search"), b.clone()], HeaderReason::Change);
    assert_eq!(s.tool_history().unwrap().tools[1], b);
    assert!(
        serde_json::to_string(&s.tool_history().unwrap().tools[1])
            .unwrap()
            .contains(r#"{"properties":{},"type":"object"}"#)
    );
    assert_eq!(s.fold_baseline_for_tests(), Some(h));
}

#[test]
fn additions_bound_to_the_baseline_are_recorded() {
    let mut s = new_session();
    let f_star = deferred(tool("fetch"));
    let h = header(
        &mut s,
        &[tool("search"), f_star.clone()],
        HeaderReason::Initial,
    );
    let a = dev(
        &mut s,
        vec![Block::addition("search"), Block::addition("fetch")],
        Some(h),
    );
    let d = dev(&mut s, vec![Block::addition("fetch")], Some(h));
    assert_eq!(
        *s.tool_history().unwrap(),
        hist(
            vec![tool("search"), f_star.clone()],
            vec![
                upd(&a, vec![tool("search"), f_star.clone()]),
                upd(&d, vec![f_star])
            ]
        )
    );
}

#[test]
fn a_missing_definition_fails_the_fold() {
    let mut fold = ToolHistoryFold::new();
    fold.apply(&raw(
        1,
        header_kind(&[tool("search")], HeaderReason::Initial, false),
        None,
    ))
    .unwrap();
    let bad = raw(
        2,
        dev_kind(vec![Block::addition("fetch")], Some(1)),
        append_op(),
    );
    let err = fold.apply(&bad).unwrap_err();
    assert_eq!(err, ToolHistoryError::MissingDefinition("fetch".into()));
    assert_eq!(
        err.to_string(),
        "tool history: missing definition for fetch"
    );
    // The failed event left the fold unchanged.
    assert_eq!(fold.folded_events(), 1);
    assert_eq!(*fold.snapshot(), hist(vec![tool("search")], vec![]));
    // The session never lets such an event in (E-13), live or on load.
    let mut s = new_session();
    let h = header(&mut s, &[tool("search")], HeaderReason::Initial);
    verdict_both(
        &s,
        dev_kind(vec![Block::addition("fetch")], Some(h)),
        append_op(),
        Some("E-13"),
    );
}

#[test]
fn a_restore_equals_the_original_and_continues_independently() {
    let (mut s, h2, _, _, snap) = fx3();
    let mut r = Session::from_events(plain_events(&s)).unwrap();
    assert_eq!(
        r.tool_history_folded_events(),
        0,
        "restore folds lazily (F-1)"
    );
    assert_eq!(*r.tool_history().unwrap(), *snap);
    assert_eq!(r.tool_history_folded_events(), s.events().len() as u64);
    header(&mut r, &[tool("search")], HeaderReason::Change);
    let id_r = dev(&mut r, vec![Block::removal("fetch")], None);
    assert_eq!(r.tool_history().unwrap().updates.len(), 2);
    assert_eq!(r.tool_history().unwrap().updates[1].message_id, id_r);
    assert_eq!(*s.tool_history().unwrap(), *snap);
    let _ = h2;
}

#[test]
fn the_tool_history_folds_each_event_exactly_once() {
    let mut s = new_session();
    let mut h = header(&mut s, &[tool("search")], HeaderReason::Initial);
    for i in 0..50u64 {
        s.push(user_kind("u")).unwrap();
        if i % 5 == 0 {
            let name = format!("t{i}");
            h = header(&mut s, &[tool("search"), tool(&name)], HeaderReason::Change);
            dev(&mut s, vec![Block::addition(name)], Some(h));
        }
        s.tool_history().unwrap();
        assert_eq!(s.tool_history_folded_events(), s.events().len() as u64);
    }
    s.tool_history().unwrap();
    s.tool_history().unwrap();
    assert_eq!(s.tool_history_folded_events(), s.events().len() as u64);
    let _ = h;
}

#[test]
fn a_legacy_log_without_update_records_uses_the_active_tools() {
    let mut s = new_session();
    header(&mut s, &[tool("search")], HeaderReason::Initial);
    header(&mut s, &[tool("fetch")], HeaderReason::Change);
    header(&mut s, &[tool("fetch"), tool("grep")], HeaderReason::Change);
    assert_eq!(
        *s.tool_history().unwrap(),
        hist(vec![tool("fetch"), tool("grep")], vec![])
    );
}

#[test]
fn start_resume_change_and_continue_need_no_flag() {
    let mut s = new_session();
    header(&mut s, &[tool("search")], HeaderReason::Initial);
    header(&mut s, &[tool("search")], HeaderReason::Resume);
    let h = header(
        &mut s,
        &[tool("search"), tool("fetch")],
        HeaderReason::Change,
    );
    let id = dev(&mut s, vec![Block::addition("fetch")], Some(h));
    assert_eq!(
        *s.tool_history().unwrap(),
        hist(vec![tool("search")], vec![upd(&id, vec![tool("fetch")])])
    );
}

#[test]
fn every_developer_message_is_an_update() {
    let mut s = new_session();
    header(&mut s, &[tool("search")], HeaderReason::Initial);
    let id = dev(&mut s, vec![Block::text("note")], None);
    assert_eq!(
        *s.tool_history().unwrap(),
        hist(vec![tool("search")], vec![upd(&id, vec![])])
    );
}
