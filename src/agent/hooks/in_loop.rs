//! The hooks in the loop: where each event's hooks run, and how a run is logged
//! (`hook/run`) and shown (a tool hook's in its call's card, any other as a notice). See the parent module and decision 0088.

use std::path::PathBuf;
use std::time::Duration;

use tokio_util::sync::CancellationToken;

use super::input::{HookFacts, HookSession, payload};
use super::notice::run_notice;
use super::process::{self, Exit, Finished, Spawn};
use super::{Verdict, blocked_call_text, classify, feedback_text};
use crate::agent::protocol::{AgentEvent, NoticeLevel};
use crate::agent::tool_runner::{CallResult, ToolCall};
use crate::agent::turn::TurnRunner;
use crate::config::hooks::{HookConfig, HookEvent};
use crate::i18n::Arg;
use crate::session::event::EventKind;
use crate::session::hook_event::{HookRunData, HookRunOutcome};
use crate::tools::child_env::ChildEnvPolicy;

/// One hook run: the hook, how it finished and what that means.
struct Ran {
    hook: HookConfig,
    finished: Finished,
    outcome: HookRunOutcome,
    verdict: Verdict,
}

/// What the call site knows about a run (for the log and the notice).
#[derive(Clone, Copy)]
struct Site<'a> {
    event: HookEvent,
    turn: Option<u64>,
    tool: Option<(&'a str, &'a str)>,
}

/// Runs `hooks` one after another with `stdin`, stopping after the first that blocks.
async fn run_all(
    event: HookEvent,
    hooks: Vec<HookConfig>,
    stdin: String,
    cwd: PathBuf,
    env: ChildEnvPolicy,
    cancel: CancellationToken,
) -> Vec<Ran> {
    let extra_env = vec![
        // Claude Code's scripts find their project through this.
        ("CLAUDE_PROJECT_DIR".to_string(), cwd.display().to_string()),
        (
            "DEEPTERM_PROJECT_DIR".to_string(),
            cwd.display().to_string(),
        ),
    ];
    let mut out = Vec::new();
    for hook in hooks {
        let finished = process::run(
            Spawn {
                command: &hook.command,
                cwd: &cwd,
                env: &env,
                extra_env: &extra_env,
                stdin: stdin.clone(),
                timeout: Duration::from_secs(hook.timeout_secs),
            },
            &cancel,
        )
        .await;
        let (outcome, verdict) = classify(event, &finished);
        let stop = matches!(verdict, Verdict::Block(_));
        out.push(Ran {
            hook,
            finished,
            outcome,
            verdict,
        });
        if stop || cancel.is_cancelled() {
            break;
        }
    }
    out
}

impl TurnRunner<'_> {
    /// Runs the hooks of `event` that apply (to `tool`, for tool hooks) while the inbox
    /// keeps listening (Cancel kills them), logs and shows each run, and returns the
    /// verdict: the first block, or continue.
    async fn run_hooks(
        &mut self,
        site: Site<'_>,
        facts: HookFacts<'_>,
        cancel: &CancellationToken,
    ) -> Verdict {
        let event = site.event;
        let hooks: Vec<HookConfig> = self
            .services
            .hooks
            .config
            .of(event)
            .filter(|h| site.tool.is_none_or(|(name, _)| h.matches(name)))
            .cloned()
            .collect();
        if hooks.is_empty() {
            return Verdict::Continue;
        }
        let transcript = self
            .services
            .hooks
            .session_dir
            .as_ref()
            .map(|d| d.join(format!("{}.jsonl", self.state.session.id())))
            .filter(|p| p.is_file());
        let session = HookSession {
            session_id: self.state.session.id(),
            transcript_path: transcript.as_deref(),
            cwd: &self.services.hooks.cwd,
        };
        // Nothing a hook reads holds a key value, whatever the model or user wrote.
        let stdin = self
            .tools
            .secrets()
            .redact(&payload(event, session, facts).to_string())
            .into_owned();
        let job = run_all(
            event,
            hooks,
            stdin,
            self.services.hooks.cwd.clone(),
            self.services.hooks.env.clone(),
            cancel.clone(),
        );
        let runs = self.inbox.during(job).await;
        let mut verdict = Verdict::Continue;
        for ran in runs {
            self.record(site, &ran);
            if let Verdict::Block(r) = ran.verdict {
                verdict = Verdict::Block(r);
            }
        }
        verdict
    }

    /// Logs one run (`hook/run`). A tool hook's run is shown from that event, inside
    /// the call's tool card (TUI) or as a line (`exec`); any other hook's is a notice.
    fn record(&mut self, site: Site<'_>, ran: &Ran) {
        let f = &ran.finished;
        let stderr = match &f.exit {
            Exit::NotStarted(e) => e.clone(),
            _ => self
                .tools
                .secrets()
                .redact(f.stderr.trim_end())
                .into_owned(),
        };
        let reason = match &ran.verdict {
            Verdict::Block(r) => Some(self.tools.secrets().redact(r.trim()).into_owned()),
            Verdict::Continue => None,
        };
        let data = HookRunData {
            event: site.event.key().to_string(),
            command: ran.hook.command.clone(),
            turn: site.turn,
            tool_call_id: site.tool.map(|(_, id)| id.to_string()),
            tool_name: site.tool.map(|(name, _)| name.to_string()),
            outcome: ran.outcome,
            exit_code: match f.exit {
                Exit::Code(c) => Some(c),
                _ => None,
            },
            duration_ms: f.duration.as_millis().min(u128::from(u64::MAX)) as u64,
            stderr,
            reason,
            timeout_secs: matches!(f.exit, Exit::TimedOut).then_some(ran.hook.timeout_secs),
        };
        let notice = site.tool.is_none().then(|| run_notice(&data));
        match self.state.session.push(EventKind::HookRun(data)) {
            Ok(ev) => self.events.emit(AgentEvent::Committed(ev)),
            Err(e) => self.events.emit(crate::agent::protocol::Notice::new(
                NoticeLevel::Error,
                "agent-session-error",
                vec![("error", Arg::from(e.text()))],
            )),
        }
        if let Some(n) = notice {
            self.events.emit(n);
        }
    }

    /// Runs the owed `session_start` hooks (at start, and after `/new` or `/resume`).
    pub async fn run_owed_session_start(&mut self) {
        let Some(source) = self.services.hooks.start_owed.take() else {
            return;
        };
        let cancel = self.inbox.new_cancel();
        let site = Site {
            event: HookEvent::SessionStart,
            turn: None,
            tool: None,
        };
        let _ = self
            .run_hooks(site, HookFacts::SessionStart(source), &cancel)
            .await;
    }

    /// The `user_prompt_submit` hooks on the prompt `text`: true when one refused it (it
    /// is then not sent; the notice says why).
    pub(crate) async fn prompt_refused(&mut self, text: &str, cancel: &CancellationToken) -> bool {
        if !self.services.hooks.any(HookEvent::UserPromptSubmit) {
            return false;
        }
        let site = Site {
            event: HookEvent::UserPromptSubmit,
            turn: None,
            tool: None,
        };
        let verdict = self.run_hooks(site, HookFacts::Prompt(text), cancel).await;
        matches!(verdict, Verdict::Block(_))
    }

    /// The `pre_tool_use` hooks on each call, in call order: `Some(error)` is the result
    /// of a call a hook refused (it is neither approved nor run).
    pub(crate) async fn pre_tool_hooks(
        &mut self,
        turn: u64,
        calls: &[ToolCall],
        cancel: &CancellationToken,
    ) -> Vec<Option<String>> {
        let mut out = Vec::with_capacity(calls.len());
        for c in calls {
            if !self.services.hooks.any(HookEvent::PreToolUse) || cancel.is_cancelled() {
                out.push(None);
                continue;
            }
            let site = Site {
                event: HookEvent::PreToolUse,
                turn: Some(turn),
                tool: Some((c.name.as_str(), c.id.as_str())),
            };
            let facts = HookFacts::PreTool {
                name: &c.name,
                arguments: &c.arguments,
                call_id: &c.id,
            };
            out.push(match self.run_hooks(site, facts, cancel).await {
                Verdict::Block(reason) => Some(blocked_call_text(&reason)),
                Verdict::Continue => None,
            });
        }
        out
    }

    /// The `post_tool_use` hooks on each call that ran (`ran[i]`), with its result; a
    /// hook that exits 2 adds its stderr to the result for the model.
    pub(crate) async fn post_tool_hooks(
        &mut self,
        turn: u64,
        calls: &[ToolCall],
        ran: &[bool],
        results: &mut [CallResult],
        cancel: &CancellationToken,
    ) {
        if !self.services.hooks.any(HookEvent::PostToolUse) {
            return;
        }
        for ((c, r), ran) in calls.iter().zip(results.iter_mut()).zip(ran) {
            if !*ran || cancel.is_cancelled() {
                continue;
            }
            let site = Site {
                event: HookEvent::PostToolUse,
                turn: Some(turn),
                tool: Some((c.name.as_str(), c.id.as_str())),
            };
            let facts = HookFacts::PostTool {
                name: &c.name,
                arguments: &c.arguments,
                call_id: &c.id,
                content: &r.content,
                is_error: r.is_error,
            };
            if let Verdict::Block(feedback) = self.run_hooks(site, facts, cancel).await {
                r.content.push_str(&format!(
                    "\n[a post_tool_use hook said: {}]",
                    feedback_text(&feedback)
                ));
            }
        }
    }

    /// The `stop` hooks after turn `turn` finished (not after a cancelled one).
    pub(crate) async fn stop_hooks(&mut self, turn: u64) {
        if !self.services.hooks.any(HookEvent::Stop) {
            return;
        }
        let cancel = self.inbox.new_cancel();
        let site = Site {
            event: HookEvent::Stop,
            turn: Some(turn),
            tool: None,
        };
        let _ = self.run_hooks(site, HookFacts::Stop, &cancel).await;
    }
}
