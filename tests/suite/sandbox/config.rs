//! The `[sandbox]` table (SPEC §14.2): defaults, values, and errors that name the key.

use std::path::{Path, PathBuf};

use deepterm::config::Config;
use deepterm::i18n::{Locale, Localizer};
use deepterm::sandbox::{BackendChoice, SandboxMode, SandboxSettings};

fn parse(text: &str) -> Result<Config, deepterm::config::ConfigError> {
    Config::parse_in(text, None, Path::new("/"))
}

#[test]
fn without_a_sandbox_table_the_defaults_are_workspace_write_without_network() {
    let c = parse("").unwrap();
    assert_eq!(c.sandbox, SandboxSettings::default());
    assert_eq!(c.sandbox.mode, SandboxMode::WorkspaceWrite);
    assert!(!c.sandbox.network);
    assert_eq!(c.sandbox.backend, BackendChoice::Auto);
}

#[test]
fn the_sandbox_table_sets_mode_network_roots_and_backend() {
    let c = parse(
        "[sandbox]\nmode = \"read-only\"\nnetwork = true\n\
         writable_roots = [\"/srv/cache\", \"target\"]\nbackend = \"landlock\"\n",
    )
    .unwrap();
    assert_eq!(
        c.sandbox,
        SandboxSettings {
            mode: SandboxMode::ReadOnly,
            network: true,
            writable_roots: vec![PathBuf::from("/srv/cache"), PathBuf::from("target")],
            backend: BackendChoice::Landlock,
            max_processes: 512,
        }
    );
    assert!(c.warnings.is_empty(), "{:?}", c.warnings);
}

#[test]
fn bad_sandbox_values_name_the_key_in_both_locales() {
    for (text, key, en) in [
        (
            "mode = \"yolo\"",
            "sandbox.mode",
            "\"read-only\", \"workspace-write\" or \"full-access\"",
        ),
        (
            "backend = \"docker\"",
            "sandbox.backend",
            "\"auto\", \"bwrap\" or \"landlock\"",
        ),
        ("network = \"no\"", "sandbox.network", "true or false"),
        ("writable_roots = \"/x\"", "sandbox.writable_roots", "array"),
        (
            "writable_roots = [1]",
            "sandbox.writable_roots[0]",
            "string",
        ),
    ] {
        let e = parse(&format!("[sandbox]\n{text}\n")).unwrap_err();
        let msg = e.localized(Localizer::new(Locale::EnUs));
        assert!(msg.contains(key) && msg.contains(en), "{text}: {msg}");
        let zh = e.localized(Localizer::new(Locale::ZhCn));
        assert!(zh.contains(key), "{text}: {zh}");
    }
}

#[test]
fn an_unknown_sandbox_key_is_a_warning_with_a_suggestion() {
    let c = parse("[sandbox]\nnetwrok = true\n").unwrap();
    assert_eq!(c.warnings.len(), 1, "{:?}", c.warnings);
    let w = format!("{:?}", c.warnings[0]);
    assert!(
        w.contains("sandbox.netwrok") && w.contains("sandbox.network"),
        "{w}"
    );
}
