//! The inspector's `Why:` line wraps instead of being cut: its end says how to keep the
//! cache (`tool_removal = "retain"`).
use super::*;
use crate::agent::inspect::Divergence;
use crate::agent::inspect::data::DiffReason;
use crate::i18n::Locale;

fn request(n: usize) -> InspectedRequest {
    InspectedRequest {
        n: Some(n),
        label: None,
        route: "deepseek/deepseek-chat".into(),
        system: Some("You are a helpful assistant.".into()),
        tools: vec![("read_file".into(), false)],
        messages: vec!["user: text \"hi\"".into()],
        body: "{}".into(),
        beta: None,
    }
}

fn squash(s: &str) -> String {
    s.chars().filter(|c| !c.is_whitespace()).collect()
}

#[test]
fn the_why_line_wraps_whole_under_its_text_at_every_width() {
    for locale in [Locale::EnUs, Locale::ZhCn] {
        let l = Localizer::new(locale);
        let reason = l.tr(DiffReason::RemovalOnAdditionOnly.message_id());
        let full = l.tra(
            "tui-inspector-reason",
            &[("reasons", Arg::from(reason.clone()))],
        );
        for w in [40u16, 80, 120] {
            let data = InspectorData {
                previous: Some(request(1)),
                selected: request(2),
                divergence: Divergence::default(),
                reasons: vec![DiffReason::RemovalOnAdditionOnly],
            };
            let mut insp = Inspector::new(data);
            let area = Rect::new(0, 0, w, 30);
            let mut buf = Buffer::empty(area);
            insp.draw(l, area, &mut buf);
            let rows: Vec<String> = (0..area.height)
                .map(|y| {
                    (0..area.width)
                        .map(|x| buf[(x, y)].symbol().to_string())
                        .collect::<String>()
                        .trim_end()
                        .to_string()
                })
                .collect();
            let drawn = squash(&rows.join("\n"));
            assert!(
                drawn.contains(&squash(&full)),
                "{locale:?} {w}:\n{}",
                rows.join("\n")
            );
            assert!(
                !rows
                    .iter()
                    .any(|r| r.contains('…') && r.contains(reason.split(' ').next().unwrap())),
                "{locale:?} {w}: the reason is cut"
            );
            let lines = reason_rows(std::slice::from_ref(&reason), l, w as usize);
            let label = l.tra("tui-inspector-reason", &[("reasons", Arg::from(""))]);
            let indent = str_width(&label);
            for t in &lines {
                assert!(str_width(t) <= w as usize, "{t:?}");
            }
            for t in &lines[1..] {
                // Continuation rows sit under the reason text, after the label.
                let lead: String = t.chars().take_while(|c| *c == ' ').collect();
                assert_eq!(lead.len(), indent, "{locale:?} {w}: {t:?}");
            }
            if w == 40 {
                assert!(lines.len() > 1);
            }
        }
    }
}
