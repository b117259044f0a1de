//! Loading hostile config paths: a FIFO, a device, a huge file. Each must give a clear
//! error at once, never hang or read without bound.

use std::path::{Path, PathBuf};
use std::sync::mpsc;
use std::time::Duration;

use super::MAX_CONFIG_BYTES;
use crate::config::{Config, ConfigError, ConfigLocation};
use crate::fs_guard::SpecialKind;
use crate::i18n::{Locale, Localizer};

/// Loads `path` (as `--config` would) on another thread; a load that has not returned
/// after a minute is a hang, reported as a failure instead of blocking the suite.
fn load_or_hang(path: &Path) -> Result<Config, ConfigError> {
    let loc = ConfigLocation {
        path: path.to_path_buf(),
        explicit: true,
    };
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        let _ = tx.send(Config::load_from(Some(&loc)));
    });
    rx.recv_timeout(Duration::from_secs(60))
        .expect("loading the config returned instead of hanging")
}

fn both_locales(e: &ConfigError) -> (String, String) {
    (
        e.localized(Localizer::new(Locale::EnUs)),
        e.localized(Localizer::new(Locale::ZhCn)),
    )
}

#[cfg(unix)]
fn mkfifo(p: &Path) {
    let c = std::ffi::CString::new(p.as_os_str().as_encoded_bytes()).unwrap();
    assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
}

#[cfg(unix)]
#[test]
fn a_fifo_config_is_refused_with_a_clear_error_instead_of_hanging() {
    let d = tempfile::tempdir().unwrap();
    let fifo = d.path().join("config.toml");
    mkfifo(&fifo);
    let err = load_or_hang(&fifo).unwrap_err();
    assert_eq!(
        err,
        ConfigError::NotRegular {
            file: fifo.clone(),
            kind: SpecialKind::Fifo
        }
    );
    let (en, zh) = both_locales(&err);
    assert!(en.contains(&fifo.display().to_string()), "{en}");
    assert!(
        en.contains("a FIFO (named pipe), not a regular file"),
        "{en}"
    );
    assert!(zh.contains("命名管道（FIFO），不是普通文件"), "{zh}");
}

#[cfg(unix)]
#[test]
fn a_config_symlinked_to_dev_zero_is_refused_with_a_clear_error() {
    let d = tempfile::tempdir().unwrap();
    let link = d.path().join("config.toml");
    std::os::unix::fs::symlink("/dev/zero", &link).unwrap();
    let err = load_or_hang(&link).unwrap_err();
    assert_eq!(
        err,
        ConfigError::NotRegular {
            file: link,
            kind: SpecialKind::CharDevice
        }
    );
    assert!(both_locales(&err).0.contains("a character device"));
}

#[test]
fn a_config_over_the_cap_is_refused_without_reading_it() {
    let d = tempfile::tempdir().unwrap();
    let big = d.path().join("config.toml");
    // 1 GiB, sparse: no disk is used.
    let f = std::fs::File::create(&big).unwrap();
    f.set_len(1 << 30).unwrap();
    drop(f);
    let err = load_or_hang(&big).unwrap_err();
    assert_eq!(
        err,
        ConfigError::TooLarge {
            file: big.clone(),
            size: 1 << 30,
            limit: MAX_CONFIG_BYTES
        }
    );
    let (en, zh) = both_locales(&err);
    assert!(en.contains("may be at most 4 MiB"), "{en}");
    assert!(zh.contains("最大为 4 MiB"), "{zh}");
    // Just under the cap is still read (and parsed: comments only).
    let ok = d.path().join("ok.toml");
    let mut text = "# padding\n".repeat((MAX_CONFIG_BYTES as usize - 20) / 10);
    text.push_str("locale = \"zh-CN\"\n");
    assert!(text.len() as u64 <= MAX_CONFIG_BYTES);
    std::fs::write(&ok, text).unwrap();
    assert_eq!(load_or_hang(&ok).unwrap().locale, Some(Locale::ZhCn));
}

#[cfg(unix)]
#[test]
fn a_symlinked_regular_config_still_loads() {
    let d = tempfile::tempdir().unwrap();
    let real: PathBuf = d.path().join("real.toml");
    std::fs::write(&real, "locale = \"zh-CN\"\n").unwrap();
    let link = d.path().join("config.toml");
    std::os::unix::fs::symlink(&real, &link).unwrap();
    assert_eq!(load_or_hang(&link).unwrap().locale, Some(Locale::ZhCn));
}

#[cfg(unix)]
#[test]
fn lang_refuses_to_rewrite_a_fifo_config_instead_of_hanging() {
    let d = tempfile::tempdir().unwrap();
    let fifo = d.path().join("config.toml");
    mkfifo(&fifo);
    let (tx, rx) = mpsc::channel();
    let p = fifo.clone();
    std::thread::spawn(move || {
        let _ = tx.send(super::save_locale(&p, Locale::ZhCn));
    });
    let res = rx
        .recv_timeout(Duration::from_secs(60))
        .expect("saving returned instead of hanging");
    assert!(
        matches!(
            res,
            Err(ConfigError::NotRegular {
                kind: SpecialKind::Fifo,
                ..
            })
        ),
        "{res:?}"
    );
}

/// The mode a file newly created in `dir` gets here (0666 less this process's umask).
#[cfg(unix)]
fn usual_new_file_mode(dir: &Path) -> u32 {
    use std::os::unix::fs::PermissionsExt;
    let probe = dir.join("probe");
    std::fs::File::create(&probe).unwrap();
    let mode = std::fs::metadata(&probe).unwrap().permissions().mode() & 0o777;
    std::fs::remove_file(probe).unwrap();
    mode
}

#[cfg(unix)]
#[test]
fn a_config_written_fresh_gets_the_usual_mode_of_a_new_file() {
    use std::os::unix::fs::PermissionsExt;
    let d = tempfile::tempdir().unwrap();
    let path = d.path().join("config.toml");
    super::save_locale(&path, Locale::ZhCn).unwrap();
    let mode = std::fs::metadata(&path).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode, usual_new_file_mode(d.path()));
}

#[test]
fn a_replacement_that_cannot_be_renamed_leaves_no_temp_file_behind() {
    let d = tempfile::tempdir().unwrap();
    // A non-empty directory where the file should go: the rename over it fails.
    let target = d.path().join("config.toml");
    std::fs::create_dir(&target).unwrap();
    std::fs::write(target.join("keep"), "x").unwrap();
    assert!(super::replace_file(&target, b"locale = \"zh-CN\"\n").is_err());
    let names: Vec<_> = std::fs::read_dir(d.path())
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(names, vec![std::ffi::OsString::from("config.toml")]);
}
