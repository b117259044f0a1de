use serde_json::json;

use super::*;

fn tool(name: &str, description: &str) -> ToolSchema {
    ToolSchema {
        name: name.into(),
        description: description.into(),
        parameters: json!({"type": "object"}),
        defer_loading: None,
    }
}

fn names(m: &Message) -> BTreeSet<String> {
    announced(&[Arc::new(m.clone())], &[0]).expect("a catalogue note")
}

#[test]
fn the_first_note_announces_every_deferred_tool_with_its_first_line() {
    let deferred = [
        tool("fs__read", "Read a file.\nLong details."),
        tool("git__log", ""),
    ];
    let m = catalogue_note(None, &deferred, &|_| false).expect("a note");
    assert!(m.is_mode_note(), "sent on every route like a mode note");
    let text = m.joined_text();
    assert!(text.contains("tool_search"), "{text}");
    assert!(
        text.contains("\n- fs__read: Read a file.\n- git__log"),
        "{text}"
    );
    assert!(!text.contains("Long details"), "{text}");
    assert_eq!(names(&m), ["fs__read", "git__log"].map(String::from).into());
    // Nothing changed: no note.
    assert!(catalogue_note(Some(&names(&m)), &deferred, &|_| false).is_none());
}

#[test]
fn a_later_note_names_only_what_changed() {
    let before: BTreeSet<String> = ["a", "b", "loaded"].map(String::from).into();
    let deferred = [tool("b", "B"), tool("c", "C tool")];
    // `loaded` is declared now (tool_search loaded it): its removal is not the note's.
    let m = catalogue_note(Some(&before), &deferred, &|n| n == "loaded").expect("a note");
    let text = m.joined_text();
    assert!(text.contains("- c: C tool"), "{text}");
    assert!(!text.contains("- b"), "b was announced already: {text}");
    assert!(text.ends_with("No longer available: a."), "{text}");
    assert!(!text.contains("loaded"), "{text}");
    assert_eq!(names(&m), ["b", "c"].map(String::from).into());
}

#[test]
fn a_long_first_line_is_cut_so_the_note_stays_short() {
    let long = "x".repeat(500);
    let m = catalogue_note(None, &[tool("t", &long)], &|_| false).unwrap();
    let line = m.joined_text().lines().last().unwrap().to_string();
    assert!(line.chars().count() <= LINE_CHARS + 3, "{line}");
    assert!(line.ends_with('…'));
}

#[test]
fn the_announced_set_is_read_from_the_latest_note_in_the_messages() {
    let first = catalogue_note(None, &[tool("a", "")], &|_| false).unwrap();
    let second = catalogue_note(Some(&names(&first)), &[tool("b", "")], &|_| false).unwrap();
    let user = Message::text(Role::User, "hi", Source::kind("user"));
    let msgs: Vec<Arc<Message>> = vec![first, user, second]
        .into_iter()
        .map(Arc::new)
        .collect();
    assert_eq!(
        announced(&msgs, &[0, 2]),
        Some(["b"].map(String::from).into())
    );
    // A compaction that dropped every note: nothing was announced.
    assert_eq!(announced(&msgs[1..2], &[]), None);
}

#[test]
fn a_changed_definition_is_told_once_per_definition() {
    let v1 = tool("git__log", "Show the history.");
    let v2 = tool("git__log", "Show the commit history with authors.");
    let note = definition_note(std::slice::from_ref(&v2)).expect("a note");
    assert!(note.is_mode_note(), "sent on every route like a mode note");
    let text = note.joined_text();
    assert!(text.contains("tool_search"), "{text}");
    assert!(
        text.ends_with("- git__log: Show the commit history with authors."),
        "{text}"
    );
    let msgs = vec![Arc::new(note)];
    assert!(definition_told(&msgs, &[0], &v2), "told: no second note");
    assert!(
        !definition_told(&msgs, &[0], &v1),
        "another definition is told again"
    );
    assert!(
        !definition_told(&msgs, &[], &v2),
        "a compaction dropped the note"
    );
    assert_ne!(fingerprint(&v1), fingerprint(&v2));
    assert_eq!(fingerprint(&v2), fingerprint(&v2.clone()), "stable");
    assert!(definition_note(&[]).is_none());
}
