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

// markdown and code highlighting roles (16-colour ANSI only, no RGB).

/// A markdown heading: level 1 bold, underlined and accented, level 2 bold and accented,
/// level 3 bold, deeper levels bold italic.
pub fn heading(level: u8) -> Style {
    match level {
        1 => accent()
            .add_modifier(Modifier::BOLD)
            .add_modifier(Modifier::UNDERLINED),
        2 => accent().add_modifier(Modifier::BOLD),
        3 => bold(),
        _ => bold().add_modifier(Modifier::ITALIC),
    }
}
/// Link text.
pub fn link() -> Style {
    Style::default()
        .fg(Color::Cyan)
        .add_modifier(Modifier::UNDERLINED)
}
/// A link's target shown after its text.
pub fn link_target() -> Style {
    dim()
}
/// Markdown structure marks: quote bars, table borders, rules, code labels.
pub fn markup() -> Style {
    dim()
}
/// Code tokens no grammar rule styles.
pub fn code_plain() -> Style {
    Style::default()
}
/// Code comments.
pub fn code_comment() -> Style {
    Style::default()
        .add_modifier(Modifier::DIM)
        .add_modifier(Modifier::ITALIC)
}
/// Numeric literals.
pub fn code_number() -> Style {
    Style::default().fg(Color::Magenta)
}
/// Language constants and escapes (`true`, `None`, `\n`).
pub fn code_constant() -> Style {
    Style::default().fg(Color::Magenta)
}
/// Type names.
pub fn code_type() -> Style {
    Style::default().fg(Color::Yellow)
}
/// Function names.
pub fn code_function() -> Style {
    Style::default().fg(Color::Cyan)
}

// cache breaks visible

/// A cache-hit % by band: ≥ 90 % success, 50–89 % warning, < 50 % error (a miss).
pub fn hit_band(pct: u64) -> Style {
    match pct {
        90.. => success(),
        50..=89 => warn(),
        _ => error(),
    }
}
