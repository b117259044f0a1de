//! Panic routing for the terminal UI: a panic on the UI task restores the
//! terminal before the default hook prints it; a panic in any other task (the agent loop, a
//! tool or MCP task) leaves the terminal alone and becomes a [`TaskPanic`] report that the
//! event loop shows as a localized notice.
//!
//! Tasks are told apart by a tokio task-local name ([`named`]), not by thread: with a
//! current-thread runtime every task shares one thread, and tokio catches panics in spawned
//! tasks, so restoring on "any panic" would leave the UI drawing into a cooked terminal.

use std::any::Any;
use std::future::Future;
use std::panic::PanicHookInfo;
use std::sync::{Mutex, MutexGuard, Once};

use tokio::sync::mpsc::UnboundedSender;

use crate::secret::ApiKey;

/// Task-local name of the UI task.
pub const UI_TASK: &str = "ui";
/// Task-local name of the agent loop task.
pub const AGENT_TASK: &str = "agent";
/// Longest panic message kept in a notice (characters).
const MAX_MESSAGE_CHARS: usize = 500;

tokio::task_local! {
    static TASK: &'static str;
}

/// Runs `fut` as the task called `name` (what a panic notice shows as its task).
pub fn named<F: Future>(name: &'static str, fut: F) -> impl Future<Output = F::Output> {
    TASK.scope(name, fut)
}

/// A panic in a task other than the UI, for the notice.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TaskPanic {
    /// The task's name ([`named`]), else its thread's name.
    pub task: String,
    /// The panic message on one line, with API keys scrubbed.
    pub message: String,
}

/// What the hook needs while a UI owns the terminal.
pub struct Registration {
    /// Leaves raw mode and the alternate screen (injectable for tests).
    pub restore: fn(),
    /// Where reports of non-UI panics go.
    pub reports: UnboundedSender<TaskPanic>,
    /// Keys to scrub from panic messages.
    pub secrets: Vec<ApiKey>,
}

static ACTIVE: Mutex<Option<Registration>> = Mutex::new(None);
static INSTALL: Once = Once::new();

fn active() -> MutexGuard<'static, Option<Registration>> {
    ACTIVE.lock().unwrap_or_else(|e| e.into_inner())
}

/// Clears the registration when dropped.
pub struct RegistrationGuard(());

impl Drop for RegistrationGuard {
    fn drop(&mut self) {
        *active() = None;
    }
}

/// Installs the routing hook once (chaining to the previous hook) and registers the UI.
pub fn register(reg: Registration) -> RegistrationGuard {
    INSTALL.call_once(|| {
        let previous = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            if route(info) {
                previous(info);
            }
        }));
    });
    *active() = Some(reg);
    RegistrationGuard(())
}

/// Handles one panic; returns whether the previous hook should still print it.
fn route(info: &PanicHookInfo<'_>) -> bool {
    let task = TASK.try_with(|t| *t).ok();
    let guard = active();
    let Some(reg) = guard.as_ref() else {
        return true;
    };
    if task == Some(UI_TASK) {
        // Restore first so the message lands on a usable screen.
        (reg.restore)();
        return true;
    }
    let task = task
        .map(str::to_string)
        .or_else(|| std::thread::current().name().map(str::to_string))
        .unwrap_or_else(|| "?".to_string());
    let message = clean_message(&payload_message(info.payload()), &reg.secrets);
    let location = info
        .location()
        .map(|l| format!("{}:{}", l.file(), l.line()))
        .unwrap_or_default();
    tracing::error!(task = %task, location = %location, "task panicked: {message}");
    // Printing would write over the alternate screen; the notice shows it instead.
    let _ = reg.reports.send(TaskPanic { task, message });
    false
}

/// The text of a panic payload (`&str` or `String`; anything else is "Box<dyn Any>").
pub fn payload_message(payload: &(dyn Any + Send)) -> String {
    if let Some(s) = payload.downcast_ref::<&str>() {
        (*s).to_string()
    } else if let Some(s) = payload.downcast_ref::<String>() {
        s.clone()
    } else {
        "Box<dyn Any>".to_string()
    }
}

/// One line, capped, with every registered key replaced by `<redacted>`.
pub fn clean_message(message: &str, secrets: &[ApiKey]) -> String {
    let mut m = message.split_whitespace().collect::<Vec<_>>().join(" ");
    for k in secrets {
        m = k.scrub(&m);
    }
    if m.chars().count() > MAX_MESSAGE_CHARS {
        m = m.chars().take(MAX_MESSAGE_CHARS).collect::<String>() + "…";
    }
    m
}

/// Scrubs `message` with the registered keys (for a panic seen through a `JoinError`).
pub fn scrub_registered(message: &str) -> String {
    let secrets = active()
        .as_ref()
        .map(|r| r.secrets.clone())
        .unwrap_or_default();
    clean_message(message, &secrets)
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use std::sync::atomic::{AtomicUsize, Ordering};

    /// Serializes tests that register (the hook and registration are process-wide).
    pub(crate) static LOCK: tokio::sync::Mutex<()> = tokio::sync::Mutex::const_new(());
    /// Calls of [`count_restore`].
    pub(crate) static RESTORES: AtomicUsize = AtomicUsize::new(0);

    /// A restore function that only counts.
    pub(crate) fn count_restore() {
        RESTORES.fetch_add(1, Ordering::SeqCst);
    }

    #[test]
    fn a_ui_task_panic_restores_the_terminal_and_sends_no_report() {
        let _l = LOCK.blocking_lock();
        let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel();
        let _g = register(Registration {
            restore: count_restore,
            reports: tx,
            secrets: vec![],
        });
        let before = RESTORES.load(Ordering::SeqCst);
        let rt = tokio::runtime::Builder::new_current_thread()
            .build()
            .unwrap();
        let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            rt.block_on(named(UI_TASK, async { panic!("ui bug") }))
        }));
        assert!(r.is_err());
        assert_eq!(RESTORES.load(Ordering::SeqCst), before + 1);
        assert!(rx.try_recv().is_err(), "a UI panic is not a notice");
    }

    #[test]
    fn another_tasks_panic_is_reported_scrubbed_without_restoring_the_terminal() {
        let _l = LOCK.blocking_lock();
        let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel();
        let _g = register(Registration {
            restore: count_restore,
            reports: tx,
            secrets: vec![ApiKey::new("sk-secret-123")],
        });
        let before = RESTORES.load(Ordering::SeqCst);
        let rt = tokio::runtime::Builder::new_current_thread()
            .build()
            .unwrap();
        // Same thread as a UI would be on: only the task name tells them apart.
        let joined = rt.block_on(named(UI_TASK, async {
            tokio::spawn(named("mcp", async {
                panic!("tool\nexploded with sk-secret-123")
            }))
            .await
        }));
        assert!(joined.is_err());
        assert_eq!(RESTORES.load(Ordering::SeqCst), before);
        let report = rx.try_recv().unwrap();
        assert_eq!(report.task, "mcp");
        assert_eq!(report.message, "tool exploded with <redacted>");
    }
}
