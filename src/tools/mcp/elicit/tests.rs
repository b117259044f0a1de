use serde_json::json;

use super::form::content;
use super::*;

/// server-everything's form (its `trigger-elicitation-request` tool), as it sends it.
fn everything_schema() -> Value {
    json!({
        "type": "object",
        "properties": {
            "name": {"title": "String", "type": "string", "description": "Your full, legal name"},
            "check": {"title": "Boolean", "type": "boolean"},
            "email": {"title": "Email", "type": "string", "format": "email"},
            "integer": {"title": "Integer", "type": "integer", "minimum": 1, "maximum": 100, "default": 42},
            "number": {"type": "number", "minimum": 0, "maximum": 1000, "default": 2.5},
            "friend": {"type": "string", "enum": ["Monica", "Rachel"], "default": "Rachel"},
            "hero": {"type": "string", "oneOf": [{"const": "hero-1", "title": "Superman"}]},
            "fish": {"type": "array", "minItems": 1, "maxItems": 2,
                     "items": {"anyOf": [{"const": "f1", "title": "Tuna"}, {"const": "f2", "title": "Salmon"}, {"const": "f3", "title": "Trout"}]},
                     "default": ["f1"]},
            "pet": {"type": "string", "enum": ["p1", "p2"], "enumNames": ["Cats", "Dogs"]}
        },
        "required": ["name"]
    })
}

#[test]
fn a_form_keeps_the_servers_field_order_types_labels_and_defaults() {
    let f = schema::fields(&everything_schema()).unwrap();
    let names: Vec<&str> = f.iter().map(|f| f.name.as_str()).collect();
    assert_eq!(
        names,
        [
            "name", "check", "email", "integer", "number", "friend", "hero", "fish", "pet"
        ]
    );
    assert!(f[0].required && !f[1].required);
    assert_eq!(f[0].label, "String");
    assert_eq!(f[4].label, "number", "no title: the property name");
    assert_eq!(f[3].initial(), Entry::Text("42".into()));
    assert_eq!(f[5].initial(), Entry::Choice(Some(1)));
    assert_eq!(f[7].initial(), Entry::Choices(vec![true, false, false]));
    match &f[8].input {
        Input::Choice { options, .. } => assert_eq!(options[1].label, "Dogs"),
        other => panic!("{other:?}"),
    }
    match &f[6].input {
        Input::Choice { options, .. } => {
            assert_eq!(
                (options[0].value.as_str(), options[0].label.as_str()),
                ("hero-1", "Superman")
            )
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn an_answer_carries_typed_values_and_leaves_out_empty_optional_fields() {
    let f = schema::fields(&everything_schema()).unwrap();
    let mut e: Vec<Entry> = f.iter().map(Field::initial).collect();
    e[0] = Entry::Text("Ada".into());
    e[1] = Entry::Bool(true);
    e[7] = Entry::Choices(vec![true, false, true]);
    let c = content(&f, &e).unwrap();
    assert_eq!(c["name"], "Ada");
    assert_eq!(c["check"], true);
    assert_eq!(c["integer"], 42, "an integer, not 42.0");
    assert_eq!(c["number"], 2.5);
    assert_eq!(c["friend"], "Rachel");
    assert_eq!(c["fish"], json!(["f1", "f3"]));
    assert!(!c.contains_key("email") && !c.contains_key("hero") && !c.contains_key("pet"));
}

#[test]
fn each_field_says_why_it_cannot_be_submitted() {
    let f = schema::fields(&everything_schema()).unwrap();
    let mut e: Vec<Entry> = f.iter().map(Field::initial).collect();
    e[2] = Entry::Text("not-an-address".into());
    e[3] = Entry::Text("101".into());
    e[4] = Entry::Text("abc".into());
    e[7] = Entry::Choices(vec![true, true, true]);
    let errors = content(&f, &e).unwrap_err();
    let keys: Vec<(usize, &str)> = errors.iter().map(|(i, t)| (*i, t.key.as_str())).collect();
    assert_eq!(
        keys,
        [
            (0, "elicit-err-required"),
            (2, "elicit-err-email"),
            (3, "elicit-err-max"),
            (4, "elicit-err-number"),
            (7, "elicit-err-max-items"),
        ]
    );
    let en = crate::i18n::Localizer::new(crate::i18n::Locale::EnUs);
    let zh = crate::i18n::Localizer::new(crate::i18n::Locale::ZhCn);
    assert_eq!(en.text(&errors[2].1), "At most 100.");
    assert_eq!(zh.text(&errors[2].1), "不能大于 100。");
    e[3] = Entry::Text("4.5".into());
    assert_eq!(f[3].read(&e[3]).unwrap_err().key, "elicit-err-integer");
    e[3] = Entry::Text("0".into());
    assert_eq!(f[3].read(&e[3]).unwrap_err().key, "elicit-err-min");
    e[7] = Entry::Choices(vec![false, false, false]);
    assert_eq!(f[7].read(&e[7]).unwrap_err().key, "elicit-err-min-items");
}

#[test]
fn text_lengths_and_formats_are_checked() {
    let field = |p: Value| {
        schema::fields(&json!({"type": "object", "properties": {"x": p}}))
            .unwrap()
            .remove(0)
    };
    let f = field(json!({"type": "string", "minLength": 3, "maxLength": 4}));
    let read = |f: &Field, s: &str| f.read(&Entry::Text(s.into())).map_err(|t| t.key);
    assert_eq!(read(&f, "ab").unwrap_err(), "elicit-err-too-short");
    assert_eq!(read(&f, "abcde").unwrap_err(), "elicit-err-too-long");
    assert_eq!(
        read(&f, "日本語").unwrap(),
        Some(json!("日本語")),
        "characters, not bytes"
    );
    let date = field(json!({"type": "string", "format": "date"}));
    assert!(read(&date, "2026-02-28").is_ok());
    assert_eq!(read(&date, "2026-02-30").unwrap_err(), "elicit-err-date");
    let dt = field(json!({"type": "string", "format": "date-time"}));
    assert!(read(&dt, "2026-01-31T09:30:00Z").is_ok());
    assert_eq!(
        read(&dt, "2026-01-31 09:30").unwrap_err(),
        "elicit-err-date-time"
    );
    let uri = field(json!({"type": "string", "format": "uri"}));
    assert!(read(&uri, "https://example.com/a").is_ok());
    assert_eq!(read(&uri, "example dot com").unwrap_err(), "elicit-err-uri");
}

#[test]
fn a_schema_the_form_cannot_show_is_refused_with_its_reason() {
    let why = |s: Value| schema::fields(&s).unwrap_err();
    let nested = why(json!({"type": "object", "properties": {"addr": {"type": "object"}}}));
    assert_eq!(nested.key, "elicit-bad-schema-field");
    let en = crate::i18n::Localizer::new(crate::i18n::Locale::EnUs);
    assert_eq!(
        en.text(&nested),
        "field \"addr\": the type \"object\" is not one a form can show"
    );
    let many: serde_json::Map<String, Value> = (0..40)
        .map(|i| (format!("f{i}"), json!({"type": "string"})))
        .collect();
    assert_eq!(
        why(json!({"type": "object", "properties": many})).key,
        "elicit-bad-schema-too-many-fields"
    );
    assert_eq!(
        why(json!({"type": "object", "properties": {}, "required": ["ghost"]})).key,
        "elicit-bad-schema-required-missing"
    );
    let range = why(
        json!({"type": "object", "properties": {"n": {"type": "integer", "minimum": 5, "maximum": 1}}}),
    );
    assert_eq!(range.key, "elicit-bad-schema-field");
}

#[test]
fn server_strings_lose_control_and_direction_characters_and_are_capped() {
    let s = schema::screen("a\x1b]52;c;x\x07b\u{202e}c\nd", 100, false);
    assert_eq!(s, "a]52;c;xbcd");
    let long = "x".repeat(500);
    let cut = schema::screen(&long, 120, false);
    assert_eq!(cut.chars().count(), 121);
    assert!(cut.ends_with('…'));
    let lines = "l\n".repeat(50);
    assert_eq!(
        schema::screen(&lines, 2000, true).lines().count(),
        schema::MAX_MESSAGE_LINES
    );
}

#[test]
fn only_plain_http_urls_are_offered_to_open() {
    assert!(url_ok("https://example.com/verify?x=1"));
    assert!(!url_ok("javascript:alert(1)"));
    assert!(!url_ok("file:///etc/passwd"));
    assert!(!url_ok("https://example.com/\x1b]8;;evil"));
    assert!(!url_ok("https://a.example/ b"));
    assert!(!url_ok(&format!(
        "https://a.example/{}",
        "x".repeat(MAX_URL_BYTES)
    )));
}

fn form_params(schema: Value) -> ElicitRequestParams {
    serde_json::from_value(json!({"mode": "form", "message": "Who?", "requestedSchema": schema}))
        .unwrap()
}

#[tokio::test]
async fn exec_declines_and_says_which_server_asked_what() {
    let told = Arc::new(Mutex::new(Vec::new()));
    let t = told.clone();
    let e = Elicitations::declining(Arc::new(move |x: Text| t.lock().unwrap().push(x)));
    assert!(e.capability().is_some(), "exec advertises, then declines");
    let r = e.ask("ev", form_params(everything_schema())).await;
    assert_eq!(r.action, ElicitationAction::Decline);
    assert!(r.content.is_none());
    let told = told.lock().unwrap();
    assert_eq!(told[0].key, "elicit-declined-exec");
    let en = crate::i18n::Localizer::new(crate::i18n::Locale::EnUs);
    assert_eq!(
        en.text(&told[0]),
        "MCP server ev asked for input; exec cannot ask, so it was declined: Who?"
    );
}

#[tokio::test]
async fn the_users_answer_goes_back_to_the_server_that_asked() {
    let shown = Arc::new(Mutex::new(Vec::new()));
    let s = shown.clone();
    let e = Elicitations::asking(
        Arc::new(move |r| {
            s.lock().unwrap().push(r);
            true
        }),
        Arc::new(|_| {}),
    );
    let asking = {
        let e = e.clone();
        tokio::spawn(async move { e.ask("ev", form_params(everything_schema())).await })
    };
    while e.waiting() == 0 {
        tokio::task::yield_now().await;
    }
    let req = shown.lock().unwrap()[0].clone();
    assert_eq!((req.server.as_str(), req.message.as_str()), ("ev", "Who?"));
    let mut answer = serde_json::Map::new();
    answer.insert("name".into(), json!("Ada"));
    e.answer(req.id, ElicitAnswer::Accept(answer));
    let r = asking.await.unwrap();
    assert_eq!(r.action, ElicitationAction::Accept);
    assert_eq!(r.content, Some(json!({"name": "Ada"})));
    assert_eq!(e.waiting(), 0);
}

#[tokio::test]
async fn a_request_the_form_cannot_show_is_declined_without_asking() {
    let asked = Arc::new(Mutex::new(0));
    let told = Arc::new(Mutex::new(Vec::new()));
    let (a, t) = (asked.clone(), told.clone());
    let e = Elicitations::asking(
        Arc::new(move |_| {
            *a.lock().unwrap() += 1;
            true
        }),
        Arc::new(move |x| t.lock().unwrap().push(x)),
    );
    // rmcp cannot type a nested object: the raw request is answered.
    let raw = json!({"message": "addr?", "requestedSchema": {"type": "object", "properties": {"addr": {"type": "object"}}}});
    let r = e.ask_raw("ev", Some(&raw));
    assert_eq!(r.action, ElicitationAction::Decline);
    let url: ElicitRequestParams = serde_json::from_value(
        json!({"mode": "url", "message": "go", "url": "javascript:alert(1)", "elicitationId": "1"}),
    )
    .unwrap();
    assert_eq!(e.ask("ev", url).await.action, ElicitationAction::Decline);
    assert_eq!(*asked.lock().unwrap(), 0);
    let keys: Vec<String> = told.lock().unwrap().iter().map(|t| t.key.clone()).collect();
    assert_eq!(
        keys,
        ["elicit-declined-unshowable", "elicit-declined-unshowable"]
    );
}
