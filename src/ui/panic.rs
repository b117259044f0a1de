//! The UI's panic hook. A panic on the UI thread restores the terminal first, so the
//! message lands on a usable screen. A panic anywhere else (the agent task, a tool or MCP
//! task that tokio catches) leaves the terminal alone — the UI keeps drawing — and is
//! reported to the UI as a [`TaskPanic`], which shows it as an error notice.

use std::panic::PanicHookInfo;
use std::sync::Mutex;
use std::thread::{self, ThreadId};

use tokio::sync::mpsc::{UnboundedReceiver, UnboundedSender, unbounded_channel};

/// A panic on a thread other than the UI thread.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TaskPanic {
    /// The panic message.
    pub message: String,
    /// `file:line` of the panic, when known.
    pub location: String,
}

struct Registration {
    ui: ThreadId,
    reports: UnboundedSender<TaskPanic>,
    restore: fn(),
}

static ACTIVE: Mutex<Option<Registration>> = Mutex::new(None);
static INSTALLED: std::sync::Once = std::sync::Once::new();

fn message_of(info: &PanicHookInfo<'_>) -> String {
    let p = info.payload();
    if let Some(s) = p.downcast_ref::<&str>() {
        (*s).to_string()
    } else if let Some(s) = p.downcast_ref::<String>() {
        s.clone()
    } else {
        "panic".to_string()
    }
}

/// What the hook does for one panic on `thread` while `active` is registered.
enum Action {
    /// No UI is running: the previous hook only.
    Previous,
    /// UI thread: restore the terminal, then the previous hook.
    RestoreThenPrevious(fn()),
    /// Another thread: report to the UI, print nothing over the screen.
    Report(UnboundedSender<TaskPanic>),
}

fn action(thread: ThreadId) -> Action {
    let guard = match ACTIVE.lock() {
        Ok(g) => g,
        Err(poisoned) => poisoned.into_inner(),
    };
    match guard.as_ref() {
        None => Action::Previous,
        Some(r) if r.ui == thread => Action::RestoreThenPrevious(r.restore),
        Some(r) => Action::Report(r.reports.clone()),
    }
}

/// Installs the hook (once per process) and makes the calling thread the UI thread until
/// the returned guard drops. `restore` puts the terminal back (raw mode off, main screen,
/// cursor shown). Panics on other threads arrive on the returned receiver.
pub fn register(restore: fn()) -> (PanicGuard, UnboundedReceiver<TaskPanic>) {
    INSTALLED.call_once(|| {
        let previous = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| match action(thread::current().id()) {
            Action::Previous => previous(info),
            Action::RestoreThenPrevious(restore) => {
                restore();
                previous(info);
            }
            Action::Report(tx) => {
                let report = TaskPanic {
                    message: message_of(info),
                    location: info
                        .location()
                        .map(|l| format!("{}:{}", l.file(), l.line()))
                        .unwrap_or_default(),
                };
                // The UI may be gone already; then the panic is printed after all.
                if tx.send(report).is_err() {
                    previous(info);
                }
            }
        }));
    });
    let (tx, rx) = unbounded_channel();
    let mut guard = match ACTIVE.lock() {
        Ok(g) => g,
        Err(poisoned) => poisoned.into_inner(),
    };
    *guard = Some(Registration {
        ui: thread::current().id(),
        reports: tx,
        restore,
    });
    (PanicGuard(()), rx)
}

/// Ends the UI registration when dropped: later panics behave as without a UI.
#[derive(Debug)]
pub struct PanicGuard(());

impl Drop for PanicGuard {
    fn drop(&mut self) {
        let mut guard = match ACTIVE.lock() {
            Ok(g) => g,
            Err(poisoned) => poisoned.into_inner(),
        };
        *guard = None;
    }
}
