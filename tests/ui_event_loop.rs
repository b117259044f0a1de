//! The one UI event loop (issue 11, item 7): redraws coalesced to at most 60 per second,
//! no frames while idle, nothing typed is lost, a panic in another task becomes a notice
//! without touching the terminal, and the agent task's death ends the UI cleanly.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use crossterm::event::{Event as TermEvent, KeyCode, KeyEvent, KeyModifiers};
use deepterm::agent::protocol::{AgentCommand, AgentEvent};
use deepterm::i18n::Locale;
use deepterm::secret::ApiKey;
use deepterm::ui::App;
use deepterm::ui::event_loop::{LoopIo, UiExit, drive};
use deepterm::ui::snapshot::symbols;
use futures_util::Stream;
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use tokio::sync::mpsc::{UnboundedSender, unbounded_channel};

type Input = UnboundedSender<std::io::Result<TermEvent>>;

struct Harness {
    input: Input,
    events: UnboundedSender<AgentEvent>,
    commands: tokio::sync::mpsc::UnboundedReceiver<AgentCommand>,
}

fn io(
    agent: Option<tokio::task::JoinHandle<()>>,
    panics: Option<tokio::sync::mpsc::UnboundedReceiver<deepterm::ui::panic::TaskPanic>>,
    secret: Option<ApiKey>,
) -> (
    LoopIo<impl Stream<Item = std::io::Result<TermEvent>> + Unpin>,
    Harness,
) {
    let (in_tx, mut in_rx) = unbounded_channel();
    let in_rx = futures_util::stream::poll_fn(move |cx| in_rx.poll_recv(cx));
    let (ev_tx, ev_rx) = unbounded_channel();
    let (cmd_tx, cmd_rx) = unbounded_channel();
    let panics = panics.unwrap_or_else(|| unbounded_channel().1);
    (
        LoopIo {
            input: in_rx,
            events: ev_rx,
            agent,
            commands: cmd_tx,
            panics,
            secret,
            exit_after_first_frame: false,
        },
        Harness {
            input: in_tx,
            events: ev_tx,
            commands: cmd_rx,
        },
    )
}

fn key(c: char) -> std::io::Result<TermEvent> {
    Ok(TermEvent::Key(KeyEvent::new(
        KeyCode::Char(c),
        KeyModifiers::NONE,
    )))
}

#[tokio::test(start_paused = true)]
async fn a_burst_of_1000_keys_in_100ms_costs_at_most_7_frames_and_loses_nothing() {
    let mut app = App::new(Locale::EnUs, false);
    let mut term = Terminal::new(TestBackend::new(80, 24)).unwrap();
    let (io, h) = io(None, None, None);
    let input = h.input.clone();
    let typist = tokio::spawn(async move {
        for i in 0..1000 {
            input.send(key('a')).unwrap();
            if i % 10 == 9 {
                tokio::time::sleep(Duration::from_millis(1)).await;
            }
        }
        // Input ends: the loop leaves.
    });
    drop(h.input);
    let end = drive(&mut app, &mut term, io).await.unwrap();
    typist.await.unwrap();
    assert_eq!(end.exit, UiExit::Quit);
    // The first frame, then at most one per 16.7 ms over 100 ms.
    assert!(
        end.frames <= 8,
        "1000 keys over 100 ms drew {} frames",
        end.frames
    );
    assert!(end.frames >= 2, "the burst was never drawn");
    assert_eq!(app.composer().text(), "a".repeat(1000));
    drop(h.events);
    drop(h.commands);
}

#[tokio::test(start_paused = true)]
async fn an_idle_app_draws_only_its_first_frame() {
    let mut app = App::new(Locale::EnUs, false);
    let mut term = Terminal::new(TestBackend::new(80, 24)).unwrap();
    let (io, h) = io(None, None, None);
    let input = h.input;
    let closer = tokio::spawn(async move {
        // A minute of nothing, then the terminal goes away.
        tokio::time::sleep(Duration::from_secs(60)).await;
        drop(input);
    });
    let end = drive(&mut app, &mut term, io).await.unwrap();
    closer.await.unwrap();
    assert_eq!(end.frames, 1);
    drop(h.events);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_agent_task_dying_shows_a_notice_then_exits_on_a_key_with_the_key_scrubbed() {
    let mut app = App::new(Locale::EnUs, false);
    let mut term = Terminal::new(TestBackend::new(100, 24)).unwrap();
    let agent = tokio::spawn(async {
        tokio::time::sleep(Duration::from_millis(20)).await;
        panic!("agent exploded near sk-live-123");
    });
    let (io, h) = io(Some(agent), None, Some(ApiKey::new("sk-live-123")));
    let input = h.input.clone();
    let events = h.events;
    let ui = async {
        let end = drive(&mut app, &mut term, io).await.unwrap();
        (end, symbols(term.backend().buffer()))
    };
    let presser = async move {
        // Wait until the notice is up, then press a key.
        tokio::time::sleep(Duration::from_millis(400)).await;
        input.send(key('x')).unwrap();
    };
    let ((end, screen), ()) = tokio::join!(ui, presser);
    drop(events);
    match &end.exit {
        UiExit::AgentDied(msg) => {
            assert!(msg.contains("agent exploded"), "{msg}");
            assert!(!msg.contains("sk-live-123"), "key leaked: {msg}");
        }
        other => panic!("expected AgentDied, got {other:?}"),
    }
    assert!(
        screen.contains("The agent stopped after an internal error"),
        "{screen}"
    );
    assert!(!screen.contains("sk-live-123"));
}

static RESTORES: AtomicUsize = AtomicUsize::new(0);

fn count_restore() {
    RESTORES.fetch_add(1, Ordering::SeqCst);
}

#[test]
fn only_a_ui_thread_panic_restores_the_terminal_and_other_panics_become_notices() {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    // This thread is the UI thread, as `block_on` makes it in the binary.
    let (guard, panics) = deepterm::ui::panic::register(count_restore);
    rt.block_on(async {
        let mut app = App::new(Locale::EnUs, false);
        let mut term = Terminal::new(TestBackend::new(120, 24)).unwrap();
        let (io, h) = io(None, Some(panics), None);
        let input = h.input;
        let task = tokio::spawn(async { panic!("tool task broke") });
        let worker_result = task.await;
        assert!(worker_result.is_err_and(|e| e.is_panic()));
        let closer = tokio::spawn(async move {
            tokio::time::sleep(Duration::from_millis(200)).await;
            drop(input);
        });
        let end = drive(&mut app, &mut term, io).await.unwrap();
        closer.await.unwrap();
        assert_eq!(end.exit, UiExit::Quit, "the app keeps running");
        let screen = symbols(term.backend().buffer());
        assert!(
            screen.contains("Internal error in a background task: tool task broke"),
            "{screen}"
        );
        drop(h.events);
    });
    assert_eq!(
        RESTORES.load(Ordering::SeqCst),
        0,
        "a worker-thread panic must not restore the terminal"
    );
    // A panic on the UI thread itself restores it first.
    let r = std::panic::catch_unwind(|| panic!("ui broke"));
    assert!(r.is_err());
    assert_eq!(RESTORES.load(Ordering::SeqCst), 1);
    // Without a UI, nothing is restored.
    drop(guard);
    let r = std::panic::catch_unwind(|| panic!("after the ui"));
    assert!(r.is_err());
    assert_eq!(RESTORES.load(Ordering::SeqCst), 1);
}
