//! configuration: misspelt keys and missing instruction files are shown,
//! `base_url` is checked at load time, `/lang` writes through a symlinked config and keeps
//! its mode, and a duplicate TOML key error names the key (decision 0005).

use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};

use deepterm::config::{Config, ConfigError, ConfigWarning, save_locale};
use deepterm::i18n::{Locale, Localizer};
use deepterm::sim::SimConfig;

use crate::common;

use common::*;

const EN: Localizer = Localizer {
    locale: Locale::EnUs,
};
const ZH: Localizer = Localizer {
    locale: Locale::ZhCn,
};

fn parse(text: &str) -> Result<Config, ConfigError> {
    Config::parse_in(text, Some(Path::new("/cfg/deepterm.toml")), Path::new("/"))
}

// ------------------------------------------------------------------ warnings

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn exec_warns_about_misspelt_keys_and_missing_instructions() {
    let env = TestEnv::new(SimConfig::default()).await;
    let text = format!(
        "modle = \"ds/deepseek-v4-pro\"\n{}",
        routes_config(
            &env.sim.base_url(),
            "[instructions]\nfiles = [\"no-such-rules.md\"]\n"
        )
    )
    .replacen(
        "[providers.oai]\n",
        "[providers.oai]\nbsae_url = \"x\"\n",
        1,
    );
    let cfg = env.write_config("config.toml", &text);
    let out = env.exec(&cfg, "Hello\n", &[]).await;
    let err = stderr(&out);
    assert!(out.status.success(), "{err}");
    assert!(stdout(&out).contains("> Hello"), "{}", stdout(&out));
    let file = cfg.display().to_string();
    let line = |needle: &str| -> String {
        err.lines()
            .find(|l| l.contains(needle))
            .unwrap_or_else(|| panic!("no line with {needle} in:\n{err}"))
            .to_string()
    };
    let modle = line("`modle`");
    assert!(modle.starts_with(&format!("{file}: ")), "{modle}");
    assert!(modle.contains("did you mean `model`?"), "{modle}");
    let bsae = line("`providers.oai.bsae_url`");
    assert!(bsae.starts_with(&file), "{bsae}");
    assert!(
        bsae.contains("did you mean `providers.oai.base_url`?"),
        "{bsae}"
    );
    let missing = line("no-such-rules.md");
    assert!(missing.starts_with(&file), "{missing}");
    assert!(missing.contains("`instructions.files[0]`"), "{missing}");
}

#[test]
fn unknown_keys_at_every_level_with_suggestions() {
    let c = parse(
        r#"
modle = "x"
[providers.p]
kind = "openai-chat"
base_url = "https://example.com"
api_key_env = "K"
api_key = "oops"
[[providers.p.models]]
id = "m"
context_windw = 5
[instructions]
txt = "hi"
[mcp]
server = 1
[mcp.servers.s]
command = "c"
time_out_secs = 3
env_passthrough = ["A_TOKEN"]
[tools.command.t]
description = "d"
command = ["true"]
Enabled = false
env_passthrough = ["B_TOKEN"]
[tools.builtin]
enable = true
[limits]
max_event_bytes = 1
max_reply_byte = 2
no_progress_timeout_secs = 3
"#,
    )
    .unwrap();
    let got: Vec<(String, Option<String>)> = c
        .warnings
        .iter()
        .map(|w| match w {
            ConfigWarning::UnknownKey {
                key,
                suggestion,
                file,
            } => {
                assert_eq!(file.as_deref(), Some(Path::new("/cfg/deepterm.toml")));
                (key.clone(), suggestion.clone())
            }
            other => panic!("{other:?}"),
        })
        .collect();
    let want = [
        (
            "providers.p.models[0].context_windw",
            Some("providers.p.models[0].context_window"),
        ),
        ("providers.p.api_key", None),
        ("instructions.txt", Some("instructions.text")),
        (
            "mcp.servers.s.time_out_secs",
            Some("mcp.servers.s.timeout_secs"),
        ),
        ("mcp.server", Some("mcp.servers")),
        ("tools.command.t.Enabled", Some("tools.command.t.enabled")),
        ("tools.builtin.enable", Some("tools.builtin.enabled")),
        ("limits.max_reply_byte", Some("limits.max_reply_bytes")),
        ("modle", Some("model")),
    ];
    let want: Vec<(String, Option<String>)> = want
        .iter()
        .map(|(k, s)| (k.to_string(), s.map(str::to_string)))
        .collect();
    assert_eq!(got, want);
    // Keys other features read (`env_passthrough`, `[limits]`) are not flagged.
    assert!(!got.iter().any(|(k, _)| k.contains("env_passthrough")));
    // Both languages name the file, the key and the suggestion.
    let modle = c.warnings.last().unwrap();
    assert_eq!(
        modle.localized(EN),
        "/cfg/deepterm.toml: ignoring unknown config key `modle`; did you mean `model`?"
    );
    assert_eq!(
        modle.localized(ZH),
        "/cfg/deepterm.toml：已忽略未知的配置项 `modle`；你是不是想写 `model`？"
    );
    let api_key = &c.warnings[1];
    assert_eq!(
        api_key.localized(EN),
        "/cfg/deepterm.toml: ignoring unknown config key `providers.p.api_key`."
    );
}

#[test]
fn far_off_keys_get_no_suggestion() {
    let c = parse("colour = 1\nmdl = 2\nxyzzy = 3\n").unwrap();
    let s: Vec<_> = c
        .warnings
        .iter()
        .map(|w| match w {
            ConfigWarning::UnknownKey { suggestion, .. } => suggestion.clone(),
            other => panic!("{other:?}"),
        })
        .collect();
    assert_eq!(s, [None, None, None]);
}

// ------------------------------------------------------------------ base_url

#[test]
fn base_url_must_be_an_http_url() {
    for bad in [
        "htp//api.example.com",
        "api.example.com",
        "ftp://api.example.com",
        "http://",
        "https:// spaces .com",
        "file:///etc/passwd",
    ] {
        let text = format!(
            "[providers.p]\nkind = \"openai-chat\"\nbase_url = {bad:?}\napi_key_env = \"K\"\n"
        );
        let e = parse(&text).unwrap_err();
        let msg = e.localized(EN);
        assert_eq!(
            msg,
            format!(
                "/cfg/deepterm.toml: `providers.p.base_url` must be an http:// or https:// URL \
                 with a host, for example \"https://api.deepseek.com\" (found \"{bad}\")"
            ),
            "{bad}"
        );
        assert!(e.localized(ZH).contains("`providers.p.base_url`"));
    }
    for good in [
        "http://127.0.0.1:8080/",
        "https://api.deepseek.com/anthropic",
        "http://[::1]:9/v1",
    ] {
        let text = format!(
            "[providers.p]\nkind = \"openai-chat\"\nbase_url = {good:?}\napi_key_env = \"K\"\n"
        );
        let c = parse(&text).unwrap_or_else(|e| panic!("{good}: {e}"));
        assert_eq!(c.providers["p"].base_url, good.trim_end_matches('/'));
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn exec_bad_base_url_fails_at_load_with_one_line() {
    let env = TestEnv::new(SimConfig::default()).await;
    let base = env.sim.base_url();
    let text = routes_config(&base, "").replacen(
        &format!("base_url = \"{base}/anthropic\""),
        "base_url = \"htp//127.0.0.1/anthropic\"",
        1,
    );
    let cfg = env.write_config("config.toml", &text);
    let started = Instant::now();
    let out = env.exec(&cfg, "Hello\n", &[]).await;
    assert!(started.elapsed() < Duration::from_secs(10));
    assert!(!out.status.success());
    let err = stderr(&out);
    let lines: Vec<&str> = err.lines().collect();
    assert_eq!(lines.len(), 1, "{err}");
    assert!(lines[0].contains(&cfg.display().to_string()), "{err}");
    assert!(lines[0].contains("`providers.ds.base_url`"), "{err}");
    assert!(lines[0].contains("htp//127.0.0.1/anthropic"), "{err}");
    assert!(env.sim.requests().is_empty(), "no request, so no retries");
    assert!(!env.sessions().exists(), "nothing written");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn exec_bad_base_url_flag_fails_at_start() {
    let env = TestEnv::new(SimConfig::default()).await;
    let cfg = env.write_config("config.toml", &routes_config(&env.sim.base_url(), ""));
    let out = env
        .exec(&cfg, "Hello\n", &["--base-url", "localhost:1234"])
        .await;
    assert!(!out.status.success());
    let err = stderr(&out);
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(
        err.contains("Invalid --base-url \"localhost:1234\""),
        "{err}"
    );
    assert!(env.sim.requests().is_empty());
    // A good flag still works and trailing slashes are dropped.
    env.exec_ok(
        &cfg,
        "Hello\n",
        &["--base-url", &format!("{}/anthropic/", env.sim.base_url())],
    )
    .await;
    assert_eq!(env.sim.requests().len(), 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn warnings_come_before_a_start_error() {
    // The typo is why the start fails: `modle` leaves the default route, whose key is unset.
    let env = TestEnv::new(SimConfig::default()).await;
    let cfg = env.write_config(
        "config.toml",
        &format!(
            "modle = \"p/m\"\n[providers.p]\nkind = \"openai-chat\"\nbase_url = \"{}\"\napi_key_env = \"{KEY_VAR}\"\n",
            env.sim.base_url()
        ),
    );
    let out = env
        .exec_with(&cfg, "Hello\n", &[], &[("DEEPSEEK_API_KEY", "")])
        .await;
    assert!(!out.status.success());
    let err = stderr(&out);
    let lines: Vec<&str> = err.lines().collect();
    assert_eq!(lines.len(), 2, "{err}");
    assert!(lines[0].contains("`modle`; did you mean `model`?"), "{err}");
    assert!(lines[1].contains("DEEPSEEK_API_KEY"), "{err}");
}

// ------------------------------------------------------------------ TUI notice

#[test]
fn tui_shows_config_warnings_as_a_notice_at_start() {
    if !require_external("tmux", tmux_available()) {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join("c.toml");
    std::fs::write(&config, "modle = \"deepseek/deepseek-flash\"\n").unwrap();
    let socket = format!("deepterm-hcfg-{}", std::process::id());
    let tmux = |args: &[&str]| {
        Command::new("tmux")
            .arg("-L")
            .arg(&socket)
            .args(args)
            .output()
            .unwrap()
    };
    struct Kill<'a>(&'a dyn Fn(&[&str]) -> std::process::Output);
    impl Drop for Kill<'_> {
        fn drop(&mut self) {
            (self.0)(&["kill-server"]);
        }
    }
    let _kill = Kill(&tmux);
    let cmd = format!(
        "{} --demo --session-dir {} --config {} --locale en-US; sleep 60",
        shell_quote(Path::new(env!("CARGO_BIN_EXE_deepterm"))),
        shell_quote(&dir.path().join("sessions")),
        shell_quote(&config),
    );
    let out = tmux(&[
        "-f",
        "/dev/null",
        "new-session",
        "-d",
        "-s",
        "t",
        "-x",
        "220",
        "-y",
        "40",
        "sh",
        "-c",
        &cmd,
    ]);
    assert!(out.status.success());
    let wait = |what: &str, pred: &dyn Fn(&str) -> bool| {
        let start = Instant::now();
        loop {
            let screen =
                String::from_utf8_lossy(&tmux(&["capture-pane", "-p", "-J", "-t", "t"]).stdout)
                    .into_owned();
            if pred(&screen) {
                return;
            }
            assert!(
                start.elapsed() < Duration::from_secs(20),
                "timed out waiting for {what}; screen:\n{screen}"
            );
            std::thread::sleep(Duration::from_millis(50));
        }
    };
    wait("the config warning", &|s| {
        s.contains("ignoring unknown config key `modle`") && s.contains("did you mean `model`?")
    });
    // A notice re-renders when the language changes.
    tmux(&["send-keys", "-t", "t", "-l", "/lang zh"]);
    tmux(&["send-keys", "-t", "t", "Enter"]);
    wait("the Chinese warning", &|s| {
        s.contains("已忽略未知的配置项 `modle`")
    });
}

// ------------------------------------------------------------------ /lang and symlinks

#[cfg(unix)]
fn mode(p: &Path) -> u32 {
    use std::os::unix::fs::PermissionsExt;
    std::fs::metadata(p).unwrap().permissions().mode() & 0o7777
}

#[cfg(unix)]
#[test]
fn save_locale_writes_through_a_symlink_and_keeps_the_mode() {
    use std::os::unix::fs::{PermissionsExt, symlink};
    let dir = tempfile::tempdir().unwrap();
    let real_dir = dir.path().join("dotfiles");
    std::fs::create_dir(&real_dir).unwrap();
    let target = real_dir.join("deepterm.toml");
    std::fs::write(&target, "# mine\nmodel = \"deepseek/deepseek-flash\"\n").unwrap();
    std::fs::set_permissions(&target, std::fs::Permissions::from_mode(0o600)).unwrap();
    let link_dir = dir.path().join("config");
    std::fs::create_dir(&link_dir).unwrap();
    let link = link_dir.join("config.toml");
    // A relative link, as dotfile managers make them.
    symlink("../dotfiles/deepterm.toml", &link).unwrap();

    save_locale(&link, Locale::ZhCn).unwrap();

    assert!(
        std::fs::symlink_metadata(&link)
            .unwrap()
            .file_type()
            .is_symlink(),
        "the link stays a link"
    );
    assert_eq!(
        std::fs::read_link(&link).unwrap(),
        Path::new("../dotfiles/deepterm.toml")
    );
    let text = std::fs::read_to_string(&target).unwrap();
    assert!(
        text.contains("# mine") && text.contains("locale = \"zh-CN\""),
        "{text}"
    );
    assert_eq!(mode(&target), 0o600);
    // No temp file is left next to the link or the target.
    for d in [&real_dir, &link_dir] {
        let names: Vec<_> = std::fs::read_dir(d)
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert_eq!(names.len(), 1, "{names:?}");
    }
    assert_eq!(
        Config::load(Some(&link)).unwrap().locale,
        Some(Locale::ZhCn)
    );
}

#[cfg(unix)]
#[test]
fn save_locale_keeps_the_mode_of_a_regular_file() {
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("config.toml");
    std::fs::write(&path, "model = \"deepseek/deepseek-flash\"\n").unwrap();
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o640)).unwrap();
    save_locale(&path, Locale::EnUs).unwrap();
    assert_eq!(mode(&path), 0o640);
    assert!(
        std::fs::read_to_string(&path)
            .unwrap()
            .contains("locale = \"en-US\"")
    );
}

#[cfg(unix)]
#[test]
fn save_locale_through_a_dangling_symlink_creates_the_target() {
    use std::os::unix::fs::symlink;
    let dir = tempfile::tempdir().unwrap();
    let target = dir.path().join("real/deepterm.toml");
    let link = dir.path().join("config.toml");
    symlink(&target, &link).unwrap();
    save_locale(&link, Locale::ZhCn).unwrap();
    assert!(
        std::fs::symlink_metadata(&link)
            .unwrap()
            .file_type()
            .is_symlink()
    );
    assert_eq!(
        std::fs::read_to_string(&target).unwrap(),
        "locale = \"zh-CN\"\n"
    );
}

// ------------------------------------------------------------------ duplicate keys

#[test]
fn duplicate_key_error_names_the_key_and_line() {
    let e =
        parse("# settings\nmodel = \"a/b\"\nlocale = \"en-US\"\nmodel = \"c/d\"\n").unwrap_err();
    let ConfigError::DuplicateKey { line, key, .. } = &e else {
        panic!("not a duplicate-key error: {e:?}");
    };
    assert_eq!((*line, key.as_str()), (4, "model"));
    assert_eq!(
        e.localized(EN),
        "/cfg/deepterm.toml, line 4, column 1: invalid TOML: the key `model` is defined more \
         than once; keep only one."
    );
    assert_eq!(
        e.localized(ZH),
        "/cfg/deepterm.toml 第 4 行第 1 列：TOML 语法错误：配置项 `model` 被重复定义，请只保留一处。"
    );

    // Inside a table: the dotted path of the key.
    let e = parse("[providers.p]\nkind = \"openai-chat\"\n\nkind = \"openai-chat\"\n").unwrap_err();
    assert!(
        matches!(&e, ConfigError::DuplicateKey { line: 4, key, .. } if key == "providers.p.kind"),
        "{e:?}"
    );
    // A table header given twice.
    let e =
        parse("[tools.builtin]\nenabled = true\n[tools.builtin]\nenabled = false\n").unwrap_err();
    assert!(
        matches!(&e, ConfigError::DuplicateKey { line: 3, key, .. } if key == "tools.builtin"),
        "{e:?}"
    );
    // In the second entry of an array of tables, with a dotted key.
    let e = parse(
        "[[providers.deepseek.models]]\nid = \"a\"\n[[providers.deepseek.models]]\nid = \"b\"\nid = \"c\"\n",
    )
    .unwrap_err();
    assert!(
        matches!(&e, ConfigError::DuplicateKey { line: 5, key, .. } if key == "providers.deepseek.models[1].id"),
        "{e:?}"
    );
    let e = parse("[mcp]\nservers.x.command = \"a\"\nservers.x.command = \"b\"\n").unwrap_err();
    assert!(
        matches!(&e, ConfigError::DuplicateKey { line: 3, key, .. } if key == "mcp.servers.x.command"),
        "{e:?}"
    );
    // `/lang` refuses such a file the same way and leaves it alone.
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("config.toml");
    std::fs::write(&path, "model = \"a/b\"\nmodel = \"c/d\"\n").unwrap();
    let e = save_locale(&path, Locale::ZhCn).unwrap_err();
    assert!(
        matches!(&e, ConfigError::DuplicateKey { line: 2, key, .. } if key == "model"),
        "{e:?}"
    );
    assert_eq!(
        std::fs::read_to_string(&path).unwrap(),
        "model = \"a/b\"\nmodel = \"c/d\"\n"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_instruction_file_of_200_mb_sends_only_its_first_256_kib_with_a_warning() {
    let env = TestEnv::new(SimConfig::default()).await;
    // Next to the config: 300 KiB of text, then sparse to 200 MB (no disk used).
    let big = env.dir.path().join("HUGE.md");
    std::fs::write(&big, "rule\n".repeat(300 * 1024 / 5)).unwrap();
    std::fs::OpenOptions::new()
        .write(true)
        .open(&big)
        .unwrap()
        .set_len(200 * 1024 * 1024)
        .unwrap();
    let cfg = env.write_config(
        "config.toml",
        &routes_config(
            &env.sim.base_url(),
            "[instructions]\nfiles = [\"HUGE.md\"]\n",
        ),
    );
    let out = env.exec(&cfg, "Hello\nagain\n", &[]).await;
    let err = stderr(&out);
    assert!(out.status.success(), "{err}");
    let warned: Vec<&str> = err.lines().filter(|l| l.contains("HUGE.md")).collect();
    assert_eq!(warned.len(), 1, "one warning for two requests:\n{err}");
    assert!(
        warned[0].contains("is 209715200 bytes; only its first 256 KiB are used"),
        "{err}"
    );
    let reqs = env.requests();
    assert_eq!(reqs.len(), 2);
    for r in &reqs {
        // 256 KiB of text (JSON-escaped newlines make it a little longer), not 200 MB.
        let body = r["body"].to_string();
        assert!(body.len() < 400 * 1024, "{} bytes sent", body.len());
        assert!(
            body.contains(
                "[truncated: only the first 262144 of 209715200 bytes of HUGE.md are included]"
            ),
            "the model is told the file was cut"
        );
    }
}
