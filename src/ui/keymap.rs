//! The keymap table: every key the TUI reacts to, as (action, default keys,
//! help text, context). Dispatch looks keys up here (the focused context first, then the
//! global one) and the key-help overlay is generated from the same table, so help can never
//! miss a key. Also the key classification shared by the composer.

use std::sync::OnceLock;

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};

use crate::i18n::Localizer;

/// Whether the key inserts a newline in the composer (Shift+Enter, Ctrl+J, Alt+Enter).
pub fn is_newline(k: &KeyEvent) -> bool {
    matches!(
        lookup(&[Context::Composer], k, false),
        Some(Action::Newline)
    )
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

/// Where a binding applies. Overlay contexts take every key while the overlay is open.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Context {
    /// Anywhere no overlay is open (after the focused context).
    Global,
    /// The composer has focus (typed text also redirects here from the panes).
    Composer,
    /// An approval is pending (before everything but overlays).
    Approval,
    /// The Chat pane has focus.
    Chat,
    /// The Trajectory pane has focus.
    Trajectory,
    /// The key-help overlay is open.
    HelpOverlay,
    /// The request inspector overlay is open.
    InspectorOverlay,
    /// The `/resume` picker is open; typed characters go to its filter.
    ResumePicker,
    /// The `/diff` overlay is open.
    DiffOverlay,
    /// The rewind picker is open.
    RewindPicker,
    /// The Ctrl+T transcript is open.
    TranscriptOverlay,
    /// An MCP server's question is open: the form reads its keys itself and shows them on
    /// its own bottom line (`ui/overlays/elicit.rs`).
    ElicitOverlay,
}

/// What a key does.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Action {
    /// Approval: allow once.
    Allow,
    /// Approval: always allow.
    AlwaysAllow,
    /// Approval: deny.
    Deny,
    /// Approval (`n`): deny, first asking for an optional one-line reason.
    DenyWithReason,
    /// Second Ctrl+C within the window while idle: quit.
    Quit,
    /// Ctrl+C: cancel the turn, else clear the composer, else arm quit.
    Interrupt,
    /// Esc: close the slash popup, else cancel the turn, else focus the composer (and,
    /// on an empty composer, arm Esc Esc).
    Cancel,
    /// Esc Esc on an empty composer while idle: the rewind picker (SPEC §14.3).
    Rewind,
    /// Open the key help.
    Help,
    /// Switch the UI language.
    ToggleLocale,
    /// Move focus composer → Chat → Trajectory.
    FocusNext,
    /// Shift+Tab: the next sandbox mode (full-access asks first).
    CycleMode,
    /// Scroll the focused pane one page up.
    PageUp,
    /// Scroll the focused pane one page down.
    PageDown,
    /// Cycle the tool-card mode.
    CycleCards,
    /// Expand / collapse the latest tool change node.
    ToggleLastToolChange,
    /// Open (or close) the transcript: the whole Chat with every detail in full.
    Transcript,
    /// Composer: insert a newline.
    Newline,
    /// Composer, slash popup open: complete the highlighted command's name.
    CompleteCommand,
    /// Composer: send (or complete the slash popup's command).
    Send,
    /// Composer: caret up / previous history entry / popup selection up.
    HistoryPrev,
    /// Composer: caret down / next history entry / popup selection down.
    HistoryNext,
    /// Composer: type `/` (opens the slash popup on an empty composer).
    SlashCommands,
    /// Composer: type `@` (opens the workspace-file popup at a word start).
    MentionFiles,
    /// Composer: `?` on an empty composer opens the help, otherwise types it.
    HelpOrType,
    /// Composer: caret left.
    CursorLeft,
    /// Composer: caret right.
    CursorRight,
    /// Composer: line start (scrolls Chat to the top when empty).
    LineStart,
    /// Composer: line end (Chat follows the latest when empty).
    LineEnd,
    /// Composer: delete before the caret.
    Backspace,
    /// Composer: delete after the caret.
    Delete,
    /// Composer (Ctrl+A): start of the logical line; there, start of the draft.
    BeginningOfLine,
    /// Composer (Ctrl+E): end of the logical line; there, end of the draft.
    EndOfLine,
    /// Composer: to the start of the word before the caret.
    WordLeft,
    /// Composer: to the end of the word after the caret.
    WordRight,
    /// Composer (Ctrl+W): delete back to the previous blank.
    KillBlankWordBack,
    /// Composer (Alt+Backspace): delete back to the start of the word.
    KillWordBack,
    /// Composer (Ctrl+K): delete to the end of the line.
    KillToEnd,
    /// Composer (Ctrl+U): delete to the start of the line.
    KillToStart,
    /// Composer (Ctrl+Y): insert the last deleted text.
    Yank,
    /// Composer (Ctrl+D): delete after the caret; on an empty composer, quit.
    DeleteOrQuit,
    /// Composer: reverse search through the messages of all sessions.
    HistorySearch,
    /// Composer: edit the draft in `$VISUAL` / `$EDITOR`.
    ExternalEditor,
    /// Pane: select the previous row / node.
    SelectPrev,
    /// Pane: select the next row / node.
    SelectNext,
    /// Chat: expand / collapse the selected node.
    ToggleNode,
    /// Trajectory: inspect the selected request.
    Inspect,
    /// Pane or overlay: scroll to the top.
    ScrollTop,
    /// Pane or overlay: scroll to the bottom (panes follow the latest again).
    ScrollBottom,
    /// Overlay: scroll one row up.
    LineUp,
    /// Overlay: scroll one row down.
    LineDown,
    /// Close the open overlay.
    Close,
    /// Mouse: the wheel scrolls the pane under the pointer, a click toggles a Chat node.
    Mouse,
    /// Turn mouse capture off (native text selection) or back on.
    ToggleMouse,
}

impl Action {
    /// Whether this is one of the composer's readline keys (§14.5), which wait while an
    /// approval prompt hides the draft they would edit.
    pub fn is_readline(self) -> bool {
        use Action as A;
        matches!(
            self,
            A::BeginningOfLine
                | A::EndOfLine
                | A::WordLeft
                | A::WordRight
                | A::KillBlankWordBack
                | A::KillWordBack
                | A::KillToEnd
                | A::KillToStart
                | A::Yank
        )
    }
}

/// A key (or a non-key input) that triggers a binding.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Chord {
    /// A key with at least these modifiers (plain characters: without Ctrl/Alt).
    Key(KeyCode, KeyModifiers),
    /// The same key pressed twice within its window (Ctrl+C Ctrl+C, Esc Esc).
    Twice(KeyCode, KeyModifiers),
    /// Any key.
    AnyKey,
    /// The mouse wheel or a click (handled by `on_mouse`; listed for the help).
    Mouse,
}

impl Chord {
    /// Whether `k` presses this chord (`Twice` matches its key; the caller checks the window).
    pub fn matches(&self, k: &KeyEvent) -> bool {
        let (code, mods) = match *self {
            Chord::Key(c, m) | Chord::Twice(c, m) => (c, m),
            Chord::AnyKey => return true,
            Chord::Mouse => return false,
        };
        if k.code != code || !k.modifiers.contains(mods) {
            return false;
        }
        // A plain character binding is not a Ctrl/Alt chord (Shift is part of the character).
        !(matches!(code, KeyCode::Char(_))
            && !mods.intersects(KeyModifiers::CONTROL | KeyModifiers::ALT)
            && k.modifiers
                .intersects(KeyModifiers::CONTROL | KeyModifiers::ALT))
    }

    /// A key event that presses this chord (tests; `None` for the mouse).
    pub fn example(&self) -> Option<KeyEvent> {
        match *self {
            Chord::Key(c, m) | Chord::Twice(c, m) => Some(KeyEvent::new(c, m)),
            Chord::AnyKey => Some(KeyEvent::new(KeyCode::Char('x'), KeyModifiers::NONE)),
            Chord::Mouse => None,
        }
    }

    /// The key's name as shown in the help: a literal name, or a Fluent id (`tui-key-…`)
    /// for names that are words (see [`label_text`]).
    pub fn name(&self) -> String {
        match *self {
            Chord::Key(c, m) => key_name(c, m),
            Chord::Twice(c, m) => {
                let n = key_name(c, m);
                format!("{n} {n}")
            }
            Chord::AnyKey => "tui-key-any".into(),
            Chord::Mouse => "tui-key-mouse".into(),
        }
    }
}

fn key_name(code: KeyCode, mods: KeyModifiers) -> String {
    let mut s = String::new();
    if mods.contains(KeyModifiers::CONTROL) {
        s.push_str("Ctrl+");
    }
    if mods.contains(KeyModifiers::ALT) {
        s.push_str("Alt+");
    }
    if mods.contains(KeyModifiers::SHIFT) {
        s.push_str("Shift+");
    }
    match code {
        KeyCode::Up => s.push('↑'),
        KeyCode::Down => s.push('↓'),
        KeyCode::Left => s.push('←'),
        KeyCode::Right => s.push('→'),
        KeyCode::PageUp => s.push_str("PgUp"),
        KeyCode::PageDown => s.push_str("PgDn"),
        KeyCode::Home => s.push_str("Home"),
        KeyCode::End => s.push_str("End"),
        KeyCode::Enter => s.push_str("Enter"),
        KeyCode::Esc => s.push_str("Esc"),
        KeyCode::Tab => s.push_str("Tab"),
        KeyCode::BackTab => s.push_str("Shift+Tab"),
        KeyCode::Backspace => s.push_str("Backspace"),
        KeyCode::Delete => s.push_str("Del"),
        KeyCode::F(n) => s.push_str(&format!("F{n}")),
        KeyCode::Char(' ') => s.push_str("Space"),
        KeyCode::Char(c) if mods.intersects(KeyModifiers::CONTROL | KeyModifiers::ALT) => {
            s.push(c.to_ascii_uppercase())
        }
        KeyCode::Char(c) => s.push(c),
        other => s.push_str(&format!("{other:?}")),
    }
    s
}

/// A help label as shown: words (`tui-key-…` ids) are localized, key names are not.
pub fn label_text(l: Localizer, label: &str) -> String {
    label
        .split(" / ")
        .map(|part| {
            if part.starts_with("tui-key-") {
                l.tr(part)
            } else {
                part.to_string()
            }
        })
        .collect::<Vec<_>>()
        .join(" / ")
}

/// One row of the table.
#[derive(Debug, Clone, Copy)]
pub struct Binding {
    /// What the keys do.
    pub action: Action,
    /// The default keys (any of them).
    pub keys: &'static [Chord],
    /// Fluent id of the help text.
    pub help: &'static str,
    /// Where the binding applies.
    pub context: Context,
}

const NONE: KeyModifiers = KeyModifiers::NONE;
const CTRL: KeyModifiers = KeyModifiers::CONTROL;
const ALT: KeyModifiers = KeyModifiers::ALT;

const fn key(c: KeyCode) -> Chord {
    Chord::Key(c, NONE)
}

const fn ch(c: char) -> Chord {
    Chord::Key(KeyCode::Char(c), NONE)
}

const fn ctl(c: char) -> Chord {
    Chord::Key(KeyCode::Char(c), CTRL)
}

const fn alt(c: char) -> Chord {
    Chord::Key(KeyCode::Char(c), ALT)
}

const fn b(
    context: Context,
    action: Action,
    keys: &'static [Chord],
    help: &'static str,
) -> Binding {
    Binding {
        action,
        keys,
        help,
        context,
    }
}

use Action as A;
use Context as C;

/// The table. Within a context the most specific matching chord wins (Shift+Enter makes a
/// newline although Enter sends); the help lists help texts in order of first appearance.
#[rustfmt::skip]
pub const BINDINGS: &[Binding] = &[
    b(C::Composer, A::Send, &[key(KeyCode::Enter)], "tui-help-send"),
    b(C::Composer, A::Newline, &[
        Chord::Key(KeyCode::Enter, KeyModifiers::SHIFT),
        ctl('j'),
        Chord::Key(KeyCode::Enter, KeyModifiers::ALT),
    ], "tui-help-newline"),
    b(C::Composer, A::HistoryPrev, &[key(KeyCode::Up)], "tui-help-history"),
    b(C::Composer, A::HistoryNext, &[key(KeyCode::Down)], "tui-help-history"),
    b(C::Composer, A::SlashCommands, &[ch('/')], "tui-help-commands"),
    b(C::Composer, A::MentionFiles, &[ch('@')], "tui-help-mention"),
    b(C::Composer, A::CompleteCommand, &[key(KeyCode::Tab)], "tui-help-complete"),
    b(C::Composer, A::CursorLeft, &[key(KeyCode::Left)], "tui-help-edit"),
    b(C::Composer, A::CursorRight, &[key(KeyCode::Right)], "tui-help-edit"),
    b(C::Composer, A::LineStart, &[key(KeyCode::Home)], "tui-help-edit"),
    b(C::Composer, A::LineEnd, &[key(KeyCode::End)], "tui-help-edit"),
    b(C::Composer, A::Backspace, &[key(KeyCode::Backspace)], "tui-help-edit"),
    b(C::Composer, A::Delete, &[key(KeyCode::Delete)], "tui-help-edit"),
    // The readline keys (§14.5). Ctrl+U deletes to the line start, as in
    // readline; Ctrl+C clears the whole draft (↑ brings it back).
    b(C::Composer, A::BeginningOfLine, &[ctl('a')], "tui-help-line"),
    b(C::Composer, A::EndOfLine, &[ctl('e')], "tui-help-line"),
    b(C::Composer, A::WordLeft, &[alt('b'), Chord::Key(KeyCode::Left, CTRL)], "tui-help-word"),
    b(C::Composer, A::WordRight, &[alt('f'), Chord::Key(KeyCode::Right, CTRL)], "tui-help-word"),
    b(C::Composer, A::KillBlankWordBack, &[ctl('w')], "tui-help-kill-word"),
    b(C::Composer, A::KillWordBack, &[Chord::Key(KeyCode::Backspace, ALT)], "tui-help-kill-word"),
    b(C::Composer, A::KillToEnd, &[ctl('k')], "tui-help-kill"),
    b(C::Composer, A::KillToStart, &[ctl('u')], "tui-help-kill"),
    b(C::Composer, A::Yank, &[ctl('y')], "tui-help-yank"),
    b(C::Composer, A::DeleteOrQuit, &[ctl('d')], "tui-help-eof"),
    b(C::Composer, A::HistorySearch, &[ctl('r')], "tui-help-history-search"),
    b(C::Composer, A::ExternalEditor, &[ctl('g')], "tui-help-external-editor"),
    b(C::Global, A::FocusNext, &[key(KeyCode::Tab)], "tui-help-focus"),
    b(C::Global, A::CycleMode, &[key(KeyCode::BackTab)], "tui-help-mode"),
    b(C::Chat, A::SelectPrev, &[key(KeyCode::Up)], "tui-help-select"),
    b(C::Chat, A::SelectNext, &[key(KeyCode::Down)], "tui-help-select"),
    b(C::Chat, A::ToggleNode, &[key(KeyCode::Enter), ch(' ')], "tui-help-select"),
    b(C::Trajectory, A::SelectPrev, &[key(KeyCode::Up)], "tui-help-traj-select"),
    b(C::Trajectory, A::SelectNext, &[key(KeyCode::Down)], "tui-help-traj-select"),
    b(C::Trajectory, A::Inspect, &[key(KeyCode::Enter)], "tui-help-inspect"),
    b(C::Global, A::PageUp, &[key(KeyCode::PageUp)], "tui-help-scroll"),
    b(C::Global, A::PageDown, &[key(KeyCode::PageDown)], "tui-help-scroll"),
    b(C::Chat, A::ScrollTop, &[key(KeyCode::Home)], "tui-help-scroll"),
    b(C::Chat, A::ScrollBottom, &[key(KeyCode::End)], "tui-help-scroll"),
    b(C::Trajectory, A::ScrollTop, &[key(KeyCode::Home)], "tui-help-scroll"),
    b(C::Trajectory, A::ScrollBottom, &[key(KeyCode::End)], "tui-help-scroll"),
    b(C::Global, A::Mouse, &[Chord::Mouse], "tui-help-mouse"),
    b(C::Global, A::ToggleMouse, &[key(KeyCode::F(3))], "tui-help-mouse-toggle"),
    b(C::Global, A::CycleCards, &[ctl('o')], "tui-help-cards"),
    b(C::Global, A::Transcript, &[ctl('t')], "tui-help-transcript"),
    b(C::Global, A::ToggleLastToolChange, &[alt('t')], "tui-help-toggle-tools"),
    b(C::Global, A::Cancel, &[key(KeyCode::Esc)], "tui-help-cancel"),
    b(C::Global, A::Rewind, &[Chord::Twice(KeyCode::Esc, NONE)], "tui-help-rewind"),
    b(C::Global, A::Interrupt, &[ctl('c')], "tui-help-cancel"),
    b(C::Global, A::Quit, &[Chord::Twice(KeyCode::Char('c'), CTRL)], "tui-help-quit"),
    b(C::Approval, A::Allow, &[ch('y')], "tui-help-approve"),
    b(C::Approval, A::AlwaysAllow, &[ch('a')], "tui-help-approve"),
    b(C::Approval, A::DenyWithReason, &[ch('n')], "tui-help-approve"),
    b(C::Approval, A::Deny, &[key(KeyCode::Esc), ctl('c')], "tui-help-approve"),
    b(C::InspectorOverlay, A::LineUp, &[key(KeyCode::Up)], "tui-help-inspector-scroll"),
    b(C::InspectorOverlay, A::LineDown, &[key(KeyCode::Down)], "tui-help-inspector-scroll"),
    b(C::InspectorOverlay, A::PageUp, &[key(KeyCode::PageUp)], "tui-help-inspector-scroll"),
    b(C::InspectorOverlay, A::PageDown, &[key(KeyCode::PageDown)], "tui-help-inspector-scroll"),
    b(C::InspectorOverlay, A::ScrollTop, &[key(KeyCode::Home)], "tui-help-inspector-scroll"),
    b(C::InspectorOverlay, A::ScrollBottom, &[key(KeyCode::End)], "tui-help-inspector-scroll"),
    b(C::InspectorOverlay, A::Inspect, &[key(KeyCode::Enter)], "tui-help-inspector-full"),
    b(C::InspectorOverlay, A::Close, &[key(KeyCode::Esc), ch('q')], "tui-help-inspector-close"),
    b(C::Global, A::ToggleLocale, &[key(KeyCode::F(2))], "tui-help-lang"),
    b(C::Global, A::Help, &[key(KeyCode::F(1))], "tui-help-help"),
    b(C::Composer, A::HelpOrType, &[ch('?')], "tui-help-help"),
    b(C::HelpOverlay, A::LineUp, &[key(KeyCode::Up)], "tui-help-help-scroll"),
    b(C::HelpOverlay, A::LineDown, &[key(KeyCode::Down)], "tui-help-help-scroll"),
    b(C::HelpOverlay, A::PageUp, &[key(KeyCode::PageUp)], "tui-help-help-scroll"),
    b(C::HelpOverlay, A::PageDown, &[key(KeyCode::PageDown)], "tui-help-help-scroll"),
    b(C::HelpOverlay, A::ScrollTop, &[key(KeyCode::Home)], "tui-help-help-scroll"),
    b(C::HelpOverlay, A::ScrollBottom, &[key(KeyCode::End)], "tui-help-help-scroll"),
    b(C::HelpOverlay, A::Close, &[Chord::AnyKey], "tui-help-close"),
    // the /resume picker
    b(C::ResumePicker, A::SelectPrev, &[key(KeyCode::Up)], "tui-help-resume-move"),
    b(C::ResumePicker, A::SelectNext, &[key(KeyCode::Down)], "tui-help-resume-move"),
    b(C::ResumePicker, A::PageUp, &[key(KeyCode::PageUp)], "tui-help-resume-move"),
    b(C::ResumePicker, A::PageDown, &[key(KeyCode::PageDown)], "tui-help-resume-move"),
    b(C::ResumePicker, A::Backspace, &[key(KeyCode::Backspace)], "tui-help-resume-move"),
    b(C::ResumePicker, A::Send, &[key(KeyCode::Enter)], "tui-help-resume-open"),
    b(C::ResumePicker, A::Close, &[key(KeyCode::Esc)], "tui-help-resume-open"),
    // the /diff overlay and the rewind picker (SPEC §14.3)
    b(C::DiffOverlay, A::LineUp, &[key(KeyCode::Up)], "tui-help-diff"),
    b(C::DiffOverlay, A::LineDown, &[key(KeyCode::Down)], "tui-help-diff"),
    b(C::DiffOverlay, A::PageUp, &[key(KeyCode::PageUp)], "tui-help-diff"),
    b(C::DiffOverlay, A::PageDown, &[key(KeyCode::PageDown)], "tui-help-diff"),
    b(C::DiffOverlay, A::ScrollTop, &[key(KeyCode::Home)], "tui-help-diff"),
    b(C::DiffOverlay, A::ScrollBottom, &[key(KeyCode::End)], "tui-help-diff"),
    b(C::DiffOverlay, A::Close, &[key(KeyCode::Esc), ch('q')], "tui-help-diff"),
    b(C::RewindPicker, A::SelectPrev, &[key(KeyCode::Up)], "tui-help-rewind-picker"),
    b(C::RewindPicker, A::SelectNext, &[key(KeyCode::Down)], "tui-help-rewind-picker"),
    b(C::RewindPicker, A::Send, &[key(KeyCode::Enter)], "tui-help-rewind-picker"),
    b(C::RewindPicker, A::Close, &[key(KeyCode::Esc)], "tui-help-rewind-picker"),
    // the Ctrl+T transcript (SPEC §14.4)
    b(C::TranscriptOverlay, A::LineUp, &[key(KeyCode::Up)], "tui-help-transcript-keys"),
    b(C::TranscriptOverlay, A::LineDown, &[key(KeyCode::Down)], "tui-help-transcript-keys"),
    b(C::TranscriptOverlay, A::PageUp, &[key(KeyCode::PageUp)], "tui-help-transcript-keys"),
    b(C::TranscriptOverlay, A::PageDown, &[key(KeyCode::PageDown)], "tui-help-transcript-keys"),
    b(C::TranscriptOverlay, A::ScrollTop, &[key(KeyCode::Home)], "tui-help-transcript-keys"),
    b(C::TranscriptOverlay, A::ScrollBottom, &[key(KeyCode::End)], "tui-help-transcript-keys"),
    b(C::TranscriptOverlay, A::Close, &[key(KeyCode::Esc), ch('q')], "tui-help-transcript-keys"),
    b(C::TranscriptOverlay, A::Transcript, &[ctl('t')], "tui-help-transcript-close"),
];

/// The action `k` triggers in the first of `contexts` that binds it. `armed` says the
/// window of the key's `Twice` chord is open (the quit window for Ctrl+C, the rewind
/// window for Esc), so `Twice` chords match (they are tried before the single ones).
pub fn lookup(contexts: &[Context], k: &KeyEvent, armed: bool) -> Option<Action> {
    lookup_in(contexts, k, armed).map(|(_, a)| a)
}

/// Like [`lookup`], also naming the context that binds the key.
pub fn lookup_in(contexts: &[Context], k: &KeyEvent, armed: bool) -> Option<(Context, Action)> {
    contexts.iter().find_map(|&cx| {
        // Within a context the most specific chord wins (Shift+Enter over Enter); ties go to
        // the earlier binding. `Twice` chords count only inside the quit window, and first.
        let mut best: Option<(u32, Action)> = None;
        for bnd in BINDINGS.iter().filter(|b| b.context == cx) {
            for c in bnd.keys {
                let rank = match *c {
                    Chord::Twice(_, m) if armed => 100 + m.bits().count_ones(),
                    Chord::Twice(..) => continue,
                    Chord::Key(_, m) => 1 + m.bits().count_ones(),
                    Chord::AnyKey | Chord::Mouse => 0,
                };
                if c.matches(k) && best.is_none_or(|(r, _)| rank > r) {
                    best = Some((rank, bnd.action));
                }
            }
        }
        best.map(|(_, a)| (cx, a))
    })
}

/// The key-help rows (key names joined with ` / `, Fluent id of the text), generated from
/// [`BINDINGS`]: one row per help text, in order of first appearance. The help overlay's own
/// "any key closes" binding is its bottom line, not a row.
pub fn help_rows() -> &'static [(String, &'static str)] {
    static ROWS: OnceLock<Vec<(String, &'static str)>> = OnceLock::new();
    ROWS.get_or_init(|| {
        let mut rows: Vec<(Vec<String>, &'static str)> = Vec::new();
        for bnd in BINDINGS {
            if bnd.keys.iter().all(|c| *c == Chord::AnyKey) {
                continue;
            }
            let i = match rows.iter().position(|(_, h)| *h == bnd.help) {
                Some(i) => i,
                None => {
                    rows.push((Vec::new(), bnd.help));
                    rows.len() - 1
                }
            };
            for c in bnd.keys {
                let n = c.name();
                if !rows[i].0.contains(&n) {
                    rows[i].0.push(n);
                }
            }
        }
        let mut rows: Vec<(String, &'static str)> = rows
            .into_iter()
            .map(|(names, h)| (names.join(" / "), h))
            .collect();
        // The node symbols, explained under the key that toggles nodes.
        let at = rows
            .iter()
            .position(|(_, h)| *h == "tui-help-toggle-tools")
            .map_or(rows.len(), |i| i + 1);
        rows.insert(at, (NODE_LEGEND_KEYS.to_string(), "tui-help-node-legend"));
        rows
    })
}

/// The key column of the node-symbol legend row of the key help.
pub const NODE_LEGEND_KEYS: &str = "◆ ▸ ▾";

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn newline_keys_win_over_send_and_plain_chars_are_not_ctrl_chords() {
        let k = |c, m| KeyEvent::new(c, m);
        assert!(is_newline(&k(KeyCode::Enter, KeyModifiers::SHIFT)));
        assert!(is_newline(&k(KeyCode::Enter, KeyModifiers::ALT)));
        assert!(is_newline(&k(KeyCode::Char('j'), CTRL)));
        assert!(!is_newline(&k(KeyCode::Enter, NONE)));
        assert_eq!(
            lookup(&[Context::Approval], &k(KeyCode::Char('y'), CTRL), false),
            None
        );
        assert_eq!(
            lookup(
                &[Context::Composer],
                &k(KeyCode::Char('?'), KeyModifiers::SHIFT),
                false
            ),
            Some(Action::HelpOrType)
        );
    }

    #[test]
    fn ctrl_c_is_quit_only_inside_the_window() {
        let c = KeyEvent::new(KeyCode::Char('c'), CTRL);
        assert_eq!(
            lookup(&[Context::Global], &c, false),
            Some(Action::Interrupt)
        );
        assert_eq!(lookup(&[Context::Global], &c, true), Some(Action::Quit));
    }

    #[test]
    fn help_rows_name_every_key_of_every_binding() {
        let rows = help_rows();
        for bnd in BINDINGS {
            if bnd.keys.iter().all(|c| *c == Chord::AnyKey) {
                continue;
            }
            let row = rows
                .iter()
                .find(|(_, h)| *h == bnd.help)
                .unwrap_or_else(|| panic!("{:?} has no help row", bnd.action));
            for c in bnd.keys {
                assert!(
                    row.0.split(" / ").any(|n| n == c.name()),
                    "{:?} missing from {:?}",
                    c,
                    row
                );
            }
        }
        let row = |h: &str| rows.iter().find(|(_, x)| *x == h).map(|r| r.0.as_str());
        assert_eq!(row("tui-help-inspect"), Some("Enter"));
        assert_eq!(row("tui-help-line"), Some("Ctrl+A / Ctrl+E"));
        assert_eq!(
            row("tui-help-word"),
            Some("Alt+B / Ctrl+← / Alt+F / Ctrl+→")
        );
        assert_eq!(row("tui-help-kill-word"), Some("Ctrl+W / Alt+Backspace"));
        assert_eq!(row("tui-help-kill"), Some("Ctrl+K / Ctrl+U"));
        assert_eq!(row("tui-help-yank"), Some("Ctrl+Y"));
        assert_eq!(row("tui-help-eof"), Some("Ctrl+D"));
        assert_eq!(row("tui-help-mouse"), Some("tui-key-mouse"));
        assert_eq!(row("tui-help-quit"), Some("Ctrl+C Ctrl+C"));
        assert_eq!(
            row("tui-help-newline"),
            Some("Shift+Enter / Ctrl+J / Alt+Enter")
        );
    }
}
