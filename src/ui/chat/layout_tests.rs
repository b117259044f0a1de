//! Lazy heights after a resize converge to the exact layout.

use crate::i18n::{Locale, Localizer};
use crate::ui::chat::cells::{CellKind, UserCell};
use crate::ui::chat::fold::Transcript;
use crate::ui::chat::layout::REFINE_PER_FRAME;
use crate::ui::model::{RenderCtx, ToolCardMode};

fn ctx() -> RenderCtx {
    RenderCtx {
        l: Localizer::new(Locale::EnUs),
        cards: ToolCardMode::Collapsed,
        generation: 0,
    }
}

fn big(n: usize) -> Transcript {
    let mut t = Transcript::new();
    for k in 0..n {
        t.push(CellKind::User(UserCell {
            text: format!("message {k} ").repeat(k % 7 + 1),
        }));
    }
    t
}

#[test]
fn lazy_heights_converge_to_exact_after_resize() {
    let c = ctx();
    let mut t = big(2000);
    t.layout(120, &c);
    t.layout(30, &c);
    assert_eq!(t.estimated(), 2000);
    let mut frames = 0;
    while t.estimated() > 0 {
        t.refine(REFINE_PER_FRAME, 30, &c);
        frames += 1;
        assert!(frames < 100);
    }
    let mut fresh = big(2000);
    fresh.layout(30, &c);
    for i in 0..2000 {
        assert_eq!(t.cell_height(i), fresh.cell_height(i), "cell {i}");
    }
    assert_eq!(t.total_height(), fresh.total_height());
}

#[test]
fn resize_makes_only_the_viewport_exact_before_the_first_frame() {
    let c = ctx();
    let mut t = big(2000);
    t.layout(120, &c);
    t.layout(60, &c);
    let total = t.total_height();
    t.make_exact(total.saturating_sub(40)..total, 60, &c);
    assert!(t.estimated() > 1900, "{}", t.estimated());
    let last = t.len() - 1;
    let mut fresh = big(2000);
    fresh.layout(60, &c);
    assert_eq!(t.cell_height(last), fresh.cell_height(last));
}
