//! The one UI event loop: a `tokio::select!` over terminal events (an
//! async stream, crossterm's `EventStream` in the binary), agent events, the UI's own
//! channel (`ui::app_event`: what `App` asks the loop for, the history reader's batches),
//! panic reports from other tasks, the agent task's exit, shutdown and a frame timer. After
//! each of them the loop drains the UI's channel and carries out each request in one place
//! ([`dispatch`]). Events only mark the frame dirty; [`FrameLimiter`] coalesces them into at
//! most 60 draws per second. An idle app sleeps without drawing; while a turn runs, a 250 ms
//! tick keeps the status clock moving.
//!
//! The loop is generic over the event stream and the screen so tests drive it with tokio's
//! paused clock and a `TestBackend`.

use std::future::Future;
use std::io;
use std::pin::Pin;
use std::time::Duration;
use std::time::Instant as StdInstant;

use crossterm::event::Event as TermEvent;
use futures_util::{Stream, StreamExt};
use tokio::sync::mpsc::{UnboundedReceiver, UnboundedSender};
use tokio::task::JoinHandle;
use tokio::time::Instant;

use crate::agent::protocol::{AgentCommand, AgentEvent, Notice, NoticeLevel};
use crate::i18n::Arg;

use super::panic::{AGENT_TASK, TaskPanic, payload_message, scrub_registered};
use crate::ui::app::App;
use crate::ui::app_event::{AppEvent, TermRequest};

/// How long to wait for `Exited` after `Shutdown`.
pub const EXIT_WAIT: Duration = Duration::from_secs(2);
/// Status clock refresh while a turn runs.
pub const BUSY_TICK: Duration = Duration::from_millis(250);
/// Fluent id of the notice for a panicked task.
pub const PANIC_NOTICE: &str = "tui-task-panicked";

/// Minimum time between two frames (60 per second).
pub const FRAME: Duration = Duration::from_micros(16_667);

/// Coalesces redraw requests into at most one frame per [`FRAME`].
#[derive(Debug, Clone, Copy, Default)]
pub struct FrameLimiter {
    last: Option<StdInstant>,
    dirty: bool,
}

impl FrameLimiter {
    /// Asks for a frame.
    pub fn request(&mut self) {
        self.dirty = true;
    }

    /// Whether a frame should be drawn now.
    pub fn due(&self, now: StdInstant) -> bool {
        self.dirty
            && self
                .last
                .is_none_or(|t| now.saturating_duration_since(t) >= FRAME)
    }

    /// Records a drawn frame.
    pub fn drawn(&mut self, now: StdInstant) {
        self.last = Some(now);
        self.dirty = false;
    }

    /// How long to sleep before the pending frame is due (`None` when nothing is pending).
    pub fn wait(&self, now: StdInstant) -> Option<Duration> {
        self.dirty.then(|| match self.last {
            Some(t) => FRAME.saturating_sub(now.saturating_duration_since(t)),
            None => Duration::ZERO,
        })
    }
}

/// Where frames go (the real terminal, or a `TestBackend` in tests).
pub trait Screen {
    /// Draws one frame of `app`.
    fn draw(&mut self, app: &mut App) -> io::Result<()>;

    /// Hands the terminal to `f` (an external editor): leaves the
    /// alternate screen, raw mode and mouse capture, runs `f`, restores them and clears for
    /// a full redraw. The default (test screens) just runs `f`.
    fn suspended(&mut self, f: &mut dyn FnMut()) -> io::Result<()> {
        f();
        Ok(())
    }

    /// Carries out a terminal request (OSC 52 / OSC 9, mouse capture); screens
    /// without a terminal ignore it.
    fn apply(&mut self, request: TermRequest) -> io::Result<()> {
        let _ = request;
        Ok(())
    }
}

/// A future that resolves when the process is asked to stop (a signal).
pub type Shutdown = Pin<Box<dyn Future<Output = ()> + Send>>;

/// The loop's inputs and outputs.
pub struct LoopIo<S> {
    /// Terminal events.
    pub term: S,
    /// Events from the agent loop.
    pub agent_events: UnboundedReceiver<AgentEvent>,
    /// Commands to the agent loop.
    pub commands: UnboundedSender<AgentCommand>,
    /// The agent task, watched for a panic.
    pub agent: Option<JoinHandle<()>>,
    /// Panics of other tasks ([`super::panic`]).
    pub panics: UnboundedReceiver<TaskPanic>,
    /// Resolves on an outside request to stop.
    pub shutdown: Option<Shutdown>,
    /// Leave after the first frame (start-up benchmark).
    pub exit_after_first_frame: bool,
    /// Makes a fresh terminal event stream. While an external editor runs (Ctrl+G) the
    /// stream is dropped so it cannot read the editor's keys, then made anew; `None` keeps
    /// the stream (test streams read no terminal).
    pub reopen: Option<fn() -> S>,
    /// API keys the editor's environment must not hold.
    pub secrets: Vec<String>,
}

/// Why the loop ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum LoopExit {
    /// The user quit (or a shutdown was requested).
    Quit,
    /// The agent task died; the notice was drawn.
    AgentDied(TaskPanic),
}

fn panic_notice(p: &TaskPanic) -> AgentEvent {
    AgentEvent::Notice(Notice::new(
        NoticeLevel::Error,
        PANIC_NOTICE,
        vec![
            ("task", Arg::from(p.task.clone())),
            ("message", Arg::from(p.message.clone())),
        ],
    ))
}

fn agent_death(err: tokio::task::JoinError) -> TaskPanic {
    let message = match err.try_into_panic() {
        Ok(payload) => scrub_registered(&payload_message(payload.as_ref())),
        Err(e) => scrub_registered(&e.to_string()),
    };
    TaskPanic {
        task: AGENT_TASK.to_string(),
        message,
    }
}

/// The next terminal event (`None` stream: pending, only while the editor runs).
async fn next_event<S>(term: &mut Option<S>) -> Option<io::Result<TermEvent>>
where
    S: Stream<Item = io::Result<TermEvent>> + Unpin,
{
    match term.as_mut() {
        Some(t) => t.next().await,
        None => std::future::pending().await,
    }
}

/// Runs the editor on `draft` with the terminal handed over.
fn run_editor<D: Screen>(
    screen: &mut D,
    draft: &str,
    secrets: &[String],
    mouse_capture: bool,
) -> io::Result<Result<String, super::editor::EditorError>> {
    let command = super::editor::command_from_env();
    let mut out = None;
    screen.suspended(&mut || out = Some(super::editor::edit(&command, draft, secrets)))?;
    // The suspend comes back without capture (the default, §14.5): F3's choice stands.
    if mouse_capture {
        screen.apply(TermRequest::MouseCapture(true))?;
    }
    Ok(out.unwrap_or_else(|| Err(super::editor::EditorError::File(String::new()))))
}

/// What [`dispatch`] leaves the loop to decide.
#[derive(Debug, Default)]
struct Dispatched {
    /// Something was carried out: draw a frame.
    any: bool,
    /// The user asked to quit.
    quit: bool,
}

/// Carries out every request waiting on the UI's channel, in order: a command goes to the
/// agent, a terminal request to the screen, an editor hand-off suspends the terminal (the
/// event stream is dropped meanwhile when `reopen` can make it anew), quitting is left to
/// the loop; everything else (a history batch) goes back to `App`, whose handling may send
/// more, carried out in the same pass.
fn dispatch<S, D: Screen>(
    app: &mut App,
    first: Option<AppEvent>,
    commands: &UnboundedSender<AgentCommand>,
    screen: &mut D,
    term: &mut Option<S>,
    reopen: Option<fn() -> S>,
    secrets: &[String],
) -> io::Result<Dispatched> {
    let mut done = Dispatched::default();
    let mut next = first;
    while let Some(ev) = next.take().or_else(|| app.try_next_event()) {
        done.any = true;
        match ev {
            AppEvent::Agent(cmd) => {
                // A closed agent channel means the loop is gone; quitting still works.
                let _ = commands.send(cmd);
            }
            AppEvent::Terminal(r) => screen.apply(r)?,
            AppEvent::Editor(draft) => {
                let mouse = app.mouse_capture();
                // Nothing may read the terminal while the editor has it.
                if reopen.is_some() {
                    drop(term.take());
                }
                let r = run_editor(screen, &draft, secrets, mouse);
                if let Some(make) = reopen {
                    *term = Some(make());
                }
                app.editor_finished(r?);
            }
            AppEvent::Quit => done.quit = true,
            other => app.handle(other),
        }
    }
    Ok(done)
}

/// Runs the loop until the user quits, a shutdown is requested or the agent task dies.
pub async fn drive<S, D>(app: &mut App, mut io: LoopIo<S>, screen: &mut D) -> io::Result<LoopExit>
where
    S: Stream<Item = io::Result<TermEvent>> + Unpin,
    D: Screen,
{
    let mut frames = FrameLimiter::default();
    frames.request();
    let mut last_draw: Option<Instant> = None;
    let mut quit_deadline: Option<Instant> = None;
    let mut agent_gone = false;
    let mut died: Option<TaskPanic> = None;
    let mut shutdown = io.shutdown.take();
    let reopen = io.reopen.take();
    let secrets = std::mem::take(&mut io.secrets);
    let mut term = Some(io.term);
    let mut quit = false;
    loop {
        let now = Instant::now();
        if frames.due(now.into_std()) {
            app.set_now(now.into_std());
            screen.draw(app)?;
            frames.drawn(now.into_std());
            last_draw = Some(now);
            if io.exit_after_first_frame {
                return Ok(LoopExit::Quit);
            }
        }
        if let Some(p) = died.take() {
            if frames.wait(now.into_std()).is_none() {
                // The notice is on screen: leave.
                return Ok(LoopExit::AgentDied(p));
            }
            died = Some(p);
        }
        if let Some(d) = quit_deadline
            && (now >= d || app.agent_exited() || agent_gone)
        {
            return Ok(LoopExit::Quit);
        }
        // The next instant anything is due: a pending frame, the busy tick, the quit deadline.
        let frame_at = frames.wait(now.into_std()).map(|w| now + w);
        let tick_at = match (app.animating(), last_draw) {
            (true, Some(t)) => Some(t + BUSY_TICK),
            (true, None) => Some(now),
            _ => None,
        };
        let wake = [frame_at, tick_at, quit_deadline]
            .into_iter()
            .flatten()
            .min();
        let agent_running = io.agent.is_some();
        let mut arrived = None;
        tokio::select! {
            biased;
            ev = next_event(&mut term) => match ev {
                Some(Ok(ev)) => {
                    app.set_now(Instant::now().into_std());
                    match ev {
                        TermEvent::Key(k) => app.on_key(k),
                        TermEvent::Paste(s) => app.on_paste(&s),
                        TermEvent::Mouse(m) => app.on_mouse(m),
                        TermEvent::FocusGained => app.on_focus(true),
                        TermEvent::FocusLost => app.on_focus(false),
                        // A resize only needs a frame (ratatui resizes on draw).
                        TermEvent::Resize(..) => {}
                    }
                    frames.request();
                }
                Some(Err(e)) => return Err(e),
                // The terminal is gone: nothing more can be typed.
                None => return Ok(LoopExit::Quit),
            },
            Some(ev) = app.next_event() => arrived = Some(ev),
            p = io.panics.recv() => {
                if let Some(p) = p {
                    app.on_agent_event(panic_notice(&p));
                    frames.request();
                }
            }
            ev = io.agent_events.recv(), if !agent_gone => match ev {
                Some(ev) => {
                    app.set_now(Instant::now().into_std());
                    app.on_agent_event(ev);
                    frames.request();
                }
                None => agent_gone = true,
            },
            r = async {
                match io.agent.as_mut() {
                    Some(h) => h.await,
                    None => std::future::pending().await,
                }
            }, if agent_running => {
                io.agent = None;
                if let Err(e) = r {
                    // The hook's report (sent before unwinding) carries the same panic.
                    let mut p = agent_death(e);
                    while let Ok(r) = io.panics.try_recv() {
                        if r.task == AGENT_TASK {
                            p = r;
                        } else {
                            app.on_agent_event(panic_notice(&r));
                        }
                    }
                    app.on_agent_event(panic_notice(&p));
                    frames.request();
                    died = Some(p);
                } else {
                    agent_gone = true;
                }
            }
            _ = async {
                match shutdown.as_mut() {
                    Some(s) => s.await,
                    None => std::future::pending().await,
                }
            }, if shutdown.is_some() => {
                shutdown = None;
                let _ = io.commands.send(AgentCommand::Shutdown);
                quit_deadline.get_or_insert(Instant::now() + EXIT_WAIT);
            }
            _ = tokio::time::sleep_until(wake.unwrap_or(now)), if wake.is_some() => {
                if app.animating() && tick_at.is_some_and(|t| Instant::now() >= t) {
                    frames.request();
                }
            }
        }
        let done = dispatch(
            app,
            arrived,
            &io.commands,
            screen,
            &mut term,
            reopen,
            &secrets,
        )?;
        if done.any {
            frames.request();
        }
        quit |= done.quit;
        if quit {
            if agent_gone {
                // Without an agent there is nothing to wait for.
                return Ok(LoopExit::Quit);
            }
            quit_deadline.get_or_insert(Instant::now() + EXIT_WAIT);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::i18n::Locale;
    use crate::ui::terminal::panic::tests::{LOCK, RESTORES, count_restore};
    use crate::ui::terminal::panic::{Registration, UI_TASK, named, register};
    use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
    use futures_util::stream::BoxStream;
    use ratatui::Terminal;
    use ratatui::backend::TestBackend;
    use std::sync::atomic::Ordering;
    use tokio::sync::mpsc::{UnboundedSender, unbounded_channel};

    /// A `TestBackend` screen that counts frames and keeps the last one's text.
    struct TestScreen {
        term: Terminal<TestBackend>,
        draws: Vec<Instant>,
        text: String,
        applied: Vec<TermRequest>,
    }

    impl TestScreen {
        fn new() -> Self {
            TestScreen {
                term: Terminal::new(TestBackend::new(100, 30)).unwrap(),
                draws: Vec::new(),
                text: String::new(),
                applied: Vec::new(),
            }
        }
    }

    impl Screen for TestScreen {
        fn draw(&mut self, app: &mut App) -> io::Result<()> {
            let Ok(_) = self.term.draw(|f| app.render(f));
            self.draws.push(Instant::now());
            self.text = crate::ui::snapshot::symbols(self.term.backend().buffer());
            Ok(())
        }

        fn apply(&mut self, request: TermRequest) -> io::Result<()> {
            self.applied.push(request);
            Ok(())
        }
    }

    struct Harness {
        term_tx: UnboundedSender<TermEvent>,
        agent_tx: UnboundedSender<AgentEvent>,
        io: LoopIo<BoxStream<'static, io::Result<TermEvent>>>,
    }

    fn harness(panics: UnboundedReceiver<TaskPanic>) -> Harness {
        let (term_tx, term_rx) = unbounded_channel();
        let (agent_tx, agent_events) = unbounded_channel();
        let (commands, _cmd_rx) = unbounded_channel();
        let term = futures_util::stream::unfold(term_rx, |mut rx| async move {
            rx.recv().await.map(|e| (Ok(e), rx))
        })
        .boxed();
        Harness {
            term_tx,
            agent_tx,
            io: LoopIo {
                term,
                agent_events,
                commands,
                agent: None,
                panics,
                shutdown: None,
                exit_after_first_frame: false,
                reopen: None,
                secrets: vec![],
            },
        }
    }

    fn key(c: char) -> TermEvent {
        TermEvent::Key(KeyEvent::new(KeyCode::Char(c), KeyModifiers::NONE))
    }

    #[tokio::test(start_paused = true)]
    async fn a_thousand_events_in_100ms_draw_at_most_7_frames_and_the_last_state() {
        let (_ptx, prx) = unbounded_channel();
        let h = harness(prx);
        let mut app = App::new(Locale::EnUs, false);
        let mut screen = TestScreen::new();
        let start = Instant::now();
        let tx = h.term_tx.clone();
        let feed = async move {
            for _ in 0..100 {
                for _ in 0..10 {
                    tx.send(key('a')).unwrap();
                }
                tokio::time::sleep(Duration::from_millis(1)).await;
            }
            let last = Instant::now();
            tokio::time::sleep(Duration::from_millis(500)).await;
            drop(tx);
            last
        };
        drop(h.term_tx);
        let (exit, last_event) = tokio::join!(drive(&mut app, h.io, &mut screen), feed);
        assert_eq!(exit.unwrap(), LoopExit::Quit);
        assert_eq!(app.composer().text().chars().count(), 1000);
        let n = screen.draws.len();
        assert!(n <= 7, "{n} draws for 1000 events in 100 ms");
        assert!(n >= 3, "frames kept coming during the burst: {n}");
        for w in screen.draws.windows(2) {
            assert!(
                w[1] - w[0] >= crate::ui::terminal::FRAME,
                "{:?}",
                screen.draws
            );
        }
        let final_frame = *screen.draws.last().unwrap();
        assert!(final_frame >= last_event, "the final state was drawn");
        assert!(final_frame - start < Duration::from_millis(130));
        drop(h.agent_tx);
    }

    #[tokio::test(start_paused = true)]
    async fn an_idle_app_draws_nothing_after_the_first_frame() {
        let (_ptx, prx) = unbounded_channel();
        let h = harness(prx);
        let mut app = App::new(Locale::EnUs, false);
        let mut screen = TestScreen::new();
        let tx = h.term_tx;
        let idle = async move {
            tokio::time::sleep(Duration::from_secs(60)).await;
            drop(tx);
        };
        let (exit, ()) = tokio::join!(drive(&mut app, h.io, &mut screen), idle);
        assert_eq!(exit.unwrap(), LoopExit::Quit);
        assert_eq!(
            screen.draws.len(),
            1,
            "only the first frame in 60 idle seconds"
        );
        drop(h.agent_tx);
    }

    #[tokio::test(start_paused = true)]
    async fn a_busy_app_ticks_the_status_clock_four_times_a_second() {
        let (_ptx, prx) = unbounded_channel();
        let h = harness(prx);
        let mut app = App::new(Locale::EnUs, false);
        let mut screen = TestScreen::new();
        let (tx, agent_tx) = (h.term_tx, h.agent_tx);
        let script = async move {
            agent_tx
                .send(AgentEvent::Phase(
                    crate::agent::protocol::TurnPhase::Waiting,
                ))
                .unwrap();
            tokio::time::sleep(Duration::from_millis(2010)).await;
            agent_tx
                .send(AgentEvent::Phase(crate::agent::protocol::TurnPhase::Idle))
                .unwrap();
            tokio::time::sleep(Duration::from_secs(10)).await;
            drop(tx);
            agent_tx
        };
        let (exit, _keep) = tokio::join!(drive(&mut app, h.io, &mut screen), script);
        assert_eq!(exit.unwrap(), LoopExit::Quit);
        // First frame, the phase change, ~8 ticks in 2 s, the return to idle; then nothing.
        let n = screen.draws.len();
        assert!((9..=12).contains(&n), "{n} draws: {:?}", screen.draws);
    }

    #[tokio::test(start_paused = true)]
    async fn a_panic_in_a_spawned_task_is_a_notice_not_a_terminal_restore() {
        let _l = LOCK.lock().await;
        let (ptx, prx) = unbounded_channel();
        let _g = register(Registration {
            restore: count_restore,
            reports: ptx,
            secrets: vec![],
        });
        let before = RESTORES.load(Ordering::SeqCst);
        let h = harness(prx);
        let mut app = App::new(Locale::EnUs, false);
        let mut screen = TestScreen::new();
        let tx = h.term_tx;
        let script = async move {
            tokio::time::sleep(Duration::from_millis(10)).await;
            // An MCP/tool task on the same thread as the UI (current-thread runtime).
            let _ = tokio::spawn(named("mcp", async { panic!("tool exploded") })).await;
            tokio::time::sleep(Duration::from_millis(100)).await;
            tx.send(key('x')).unwrap();
            tokio::time::sleep(Duration::from_millis(100)).await;
            drop(tx);
        };
        let (exit, ()) = tokio::join!(named(UI_TASK, drive(&mut app, h.io, &mut screen)), script);
        assert_eq!(exit.unwrap(), LoopExit::Quit);
        assert_eq!(
            RESTORES.load(Ordering::SeqCst),
            before,
            "terminal left alone"
        );
        assert!(
            screen.text.contains("Internal error in mcp: tool exploded"),
            "{}",
            screen.text
        );
        assert_eq!(app.composer().text(), "x", "the app kept running");
        drop(h.agent_tx);
    }

    #[tokio::test(start_paused = true)]
    async fn an_agent_task_panic_shows_the_notice_and_asks_for_a_clean_exit() {
        let _l = LOCK.lock().await;
        let (ptx, prx) = unbounded_channel();
        let _g = register(Registration {
            restore: count_restore,
            reports: ptx,
            secrets: vec![crate::secret::ApiKey::new("sk-live-42")],
        });
        let before = RESTORES.load(Ordering::SeqCst);
        let mut h = harness(prx);
        h.io.agent = Some(tokio::spawn(named(AGENT_TASK, async {
            tokio::time::sleep(Duration::from_millis(50)).await;
            panic!("boom with sk-live-42");
        })));
        let mut app = App::new(Locale::EnUs, false);
        let mut screen = TestScreen::new();
        let exit = named(UI_TASK, drive(&mut app, h.io, &mut screen))
            .await
            .unwrap();
        assert_eq!(
            exit,
            LoopExit::AgentDied(TaskPanic {
                task: "agent".into(),
                message: "boom with <redacted>".into()
            })
        );
        assert_eq!(RESTORES.load(Ordering::SeqCst), before);
        assert!(
            screen
                .text
                .contains("Internal error in agent: boom with <redacted>"),
            "the notice was drawn before leaving:\n{}",
            screen.text
        );
        drop((h.term_tx, h.agent_tx));
    }

    #[tokio::test(start_paused = true)]
    async fn focus_events_and_f3_reach_the_screen_and_notify_when_unfocused() {
        let (_ptx, prx) = unbounded_channel();
        let h = harness(prx);
        let mut app = App::new(Locale::EnUs, false);
        app.set_notify(true);
        let mut screen = TestScreen::new();
        let (tx, agent_tx) = (h.term_tx, h.agent_tx);
        let script = async move {
            let step = Duration::from_millis(50);
            // Focused: a finished turn notifies nobody.
            agent_tx.send(AgentEvent::TurnFinished).unwrap();
            tokio::time::sleep(step).await;
            tx.send(TermEvent::FocusLost).unwrap();
            tokio::time::sleep(step).await;
            agent_tx.send(AgentEvent::TurnFinished).unwrap();
            tokio::time::sleep(step).await;
            tx.send(TermEvent::FocusGained).unwrap();
            tokio::time::sleep(step).await;
            agent_tx.send(AgentEvent::TurnFinished).unwrap();
            tokio::time::sleep(step).await;
            tx.send(TermEvent::Key(KeyEvent::new(
                KeyCode::F(3),
                KeyModifiers::NONE,
            )))
            .unwrap();
            tokio::time::sleep(step).await;
            drop(tx);
            agent_tx
        };
        let (exit, _keep) = tokio::join!(drive(&mut app, h.io, &mut screen), script);
        assert_eq!(exit.unwrap(), LoopExit::Quit);
        assert_eq!(
            screen.applied,
            vec![
                TermRequest::Escape("\x1b]9;deepterm: turn finished\x07".into()),
                TermRequest::MouseCapture(true),
            ]
        );
    }
}
