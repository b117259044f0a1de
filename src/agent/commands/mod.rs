//! Slash commands (SPEC §2): looked up in the one table
//! ([`crate::agent::command_spec::COMMANDS`]), run by the loop, identical in the TUI and
//! `exec`. Every [`CommandId`] is bound to its handler here by an exhaustive match, so a
//! table entry cannot lack one.

mod cache_cost;
mod checkpoint;
mod context;
mod custom;
mod effort;
mod instructions;
mod mcp;
mod preview;
mod prompt;
mod review;
mod sandbox;
mod status;

pub use context::{CommandContext, usage_text};
pub use preview::InspectFailure;
pub use prompt::mcp_offers;

use crate::agent::command_spec::{COMMANDS, Command, CommandId, ParseError, SystemAction};
use crate::agent::protocol::{AgentEvent, OUTPUT_VERBATIM, OutputLine, TurnPhase, output_row};
use crate::agent::turn::LineOutcome;
use crate::i18n::{Arg, Locale, Localizer, Text};
use crate::llm::client::ProviderClient;

/// The `/help` lines: a title, then one table row per entry (name and argument synopsis |
/// description, rendered when drawn).
pub fn help_lines() -> Vec<OutputLine> {
    let mut out = vec![Text::new("cmd-help-title", vec![])];
    for c in COMMANDS {
        let left = match &c.usage_key {
            Some(u) => Arg::from(Text::new(
                "cmd-help-synopsis",
                vec![
                    ("name", Arg::from(c.name.as_ref())),
                    ("args", Arg::from(Text::new(u, vec![]))),
                ],
            )),
            None => Arg::from(c.name.as_ref()),
        };
        out.push(output_row(left, Arg::from(Text::new(&c.desc_key, vec![]))));
    }
    out
}

impl CommandContext<'_> {
    /// Runs one slash command line (name or alias from the table, then arguments).
    pub(crate) async fn handle_command(&mut self, line: &str) -> LineOutcome {
        let parsed = Command::parse(line);
        // A custom command (SPEC §14.4): only when no built-in has the name.
        if let Err(ParseError::Unknown { name }) = &parsed
            && self.has_custom_command(name)
        {
            let args = line
                .trim()
                .split_once(char::is_whitespace)
                .map_or("", |(_, r)| r.trim());
            let name = name.clone();
            return self.custom_command(&name, args).await;
        }
        // An MCP server's prompt (SPEC §15.2): `/NAME:PROMPT`, NAME a configured server.
        if let Err(ParseError::Unknown { name }) = &parsed
            && self.is_prompt_command(name)
        {
            let args = line
                .trim()
                .split_once(char::is_whitespace)
                .map_or("", |(_, r)| r.trim());
            let name = name.clone();
            return self.prompt_command(&name, args).await;
        }
        self.run_command(parsed).await
    }

    /// Runs a parsed command, or answers why the line is none.
    pub(crate) async fn run_command(&mut self, parsed: Result<Command, ParseError>) -> LineOutcome {
        let cmd = match parsed {
            Ok(cmd) => cmd,
            Err(ParseError::Unknown { name }) if self.has_custom_command(&name) => {
                return self.custom_command(&name, "").await;
            }
            Err(ParseError::Unknown { name }) if self.is_prompt_command(&name) => {
                return self.prompt_command(&name, "").await;
            }
            Err(ParseError::Unknown { name }) => {
                return self.warn("cmd-unknown", vec![("command", Arg::from(name))]);
            }
            Err(ParseError::BadArgs { id, given }) => return self.bad_args(id, &given),
        };
        match cmd {
            Command::Help => {
                let mut lines = help_lines();
                lines.extend(self.custom_help_lines());
                lines.extend(self.prompt_help_lines());
                self.output(lines)
            }
            Command::Custom { name, args } => self.custom_command(&name, &args).await,
            Command::Prompt { name, args } => self.prompt_command(&name, &args).await,
            Command::Quit => LineOutcome {
                quit: true,
                ..LineOutcome::default()
            },
            Command::Lang { locale } => self.set_locale_command(locale),
            Command::System { action } => self.system_command(action),
            Command::Mode { mode } => self.mode_command(mode),
            // SPEC §14.4: effort, instruction files, `/init` (agent/commands/effort.rs,
            // agent/commands/instructions.rs).
            Command::Effort { effort } => self.effort_command(effort),
            Command::Instructions => self.instructions_command(),
            Command::Init => self.init_command().await,
            Command::Sandbox => self.sandbox_command(),
            Command::Permissions { revoke } => self.permissions_command(revoke),
            Command::Model { route } => self.model_command(route.as_deref()).await,
            Command::Tools => {
                let lines = self.tool_lines();
                self.output(lines)
            }
            Command::Tool { enable, name } => self.tool_command(enable, &name),
            // The TUI copies by itself (it owns the terminal); `exec` has no clipboard.
            Command::Copy { .. } => self.warn("cmd-copy-needs-tui", vec![]),
            Command::Clear => {
                self.events.emit(AgentEvent::ClearScreen);
                LineOutcome::default()
            }
            Command::Status => {
                let lines = self.status_lines().await;
                self.output(lines)
            }
            Command::Cost => {
                let lines = self.cost_lines();
                self.output(lines)
            }
            Command::New => self.new_command(),
            Command::Resume { id } => self.resume_command(id.as_deref()),
            Command::Mcp { action } => self.mcp_command(action).await,
            Command::Compact => self.compact_command().await,
            // Checkpoints, undo, rewind and fork (SPEC §14.3): commands/checkpoint.rs.
            Command::Diff { turn } => self.diff_command(turn),
            Command::Review { base } => self.review_command(base).await,
            Command::Undo { force } => self.undo_command(force),
            Command::Rewind { to, scope, force } => self.rewind_command(to, scope, force),
            Command::Fork => self.fork_command(),
            Command::Inspect { request } => self.inspect_command(request),
        }
    }

    /// The answer to arguments that do not fit: the command's usage, unless what it
    /// works on is absent (no MCP server, no acting tools), which it says first, or it
    /// has a message of its own.
    fn bad_args(&mut self, id: CommandId, given: &str) -> LineOutcome {
        match id {
            CommandId::Copy => self.warn("cmd-copy-needs-tui", vec![]),
            CommandId::Inspect => self.warn("tui-inspector-usage", vec![]),
            CommandId::Effort => self.effort_unknown(given),
            // With checkpoints off `/diff` and `/undo` say so whatever their arguments.
            CommandId::Diff | CommandId::Undo if !self.services.checkpoints.enabled() => {
                self.info("checkpoint-off", vec![])
            }
            CommandId::Mode => self.warn("cmd-mode-unknown", vec![("given", Arg::from(given))]),
            CommandId::Permissions if self.tools_acting().is_none() => {
                self.info("permissions-none", vec![])
            }
            CommandId::Mcp if self.mcp().is_none() => {
                self.output(vec![Text::new("mcp-none-configured", vec![])])
            }
            _ => self.usage(id.spec()),
        }
    }

    /// `/lang` and [`crate::agent::protocol::AgentCommand::SetLocale`]: switch, tell the UI, save the choice.
    pub(crate) fn set_locale_command(&mut self, loc: Locale) -> LineOutcome {
        *self.l = Localizer::new(loc);
        self.events.emit(AgentEvent::LocaleChanged(loc));
        if let Err(e) = self.env().save_locale(loc) {
            let e = e.localized(self.localizer());
            return self.warn("cmd-lang-not-saved", vec![("error", Arg::from(e))]);
        }
        self.info("cmd-lang-switched", vec![("locale", Arg::from(loc.tag()))])
    }

    /// `/system` shows this session's extra instructions, `/system clear` clears them and
    /// `/system TEXT` replaces them.
    fn system_command(&mut self, action: SystemAction) -> LineOutcome {
        match action {
            SystemAction::Show => match self.extra_instructions().map(str::to_string) {
                Some(text) => self.info("cmd-system-current", vec![("text", Arg::from(text))]),
                None => self.info("cmd-system-none", vec![]),
            },
            SystemAction::Clear => {
                self.state_mut().extra_instructions = None;
                self.info("cmd-system-cleared", vec![])
            }
            SystemAction::Set { text } => {
                self.state_mut().extra_instructions = Some(text);
                self.info("cmd-system-set", vec![])
            }
        }
    }

    /// `/model` alone: the current route and every route the catalog and config know.
    /// `/model PROVIDER/MODEL`: switches, but only to a known route or to a model the
    /// provider's `GET /models` lists; anything else is refused before the next send.
    async fn model_command(&mut self, route: Option<&str>) -> LineOutcome {
        let known = self.env().known_routes();
        let current = self.route().id();
        let Some(rest) = route else {
            let mut lines = vec![Text::new(
                "cmd-model-current",
                vec![("route", Arg::from(current.clone()))],
            )];
            if !known.is_empty() {
                lines.push(Text::new("cmd-model-choices", vec![]));
                for r in known {
                    // A route whose key is not set says which variable it needs.
                    // The route in use has its key, unless the demo answers for it.
                    let missing = match r == current && !self.route_info().demo {
                        true => None,
                        false => self.env().missing_key(&r),
                    };
                    let key = match (r == current, missing.is_some()) {
                        (true, false) => "cmd-model-choice-current",
                        (false, false) => "cmd-model-choice",
                        (true, true) => "cmd-model-choice-current-no-key",
                        (false, true) => "cmd-model-choice-no-key",
                    };
                    let mut args = vec![("route", Arg::from(r))];
                    if let Some(var) = missing {
                        args.push(("var", Arg::from(var)));
                    }
                    lines.push(Text::new(key, args));
                }
            }
            return self.output(lines);
        };
        if !known.iter().any(|r| r == rest)
            && let Err(out) = self.check_listed_model(rest).await
        {
            return out;
        }
        let from = self.route().id();
        match self.switch_route(rest) {
            Ok(info) => {
                // What the switch costs the cache, said with it (§14.5).
                self.warn_switch_cost(&from, &info.id);
                self.info("cmd-model-switched", vec![("route", Arg::from(info.id))])
            }
            Err(e) => {
                let e = e.localized(self.localizer());
                self.warn("cmd-model-failed", vec![("error", Arg::from(e))])
            }
        }
    }

    /// A route the catalog and config do not know is accepted only when its provider lists
    /// the model; when the provider cannot be asked, it is refused with the reason.
    async fn check_listed_model(&mut self, spec: &str) -> Result<(), LineOutcome> {
        let (route, key) = match self.env().resolve_route(spec) {
            Ok(r) => r,
            Err(e) => {
                let e = e.localized(self.localizer());
                return Err(self.warn("cmd-model-failed", vec![("error", Arg::from(e))]));
            }
        };
        let model = route.model.clone();
        let client =
            ProviderClient::new(route, key.map(|k| k.expose().to_string())).map_err(|e| {
                self.warn(
                    "cmd-model-unchecked",
                    vec![("route", Arg::from(spec)), ("error", Arg::from(e.message))],
                )
            })?;
        match client.list_models().await {
            Ok(ids) if ids.contains(&model) => Ok(()),
            Ok(_) => Err(self.warn("cmd-model-unknown", vec![("route", Arg::from(spec))])),
            Err(e) => Err(self.warn(
                "cmd-model-unchecked",
                vec![("route", Arg::from(spec)), ("error", Arg::from(e.message))],
            )),
        }
    }

    /// `/tools`: the registry's listing, then any MCP names mapped to fit the model.
    fn tool_lines(&mut self) -> Vec<OutputLine> {
        let mut lines = self.registry_mut().listing_text();
        let mapped = self.mcp().map(|m| m.mapped_names()).unwrap_or_default();
        if !mapped.is_empty() {
            lines.push(Text::new("tools-mapped-header", vec![]));
            for (_, model, original) in mapped {
                lines.push(Text::new(
                    "mcp-status-mapped",
                    vec![
                        ("model", Arg::from(model)),
                        ("original", Arg::from(original)),
                    ],
                ));
            }
        }
        lines
    }

    fn tool_command(&mut self, enable: bool, n: &str) -> LineOutcome {
        let l = self.localizer();
        // What removing it costs the cache, said before it goes (§14.5).
        if !enable && self.registry_mut().is_active(n) {
            self.warn_removal_cost(&[n.to_string()]);
        }
        match self.registry_mut().set_enabled(n, enable) {
            Ok(true) if self.runner().report_tool_change() => LineOutcome::default(),
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

    fn new_command(&mut self) -> LineOutcome {
        match self.env().new_session() {
            Ok((s, path)) => {
                self.replace_session(s, path);
                self.info("cmd-new-done", vec![])
            }
            Err(e) => {
                let e = e.localized(self.localizer());
                self.warn("cmd-session-failed", vec![("error", Arg::from(e))])
            }
        }
    }

    fn resume_command(&mut self, id: Option<&str>) -> LineOutcome {
        // In the TUI bare `/resume` opens the picker; `exec` prints the list.
        if id.is_none() && self.is_interactive() {
            // Reading the logs takes a while: the picker opens with the first batch and
            // fills in, and the loop goes on meanwhile.
            // A second `/resume` while the first listing is read supersedes it: the first
            // reader stops at its next batch and its batches carry the older id, which the
            // UI drops.
            let current = self.session().id().to_string();
            let job = self.env().session_summaries();
            let events = self.events.clone();
            let listing = self.events.start_listing();
            tokio::spawn(async move {
                let (ev, cur, id) = (events.clone(), current.clone(), listing.id());
                let read = tokio::task::spawn_blocking(move || {
                    job(&mut |sessions| {
                        if listing.superseded() {
                            return std::ops::ControlFlow::Break(());
                        }
                        ev.emit(AgentEvent::Sessions {
                            listing: id,
                            current: cur.clone(),
                            sessions,
                            done: false,
                        });
                        std::ops::ControlFlow::Continue(())
                    });
                    listing
                });
                if let Ok(listing) = read.await
                    && listing.superseded()
                {
                    return;
                }
                events.emit(AgentEvent::Sessions {
                    listing: id,
                    current,
                    sessions: Vec::new(),
                    done: true,
                });
            });
            return LineOutcome::default();
        }
        let Some(id) = id else {
            let current = self.session().id().to_string();
            let mut out = vec![Text::new("cmd-resume-title", vec![])];
            out.extend(
                self.env()
                    .list_sessions(&current)
                    .into_iter()
                    .map(|row| Text::new(OUTPUT_VERBATIM, vec![("text", Arg::from(row))])),
            );
            return self.output(out);
        };
        let current = self.session().id().to_string();
        match self.env().open_session(id, &current) {
            Ok((s, path, torn)) => {
                self.replace_session(s, path);
                if let Some(t) = torn {
                    self.emit_torn_tail(&t);
                }
                self.info("cmd-resume-done", vec![])
            }
            Err(e) => {
                let e = e.localized(self.localizer());
                self.warn("cmd-session-failed", vec![("error", Arg::from(e))])
            }
        }
    }

    async fn compact_command(&mut self) -> LineOutcome {
        let cancel = self.fresh_cancel();
        let res = self
            .runner()
            .compact(
                crate::session::event::CompactionTrigger::Manual,
                false,
                &cancel,
            )
            .await;
        self.events.emit(AgentEvent::Phase(TurnPhase::Idle));
        match res {
            Ok(_) => LineOutcome::default(),
            Err(e) => self.warn(
                "compact-failed",
                vec![("message", Arg::from(e.to_string()))],
            ),
        }
    }

    /// `/inspect [n]` and [`crate::agent::protocol::AgentCommand::Inspect`].
    pub(crate) fn inspect_command(&mut self, request: Option<usize>) -> LineOutcome {
        match self.inspect(request) {
            Ok(data) => {
                self.events.emit(AgentEvent::Inspector(Box::new(data)));
                LineOutcome::default()
            }
            Err(e) => self.warn("tui-inspector-failed", vec![("error", Arg::from(e.text()))]),
        }
    }

    /// [`crate::agent::protocol::AgentCommand::InspectSubagent`].
    pub(crate) fn inspect_subagent_command(&mut self, agent: &str, step: u64) -> LineOutcome {
        match self.inspect_subagent(agent, step) {
            Ok(data) => {
                self.events.emit(AgentEvent::Inspector(Box::new(data)));
                LineOutcome::default()
            }
            Err(e) => self.warn("tui-inspector-failed", vec![("error", Arg::from(e.text()))]),
        }
    }
}
