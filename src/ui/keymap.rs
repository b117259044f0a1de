//! Key classification shared by the composer and the global handlers.

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};

/// Whether the key inserts a newline in the composer (Shift+Enter, Ctrl+J, Alt+Enter).
pub fn is_newline(k: &KeyEvent) -> bool {
    match k.code {
        KeyCode::Enter => k
            .modifiers
            .intersects(KeyModifiers::SHIFT | KeyModifiers::ALT),
        KeyCode::Char('j') => k.modifiers.contains(KeyModifiers::CONTROL),
        _ => false,
    }
}

/// Whether the key is `Ctrl+<c>`.
pub fn ctrl(k: &KeyEvent, c: char) -> bool {
    k.code == KeyCode::Char(c) && k.modifiers.contains(KeyModifiers::CONTROL)
}

/// A typed character (no Ctrl/Alt), if any.
pub fn typed(k: &KeyEvent) -> Option<char> {
    match k.code {
        KeyCode::Char(c)
            if !k
                .modifiers
                .intersects(KeyModifiers::CONTROL | KeyModifiers::ALT) =>
        {
            Some(c)
        }
        _ => None,
    }
}
