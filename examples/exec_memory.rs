//! Peak heap memory of one `exec` turn whose reply is large and arrives in tiny deltas
//! (a 40 MB reply in 16-byte deltas once peaked at 639 MB). The turn runs in
//! process exactly as `deepterm exec` runs it (`startup::setup`, `startup::build_agent`,
//! `exec::run_script`) against a bare loopback server that generates the stream as it
//! writes it (`tests/support/bulk_sse.rs`), so the counting global allocator sees the
//! client's memory. The peak is of live heap bytes above the baseline taken just before the
//! turn starts; the reply is printed to stdout, so redirect it.
//!
//! Run: `cargo run --release --example exec_memory -- [MiB] [delta bytes] > /dev/null`
//! (defaults: 40 MiB, 16 bytes).

use std::path::PathBuf;

use deepterm::agent::exec::run_script;
use deepterm::agent::run::ApprovalMode;
use deepterm::cli::{CliArgs, CliCommand};
use deepterm::config::ApiKey;
use deepterm::i18n::{Locale, Localizer};
use deepterm::startup;

#[path = "../tests/support/bulk_sse.rs"]
mod bulk_sse;

#[path = "../tests/support/counting_alloc.rs"]
mod counting_alloc;

#[global_allocator]
static GLOBAL: counting_alloc::Counting = counting_alloc::Counting;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut argv = std::env::args().skip(1);
    let mib: usize = argv.next().map(|a| a.parse()).transpose()?.unwrap_or(40);
    let delta: usize = argv.next().map(|a| a.parse()).transpose()?.unwrap_or(16);
    let total = mib << 20;
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()?;
    let dir = tempfile::tempdir()?;
    let addr = rt.block_on(bulk_sse::start(total, delta));
    let config = dir.path().join("config.toml");
    std::fs::write(
        &config,
        format!(
            "model = \"bulk/deepseek-flash\"\n[providers.bulk]\nkind = \"deepseek-messages\"\n\
             base_url = \"http://{addr}/anthropic\"\napi_key_env = \"DEEPTERM_BULK_UNSET_KEY\"\n\
             [tools.builtin]\nenabled = false\n"
        ),
    )?;
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
    let mut setup = startup::setup(&args, true).map_err(|e| e.0)?;
    setup.demo = false;
    setup.key = Some(ApiKey::new("sk-bulk"));
    let l = Localizer::new(setup.locale);
    let started = std::time::Instant::now();
    let peak = rt.block_on(async {
        let (session, _, _) =
            startup::open_session(&setup.session_dir, None, l).map_err(|e| e.0)?;
        let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel();
        let mut agent = startup::build_agent(&setup, session, None, tx, ApprovalMode::DenyAll)
            .map_err(|e| e.0)?;
        let base = counting_alloc::reset_peak();
        run_script(&mut agent, vec!["Hello".to_string()], &mut rx).await?;
        Ok::<usize, String>(counting_alloc::peak_above(base))
    })?;
    eprintln!(
        "reply {mib} MiB in {delta}-byte deltas ({} deltas), {:.1} s: peak heap {:.1} MiB ({:.2}× the reply)",
        total / delta,
        started.elapsed().as_secs_f64(),
        peak as f64 / (1 << 20) as f64,
        peak as f64 / total as f64
    );
    Ok(())
}
