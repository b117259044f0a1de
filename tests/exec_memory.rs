//! `exec` handles stream events as they arrive instead of letting every delta
//! of a turn pile up in the event channel. A counting global allocator measures the peak
//! heap of one in-process `exec` turn whose reply is 4 MB in 16-byte deltas, served by a
//! bare loopback server that holds nothing (`tests/support/bulk_sse.rs`).
//!
//! This binary holds this one test only: the allocator counts the whole process. It runs
//! without the libtest harness (`harness = false` in Cargo.toml): the harness would capture
//! the printed reply in a growing buffer of its own and count it as the client's memory.

use std::path::PathBuf;

use deepterm::agent::exec::run_script;
use deepterm::agent::run::ApprovalMode;
use deepterm::cli::{CliArgs, CliCommand};
use deepterm::config::ApiKey;
use deepterm::i18n::Locale;
use deepterm::startup;

#[path = "support/bulk_sse.rs"]
mod bulk_sse;

#[path = "support/counting_alloc.rs"]
mod counting_alloc;

#[global_allocator]
static GLOBAL: counting_alloc::Counting = counting_alloc::Counting;

const REPLY: usize = 4 << 20;
const DELTA: usize = 16;

fn main() {
    let name = "exec_peak_memory_stays_near_the_reply_size";
    eprintln!("running 1 test");
    // `exec` prints the 4 MiB reply: send it to /dev/null, as the example's command does.
    let _quiet = StdoutToDevNull::new();
    exec_peak_memory_stays_near_the_reply_size();
    eprintln!("test {name} ... ok");
}

/// Points file descriptor 1 at /dev/null until dropped.
struct StdoutToDevNull {
    saved: libc::c_int,
}

impl StdoutToDevNull {
    fn new() -> Self {
        use std::os::fd::AsRawFd;
        let null = std::fs::OpenOptions::new()
            .write(true)
            .open("/dev/null")
            .unwrap();
        // SAFETY: plain descriptor calls on descriptors this process owns; `null` stays open
        // until dup2 has copied it.
        let saved = unsafe { libc::dup(1) };
        assert!(saved >= 0, "dup(1) failed");
        assert!(
            unsafe { libc::dup2(null.as_raw_fd(), 1) } >= 0,
            "dup2 failed"
        );
        StdoutToDevNull { saved }
    }
}

impl Drop for StdoutToDevNull {
    fn drop(&mut self) {
        use std::io::Write;
        let _ = std::io::stdout().flush();
        // SAFETY: restores the descriptor saved in `new`.
        unsafe {
            libc::dup2(self.saved, 1);
            libc::close(self.saved);
        }
    }
}

fn exec_peak_memory_stays_near_the_reply_size() {
    // As `deepterm exec` runs: a multi-threaded runtime, so the HTTP connection feeds the
    // stream from another thread while the agent task parses it.
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    let dir = tempfile::tempdir().unwrap();
    let addr = rt.block_on(bulk_sse::start(REPLY, DELTA));
    let config = dir.path().join("config.toml");
    std::fs::write(
        &config,
        format!(
            "model = \"bulk/deepseek-flash\"\n[providers.bulk]\nkind = \"deepseek-messages\"\n\
             base_url = \"http://{addr}/anthropic\"\napi_key_env = \"DEEPTERM_BULK_UNSET_KEY\"\n\
             [tools.builtin]\nenabled = false\n"
        ),
    )
    .unwrap();
    let args = CliArgs {
        command: CliCommand::Exec {
            script: PathBuf::from("-"),
            prompt: None,
            no_project_files: false,
            approve_all: false,
            json: false,
        },
        config: Some(config),
        model: None,
        base_url: None,
        session_dir: Some(dir.path().join("sessions")),
        resume: None,
        fork: None,
        locale: Some(Locale::EnUs),
        demo: false,
        prompt: None,
    };
    // `allow_demo` only so the unset key variable is not an error; the key is set here.
    let mut setup = startup::setup(&args, true).unwrap();
    setup.demo = false;
    setup.key = Some(ApiKey::new("sk-bulk"));
    let l = deepterm::i18n::Localizer::new(setup.locale);
    let peak = rt.block_on(async {
        let (session, _path, _) = startup::open_session(&setup.session_dir, None, l).unwrap();
        let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel();
        let mut agent =
            startup::build_agent(&setup, session, None, tx, ApprovalMode::DenyAll).unwrap();
        let base = counting_alloc::reset_peak();
        run_script(&mut agent, vec!["Hello".to_string()], &mut rx)
            .await
            .unwrap();
        counting_alloc::peak_above(base)
    });
    // The whole reply arrived (and was logged).
    let sessions: Vec<_> = std::fs::read_dir(dir.path().join("sessions"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    let log = std::fs::read_to_string(&sessions[0]).unwrap();
    let expected_tail: String = (REPLY / DELTA - 3..REPLY / DELTA)
        .map(|i| bulk_sse::delta_text(i, DELTA))
        .collect();
    assert!(
        log.contains(&expected_tail),
        "the reply's end is in the log"
    );
    // Queued deltas cost ~10× the reply (an event of ~100 bytes per 16-byte delta);
    // handled as they arrive, what remains is the assembled text (moved, not copied, into
    // the committed message), the session's surface copy of that message, and one of the
    // JSON log line or the printed answer (never both at once): 3.0× here.
    let ratio = peak as f64 / REPLY as f64;
    eprintln!(
        "peak heap {} KiB for a {} KiB reply ({ratio:.1}×)",
        peak / 1024,
        REPLY / 1024
    );
    assert!(ratio < 3.5, "peak heap {ratio:.1}× the reply size");
}
