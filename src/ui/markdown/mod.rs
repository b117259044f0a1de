//! Markdown for model replies: pulldown-cmark events rendered to ratatui rows (emphasis,
//! strong, strikethrough, inline and fenced code, headings, quotes, nested and task lists,
//! aligned tables, links with their targets, rules), fenced code highlighted with syntect,
//! and a newline-gated [`StreamCollector`] for replies that are still arriving.
//!
//! Sources are sanitized for display on the way in (the collector keeps the source as
//! received for `/copy`). Every row is wrapped to the width it is rendered for,
//! keeping its gutter. Why these crates: docs/decisions/0016-markdown.md.

pub mod highlight;
mod render;
mod stream;

use ratatui::text::Line;

pub use stream::StreamCollector;

/// Renders a complete markdown document to rows of at most `width` columns.
pub fn render_width(src: &str, width: usize) -> Vec<Line<'static>> {
    stream::render_document(src, width)
}

#[cfg(test)]
mod tests;
