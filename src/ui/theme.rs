//! The palette: a handful of 16-colour ANSI roles so the UI works on light and dark terminals.

use ratatui::style::{Color, Modifier, Style};

/// Dim secondary text.
pub fn dim() -> Style {
    Style::default().add_modifier(Modifier::DIM)
}
/// Accent (headers, focused borders).
pub fn accent() -> Style {
    Style::default().fg(Color::Cyan)
}
/// Role header (bold, underlined).
pub fn role() -> Style {
    Style::default()
        .add_modifier(Modifier::BOLD)
        .add_modifier(Modifier::UNDERLINED)
}
/// Success.
pub fn success() -> Style {
    Style::default().fg(Color::Green)
}
/// Error.
pub fn error() -> Style {
    Style::default().fg(Color::Red)
}
/// Warning.
pub fn warn() -> Style {
    Style::default().fg(Color::Yellow)
}
/// Bold.
pub fn bold() -> Style {
    Style::default().add_modifier(Modifier::BOLD)
}
/// Inline and fenced code.
pub fn code() -> Style {
    Style::default().fg(Color::Magenta)
}
/// Code keyword.
pub fn keyword() -> Style {
    Style::default()
        .fg(Color::Blue)
        .add_modifier(Modifier::BOLD)
}
/// Code string literal.
pub fn string() -> Style {
    Style::default().fg(Color::Green)
}
/// Selected row highlight.
pub fn selected() -> Style {
    Style::default().add_modifier(Modifier::REVERSED)
}
/// The demo-mode banner.
pub fn banner() -> Style {
    Style::default()
        .fg(Color::Black)
        .bg(Color::Yellow)
        .add_modifier(Modifier::BOLD)
}
