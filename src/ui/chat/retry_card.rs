//! The card of a `shell` call the sandbox seemed to refuse (SPEC §15.5): the command, the
//! sandboxed attempt's status and output, then what happened — run again outside the
//! sandbox (with that run's status and output) or denied (with the user's reason). It is
//! drawn from the logged result alone, so it reads the same live and after `--resume`
//! (decision 0115); it never says "not run" of a command that ran.

use ratatui::text::{Line, Span};

use crate::i18n::{Arg, Localizer};
use crate::session::retry_event::{RetryAnswer, SandboxRetry};
use crate::ui::text::{sanitize, wrap_prefixed};
use crate::ui::theme;

/// Output lines of each run shown before the card is expanded.
const RETRY_PREVIEW_LINES: usize = 4;

/// The command of a `shell` call's arguments, as the card shows it.
fn command_of(arguments: &str) -> String {
    let args: serde_json::Value = serde_json::from_str(arguments).unwrap_or_default();
    match args.get("command") {
        Some(serde_json::Value::String(s)) => s.clone(),
        Some(serde_json::Value::Array(a)) => a
            .iter()
            .map(|v| v.as_str().unwrap_or_default())
            .collect::<Vec<_>>()
            .join(" "),
        _ => String::new(),
    }
}

/// One run's output rows under the gutter (a preview unless `expanded`).
fn output_rows(output: &str, expanded: bool, l: Localizer, width: usize) -> Vec<Line<'static>> {
    let rows: Vec<String> = output.lines().map(sanitize).collect();
    let rows: Vec<&str> = rows.iter().map(String::as_str).collect();
    // Collapsed, its last lines: a failure's error is usually last.
    let skipped = if expanded {
        0
    } else {
        rows.len().saturating_sub(RETRY_PREVIEW_LINES)
    };
    let mut out = Vec::new();
    if skipped > 0 {
        out.push(Line::from(Span::styled(
            format!(
                "  {}",
                l.tra("tui-more-lines", &[("count", Arg::from(skipped))])
            ),
            theme::dim(),
        )));
    }
    let tail = &rows[skipped..];
    out.extend(super::acting_card::gutter_rows(
        tail,
        tail.len(),
        |_| theme::dim(),
        "tui-more-lines",
        l,
        width,
    ));
    out
}

/// A fact of the card on its own indented, wrapped rows.
fn said(text: String, style: ratatui::style::Style, width: usize) -> Vec<Line<'static>> {
    let indent = [Span::raw("  ")];
    wrap_prefixed(
        &Line::from(Span::styled(text, style)),
        width,
        &indent,
        &indent,
    )
}

/// The card's rows. `result` is the logged result: the re-run's (with the model's note
/// after [`crate::agent::tool_runner::RERUN_NOTE`]) or the denial's.
pub fn retry_card(
    arguments: &str,
    retry: &SandboxRetry,
    result: Option<&str>,
    error: bool,
    expanded: bool,
    l: Localizer,
    width: usize,
) -> Vec<Line<'static>> {
    let mut out = Vec::new();
    let dollar = [Span::styled("$ ", theme::accent())];
    for row in sanitize(&command_of(arguments)).split('\n') {
        out.extend(wrap_prefixed(
            &Line::from(Span::styled(row.to_string(), theme::bold())),
            width,
            &dollar,
            &[Span::raw("  ")],
        ));
    }
    out.extend(said(
        l.tra(
            "tui-retry-sandboxed-failed",
            &[("status", Arg::from(sanitize(&retry.attempt.status)))],
        ),
        theme::error(),
        width,
    ));
    out.extend(output_rows(&retry.attempt.output, expanded, l, width));
    match &retry.answer {
        RetryAnswer::Denied { reason } => {
            let text = match reason {
                Some(r) => l.tra(
                    "tui-retry-denied-reason",
                    &[("reason", Arg::from(sanitize(r)))],
                ),
                None => l.tr("tui-retry-denied"),
            };
            out.extend(said(text, theme::error(), width));
        }
        RetryAnswer::RanUnsandboxed => {
            out.extend(said(l.tr("tui-retry-ran-again"), theme::warn(), width));
            let result = result.unwrap_or_default();
            let result = result
                .split(crate::agent::tool_runner::RERUN_NOTE)
                .next()
                .unwrap_or_default();
            let mut lines = result.lines();
            let status = lines.next().unwrap_or_default().to_string();
            let duration = lines
                .next()
                .and_then(|d| d.strip_prefix("duration: "))
                .unwrap_or_default()
                .to_string();
            let rest: Vec<&str> = lines.collect();
            let output = match rest.first() {
                Some(&"output:") => rest[1..].join("\n"),
                _ => rest.join("\n"),
            };
            let ok = !error && status == "exit status 0";
            let mut row = vec![Span::styled(
                format!("  {}", sanitize(&status)),
                if ok { theme::success() } else { theme::error() },
            )];
            if !duration.is_empty() {
                row.push(Span::styled(
                    format!(" · {}", sanitize(&duration)),
                    theme::dim(),
                ));
            }
            out.push(Line::from(row));
            out.extend(output_rows(&output, expanded, l, width));
        }
    }
    out
}
