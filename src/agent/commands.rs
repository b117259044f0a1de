//! Slash commands (SPEC §2): parsed here, run by the loop, identical in the TUI and `exec`.

use crate::agent::protocol::{AgentEvent, NoticeLevel};
use crate::agent::run::{Agent, LineOutcome};
use crate::i18n::{Arg, Locale, Localizer};

/// Every slash command with its Fluent description id, in `/help` order.
pub const COMMANDS: &[(&str, &str)] = &[
    ("/help", "cmd-help"),
    ("/model", "cmd-model"),
    ("/tools", "cmd-tools"),
    ("/tool", "cmd-tool"),
    ("/mcp", "cmd-mcp"),
    ("/system", "cmd-system"),
    ("/compact", "cmd-compact"),
    ("/lang", "cmd-lang"),
    ("/inspect", "cmd-inspect"),
    ("/new", "cmd-new"),
    ("/resume", "cmd-resume"),
    ("/quit", "cmd-quit"),
];

impl Agent {
    pub(crate) fn warn(&self, key: &str, args: Vec<(&str, Arg)>) -> LineOutcome {
        let a: Vec<(&str, Arg)> = args.clone();
        self.emit_notice(NoticeLevel::Warn, key, args);
        LineOutcome {
            error: Some(self.localizer().tra(key, &a)),
            ..LineOutcome::default()
        }
    }

    pub(crate) fn info(&self, key: &str, args: Vec<(&str, Arg)>) -> LineOutcome {
        self.emit_notice(NoticeLevel::Info, key, args);
        LineOutcome::default()
    }

    /// Runs one slash command line.
    pub async fn handle_command(&mut self, line: &str) -> LineOutcome {
        let (cmd, rest) = match line.split_once(char::is_whitespace) {
            Some((c, r)) => (c, r.trim()),
            None => (line, ""),
        };
        let l = self.localizer();
        match cmd {
            "/help" => {
                let mut out = vec![l.tr("cmd-help-title")];
                for (name, key) in COMMANDS {
                    out.push(format!("  {name:<10} {}", l.tr(key)));
                }
                self.emit_event(AgentEvent::Output(out));
                LineOutcome::default()
            }
            "/quit" | "/exit" => LineOutcome {
                quit: true,
                ..LineOutcome::default()
            },
            "/lang" => {
                let Some(loc) = Locale::parse(rest) else {
                    return self.warn("cmd-lang-usage", vec![]);
                };
                self.set_locale(Localizer::new(loc));
                self.emit_event(AgentEvent::LocaleChanged(loc));
                if let Err(e) = self.env().save_locale(loc) {
                    let e = e.localized(self.localizer());
                    return self.warn("cmd-lang-not-saved", vec![("error", Arg::from(e))]);
                }
                self.info("cmd-lang-switched", vec![("locale", Arg::from(loc.tag()))])
            }
            "/system" => {
                self.set_extra_instructions((!rest.is_empty()).then(|| rest.to_string()));
                if rest.is_empty() {
                    self.info("cmd-system-cleared", vec![])
                } else {
                    self.info("cmd-system-set", vec![])
                }
            }
            "/model" => {
                if rest.is_empty() {
                    let id = self.route().id();
                    return self.info("cmd-model-current", vec![("route", Arg::from(id))]);
                }
                match self.switch_route(rest) {
                    Ok(info) => {
                        self.info("cmd-model-switched", vec![("route", Arg::from(info.id))])
                    }
                    Err(e) => self.warn(
                        "cmd-model-failed",
                        vec![("error", Arg::from(e.localized(l)))],
                    ),
                }
            }
            "/tools" => {
                let lines = self.tool_listing(l);
                self.emit_event(AgentEvent::Output(lines));
                LineOutcome::default()
            }
            "/tool" => {
                let mut parts = rest.split_whitespace();
                let (action, name) = (parts.next(), parts.next());
                match (action, name) {
                    (Some(action @ ("enable" | "disable")), Some(n)) => {
                        let enable = action == "enable";
                        match self.registry_mut().set_enabled(n, enable) {
                            Ok(changed) => {
                                let key = match (enable, changed) {
                                    (true, true) => "tools-enabled",
                                    (true, false) => "tools-already-enabled",
                                    (false, true) => "tools-disabled",
                                    (false, false) => "tools-already-disabled",
                                };
                                self.info(key, vec![("name", Arg::from(n))])
                            }
                            Err(e) => self.warn(
                                "cmd-tool-failed",
                                vec![("error", Arg::from(e.localized(l)))],
                            ),
                        }
                    }
                    _ => self.warn("cmd-tool-usage", vec![]),
                }
            }
            "/new" => match self.env().new_session() {
                Ok((s, path)) => {
                    self.replace_session(s, path);
                    self.info("cmd-new-done", vec![])
                }
                Err(e) => self.warn(
                    "cmd-session-failed",
                    vec![("error", Arg::from(e.localized(l)))],
                ),
            },
            "/resume" => {
                if rest.is_empty() {
                    let mut out = vec![l.tr("cmd-resume-title")];
                    out.extend(self.env().list_sessions());
                    self.emit_event(AgentEvent::Output(out));
                    return LineOutcome::default();
                }
                let current = self.session().id().to_string();
                match self.env().open_session(rest, &current) {
                    Ok((s, path, torn)) => {
                        self.replace_session(s, path);
                        if let Some(t) = torn {
                            self.emit_torn_tail(&t);
                        }
                        self.info("cmd-resume-done", vec![])
                    }
                    Err(e) => self.warn(
                        "cmd-session-failed",
                        vec![("error", Arg::from(e.localized(l)))],
                    ),
                }
            }
            "/mcp" => self.mcp_command(rest).await,
            "/compact" => {
                let cancel = self.fresh_cancel();
                let res = self
                    .compact(
                        crate::session::event::CompactionTrigger::Manual,
                        false,
                        &cancel,
                    )
                    .await;
                self.emit_event(AgentEvent::Phase(crate::agent::protocol::TurnPhase::Idle));
                match res {
                    Ok(_) => LineOutcome::default(),
                    Err(e) => self.warn(
                        "compact-failed",
                        vec![("message", Arg::from(e.to_string()))],
                    ),
                }
            }
            "/inspect" => {
                let request = if rest.is_empty() {
                    None
                } else {
                    match rest.parse::<usize>() {
                        Ok(n) if n > 0 => Some(n),
                        _ => return self.warn("tui-inspector-usage", vec![]),
                    }
                };
                match self.inspect(request) {
                    Ok(data) => {
                        self.emit_event(AgentEvent::Inspector(Box::new(data)));
                        LineOutcome::default()
                    }
                    Err(e) => self.warn(
                        "tui-inspector-failed",
                        vec![("error", Arg::from(e.to_string()))],
                    ),
                }
            }
            _ => self.warn("cmd-unknown", vec![("command", Arg::from(cmd))]),
        }
    }
}
