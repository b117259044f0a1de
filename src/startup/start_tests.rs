//! What start-up refuses and says before the loop runs: unknown routes (from the command
//! line or the config) and what demo mode leaves out of the command line (decision 0038).

use std::path::{Path, PathBuf};

use super::setup;
use crate::cli::{CliArgs, CliCommand};
use crate::i18n::{Locale, Localizer};

const CONFIG: &str = "model = \"p/deepseek-flash\"\n[providers.p]\nkind = \"deepseek-messages\"\n\
base_url = \"http://127.0.0.1:9/anthropic\"\napi_key_env = \"DEEPTERM_START_TESTS_UNSET_KEY\"\n";

fn args(config: &Path) -> CliArgs {
    CliArgs {
        command: CliCommand::Tui,
        config: Some(config.to_path_buf()),
        model: None,
        base_url: None,
        session_dir: Some(PathBuf::from("/nonexistent-sessions")),
        resume: None,
        fork: None,
        locale: Some(Locale::EnUs),
        demo: false,
        prompt: None,
    }
}

fn write(dir: &Path, text: &str) -> PathBuf {
    let p = dir.join("config.toml");
    std::fs::write(&p, text).unwrap();
    p
}

#[test]
fn a_misspelled_model_flag_is_refused_naming_the_known_routes() {
    let dir = tempfile::tempdir().unwrap();
    let mut a = args(&write(dir.path(), CONFIG));
    a.model = Some("p/deepseek-flsh".into());
    let err = setup(&a, true).err().expect("refused").0;
    assert!(err.contains("“p/deepseek-flsh”"), "{err}");
    assert!(err.contains("p/deepseek-flash, "), "{err}");
    assert!(err.contains("p/deepseek-v4-pro"), "{err}");
}

#[test]
fn a_misspelled_model_in_the_config_is_refused_naming_the_file_and_the_known_routes() {
    let dir = tempfile::tempdir().unwrap();
    let cfg = write(dir.path(), &CONFIG.replace("p/deepseek-flash", "p/flsh"));
    let mut a = args(&cfg);
    a.locale = Some(Locale::ZhCn);
    let err = setup(&a, true).err().expect("refused").0;
    assert!(err.contains(&cfg.display().to_string()), "{err}");
    assert!(err.contains("model = “p/flsh”"), "{err}");
    assert!(err.contains("p/deepseek-flash"), "{err}");
    assert!(err.contains("已知路由"), "localized: {err}");
}

#[test]
fn a_route_the_config_lists_is_accepted() {
    let dir = tempfile::tempdir().unwrap();
    let cfg = write(
        dir.path(),
        &format!("{CONFIG}[[providers.p.models]]\nid = \"house-model\"\n"),
    );
    let mut a = args(&cfg);
    a.model = Some("p/house-model".into());
    let s = setup(&a, true).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(s.route.id(), "p/house-model");
}

#[test]
fn demo_mode_without_a_key_says_the_model_and_base_url_flags_are_not_used() {
    let dir = tempfile::tempdir().unwrap();
    let mut a = args(&write(dir.path(), CONFIG));
    a.model = Some("p/deepseek-v4-pro".into());
    a.base_url = Some("http://127.0.0.1:1".into());
    let s = setup(&a, true).unwrap_or_else(|e| panic!("{e}"));
    assert!(s.demo);
    let n = s.demo_notice.expect("a notice");
    let text = Localizer::new(Locale::EnUs).tra_owned(&n.key, &n.args);
    assert!(text.contains("DEEPTERM_START_TESTS_UNSET_KEY"), "{text}");
    assert!(text.contains("--model --base-url"), "{text}");
    assert!(text.contains("p/deepseek-v4-pro"), "{text}");
}

#[test]
fn demo_mode_says_nothing_when_no_flag_is_left_out() {
    let dir = tempfile::tempdir().unwrap();
    let cfg = write(dir.path(), CONFIG);
    // No key and no flag: the demo banner says it all.
    assert!(
        setup(&args(&cfg), true)
            .unwrap_or_else(|e| panic!("{e}"))
            .demo_notice
            .is_none()
    );
    // `--demo --model` picks the simulated route's kind: the model is used.
    let mut a = args(&cfg);
    a.demo = true;
    a.model = Some("p/deepseek-v4-pro".into());
    assert!(
        setup(&a, true)
            .unwrap_or_else(|e| panic!("{e}"))
            .demo_notice
            .is_none()
    );
    // `--demo --base-url`: the URL is not.
    a.base_url = Some("http://127.0.0.1:1".into());
    let n = setup(&a, true)
        .unwrap_or_else(|e| panic!("{e}"))
        .demo_notice
        .expect("a notice");
    assert_eq!(n.key, "app-demo-ignores");
}
