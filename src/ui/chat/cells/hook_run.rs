//! A tool hook's run inside its call's tool card (SPEC §14.4, decision 0105): one line per
//! `hook/run`, the hook's event and command and how it ended: ok, blocked with its reason,
//! a warning, or timed out. Made from the logged event, live and on resume alike.

use ratatui::style::Style;
use ratatui::text::{Line, Span};

use crate::i18n::{Arg, Localizer};
use crate::session::hook_event::{HookRunData, HookRunSaid};
use crate::ui::text::{sanitize, truncate, wrap_prefixed};
use crate::ui::theme;

/// Columns of the hook's command shown at most.
const COMMAND_WIDTH: usize = 40;
/// Characters of a reason shown in a collapsed card (an expanded one shows all).
const REASON_CHARS: usize = 200;

/// The hook's command, short: its program's file name and its arguments.
fn short_command(command: &[String]) -> String {
    let mut argv = command.to_vec();
    if let Some(p) = argv.first_mut()
        && let Some(name) = std::path::Path::new(p.as_str()).file_name()
    {
        *p = name.to_string_lossy().into_owned();
    }
    truncate(&sanitize(&crate::agent::hooks::shown(&argv)), COMMAND_WIDTH)
}

/// A reason on one line (a collapsed card cuts it).
fn one_line(text: &str, full: bool) -> String {
    let flat = sanitize(&text.split_whitespace().collect::<Vec<_>>().join(" "));
    match flat.char_indices().nth(REASON_CHARS) {
        Some((i, _)) if !full => format!("{}…", &flat[..i]),
        _ => flat,
    }
}

/// The text and style of one run's line.
fn label(run: &HookRunData, l: Localizer, full: bool) -> (String, Style) {
    let mut args = vec![
        ("event", Arg::from(sanitize(&run.event))),
        ("command", Arg::from(short_command(&run.command))),
    ];
    let reason = |r: &str| match r.trim() {
        "" => Arg::from(l.tr("hook-no-reason")),
        r => Arg::from(one_line(r, full)),
    };
    let (key, style) = match run.said() {
        HookRunSaid::Ok { ms } => {
            args.push(("ms", Arg::from(ms)));
            ("tui-hook-ok", theme::dim())
        }
        // After the call, exit 2 told the model something; it blocked nothing.
        HookRunSaid::ToldModel { reason: r } => {
            args.push(("reason", reason(r)));
            ("tui-hook-feedback", theme::warn())
        }
        HookRunSaid::BlockedTool { reason: r }
        | HookRunSaid::BlockedPrompt { reason: r }
        | HookRunSaid::Said { reason: r } => {
            args.push(("reason", reason(r)));
            ("tui-hook-blocked", theme::error())
        }
        HookRunSaid::Warning { code } => {
            args.push(("code", Arg::from(i64::from(code))));
            ("tui-hook-warning", theme::warn())
        }
        HookRunSaid::Signal => ("tui-hook-signal", theme::warn()),
        HookRunSaid::TimedOut { secs } => {
            args.push(("secs", Arg::from(secs)));
            ("tui-hook-timed-out", theme::warn())
        }
        HookRunSaid::Cancelled => ("tui-hook-cancelled", theme::dim()),
        HookRunSaid::NotStarted { error } => {
            args.push(("error", Arg::from(one_line(error, full))));
            ("tui-hook-not-started", theme::warn())
        }
    };
    (l.tra(key, &args), style)
}

/// The card's hook lines, in the order the hooks ran, indented under the card.
pub fn hook_lines(
    runs: &[HookRunData],
    l: Localizer,
    width: usize,
    full: bool,
) -> Vec<Line<'static>> {
    let indent = [Span::raw("  ")];
    runs.iter()
        .flat_map(|run| {
            let (text, style) = label(run, l, full);
            wrap_prefixed(
                &Line::from(Span::styled(text, style)),
                width,
                &indent,
                &indent,
            )
        })
        .collect()
}
