//! The loop's environment hooks and the inspector return typed errors now; what users see
//! of them stays the same localized line: `/resume`, `/model` and `/inspect` failures in
//! `exec`, in English and after `/lang zh` in Chinese.

use deepterm::config::Config;
use deepterm::i18n::{Arg, Locale, Localizer};
use deepterm::sim::SimConfig;

use crate::common;

use common::*;

fn framed(l: Localizer, frame: &str, inner: String) -> String {
    l.tra(frame, &[("error", Arg::from(inner))])
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn resume_and_model_failures_show_the_same_localized_lines() {
    let env = TestEnv::new(SimConfig::default()).await;
    let text = routes_config(&env.sim.base_url(), "");
    let cfg = env.write_config("config.toml", &text);
    let config = Config::parse(&text, Some(&cfg)).unwrap();
    let bad_route = config.resolve_route(Some("nope/none")).unwrap_err();
    let out = env
        .exec_ok(
            &cfg,
            "/resume last\n/model nope/none\n/lang zh\n/resume last\n/model nope/none\n",
            &[],
        )
        .await;
    let err = stderr(&out);
    let lines: Vec<&str> = err.lines().collect();
    let (en, zh) = (Localizer::new(Locale::EnUs), Localizer::new(Locale::ZhCn));
    for (l, locale) in [(en, "en-US"), (zh, "zh-CN")] {
        let no_other = framed(l, "cmd-session-failed", l.tr("app-no-other-session"));
        let model = framed(l, "cmd-model-failed", bad_route.localized(l));
        assert!(
            lines.contains(&no_other.as_str()),
            "{locale}: {no_other:?} in\n{err}"
        );
        assert!(
            lines.contains(&model.as_str()),
            "{locale}: {model:?} in\n{err}"
        );
    }
    assert!(
        err.contains("There is no other saved session to resume."),
        "{err}"
    );
    assert!(!err.contains(TEST_KEY), "{err}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn resuming_the_open_session_is_refused_with_the_same_line() {
    let env = TestEnv::new(SimConfig::default()).await;
    let cfg = env.write_config("config.toml", &routes_config(&env.sim.base_url(), ""));
    env.exec_ok(&cfg, "Hello\n", &[]).await;
    let id = env
        .log_path()
        .file_stem()
        .unwrap()
        .to_string_lossy()
        .into_owned();
    let out = env
        .exec_ok(&cfg, &format!("/resume {id}\n"), &["--resume", &id])
        .await;
    let en = Localizer::new(Locale::EnUs);
    let want = framed(en, "cmd-session-failed", en.tr("app-session-already-open"));
    assert!(
        stderr(&out).lines().any(|l| l == want),
        "{want:?} in\n{}",
        stderr(&out)
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn inspecting_a_request_that_does_not_exist_shows_the_same_line() {
    let env = TestEnv::new(SimConfig::default()).await;
    let cfg = env.write_config("config.toml", &routes_config(&env.sim.base_url(), ""));
    let out = env.exec_ok(&cfg, "Hello\n/inspect 2\n", &[]).await;
    let en = Localizer::new(Locale::EnUs);
    let want = framed(en, "tui-inspector-failed", "no request #2".to_string());
    assert_eq!(want, "Cannot inspect the request: no request #2");
    assert!(
        stderr(&out).lines().any(|l| l == want),
        "{want:?} in\n{}",
        stderr(&out)
    );
}

/// the TUI's bare `/resume` opens the picker, but `exec` keeps printing the list.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn exec_bare_resume_still_prints_the_session_list() {
    let env = TestEnv::new(SimConfig::default()).await;
    let cfg = env.write_config("config.toml", &routes_config(&env.sim.base_url(), ""));
    env.exec_ok(&cfg, "Hello from the first session\n", &[])
        .await;
    let out = env.exec_ok(&cfg, "/resume\n", &[]).await;
    let text = stdout(&out);
    let en = Localizer::new(Locale::EnUs);
    assert!(text.contains(&en.tr("cmd-resume-title")), "{text}");
    assert!(text.contains("Hello from the first session"), "{text}");
}
