//! Syntax highlighting for fenced code: syntect grammars from the two-face syntax set,
//! mapped by scope onto the 16-colour ANSI palette (see docs/decisions/0016-markdown.md).
//!
//! The syntax set is loaded once, on first use. A [`CodeHighlighter`] keeps syntect's parse
//! state between lines, so a block can be highlighted one line at a time as it streams.

use std::sync::OnceLock;

use ratatui::style::Style;
use ratatui::text::{Line, Span};
use syntect::parsing::{ParseState, Scope, ScopeStack, SyntaxReference, SyntaxSet};

use crate::ui::theme;

/// The syntax set with newline-terminated grammars, loaded on first use.
pub fn syntax_set() -> &'static SyntaxSet {
    static SET: OnceLock<SyntaxSet> = OnceLock::new();
    SET.get_or_init(two_face::syntax::extra_newlines)
}

/// Language-tag aliases the grammars' own extensions and names do not cover.
const ALIASES: &[(&str, &str)] = &[
    ("shell", "bash"),
    ("console", "bash"),
    ("zsh", "bash"),
    ("sh-session", "bash"),
    ("c++", "cpp"),
    ("golang", "go"),
    ("jsonc", "json"),
    ("json5", "json"),
    ("py3", "py"),
    ("python3", "py"),
    ("javascript", "js"),
    ("typescript", "ts"),
    ("patch", "diff"),
    ("yml", "yaml"),
    ("rust", "rs"),
];

/// The grammar for a fence's language tag (the info string's first word), if one is known.
pub fn find_syntax(lang: &str) -> Option<&'static SyntaxReference> {
    let tag = lang.trim().to_ascii_lowercase();
    if tag.is_empty() {
        return None;
    }
    let tag = ALIASES
        .iter()
        .find(|(alias, _)| *alias == tag)
        .map_or(tag.as_str(), |(_, target)| *target);
    let set = syntax_set();
    set.find_syntax_by_token(tag)
        .filter(|s| s.name != "Plain Text")
}

/// Scope prefixes and the palette role each maps to; the innermost matching scope wins.
struct ScopeStyles {
    rules: Vec<(Scope, Style)>,
}

fn scope_styles() -> &'static ScopeStyles {
    static STYLES: OnceLock<ScopeStyles> = OnceLock::new();
    STYLES.get_or_init(|| {
        let table: [(&str, Style); 19] = [
            ("comment", theme::code_comment()),
            ("punctuation.definition.comment", theme::code_comment()),
            ("string", theme::string()),
            ("constant.character.escape", theme::code_constant()),
            ("constant.numeric", theme::code_number()),
            ("constant.language", theme::code_constant()),
            ("constant.other", theme::code_constant()),
            ("keyword.operator", theme::code_plain()),
            ("keyword", theme::keyword()),
            ("storage", theme::keyword()),
            ("entity.name.function", theme::code_function()),
            ("support.function", theme::code_function()),
            ("variable.function", theme::code_function()),
            ("entity.name", theme::code_type()),
            ("support.type", theme::code_type()),
            ("support.class", theme::code_type()),
            ("markup.inserted", theme::success()),
            ("markup.deleted", theme::error()),
            ("meta.diff.range", theme::accent()),
        ];
        let rules = table
            .iter()
            .filter_map(|(s, st)| Scope::new(s).ok().map(|sc| (sc, *st)))
            .collect();
        ScopeStyles { rules }
    })
}

fn style_for(stack: &ScopeStack) -> Style {
    let rules = &scope_styles().rules;
    for scope in stack.as_slice().iter().rev() {
        if let Some((_, st)) = rules.iter().find(|(p, _)| p.is_prefix_of(*scope)) {
            return *st;
        }
    }
    theme::code_plain()
}

/// Highlights a code block line by line, keeping the grammar's state between lines.
#[derive(Debug, Clone)]
pub struct CodeHighlighter {
    state: Option<(ParseState, ScopeStack)>,
}

impl CodeHighlighter {
    /// A highlighter for `lang`; unknown or empty tags give plain code.
    pub fn new(lang: &str) -> Self {
        CodeHighlighter {
            state: find_syntax(lang).map(|s| (ParseState::new(s), ScopeStack::new())),
        }
    }

    /// Whether a grammar was found for the language.
    pub fn is_highlighted(&self) -> bool {
        self.state.is_some()
    }

    /// Highlights one line (without its newline) and advances the state.
    pub fn line(&mut self, text: &str) -> Line<'static> {
        let Some((parse, stack)) = self.state.as_mut() else {
            return plain(text);
        };
        match highlight_line(parse, stack, text) {
            Some(line) => line,
            None => {
                // A grammar error: the rest of the block is plain rather than wrong.
                self.state = None;
                plain(text)
            }
        }
    }
}

fn plain(text: &str) -> Line<'static> {
    Line::from(Span::styled(text.to_string(), theme::code()))
}

fn highlight_line(
    parse: &mut ParseState,
    stack: &mut ScopeStack,
    text: &str,
) -> Option<Line<'static>> {
    let mut with_nl = String::with_capacity(text.len() + 1);
    with_nl.push_str(text);
    with_nl.push('\n');
    let ops = parse.parse_line(&with_nl, syntax_set()).ok()?;
    let mut spans: Vec<Span<'static>> = Vec::new();
    let push = |from: usize, to: usize, st: Style, spans: &mut Vec<Span<'static>>| {
        let to = to.min(text.len());
        if from >= to {
            return;
        }
        let piece = text.get(from..to).unwrap_or_default();
        match spans.last_mut() {
            Some(last) if last.style == st => last.content.to_mut().push_str(piece),
            _ => spans.push(Span::styled(piece.to_string(), st)),
        }
    };
    let mut pos = 0;
    for (at, op) in ops {
        if at > pos {
            push(pos, at, style_for(stack), &mut spans);
            pos = at;
        }
        stack.apply(&op).ok()?;
    }
    push(pos, text.len(), style_for(stack), &mut spans);
    Some(Line::from(spans))
}
