//! Issue 9, configuration: misspelt keys and missing instruction files are shown (D9),
//! `base_url` is checked at load time (D9), `/lang` writes through a symlinked config and
//! keeps its mode (D10), and a duplicate TOML key error names the key (D16).

use std::path::Path;

use deepterm::config::{Config, ConfigError, save_locale};
use deepterm::i18n::{Locale, Localizer};

const EN: Localizer = Localizer {
    locale: Locale::EnUs,
};
const ZH: Localizer = Localizer {
    locale: Locale::ZhCn,
};

fn parse(text: &str) -> Result<Config, ConfigError> {
    Config::parse_in(text, Some(Path::new("/cfg/deepterm.toml")), Path::new("/"))
}

// ------------------------------------------------------------------ D10: /lang and symlinks

#[cfg(unix)]
fn mode(p: &Path) -> u32 {
    use std::os::unix::fs::PermissionsExt;
    std::fs::metadata(p).unwrap().permissions().mode() & 0o7777
}

#[cfg(unix)]
#[test]
fn hardening_d10_save_locale_writes_through_a_symlink_and_keeps_the_mode() {
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
fn hardening_d10_save_locale_keeps_the_mode_of_a_regular_file() {
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
fn hardening_d10_save_locale_through_a_dangling_symlink_creates_the_target() {
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

// ------------------------------------------------------------------ D16: duplicate keys

#[test]
fn hardening_d16_duplicate_key_error_names_the_key_and_line() {
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
