//! The loop's command inbox: the typed channel from the UI, read by the idle loop and
//! `select!`ed on by the running turn at each of its waits (stream, retry delay, tools,
//! approvals), so Cancel, Approve and steering arrive while a turn runs without any state
//! shared behind locks.

use std::collections::{HashMap, VecDeque};
use std::future::Future;

use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;

use crate::agent::command_spec::{Command, ParseError};
use crate::agent::protocol::{AgentCommand, AgentEvent, ApprovalDecision};
use crate::i18n::Locale;
use crate::tools::mcp::elicit::Elicitations;

/// Work that waits for the loop to be free, in arrival order.
#[derive(Debug, Clone, PartialEq)]
pub enum Pending {
    /// A composer line: a user message or a slash command.
    Line(String),
    /// A typed slash command, or a command line whose arguments do not fit.
    Command(Result<Command, ParseError>),
    /// A user message that starts with `/` but is no command (a paste).
    Message(String),
    /// Open the inspector (answered between lines: the session is the loop's own).
    Inspect(Option<usize>),
    /// Open the inspector on step `.1` of subagent `.0`.
    InspectSubagent(String, u64),
    /// Switch the interface language.
    SetLocale(Locale),
    /// Switch the sandbox mode.
    SetMode(crate::sandbox::AgentMode),
    /// Stop reading a `/resume` listing whose picker was closed.
    StopListing(u64),
}

/// What the inbox has absorbed so far (everything but the channel itself, so the channel
/// can be borrowed while commands are absorbed).
#[derive(Debug)]
struct Absorbed {
    queue: VecDeque<Pending>,
    answers: HashMap<String, ApprovalDecision>,
    /// Reasons given with denials, by call id.
    reasons: HashMap<String, String>,
    cancel: CancellationToken,
    shutdown: bool,
    busy: bool,
    events: mpsc::UnboundedSender<AgentEvent>,
    /// Where the user's answers to elicitations go (the MCP servers wait on them).
    elicitations: Elicitations,
}

impl Absorbed {
    fn absorb(&mut self, cmd: Option<AgentCommand>) {
        match cmd {
            Some(AgentCommand::Submit(line)) => self.queue_line(Pending::Line(line)),
            Some(AgentCommand::Run(cmd)) => self.queue_line(Pending::Command(Ok(cmd))),
            Some(AgentCommand::Invalid(e)) => self.queue_line(Pending::Command(Err(e))),
            Some(AgentCommand::Message(text)) => self.queue_line(Pending::Message(text)),
            Some(AgentCommand::Inspect { request }) => {
                self.queue.push_back(Pending::Inspect(request))
            }
            Some(AgentCommand::InspectSubagent { agent, step }) => {
                self.queue.push_back(Pending::InspectSubagent(agent, step))
            }
            Some(AgentCommand::SetLocale(locale)) => {
                self.queue.push_back(Pending::SetLocale(locale))
            }
            Some(AgentCommand::SetMode(mode)) => self.queue.push_back(Pending::SetMode(mode)),
            Some(AgentCommand::StopListing { listing }) => {
                self.queue.push_back(Pending::StopListing(listing))
            }
            Some(AgentCommand::Cancel) => self.cancel.cancel(),
            Some(AgentCommand::Approve { call_id, decision }) => {
                self.answers.insert(call_id, decision);
            }
            Some(AgentCommand::Elicit { id, answer }) => self.elicitations.answer(id, answer),
            Some(AgentCommand::DenyWithReason { call_id, reason }) => {
                self.reasons.insert(call_id.clone(), reason);
                self.answers.insert(call_id, ApprovalDecision::Deny);
            }
            // The UI asked to stop, or went away.
            Some(AgentCommand::Shutdown) | None => {
                self.shutdown = true;
                self.cancel.cancel();
            }
        }
    }

    fn queue_line(&mut self, p: Pending) {
        self.queue.push_back(p);
        if self.busy {
            let _ = self.events.send(AgentEvent::Queued(self.queued_lines()));
        }
    }

    fn queued_lines(&self) -> usize {
        self.queue
            .iter()
            .filter(|p| {
                matches!(
                    p,
                    Pending::Line(_) | Pending::Message(_) | Pending::Command(_)
                )
            })
            .count()
    }
}

/// The command inbox of one loop.
#[derive(Debug)]
pub struct Inbox {
    rx: Option<mpsc::UnboundedReceiver<AgentCommand>>,
    state: Absorbed,
}

impl Inbox {
    /// An inbox with no channel (`exec`: lines come from the script, nobody cancels or
    /// approves interactively).
    pub fn detached(events: mpsc::UnboundedSender<AgentEvent>) -> Inbox {
        Inbox {
            rx: None,
            state: Absorbed {
                queue: VecDeque::new(),
                answers: HashMap::new(),
                reasons: HashMap::new(),
                cancel: CancellationToken::new(),
                shutdown: false,
                busy: false,
                events,
                elicitations: Elicitations::default(),
            },
        }
    }

    /// Passes the user's elicitation answers to `e` (the MCP servers' pending requests).
    pub fn set_elicitations(&mut self, e: Elicitations) {
        self.state.elicitations = e;
    }

    /// Connects the UI's command channel.
    pub fn attach(&mut self, rx: mpsc::UnboundedReceiver<AgentCommand>) {
        self.rx = Some(rx);
    }

    /// Forgets approval answers that no call is waiting for (a new or resumed session
    /// starts with none of the old one's). Lines typed after `/new` stay queued: they
    /// belong to the new session.
    pub fn reset(&mut self) {
        self.state.answers.clear();
        self.state.reasons.clear();
    }

    /// A fresh cancellation token for the next turn or command; Cancel cancels it.
    pub fn new_cancel(&mut self) -> CancellationToken {
        self.state.cancel = CancellationToken::new();
        self.state.answers.clear();
        self.state.reasons.clear();
        self.state.cancel.clone()
    }

    /// Whether the UI asked the loop to stop (or went away).
    pub fn shutting_down(&self) -> bool {
        self.state.shutdown
    }

    /// Marks the loop busy (submissions are then reported as queued) or idle.
    pub fn set_busy(&mut self, busy: bool) {
        self.state.busy = busy;
    }

    /// Tells the UI how many messages wait behind the running turn.
    pub fn report_queue(&self) {
        let _ = self
            .state
            .events
            .send(AgentEvent::Queued(self.state.queued_lines()));
    }

    /// The next queued piece of work.
    pub fn next_pending(&mut self) -> Option<Pending> {
        self.state.queue.pop_front()
    }

    /// Queues work behind what is already queued (tests, `exec`).
    pub fn push(&mut self, p: Pending) {
        self.state.queue.push_back(p);
    }

    /// Takes the plain-text submissions at the front of the queue (steering): plain text
    /// up to the first queued command steers the running turn; the command and
    /// everything after it keep their order and run after the turn.
    pub fn take_steering(&mut self) -> Vec<String> {
        let mut out = Vec::new();
        loop {
            match self.state.queue.front() {
                Some(Pending::Line(line)) if !line.trim_start().starts_with('/') => {}
                Some(Pending::Message(_)) => {}
                _ => break,
            }
            if let Some(Pending::Line(line) | Pending::Message(line)) = self.state.queue.pop_front()
                && !line.trim().is_empty()
            {
                out.push(line);
            }
        }
        if !out.is_empty() {
            self.report_queue();
        }
        out
    }

    /// Waits for the next command and absorbs it. Never resolves without a channel.
    pub async fn wait_command(&mut self) {
        match self.rx.as_mut() {
            Some(rx) => {
                let cmd = rx.recv().await;
                if cmd.is_none() {
                    self.rx = None;
                }
                self.state.absorb(cmd);
            }
            None => std::future::pending::<()>().await,
        }
    }

    /// Runs `fut` to completion while absorbing commands as they arrive (Cancel cancels
    /// the current token, which `fut` is expected to watch).
    pub async fn during<F: Future>(&mut self, fut: F) -> F::Output {
        tokio::pin!(fut);
        loop {
            let Some(rx) = self.rx.as_mut() else {
                return fut.await;
            };
            tokio::select! {
                biased;
                out = &mut fut => return out,
                cmd = rx.recv() => {
                    if cmd.is_none() {
                        self.rx = None;
                    }
                    self.state.absorb(cmd);
                }
            }
        }
    }

    /// Waits for the user's answer to the approval of `call_id`. Cancel, shutdown or a
    /// missing channel deny.
    /// The reason the user gave when denying `call_id`, if any (taken once).
    pub fn take_reason(&mut self, call_id: &str) -> Option<String> {
        self.state.reasons.remove(call_id)
    }

    pub async fn approval(&mut self, call_id: &str) -> ApprovalDecision {
        loop {
            if let Some(d) = self.state.answers.remove(call_id) {
                return d;
            }
            if self.state.cancel.is_cancelled() || self.rx.is_none() {
                return ApprovalDecision::Deny;
            }
            self.wait_command().await;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn inbox() -> (
        Inbox,
        mpsc::UnboundedSender<AgentCommand>,
        mpsc::UnboundedReceiver<AgentEvent>,
    ) {
        let (etx, erx) = mpsc::unbounded_channel();
        let (ctx, crx) = mpsc::unbounded_channel();
        let mut i = Inbox::detached(etx);
        i.attach(crx);
        (i, ctx, erx)
    }

    #[tokio::test]
    async fn cancel_arrives_while_the_turn_waits() {
        let (mut i, tx, _ev) = inbox();
        let token = i.new_cancel();
        tx.send(AgentCommand::Cancel).unwrap();
        let t = token.clone();
        // The work only finishes when cancelled: the inbox must deliver Cancel meanwhile.
        i.during(async move { t.cancelled().await }).await;
        assert!(token.is_cancelled());
    }

    #[tokio::test]
    async fn submissions_during_a_turn_are_queued_and_counted() {
        let (mut i, tx, mut ev) = inbox();
        i.set_busy(true);
        tx.send(AgentCommand::Submit("more".into())).unwrap();
        tx.send(AgentCommand::Submit("/tools".into())).unwrap();
        tx.send(AgentCommand::Submit("after".into())).unwrap();
        i.during(tokio::time::sleep(std::time::Duration::from_millis(20)))
            .await;
        let counts: Vec<usize> = std::iter::from_fn(|| ev.try_recv().ok())
            .filter_map(|e| match e {
                AgentEvent::Queued(n) => Some(n),
                _ => None,
            })
            .collect();
        assert_eq!(counts, vec![1, 2, 3]);
        // Steering takes the text before the first command only.
        assert_eq!(i.take_steering(), vec!["more".to_string()]);
        assert_eq!(i.next_pending(), Some(Pending::Line("/tools".into())));
        assert_eq!(i.next_pending(), Some(Pending::Line("after".into())));
    }

    #[tokio::test]
    async fn a_pasted_message_that_starts_with_a_slash_is_queued_and_steers_as_text() {
        let (mut i, tx, mut ev) = inbox();
        i.set_busy(true);
        tx.send(AgentCommand::Message(
            "/usr/lib/python3/foo.py:12: boom".into(),
        ))
        .unwrap();
        tx.send(AgentCommand::Submit("/tools".into())).unwrap();
        i.during(tokio::time::sleep(std::time::Duration::from_millis(20)))
            .await;
        let counts: Vec<usize> = std::iter::from_fn(|| ev.try_recv().ok())
            .filter_map(|e| match e {
                AgentEvent::Queued(n) => Some(n),
                _ => None,
            })
            .collect();
        assert_eq!(counts, vec![1, 2]);
        assert_eq!(
            i.take_steering(),
            vec!["/usr/lib/python3/foo.py:12: boom".to_string()]
        );
        assert_eq!(i.next_pending(), Some(Pending::Line("/tools".into())));
    }

    #[tokio::test]
    async fn approval_waits_for_its_own_call_id() {
        let (mut i, tx, _ev) = inbox();
        i.new_cancel();
        tx.send(AgentCommand::Approve {
            call_id: "other".into(),
            decision: ApprovalDecision::Allow,
        })
        .unwrap();
        tx.send(AgentCommand::Approve {
            call_id: "c1".into(),
            decision: ApprovalDecision::AlwaysAllow,
        })
        .unwrap();
        assert_eq!(i.approval("c1").await, ApprovalDecision::AlwaysAllow);
        assert_eq!(i.approval("other").await, ApprovalDecision::Allow);
    }

    #[tokio::test]
    async fn cancel_or_a_closed_channel_denies_a_pending_approval() {
        let (mut i, tx, _ev) = inbox();
        i.new_cancel();
        tx.send(AgentCommand::Cancel).unwrap();
        assert_eq!(i.approval("c1").await, ApprovalDecision::Deny);
        let (mut i, tx, _ev) = inbox();
        i.new_cancel();
        drop(tx);
        assert_eq!(i.approval("c1").await, ApprovalDecision::Deny);
        assert!(i.shutting_down());
    }

    #[tokio::test]
    async fn reset_forgets_answers_but_keeps_lines_typed_after_new() {
        let (mut i, tx, _ev) = inbox();
        tx.send(AgentCommand::Submit("old".into())).unwrap();
        tx.send(AgentCommand::Approve {
            call_id: "c1".into(),
            decision: ApprovalDecision::Allow,
        })
        .unwrap();
        i.wait_command().await;
        i.wait_command().await;
        i.reset();
        assert_eq!(i.next_pending(), Some(Pending::Line("old".into())));
        drop(tx);
        assert_eq!(i.approval("c1").await, ApprovalDecision::Deny);
    }
}
