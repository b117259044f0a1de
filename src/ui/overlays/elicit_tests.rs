use super::*;
use crate::i18n::Locale;
use crate::tools::mcp::elicit::schema;
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use serde_json::json;

fn form() -> ElicitOverlay {
    let fields = schema::fields(&json!({
        "type": "object",
        "properties": {
            "name": {"title": "Name", "type": "string", "description": "Your full, legal name"},
            "age": {"title": "Age", "type": "integer", "minimum": 1, "maximum": 120},
            "agree": {"title": "Agree", "type": "boolean"},
            "color": {"title": "Color", "type": "string", "enum": ["red", "green", "blue"]},
            "tags": {"title": "Tags", "type": "array", "items": {"enum": ["a", "b", "c"]}}
        },
        "required": ["name", "age"]
    }))
    .unwrap();
    ElicitOverlay::new(ElicitationRequest {
        id: 7,
        server: "ev".into(),
        message: "Please tell us about you.".into(),
        kind: ElicitKind::Form { fields },
    })
}

fn url_question() -> ElicitOverlay {
    ElicitOverlay::new(ElicitationRequest {
        id: 9,
        server: "ev".into(),
        message: "Finish signing in.".into(),
        kind: ElicitKind::Url {
            url: "https://auth.example/verify?code=ABCD".into(),
        },
    })
}

fn key(o: &mut ElicitOverlay, code: KeyCode) -> (Handled, Vec<AppEvent>) {
    let mut out = Vec::new();
    let h = o.key(&KeyEvent::new(code, KeyModifiers::NONE), &mut out);
    (h, out)
}

fn typ(o: &mut ElicitOverlay, s: &str) {
    for c in s.chars() {
        key(o, KeyCode::Char(c));
    }
}

fn screen(o: &mut ElicitOverlay, loc: Locale, w: u16, h: u16) -> (String, Buffer) {
    let m = Model::new(loc, false);
    let mut t = Terminal::new(TestBackend::new(w, h)).unwrap();
    t.draw(|f| o.render(f.area(), f.buffer_mut(), &m)).unwrap();
    let b = t.backend().buffer().clone();
    let text = (0..b.area.height)
        .map(|y| {
            (0..b.area.width)
                .map(|x| b[(x, y)].symbol().to_string())
                .collect::<String>()
        })
        .collect::<Vec<_>>()
        .join("\n");
    (text, b)
}

fn answer(out: &[AppEvent]) -> &ElicitAnswer {
    match out {
        [AppEvent::Agent(AgentCommand::Elicit { id: _, answer })] => answer,
        other => panic!("{other:?}"),
    }
}

#[test]
fn a_filled_form_is_accepted_with_enter_and_its_values_typed() {
    let mut o = form();
    typ(&mut o, "Ada");
    key(&mut o, KeyCode::Tab);
    typ(&mut o, "36");
    key(&mut o, KeyCode::Tab);
    key(&mut o, KeyCode::Char(' '));
    key(&mut o, KeyCode::Tab);
    key(&mut o, KeyCode::Right);
    key(&mut o, KeyCode::Right);
    key(&mut o, KeyCode::Tab);
    key(&mut o, KeyCode::Char(' '));
    key(&mut o, KeyCode::Right);
    key(&mut o, KeyCode::Right);
    key(&mut o, KeyCode::Char(' '));
    // Enter on the last field submits.
    let (h, out) = key(&mut o, KeyCode::Enter);
    assert_eq!(h, Handled::Close);
    let ElicitAnswer::Accept(c) = answer(&out) else {
        panic!("{out:?}")
    };
    assert_eq!(
        serde_json::Value::Object(c.clone()),
        json!({"name": "Ada", "age": 36, "agree": true, "color": "green", "tags": ["a", "c"]})
    );
}

#[test]
fn an_invalid_form_stays_open_and_says_why_under_each_field() {
    let mut o = form();
    key(&mut o, KeyCode::Tab);
    typ(&mut o, "300");
    // To Submit: past the three other fields.
    for _ in 0..4 {
        key(&mut o, KeyCode::Tab);
    }
    let (h, out) = key(&mut o, KeyCode::Enter);
    assert_eq!(h, Handled::Consumed);
    assert!(out.is_empty());
    let (shown, _) = screen(&mut o, Locale::EnUs, 80, 40);
    assert!(shown.contains("Required."), "{shown}");
    assert!(shown.contains("At most 120."), "{shown}");
    assert!(shown.contains("2 fields need attention."), "{shown}");
    // The focus went to the first field that needs attention: typing fixes it, its
    // message goes.
    typ(&mut o, "Ada");
    let (shown, _) = screen(&mut o, Locale::EnUs, 80, 40);
    assert!(!shown.contains("Required."), "{shown}");
    assert_eq!(o.entries()[0], Entry::Text("Ada".into()));
}

#[test]
fn decline_and_esc_answer_without_content() {
    let mut o = form();
    for _ in 0..6 {
        key(&mut o, KeyCode::Tab);
    }
    let (h, out) = key(&mut o, KeyCode::Enter);
    assert_eq!((h, answer(&out)), (Handled::Close, &ElicitAnswer::Decline));
    let mut o = form();
    typ(&mut o, "half typed");
    let (h, out) = key(&mut o, KeyCode::Esc);
    assert_eq!((h, answer(&out)), (Handled::Close, &ElicitAnswer::Cancel));
}

#[test]
fn the_form_draws_at_80_and_120_columns_in_both_languages() {
    for (loc, w, title, submit, required) in [
        (Locale::EnUs, 80, "ev asks", "[ Submit ]", "required"),
        (Locale::EnUs, 120, "ev asks", "[ Decline ]", "required"),
        (Locale::ZhCn, 80, "ev 请求输入", "[ 提交 ]", "必填"),
        (Locale::ZhCn, 120, "ev 请求输入", "[ 取消 ]", "必填"),
    ] {
        let mut o = form();
        let (shown, _) = screen(&mut o, loc, w, 30);
        let flat = shown.replace(' ', "");
        for want in [title, submit, required, "Please tell us about you."] {
            assert!(
                flat.contains(&want.replace(' ', "")),
                "{loc:?} {w}: {want}\n{shown}"
            );
        }
        assert!(shown.contains("Your full, legal name"), "{shown}");
        assert!(shown.contains("[ ] "), "the yes/no box\n{shown}");
        assert!(shown.contains("‹ "), "the choice\n{shown}");
    }
}

#[test]
fn a_form_taller_than_the_screen_keeps_the_focused_field_in_view() {
    let props: serde_json::Map<String, serde_json::Value> = (0..20)
        .map(|i| {
            (
                format!("f{i:02}"),
                json!({"type": "string", "title": format!("Field {i:02}")}),
            )
        })
        .collect();
    let fields = schema::fields(&json!({"type": "object", "properties": props})).unwrap();
    let mut o = ElicitOverlay::new(ElicitationRequest {
        id: 1,
        server: "ev".into(),
        message: "Many.".into(),
        kind: ElicitKind::Form { fields },
    });
    for _ in 0..17 {
        key(&mut o, KeyCode::Down);
    }
    let (shown, _) = screen(&mut o, Locale::EnUs, 80, 24);
    assert!(shown.contains("› Field 17"), "{shown}");
    assert!(!shown.contains("Field 00"), "{shown}");
}

#[test]
fn the_url_question_shows_a_link_and_opens_only_on_yes() {
    let mut o = url_question();
    let (shown, buf) = screen(&mut o, Locale::EnUs, 80, 16);
    assert!(shown.contains("Open this page in the browser?"), "{shown}");
    assert!(shown.contains("ev asks you to open a page"), "{shown}");
    let linked = buf
        .content()
        .iter()
        .filter(|c| {
            c.symbol()
                .starts_with("\x1b]8;;https://auth.example/verify?code=ABCD\x1b\\")
        })
        .count();
    assert_eq!(linked, "https://auth.example/verify?code=ABCD".len());
    // Any other key does nothing; n declines, y accepts (the agent opens it).
    assert_eq!(key(&mut o, KeyCode::Char('x')).0, Handled::Consumed);
    let (h, out) = key(&mut o, KeyCode::Char('n'));
    assert_eq!((h, answer(&out)), (Handled::Close, &ElicitAnswer::Decline));
    let mut o = url_question();
    let (_, out) = key(&mut o, KeyCode::Char('y'));
    assert_eq!(answer(&out), &ElicitAnswer::Accept(Default::default()));
    let mut o = url_question();
    let (shown, _) = screen(&mut o, Locale::ZhCn, 120, 16);
    assert!(
        shown.replace(' ', "").contains("在浏览器中打开此页面吗"),
        "{shown}"
    );
}

#[test]
fn many_options_scroll_so_the_highlighted_one_is_seen() {
    let options: Vec<String> = (0..12).map(|i| format!("option-{i:02}")).collect();
    let fields = schema::fields(&json!({
        "type": "object",
        "properties": {"pick": {"type": "array", "items": {"enum": options}}}
    }))
    .unwrap();
    let mut o = ElicitOverlay::new(ElicitationRequest {
        id: 1,
        server: "ev".into(),
        message: "Pick.".into(),
        kind: ElicitKind::Form { fields },
    });
    let (shown, _) = screen(&mut o, Locale::EnUs, 80, 20);
    assert!(
        shown.contains("option-00") && !shown.contains("option-11"),
        "{shown}"
    );
    for _ in 0..11 {
        key(&mut o, KeyCode::Right);
    }
    key(&mut o, KeyCode::Char(' '));
    let (shown, _) = screen(&mut o, Locale::EnUs, 80, 20);
    assert!(
        shown.contains("[x] option-11") && !shown.contains("option-00"),
        "{shown}"
    );
    assert_eq!(
        o.entries()[0],
        Entry::Choices((0..12).map(|i| i == 11).collect())
    );
}

#[test]
fn a_paste_goes_into_the_focused_text_field_as_one_clean_line() {
    let mut o = form();
    o.paste("ada@example.com\x1b[2J\nsecond line");
    assert_eq!(o.entries()[0], Entry::Text("ada@example.com[2J".into()));
    // On a yes/no field a paste changes nothing.
    key(&mut o, KeyCode::Tab);
    key(&mut o, KeyCode::Tab);
    o.paste("yes");
    assert_eq!(o.entries()[2], Entry::Bool(false));
}
