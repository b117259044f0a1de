//! One-line cells localized at draw time: a notice and a command's output.

use ratatui::text::{Line, Span};

use crate::agent::protocol::{Notice, NoticeLevel, OutputLine};
use crate::ui::text::{sanitize, wrap_line};
use crate::ui::theme;

use super::base::{HistoryCell, Parts, RenderCtx, wrap_all};

impl HistoryCell for Notice {
    fn rows(&self, width: usize, ctx: &RenderCtx, _expanded: bool) -> Parts {
        let style = match self.level {
            NoticeLevel::Info => theme::dim(),
            NoticeLevel::Warn => theme::warn(),
            NoticeLevel::Error => theme::error(),
        };
        let text = sanitize(&ctx.l.tra_owned(&self.key, &self.args));
        Parts::separated(wrap_line(&Line::from(Span::styled(text, style)), width, 0))
    }
}

/// A command's output lines.
#[derive(Debug, Clone)]
pub struct OutputCell {
    /// The lines, localized at draw time.
    pub lines: Vec<OutputLine>,
}

impl HistoryCell for OutputCell {
    fn rows(&self, width: usize, ctx: &RenderCtx, _expanded: bool) -> Parts {
        let rows = self
            .lines
            .iter()
            .map(|t| Line::from(sanitize(&ctx.l.text(t))))
            .collect();
        Parts::separated(wrap_all(rows, width))
    }
}
