//! Headless mode (`deepterm exec --script FILE`, SPEC §2): each non-empty line is one
//! composer submission, run to completion before the next.
//!
//! Nothing that came from outside reaches the terminal raw: notices, errors and command
//! output are escaped as the TUI escapes them ([`sanitize`]), the reply too when stdout is
//! a terminal (a piped reply stays byte-exact, for scripts), and `--json` escapes every
//! control character. See docs/decisions/0035-exec-output-is-escaped.md.

use std::io::IsTerminal;

use tokio::sync::mpsc;

use crate::agent::protocol::{AgentEvent, NoticeLevel};
use crate::agent::run::Agent;
use crate::i18n::{Arg, Localizer};
use crate::safe_text::{escape_json_controls, sanitize};

/// Splits a script into submissions: blank lines are skipped, a line starting with `"` is
/// a JSON string (for multi-line text). Errors name the line.
pub fn parse_script(text: &str, l: Localizer) -> Result<Vec<String>, String> {
    let mut out = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let line = line.trim_end_matches('\r');
        if line.trim().is_empty() {
            continue;
        }
        if line.starts_with('"') {
            match serde_json::from_str::<String>(line) {
                Ok(s) => out.push(s),
                Err(e) => {
                    return Err(l.tra(
                        "exec-bad-json-line",
                        &[
                            ("line", Arg::from(i + 1)),
                            ("error", Arg::from(e.to_string())),
                        ],
                    ));
                }
            }
        } else {
            out.push(line.to_string());
        }
    }
    Ok(out)
}

/// Decodes script bytes, with a clear error for non-UTF-8 input.
pub fn decode_script(bytes: Vec<u8>, l: Localizer) -> Result<String, String> {
    String::from_utf8(bytes).map_err(|e| {
        l.tra(
            "exec-not-utf8",
            &[("offset", Arg::from(e.utf8_error().valid_up_to()))],
        )
    })
}

/// What `exec` prints on stdout.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum ExecOutput {
    /// Final assistant texts and command output; notices go to stderr.
    #[default]
    Plain,
    /// `--json`: every [`AgentEvent`] as one JSON object per line, in the protocol's serde
    /// form (stream deltas included). Output and notice lines also carry `text`, rendered
    /// in the current locale.
    Json,
}

/// Runs the submissions; prints final assistant texts and command output to stdout and
/// notices to stderr. Returns the first failure as one localized line.
///
/// Events are handled as they arrive, while the line runs: a long reply's stream deltas
/// are dropped one by one instead of piling up in the channel until the turn ends, and
/// notices (retries, tool warnings) show up when they happen.
pub async fn run_script(
    agent: &mut Agent,
    lines: Vec<String>,
    events: &mut mpsc::UnboundedReceiver<AgentEvent>,
) -> Result<(), String> {
    run_script_as(agent, lines, events, ExecOutput::Plain).await
}

/// [`run_script`] with a choice of output (`exec --json`).
pub async fn run_script_as(
    agent: &mut Agent,
    lines: Vec<String>,
    events: &mut mpsc::UnboundedReceiver<AgentEvent>,
    output: ExecOutput,
) -> Result<(), String> {
    let mut l = agent.localizer();
    drain(events, &mut l, output);
    for line in lines {
        let is_command = line.trim_start().starts_with('/');
        let out = {
            let run = agent.handle_line(&line);
            tokio::pin!(run);
            let mut open = true;
            loop {
                tokio::select! {
                    biased;
                    ev = events.recv(), if open => match ev {
                        Some(ev) => print_event(ev, &mut l, output),
                        None => open = false,
                    },
                    out = &mut run => break out,
                }
            }
        };
        l = agent.localizer();
        drain(events, &mut l, output);
        if let Some(text) = &out.text
            && !text.is_empty()
            && output == ExecOutput::Plain
        {
            if std::io::stdout().is_terminal() {
                println!("{}", sanitize(text));
            } else {
                println!("{text}");
            }
        }
        if !is_command && let Some(err) = out.error {
            return Err(sanitize(&err));
        }
        if out.quit {
            break;
        }
    }
    Ok(())
}

/// Handles every event already queued.
fn drain(events: &mut mpsc::UnboundedReceiver<AgentEvent>, l: &mut Localizer, output: ExecOutput) {
    while let Ok(ev) = events.try_recv() {
        print_event(ev, l, output);
    }
}

/// Prints what `exec` shows of one event.
fn print_event(ev: AgentEvent, l: &mut Localizer, output: ExecOutput) {
    match output {
        ExecOutput::Plain => print_plain(ev, l),
        ExecOutput::Json => {
            if let AgentEvent::LocaleChanged(locale) = &ev {
                *l = Localizer::new(*locale);
            }
            match json_line(&ev, *l) {
                Ok(line) => println!("{}", escape_json_controls(&line)),
                Err(e) => tracing::warn!("exec --json: an event could not be serialized: {e}"),
            }
        }
    }
}

/// One event as one line of JSON (`exec --json`): the protocol's serde form, plus a
/// `text` rendered with `l` on every output line and notice.
pub fn json_line(ev: &AgentEvent, l: Localizer) -> Result<String, serde_json::Error> {
    let mut v = serde_json::to_value(ev)?;
    match ev {
        AgentEvent::Output(lines) => {
            if let Some(items) = v.get_mut("data").and_then(|d| d.as_array_mut()) {
                for (item, line) in items.iter_mut().zip(lines) {
                    if let Some(o) = item.as_object_mut() {
                        o.insert("text".into(), l.text(line).into());
                    }
                }
            }
        }
        AgentEvent::Notice(n) => {
            if let Some(o) = v.get_mut("data").and_then(|d| d.as_object_mut()) {
                o.insert("text".into(), l.tra_owned(&n.key, &n.args).into());
            }
        }
        _ => {}
    }
    serde_json::to_string(&v)
}

/// Prints what plain `exec` shows of one event; everything else (stream deltas,
/// committed events) is dropped here.
fn print_plain(ev: AgentEvent, l: &mut Localizer) {
    match ev {
        AgentEvent::Output(lines) => {
            for line in lines {
                println!("{}", sanitize(&l.text(&line)));
            }
        }
        AgentEvent::Inspector(d) => {
            for line in crate::agent::inspect::render_text(&d, *l) {
                println!("{}", sanitize(&line));
            }
        }
        AgentEvent::Notice(n) if n.level != NoticeLevel::Error => {
            let line = sanitize(&l.tra_owned(&n.key, &n.args));
            if std::io::stderr().is_terminal() {
                eprintln!("{}", linked(line, &n.args));
            } else {
                eprintln!("{line}");
            }
        }
        // A tool hook's run is no notice (the TUI shows it in the call's card): `exec`
        // says it from the logged event.
        AgentEvent::Committed(e) => {
            if let crate::session::event::EventKind::HookRun(h) = &e.kind
                && h.tool_call_id.is_some()
            {
                let n = crate::agent::hooks::notice::run_notice(h);
                eprintln!("{}", sanitize(&l.tra_owned(&n.key, &n.args)));
            }
        }
        AgentEvent::Retrying(r) => eprintln!(
            "{}",
            l.tra(
                "tui-status-reconnecting",
                &[
                    ("attempt", crate::i18n::Arg::from(r.attempt)),
                    ("max", crate::i18n::Arg::from(r.max)),
                    ("cause", crate::i18n::Arg::from(l.tr(r.cause.key()))),
                    (
                        "seconds",
                        crate::i18n::Arg::from(format!("{:.1}", r.seconds))
                    ),
                ],
            )
        ),
        // The model's plan, each time it changes (SPEC §15.3).
        AgentEvent::PlanUpdated(plan) => {
            for line in crate::agent::plan::plain_lines(&plan, *l) {
                println!("{}", sanitize(&line));
            }
        }
        AgentEvent::LocaleChanged(locale) => *l = Localizer::new(locale),
        // `exec` has no screen: `/clear` is a no-op, and says so (a notice, on stderr).
        AgentEvent::ClearScreen => eprintln!("{}", l.tr("cmd-clear-no-screen")),
        _ => {}
    }
}

/// `line` with the notice's `url` argument made an OSC 8 hyperlink (SPEC §15.2: the
/// authorization URL of `/mcp login`), for a terminal. Only a plain http(s) URL of
/// printable ASCII is wrapped, so the sequence cannot be broken out of.
fn linked(line: String, args: &[(String, Arg)]) -> String {
    let url = args.iter().find_map(|(k, v)| match v {
        Arg::Str(u) if k == "url" => Some(u.as_str()),
        _ => None,
    });
    match url {
        Some(u)
            if (u.starts_with("https://") || u.starts_with("http://"))
                && u.bytes().all(|b| b.is_ascii_graphic()) =>
        {
            line.replacen(u, &format!("\x1b]8;;{u}\x1b\\{u}\x1b]8;;\x1b\\"), 1)
        }
        _ => line,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_notice_url_becomes_a_terminal_hyperlink_and_nothing_else_does() {
        let url = "http://127.0.0.1:5/auth/authorize?state=x";
        let args = vec![("url".to_string(), Arg::from(url))];
        let line = format!("open: {url}");
        assert_eq!(
            linked(line, &args),
            format!("open: \x1b]8;;{url}\x1b\\{url}\x1b]8;;\x1b\\")
        );
        // A URL that could end the sequence early stays text.
        let evil = "http://a.example/\x07x";
        let args = vec![("url".to_string(), Arg::from(evil))];
        let line = format!("open: {evil}");
        assert_eq!(linked(line.clone(), &args), line);
    }
}
