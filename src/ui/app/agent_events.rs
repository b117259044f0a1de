//! How `App` folds the agent's events into the panes and the model.

use crate::agent::command_spec::CommandSpec;
use crate::agent::protocol::{AgentEvent, TurnPhase};
use crate::session::event::{EventKind, McpState};
use crate::ui::approval_keys::AskInfo;
use crate::ui::bottom::PendingApproval;
use crate::ui::chat::{CellKind, OutputCell};
use crate::ui::overlays::{DiffOverlay, ElicitOverlay, Overlay, RewindPicker};

use super::App;

impl App {
    /// Folds one agent event into the view.
    pub fn on_agent_event(&mut self, ev: AgentEvent) {
        let m = &mut self.model;
        match ev {
            AgentEvent::SessionOpened { id, path, history } => {
                self.session_id = Some(id);
                self.session_has_messages = history.iter().any(|e| is_message(e));
                if !path.is_empty() {
                    self.start_history(std::path::Path::new(&path));
                }
                self.chat.reset();
                self.traj.renew();
                // A question left open belongs to the old view: cancelled, and said so
                // (after the history).
                let open = self.overlays.elicitations();
                for (id, _) in &open {
                    self.send(crate::agent::protocol::AgentCommand::Elicit {
                        id: *id,
                        answer: crate::tools::mcp::elicit::ElicitAnswer::Cancel,
                    });
                }
                self.overlays.clear();
                // The log's rewinds come after what they take back: both folds know them
                // before the first event.
                let rewound = crate::session::rewound::Rewound::of(&history);
                self.chat.transcript_mut().set_rewound(rewound.clone());
                self.traj.trajectory_mut().set_rewound(rewound);
                self.chat.transcript_mut().set_replaying(true);
                self.plan_reset();
                for e in &history {
                    self.apply_committed(e);
                    self.plan_committed(e, false);
                }
                self.chat.transcript_mut().set_replaying(false);
                // Replaying history is not news: the pane the user chose stays.
                self.chat.keep_place();
                for (_, name) in open {
                    self.chat.transcript_mut().push(CellKind::Notice(
                        crate::agent::protocol::Notice::new(
                            crate::agent::protocol::NoticeLevel::Warn,
                            "elicit-cancelled-closed",
                            vec![("name", crate::i18n::Arg::from(name))],
                        ),
                    ));
                }
            }
            AgentEvent::Committed(e) => {
                self.session_has_messages |= is_message(&e);
                if let Some(prompt) = self.prompts.committed(&e) {
                    self.bottom.composer_mut().restore_prompt(&prompt);
                }
                if self.apply_committed(&e) {
                    self.show_chat(None);
                }
                self.plan_committed(&e, true);
            }
            AgentEvent::Stream { turn, step, event } => {
                self.prompts.streamed(&event);
                self.chat.transcript_mut().stream(turn, step, &event)
            }
            AgentEvent::Phase(p) => {
                // Waiting for the user pauses the clock of the phase it interrupts; the
                // phase it returns to goes on from there.
                if p == TurnPhase::AwaitingApproval {
                    if m.paused_at.is_none() {
                        m.paused_at = Some(m.now);
                    }
                } else if let Some(at) = m.paused_at.take() {
                    if p == TurnPhase::RunningTools {
                        m.phase_since += m.now.saturating_duration_since(at);
                    } else {
                        m.phase_since = m.now;
                    }
                } else if p != m.phase {
                    m.phase_since = m.now;
                }
                if p == TurnPhase::Idle {
                    self.chat.transcript_mut().end_streams();
                    // No call waits for an answer once the turn is over: keys go back to
                    // the composer.
                    self.bottom.clear_approvals();
                }
                if p != TurnPhase::Waiting {
                    m.retry = None;
                }
                m.phase = p;
            }
            AgentEvent::Route(r) => {
                m.demo |= r.demo;
                self.traj.trajectory_mut().set_prices(&r.id, r.caps.prices);
                m.route = Some(r);
            }
            AgentEvent::SessionUsage(u) => m.usage = u,
            AgentEvent::Retrying(r) => m.retry = Some(r),
            AgentEvent::Sandbox(info) => m.sandbox = Some(info),
            AgentEvent::Notice(n) => {
                for (k, v) in &n.args {
                    if let (true, crate::i18n::Arg::Str(url)) = (k == "url", v) {
                        crate::ui::terminal::hyperlink::remember(&mut self.links, url);
                    }
                }
                self.chat.transcript_mut().push(CellKind::Notice(n));
                self.show_chat(None);
            }
            AgentEvent::Output(lines) => {
                self.chat
                    .transcript_mut()
                    .push(CellKind::Output(OutputCell { lines }));
                self.show_chat(None);
            }
            AgentEvent::ApprovalAsker {
                call_id,
                agent,
                description,
            } => self.bottom.set_asker(
                call_id,
                crate::ui::approval_keys::Asker {
                    agent: crate::ui::text::sanitize(&agent),
                    description: crate::ui::text::sanitize(&description),
                },
            ),
            AgentEvent::ApprovalRequest {
                call_id,
                tool,
                arguments,
            } => {
                // The call's own card shows "waiting for you", and Chat
                // comes into view with it; a subagent's call has a card of its own that
                // names the subagent (SPEC §15.3).
                let tool = crate::ui::text::sanitize(&tool);
                let arguments = crate::ui::text::sanitize(&arguments);
                let asker = self.bottom.take_asker(&call_id);
                let t = self.chat.transcript_mut();
                let i = t.request_approval(&call_id, &tool, &arguments);
                if let Some(a) = &asker {
                    t.name_asker(i, a);
                    t.subagent_waits(&a.agent, &call_id, &tool);
                }
                let ask = self.chat.transcript().ask_info(&call_id);
                self.bottom.push_approval(PendingApproval {
                    call_id,
                    tool,
                    arguments,
                    ask,
                    asker,
                });
                self.show_chat(Some(i));
            }
            AgentEvent::ApprovalWhy {
                call_id,
                why,
                always,
            } => self
                .chat
                .transcript_mut()
                .set_ask_info(&call_id, AskInfo { why, always }),
            AgentEvent::ApprovalPreview { call_id, preview } => {
                self.chat.transcript_mut().set_preview(&call_id, preview)
            }
            AgentEvent::ToolProgress {
                call_id,
                progress,
                total,
                message,
            } => self.chat.transcript_mut().set_progress(
                &call_id,
                crate::tools::progress::Progress {
                    progress,
                    total,
                    message,
                },
            ),
            AgentEvent::Queued(n) => m.queued = n,
            AgentEvent::LocaleChanged(loc) => m.set_locale(loc),
            AgentEvent::CustomCommands(offered) => self
                .bottom
                .composer_mut()
                .offer_custom_commands(offered.iter().map(CommandSpec::custom).collect()),
            AgentEvent::McpOffers { prompts, resources } => self
                .bottom
                .composer_mut()
                .offer_mcp(prompts.iter().map(CommandSpec::prompt).collect(), resources),
            AgentEvent::TurnFinished => {
                self.plan_turn_finished();
                self.turn_finished()
            }
            // `/clear` (§14.5): Chat's view is emptied; the session, its log, the
            // Trajectory and the next request are untouched.
            AgentEvent::ClearScreen => self.chat.clear_screen(),
            AgentEvent::CommandFinished => {}
            // The first batch of a listing opens the picker, the next ones fill it in;
            // once it was closed, the rest of that listing is dropped. A
            // newer listing (a second `/resume` while one is read) replaces the picker, and
            // the batches of an older one are dropped: two listings never mix.
            AgentEvent::Sessions {
                listing,
                current,
                sessions,
                done,
            } => match self.resume_listing {
                Some(shown) if listing < shown => {}
                Some(shown) if listing == shown => {
                    if let Some(p) = self.overlays.resume_picker_mut() {
                        p.extend(&current, sessions, done);
                    }
                }
                _ => {
                    let p = crate::ui::overlays::ResumePicker::new(&current, sessions);
                    self.overlays.open_resume_picker(p.reading(!done));
                    self.resume_listing = Some(listing);
                }
            },
            AgentEvent::Inspector(d) => {
                let t = self.traj.trajectory();
                // A subagent's request is numbered in its own log, not the Trajectory's.
                let n = d.selected.n.filter(|_| d.selected.label.is_none());
                let saving = n.and_then(|n| t.cache_saving(n));
                let unknown = n.is_some_and(|n| t.usage_unknown(n));
                self.overlays.open_inspector(
                    crate::ui::inspector::Inspector::new(*d)
                        .with_cache_saving(saving)
                        .with_usage_unknown(unknown),
                )
            }
            // A rewind (SPEC §14.3): Chat and the Trajectory are rebuilt from the log, what
            // it took back left out of Chat and marked in the Trajectory, and the prompt
            // goes back into the composer.
            AgentEvent::Rewound { history, prompt } => {
                let id = self.session_id.clone().unwrap_or_default();
                let path = String::new();
                self.on_agent_event(AgentEvent::SessionOpened { id, path, history });
                self.bottom.composer_mut().restore_prompt(&prompt);
            }
            AgentEvent::Diff(view) => self
                .overlays
                .open_replacing(Overlay::Diff(DiffOverlay::new(view))),
            AgentEvent::RewindChoices(prompts) => self
                .overlays
                .open_replacing(Overlay::Rewind(RewindPicker::new(prompts))),
            // The TUI folds the plan from the committed log (`apply_committed`), as a
            // resumed session does; this event is `exec`'s.
            AgentEvent::PlanUpdated(_) => {}
            // An MCP server asks (SPEC §15.2): its form opens on top of everything.
            AgentEvent::Elicitation(r) => self
                .overlays
                .push(Overlay::Elicit(Box::new(ElicitOverlay::new(r)))),
            AgentEvent::Exited => self.exited = true,
        }
    }

    /// Folds a committed event into Chat and the Trajectory; returns whether it put
    /// something in Chat the user must see (an MCP server that failed).
    fn apply_committed(&mut self, e: &crate::session::event::Event) -> bool {
        if let EventKind::AssistantMessage(d) = &e.kind
            && !self.traj.trajectory().is_rewound(e.seq)
        {
            // Unknown when the provider's usage was impossible.
            self.model.context_used = d
                .usage
                .map(|u| u.total_input().saturating_add(u.output_tokens));
        }
        self.chat.transcript_mut().apply(e);
        self.traj.trajectory_mut().apply(e);
        matches!(&e.kind, EventKind::McpStatus(m) if m.state == McpState::Failed)
    }
}

/// A user or assistant message: what makes a session worth resuming.
fn is_message(e: &crate::session::event::Event) -> bool {
    use crate::session::event::EventKind;
    matches!(
        e.kind,
        EventKind::UserMessage(_) | EventKind::AssistantMessage(_)
    )
}
