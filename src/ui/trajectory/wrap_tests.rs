//! A cache-break reason in the Trajectory wraps instead of being cut: its end says how
//! to keep the cache.
use super::rows::*;
use super::*;
use crate::i18n::Locale;
use crate::i18n::{Arg, Localizer};
use crate::ui::scroll::Scroll;
use crate::ui::text::str_width;
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::text::Line;

fn text(line: &Line<'_>) -> String {
    line.spans.iter().map(|s| s.content.as_ref()).collect()
}

fn removal() -> CacheBreak {
    CacheBreak {
        kind: BreakKind::Tools {
            removal_on_addition_only: true,
        },
        added: 0,
        removed: 1,
        shared: 20_000,
        cached: 0,
    }
}

fn squash(s: &str) -> String {
    s.chars().filter(|c| !c.is_whitespace()).collect()
}

#[test]
fn a_break_reason_wraps_whole_under_its_text_at_every_width() {
    for locale in [Locale::EnUs, Locale::ZhCn] {
        let l = Localizer::new(locale);
        let cb = removal();
        let full = l.tra("tui-traj-break", &[("reason", Arg::from(cb.reason(l)))]);
        for w in [40, 80, 120] {
            let rows = Trajectory::reason_rows(&cb, l, w);
            let texts: Vec<String> = rows.iter().map(text).collect();
            for t in &texts {
                assert!(str_width(t) <= w, "{locale:?} {w}: {t:?} is too wide");
                assert!(!t.ends_with('…'), "{locale:?} {w}: {t:?} is cut");
            }
            assert!(texts[0].starts_with("  ↳ "), "{:?}", texts[0]);
            for t in &texts[1..] {
                // Continuation rows sit under the reason text, not under the arrow.
                assert!(t.starts_with("    ") && !t[4..].starts_with(' '), "{t:?}");
            }
            let joined: String = texts.iter().map(|t| squash(t)).collect();
            assert_eq!(joined, format!("↳{}", squash(&full)), "{locale:?} {w}");
        }
        assert!(Trajectory::reason_rows(&cb, l, 40).len() > 1);
    }
}

#[test]
fn the_pane_draws_every_row_of_a_wrapped_reason_and_highlights_them_with_their_request() {
    let l = Localizer::new(Locale::EnUs);
    let mut t = Trajectory::new();
    t.rows.push(Row::BreakReason {
        n: 1,
        cache_break: removal(),
    });
    let full = squash(&l.tra(
        "tui-traj-break",
        &[("reason", Arg::from(removal().reason(l)))],
    ));
    let area = Rect::new(0, 0, 40, 12);
    let mut buf = Buffer::empty(area);
    t.draw(&Scroll::default(), Some(0), l, area, &mut buf);
    let mut drawn = String::new();
    for y in 0..area.height {
        for x in 0..area.width {
            drawn.push_str(buf[(x, y)].symbol());
        }
    }
    assert!(squash(&drawn).contains(&full), "{drawn}");
    let rows = t.screen_rows(l, 40);
    assert!(rows.len() > 1 && rows.iter().all(|(i, _)| *i == 0));
    assert_eq!(t.screen_span(0, l, 40), (0, rows.len()));
}
