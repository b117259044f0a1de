//! How Chat shows the acting tools (SPEC §14.1): an approval card's preview (an edit's
//! coloured diff before it is applied; a command with its directory and whether it runs
//! sandboxed), and the diff lines shared with the `Edited` card.

use ratatui::style::Style;
use ratatui::text::{Line, Span};

use crate::agent::protocol::{ApprovalPreview, FileChange};
use crate::i18n::{Arg, Localizer};
use crate::ui::text::{sanitize, wrap_prefixed};
use crate::ui::theme;

/// Diff lines shown on an approval card per file before the rest is counted.
pub const PREVIEW_DIFF_LINES: usize = 40;

/// Output lines of a sandboxed attempt shown with the question to run it outside.
const ATTEMPT_PREVIEW_LINES: usize = 12;

/// `p` with every text it carries sanitized (it came from the model's arguments and the
/// file system).
pub fn sanitized(p: ApprovalPreview) -> ApprovalPreview {
    match p {
        ApprovalPreview::Edit { files } => ApprovalPreview::Edit {
            files: files
                .into_iter()
                .map(|f| FileChange {
                    path: sanitize(&f.path),
                    diff: sanitize(&f.diff),
                    ..f
                })
                .collect(),
        },
        ApprovalPreview::Shell {
            command,
            workdir,
            sandboxed,
            justification,
            always_prefix,
            attempt,
        } => ApprovalPreview::Shell {
            command: sanitize(&command),
            workdir: sanitize(&workdir),
            sandboxed,
            justification: justification.map(|j| sanitize(&j)),
            always_prefix: always_prefix.map(|p| sanitize(&p)),
            attempt: attempt.map(|a| crate::session::retry_event::SandboxAttempt {
                status: sanitize(&a.status),
                output: sanitize(&a.output),
            }),
        },
    }
}

/// The rows of a preview at `width`.
pub fn preview_lines(p: &ApprovalPreview, l: Localizer, width: usize) -> Vec<Line<'static>> {
    let indent = [Span::raw("  ")];
    let mut out = Vec::new();
    match p {
        ApprovalPreview::Edit { files } => {
            for f in files {
                out.extend(wrap_prefixed(
                    &Line::from(vec![
                        Span::styled(f.path.clone(), theme::bold()),
                        Span::raw("  "),
                        Span::styled(format!("+{}", f.added), theme::success()),
                        Span::raw(" "),
                        Span::styled(format!("−{}", f.removed), theme::error()),
                    ]),
                    width,
                    &indent,
                    &indent,
                ));
                out.extend(diff_lines(&f.diff, width, Some(PREVIEW_DIFF_LINES), l));
            }
        }
        ApprovalPreview::Shell {
            command,
            workdir,
            sandboxed,
            justification,
            attempt,
            ..
        } => {
            let dollar = [Span::styled("  $ ", theme::accent())];
            for row in command.split('\n') {
                out.extend(wrap_prefixed(
                    &Line::from(Span::styled(row.to_string(), theme::bold())),
                    width,
                    &dollar,
                    &indent,
                ));
            }
            let (key, style) = if *sandboxed {
                ("tui-shell-where-sandboxed", theme::success())
            } else {
                ("tui-shell-where-unsandboxed", theme::warn())
            };
            // The question to run it again outside the sandbox shows what the sandboxed
            // attempt did first (SPEC §15.5). What `a` does is said with the keys.
            if let Some(a) = attempt {
                out.extend(wrap_prefixed(
                    &Line::from(Span::styled(
                        l.tra(
                            "tui-retry-sandboxed-failed",
                            &[("status", Arg::from(a.status.clone()))],
                        ),
                        theme::error(),
                    )),
                    width,
                    &indent,
                    &indent,
                ));
                // Its last lines: the error that made the sandbox look guilty is last.
                let rows: Vec<&str> = a.output.lines().collect();
                let skipped = rows.len().saturating_sub(ATTEMPT_PREVIEW_LINES);
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
                out.extend(gutter_rows(
                    tail,
                    tail.len(),
                    |_| theme::dim(),
                    "tui-more-lines",
                    l,
                    width,
                ));
            }
            // One indented, wrapped line per fact the card states.
            let mut say = |key: &str, name: &str, value: &str, style| {
                out.extend(wrap_prefixed(
                    &Line::from(Span::styled(
                        l.tra(key, &[(name, Arg::from(value.to_string()))]),
                        style,
                    )),
                    width,
                    &indent,
                    &indent,
                ));
            };
            say(key, "dir", workdir, style);
            if let Some(j) = justification {
                say("tui-shell-justification", "why", j, theme::warn());
            }
        }
    }
    out
}

/// The style of one unified-diff line.
fn diff_style(line: &str) -> Style {
    if line.starts_with("+++") || line.starts_with("---") {
        theme::bold()
    } else if line.starts_with('+') {
        theme::success()
    } else if line.starts_with('-') {
        theme::error()
    } else if line.starts_with("@@") {
        theme::accent()
    } else {
        theme::dim()
    }
}

/// A unified diff as coloured rows under a gutter, wrapped (never cut) at `width`;
/// with `max`, at most that many diff lines and a row counting the rest.
pub fn diff_lines(
    diff: &str,
    width: usize,
    max: Option<usize>,
    l: Localizer,
) -> Vec<Line<'static>> {
    let lines: Vec<&str> = diff.lines().collect();
    let shown = max.unwrap_or(lines.len()).min(lines.len());
    gutter_rows(&lines, shown, diff_style, "tui-diff-more", l, width)
}

/// `rows[..shown]` under a dim `│` gutter, each wrapped (never cut) at `width` with the
/// style `style` gives it, then a row counting the rest with the Fluent id `more`.
pub(super) fn gutter_rows(
    rows: &[&str],
    shown: usize,
    style: impl Fn(&str) -> Style,
    more: &str,
    l: Localizer,
    width: usize,
) -> Vec<Line<'static>> {
    let gutter = [Span::styled("  │ ", theme::dim())];
    let mut out = Vec::new();
    for row in &rows[..shown] {
        out.extend(wrap_prefixed(
            &Line::from(Span::styled(row.to_string(), style(row))),
            width,
            &gutter,
            &gutter,
        ));
    }
    if shown < rows.len() {
        out.push(Line::from(Span::styled(
            format!(
                "  {}",
                l.tra(more, &[("count", Arg::from(rows.len() - shown))])
            ),
            theme::dim(),
        )));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::i18n::Locale;

    fn text(lines: &[Line<'static>]) -> Vec<String> {
        lines
            .iter()
            .map(|l| l.spans.iter().map(|s| s.content.as_ref()).collect())
            .collect()
    }

    #[test]
    fn an_edit_preview_shows_each_file_with_its_counts_and_a_coloured_diff() {
        let p = ApprovalPreview::Edit {
            files: vec![FileChange {
                path: "src/a.rs".into(),
                added: 1,
                removed: 1,
                diff: "--- a/src/a.rs\n+++ b/src/a.rs\n@@ -1 +1 @@\n-old\n+new\n".into(),
            }],
        };
        let lines = preview_lines(&p, Localizer::new(Locale::EnUs), 60);
        let t = text(&lines);
        assert_eq!(t[0], "  src/a.rs  +1 −1");
        assert!(t.contains(&"  │ -old".to_string()) && t.contains(&"  │ +new".to_string()));
        let minus = lines
            .iter()
            .find(|l| text(&[(*l).clone()])[0] == "  │ -old");
        assert_eq!(minus.unwrap().spans[1].style, theme::error());
        let plus = lines
            .iter()
            .find(|l| text(&[(*l).clone()])[0] == "  │ +new");
        assert_eq!(plus.unwrap().spans[1].style, theme::success());
    }

    #[test]
    fn a_long_diff_is_counted_after_its_first_lines_and_long_lines_wrap_uncut() {
        let diff: String = (0..100).map(|i| format!("+line {i}\n")).collect();
        let l = Localizer::new(Locale::EnUs);
        let t = text(&diff_lines(&diff, 40, Some(10), l));
        assert_eq!(t.len(), 11);
        assert!(t[10].contains("90"), "{t:?}");
        let long = format!("+{}", "x".repeat(100));
        let t = text(&diff_lines(&long, 40, None, l));
        assert!(t.len() >= 3, "{t:?}");
        let joined: String = t.iter().map(|r| r.trim_start_matches("  │ ")).collect();
        assert_eq!(joined, long);
    }

    #[test]
    fn a_shell_preview_says_where_it_runs_and_whether_it_is_sandboxed_in_both_languages() {
        for (locale, yes, no) in [
            (Locale::EnUs, "sandboxed", "NOT sandboxed"),
            (Locale::ZhCn, "在沙箱中", "不在沙箱中"),
        ] {
            let l = Localizer::new(locale);
            let mk = |sandboxed| ApprovalPreview::Shell {
                command: "cargo test".into(),
                workdir: "/w/proj".into(),
                sandboxed,
                justification: Some("needs the network".into()),
                always_prefix: Some("cargo test".into()),
                attempt: None,
            };
            let t = text(&preview_lines(&mk(true), l, 80)).join("\n");
            assert!(t.contains("$ cargo test") && t.contains("/w/proj"), "{t}");
            assert!(t.contains(yes) && !t.contains(no), "{t}");
            let t = text(&preview_lines(&mk(false), l, 80)).join("\n");
            assert!(t.contains(no), "{t}");
            assert!(t.contains("needs the network"), "{t}");
        }
    }

    #[test]
    fn the_question_to_run_outside_the_sandbox_shows_the_sandboxed_attempt_first() {
        for (locale, failed) in [
            (
                Locale::EnUs,
                "ran in the sandbox and failed · exit status 128",
            ),
            (Locale::ZhCn, "在沙箱中运行失败 · exit status 128"),
        ] {
            let output: String = (1..=20).map(|i| format!("line {i}\n")).collect();
            let p = ApprovalPreview::Shell {
                command: "git add -A".into(),
                workdir: "/w".into(),
                sandboxed: false,
                justification: None,
                always_prefix: None,
                attempt: Some(crate::session::retry_event::SandboxAttempt {
                    status: "exit status 128".into(),
                    output: format!("{output}fatal: .git/index.lock: Read-only file system"),
                }),
            };
            let t = text(&preview_lines(&p, Localizer::new(locale), 80)).join("\n");
            let at = t.find(failed).expect(&t);
            assert!(at > t.find("$ git add -A").unwrap(), "{t}");
            // Capped to its last lines, where the error is; the rest is counted.
            assert!(
                t.contains("│ fatal: .git/index.lock: Read-only file system"),
                "{t}"
            );
            assert!(t.contains("│ line 10") && !t.contains("│ line 9\n"), "{t}");
            assert!(t.contains('9'), "{t}");
        }
    }

    #[test]
    fn control_characters_in_a_preview_are_neutralised() {
        let p = sanitized(ApprovalPreview::Shell {
            command: "echo \u{1b}[2Jgone".into(),
            workdir: ".".into(),
            sandboxed: true,
            justification: None,
            always_prefix: None,
            attempt: None,
        });
        let ApprovalPreview::Shell { command, .. } = p else {
            unreachable!()
        };
        assert!(!command.contains('\u{1b}'));
    }
}

/// The card of a finished acting-tool call, or `None` for other tools (and for results
/// these cards do not recognise, which keep the generic card): an edit is
/// `▸ Edited PATH · +A −R` per file, expanding to the coloured diff; `shell` shows its
/// command, exit status and duration, then its output.
pub fn acting_card(
    name: &str,
    arguments: &str,
    result: Option<&str>,
    error: bool,
    expanded: bool,
    l: Localizer,
    width: usize,
) -> Option<Vec<Line<'static>>> {
    let result = result?;
    if crate::tools::edit::EDIT_TOOL_NAMES.contains(&name) && !error {
        return edited_card(result, expanded, l, width);
    }
    if name == "shell" {
        return shell_card(arguments, result, error, expanded, l, width);
    }
    None
}

fn edited_card(
    result: &str,
    expanded: bool,
    l: Localizer,
    width: usize,
) -> Option<Vec<Line<'static>>> {
    use crate::tools::edit::ChangeKind;
    let summary = crate::tools::edit::parse_result(result)?;
    let mut out = Vec::new();
    let marker = if expanded { "▾ " } else { "▸ " };
    for f in &summary.files {
        let key = match f.kind {
            ChangeKind::Add => "tui-edit-added",
            ChangeKind::Update => "tui-edit-edited",
            ChangeKind::Delete => "tui-edit-deleted",
            ChangeKind::Move => "tui-edit-moved",
        };
        let path = match &f.from {
            Some(from) => format!("{} → {}", sanitize(from), sanitize(&f.path)),
            None => sanitize(&f.path),
        };
        out.extend(wrap_prefixed(
            &Line::from(vec![
                Span::styled(
                    l.tra(key, &[("path", Arg::from(path))]),
                    theme::success().patch(theme::bold()),
                ),
                Span::styled(" · ", theme::dim()),
                Span::styled(format!("+{}", f.added), theme::success()),
                Span::raw(" "),
                Span::styled(format!("−{}", f.removed), theme::error()),
            ]),
            width,
            &[Span::styled(marker, theme::accent())],
            &[Span::raw("  ")],
        ));
        if expanded {
            out.extend(diff_lines(&sanitize(&f.diff), width, None, l));
        }
    }
    if expanded && summary.diff_cut {
        out.push(Line::from(Span::styled(
            format!("  {}", l.tr("tui-edit-diff-cut")),
            theme::dim(),
        )));
    }
    Some(out)
}

/// A `shell` result's status line (English and stable for the model, §5) in the
/// interface language; a line it does not recognise is shown as it is.
fn shell_status(status: &str, l: Localizer) -> String {
    if let Some(code) = status.strip_prefix("exit status ") {
        return l.tra("tui-shell-exit", &[("code", Arg::from(code))]);
    }
    if let Some(sig) = status.strip_prefix("killed by signal ") {
        return l.tra("tui-shell-signal", &[("signal", Arg::from(sig))]);
    }
    if let Some(ms) = status
        .strip_prefix("timed out after ")
        .and_then(|r| r.split_once(" ms"))
        .map(|(ms, _)| ms)
    {
        return l.tra("tui-shell-timed-out", &[("ms", Arg::from(ms))]);
    }
    status.to_string()
}

/// A `shell` result's duration (`0.217 s`) in the interface language.
fn shell_duration(duration: &str, l: Localizer) -> String {
    match duration.strip_suffix(" s") {
        Some(secs) if secs.parse::<f64>().is_ok() => {
            l.tra("tui-shell-duration", &[("secs", Arg::from(secs))])
        }
        _ => duration.to_string(),
    }
}

/// Lines of `shell` output shown before the card is expanded.
const SHELL_PREVIEW_LINES: usize = 6;

fn shell_card(
    arguments: &str,
    result: &str,
    error: bool,
    expanded: bool,
    l: Localizer,
    width: usize,
) -> Option<Vec<Line<'static>>> {
    let args: serde_json::Value = serde_json::from_str(arguments).ok()?;
    let command = match args.get("command")? {
        serde_json::Value::String(s) => s.clone(),
        serde_json::Value::Array(a) => a
            .iter()
            .map(|v| v.as_str().unwrap_or_default())
            .collect::<Vec<_>>()
            .join(" "),
        _ => return None,
    };
    let mut lines = result.lines();
    let status = lines.next()?.to_string();
    let duration = lines.next()?.strip_prefix("duration: ")?.to_string();
    let rest: Vec<&str> = lines.collect();
    let output: Vec<&str> = match rest.first() {
        Some(&"output:") => rest[1..].to_vec(),
        _ => rest,
    };
    let ok = !error && status == "exit status 0";
    let mut out = Vec::new();
    let dollar = [Span::styled("$ ", theme::accent())];
    for row in sanitize(&command).split('\n') {
        out.extend(wrap_prefixed(
            &Line::from(Span::styled(row.to_string(), theme::bold())),
            width,
            &dollar,
            &[Span::raw("  ")],
        ));
    }
    out.push(Line::from(vec![
        Span::styled(
            format!("  {}", shell_status(&sanitize(&status), l)),
            if ok { theme::success() } else { theme::error() },
        ),
        Span::styled(
            format!(" · {}", shell_duration(&sanitize(&duration), l)),
            theme::dim(),
        ),
    ]));
    let shown = if expanded {
        output.len()
    } else {
        SHELL_PREVIEW_LINES.min(output.len())
    };
    let output: Vec<String> = output.iter().map(|r| sanitize(r)).collect();
    let output: Vec<&str> = output.iter().map(String::as_str).collect();
    out.extend(gutter_rows(
        &output,
        shown,
        |_| theme::dim(),
        "tui-more-lines",
        l,
        width,
    ));
    Some(out)
}

#[cfg(test)]
mod card_tests {
    use super::*;
    use crate::i18n::Locale;

    fn text(lines: &[Line<'static>]) -> String {
        crate::ui::snapshot::lines_text(lines)
    }

    const EDIT: &str = "Changed 1 file:\nupdated src/a.rs (+1 -1)\n\ndiff --git a/src/a.rs b/src/a.rs\n--- a/src/a.rs\n+++ b/src/a.rs\n@@ -1 +1 @@\n-old\n+new\n";

    #[test]
    fn an_edit_is_a_collapsed_edited_card_that_expands_to_its_diff_in_both_languages() {
        for (locale, word) in [
            (Locale::EnUs, "Edited src/a.rs"),
            (Locale::ZhCn, "已编辑 src/a.rs"),
        ] {
            let l = Localizer::new(locale);
            let closed =
                text(&acting_card("edit_file", "{}", Some(EDIT), false, false, l, 80).unwrap());
            assert_eq!(closed, format!("▸ {word} · +1 −1"));
            let open =
                text(&acting_card("edit_file", "{}", Some(EDIT), false, true, l, 80).unwrap());
            assert!(open.starts_with(&format!("▾ {word}")), "{open}");
            assert!(open.contains("│ -old") && open.contains("│ +new"), "{open}");
        }
        // A failed edit keeps the generic card (its error text).
        let l = Localizer::new(Locale::EnUs);
        assert!(
            acting_card(
                "edit_file",
                "{}",
                Some("edit_file: 0 matches"),
                true,
                false,
                l,
                80
            )
            .is_none()
        );
    }

    #[test]
    fn a_shell_card_says_its_status_and_duration_in_the_interface_language() {
        let l = Localizer::new(Locale::ZhCn);
        for (status, want) in [
            ("exit status 0", "退出状态 0 · 0.217 秒"),
            ("killed by signal 9", "被信号 9 终止 · 0.217 秒"),
            (
                "timed out after 120000 ms; the command and every process it started were killed",
                "120000 毫秒后超时",
            ),
        ] {
            let result = format!("{status}\nduration: 0.217 s\noutput:\nok\n");
            let rows = acting_card(
                "shell",
                r#"{"command":"true"}"#,
                Some(&result),
                false,
                false,
                l,
                80,
            );
            let t = text(&rows.unwrap());
            assert!(t.contains(want), "{t}");
            assert!(!t.contains("exit status") && !t.contains(" s\n"), "{t}");
        }
    }

    #[test]
    fn a_shell_card_shows_the_command_exit_status_duration_and_output() {
        let l = Localizer::new(Locale::EnUs);
        let out: String = (1..=10).map(|i| format!("line {i}\n")).collect();
        let result = format!("exit status 2\nduration: 0.048 s\noutput:\n{out}");
        let rows = acting_card(
            "shell",
            r#"{"command":"make test"}"#,
            Some(&result),
            true,
            false,
            l,
            80,
        )
        .unwrap();
        let t = text(&rows);
        assert!(
            t.starts_with("$ make test\n  exit status 2 · 0.048 s"),
            "{t}"
        );
        assert!(t.contains("│ line 6") && !t.contains("│ line 7"), "{t}");
        assert!(t.contains("4 more lines"), "{t}");
        assert_eq!(rows[1].spans[0].style, theme::error());
        let all = text(
            &acting_card(
                "shell",
                r#"{"command":"make test"}"#,
                Some(&result),
                true,
                true,
                l,
                80,
            )
            .unwrap(),
        );
        assert!(all.contains("│ line 10"), "{all}");
    }
}
