//! Folder trust for `exec` (SPEC §15.4): `exec` trusts the folder it runs in, so its
//! `AGENTS.md`, project commands and project rules are loaded; `--no-project-files` leaves
//! them out, and `/instructions` lists the skipped `AGENTS.md`.

use crate::common::*;

use deepterm::sim::SimConfig;

/// A workspace with an `AGENTS.md`, a project command and a project rule.
fn project(dir: &std::path::Path) -> std::path::PathBuf {
    let ws = dir.join("ws");
    std::fs::create_dir_all(ws.join(".deepterm/commands")).unwrap();
    std::fs::write(ws.join("AGENTS.md"), "Project rule: answer in haiku.").unwrap();
    std::fs::write(
        ws.join(".deepterm/commands/greet.md"),
        "Say hello to the project GREET-MARKER.\n",
    )
    .unwrap();
    ws.canonicalize().unwrap()
}

/// Runs `/instructions` then the project command `/greet`; the last request's system
/// prompt, stdout and stderr, and whether exec succeeded.
async fn run(env: &TestEnv, ws: &std::path::Path, extra: &[&str]) -> (String, String, bool) {
    let cfg = env.config_builder().write(env.dir.path());
    let out = env
        .exec_command(&cfg, "/instructions\n/greet\n")
        .args(extra)
        .env(KEY_VAR, TEST_KEY)
        .env("HOME", env.dir.path())
        .env("XDG_CONFIG_HOME", env.dir.path().join("xdg"))
        .current_dir(ws)
        .output()
        .await
        .unwrap();
    let system = env
        .sim
        .requests()
        .last()
        .and_then(|r| r.effective_system.clone())
        .unwrap_or_default();
    let ok = out.status.success();
    (system, format!("{}{}", stdout(&out), stderr(&out)), ok)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn exec_loads_the_project_files_of_the_folder_it_runs_in() {
    let env = TestEnv::new(SimConfig::default()).await;
    let ws = project(env.dir.path());
    let (system, out, ok) = run(&env, &ws, &[]).await;
    assert!(ok, "{out}");
    assert!(system.contains("answer in haiku"), "{system}");
    let body = env.sim.requests()[0].body.to_string();
    assert!(
        body.contains("GREET-MARKER"),
        "the project command ran: {body}"
    );
    assert!(!out.contains("Skipped"), "{out}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn no_project_files_leaves_them_out_and_instructions_lists_the_skipped_file() {
    let env = TestEnv::new(SimConfig::default()).await;
    let ws = project(env.dir.path());
    let (system, out, _) = run(&env, &ws, &["--no-project-files"]).await;
    assert!(!system.contains("answer in haiku"), "{system}");
    for r in env.sim.requests() {
        assert!(!r.body.to_string().contains("GREET-MARKER"), "{}", r.body);
    }
    for file in ["AGENTS.md", ".deepterm/commands"] {
        let skipped = ws.join(file).display().to_string();
        assert!(
            out.contains(&format!("Skipped, the folder is not trusted: {skipped}")),
            "{file}: {out}"
        );
    }
}
