//! A running call's progress on its card (SPEC §15.2).

use super::{CellKind, Transcript};
use crate::tools::progress::Progress;
use crate::ui::chat::cells::ToolCell;

impl Transcript {
    /// Shows `p` on call `call`'s card while it has no result; a late report is dropped.
    pub fn set_progress(&mut self, call: &str, p: Progress) {
        if let Some(&i) = self.by_call.get(call)
            && let CellKind::Tool(ToolCell {
                result: None,
                progress,
                ..
            }) = &mut self.cells[i].kind
        {
            *progress = Some(Box::new(p));
            self.touch(i);
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::i18n::{Locale, Localizer};
    use crate::tools::progress::Progress;
    use crate::ui::chat::cells::{HistoryCell, ToolCell};
    use crate::ui::model::{RenderCtx, ToolCardMode};

    fn status(p: Option<Progress>, locale: Locale) -> String {
        let mut c = ToolCell::new("c1".into(), "ev__index".into(), "{}".into());
        c.progress = p.map(Box::new);
        let ctx = RenderCtx {
            l: Localizer::new(locale),
            cards: ToolCardMode::Collapsed,
            generation: 0,
        };
        crate::ui::snapshot::lines_text(&c.rows(80, &ctx, false).head)
    }

    #[test]
    fn the_running_card_shows_the_latest_progress_in_both_languages() {
        let p = Progress {
            progress: 2.0,
            total: Some(3.0),
            message: Some("indexing\n\u{1b}[31mfiles".into()),
        };
        let en = status(Some(p.clone()), Locale::EnUs);
        assert!(en.contains("running · 67% · indexing"), "{en}");
        // What the server wrote cannot reach the terminal as escapes.
        assert!(!en.contains('\u{1b}'), "{en:?}");
        let zh = status(Some(p), Locale::ZhCn);
        assert!(zh.contains("运行中 · 67%"), "{zh}");
        let count = status(
            Some(Progress {
                progress: 5.0,
                total: None,
                message: None,
            }),
            Locale::EnUs,
        );
        assert!(count.contains("running · 5 done"), "{count}");
        assert!(!status(None, Locale::EnUs).contains('·'));
    }
}
