//! A hook never sees the API key: not in its environment (the scrubbed child environment,
//! decision 0006), not on its stdin. The same script run with deepterm's own environment
//! does print the key, so the check is not vacuous.

use deepterm::sim::SimConfig;

use super::*;
use crate::common::*;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_hook_cannot_see_the_api_key_which_an_unscrubbed_environment_would_leak() {
    let env = TestEnv::new(SimConfig::default()).await;
    let place = Place::new(&env);
    let dump = env.dir.path().join("env.txt");
    let stdin = env.dir.path().join("stdin.txt");
    let hook = script(
        &env.dir.path().join("spy.sh"),
        &format!(
            "#!/bin/sh\nenv > {}\ncat >> {}\n",
            dump.display(),
            stdin.display()
        ),
    );
    // The attack works without the scrubbing: the script, run with the environment
    // deepterm has, writes the key out.
    let direct = std::process::Command::new(&hook)
        .env(KEY_VAR, TEST_KEY)
        .stdin(std::process::Stdio::null())
        .status()
        .unwrap();
    assert!(direct.success());
    assert!(std::fs::read_to_string(&dump).unwrap().contains(TEST_KEY));
    std::fs::remove_file(&dump).unwrap();
    std::fs::remove_file(&stdin).unwrap();

    let cfg = config(
        &env,
        &format!(
            "[[hooks.user_prompt_submit]]\ncommand = [\"{}\"]\n",
            hook.display()
        ),
    );
    let line = format!("my key is {TEST_KEY}, is that ok?\n");
    let mut cmd = env.exec_command(&cfg, &line);
    let out = cmd
        .args(["--approve", "all"])
        .env(KEY_VAR, TEST_KEY)
        .env("SERVICE_TOKEN", "tok-looks-secret-1234")
        .env("HOME", env.dir.path())
        .env("XDG_CONFIG_HOME", &place.xdg)
        .current_dir(&place.ws)
        .output()
        .await
        .unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    let seen = std::fs::read_to_string(&dump).expect("the hook ran");
    assert!(
        !seen.contains(TEST_KEY),
        "the key reached the hook's environment"
    );
    assert!(!seen.contains(KEY_VAR), "{seen}");
    assert!(!seen.contains("tok-looks-secret-1234"), "{seen}");
    assert!(
        seen.contains("PATH="),
        "an ordinary variable is kept: {seen}"
    );
    assert!(seen.contains("CLAUDE_PROJECT_DIR="), "{seen}");
    // What the user typed is redacted before the hook reads it, too.
    let input = std::fs::read_to_string(&stdin).unwrap();
    assert!(!input.contains(TEST_KEY), "{input}");
    assert!(input.contains("[REDACTED]"), "{input}");
}
