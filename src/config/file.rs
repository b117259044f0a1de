//! Reading and writing the config file: [`Config::load`] and [`Config::parse`] (the parser
//! itself is `parse.rs`), the `--base-url` check, and persisting the `/lang` choice.
//!
//! Kept apart from `mod.rs`, which holds the configuration types that the parser builds,
//! so the parser and the types do not depend on each other in a circle.

use std::path::{Path, PathBuf};

use super::parse;
use super::{Config, ConfigError, ConfigLocation, locate};
use crate::fs_guard::{self, OpenError};
use crate::i18n::Locale;

impl Config {
    /// Locates and loads the config (see [`locate`]); a missing file at the default
    /// location gives the defaults.
    pub fn load(cli: Option<&Path>) -> Result<Config, ConfigError> {
        Config::load_from(locate(cli).as_ref())
    }

    /// Loads from a location; `None` gives the defaults.
    pub fn load_from(location: Option<&ConfigLocation>) -> Result<Config, ConfigError> {
        let Some(loc) = location else {
            return Ok(Config::default());
        };
        match read_config_text(&loc.path, &loc.path)? {
            Some(text) => Config::parse(&text, Some(&loc.path)),
            None if loc.explicit => Err(ConfigError::NotFound {
                file: loc.path.clone(),
            }),
            None => Ok(Config {
                path: Some(loc.path.clone()),
                ..Config::default()
            }),
        }
    }

    /// Parses config text; `file` is named in errors and anchors relative paths.
    pub fn parse(text: &str, file: Option<&Path>) -> Result<Config, ConfigError> {
        let cwd = std::env::current_dir().unwrap_or_default();
        parse::parse(text, file, &cwd)
    }

    /// [`Config::parse`] with an explicit working directory for instruction files.
    pub fn parse_in(text: &str, file: Option<&Path>, cwd: &Path) -> Result<Config, ConfigError> {
        parse::parse(text, file, cwd)
    }
}

/// Checks a `--base-url` value: an `http://` or `https://` URL with a host. Returns it
/// without a trailing slash, or [`ConfigError::BadBaseUrl`].
pub fn check_base_url_arg(url: &str) -> Result<String, ConfigError> {
    parse::check_base_url(url).map_err(|_| ConfigError::BadBaseUrl {
        url: url.to_string(),
    })
}

/// Persists `locale = "<tag>"` into the config file at `path`, keeping every other line
/// and comment; creates the file and its directory when absent. A symlinked config is
/// written through to its target (the link stays a link), and the file keeps its mode.
pub fn save_locale(path: &Path, locale: Locale) -> Result<(), ConfigError> {
    let write_err = |e: std::io::Error| ConfigError::Write {
        file: path.to_path_buf(),
        detail: e.to_string(),
    };
    let target = resolve_symlinks(path).map_err(write_err)?;
    let text = read_config_text(&target, path)?.unwrap_or_default();
    let mut doc: toml_edit::DocumentMut = text.parse().map_err(|e: toml_edit::TomlError| {
        parse::toml_error(&text, Some(path), e.message(), e.span())
    })?;
    let tag = locale.tag();
    match doc.get_mut("locale").and_then(|i| i.as_value_mut()) {
        Some(v) => {
            // Keep the comment that may trail the old value.
            let decor = v.decor().clone();
            *v = toml_edit::Value::from(tag);
            *v.decor_mut() = decor;
        }
        None => {
            doc.insert("locale", toml_edit::value(tag));
        }
    }
    if let Some(dir) = target.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir).map_err(write_err)?;
    }
    replace_file(&target, doc.to_string().as_bytes()).map_err(write_err)
}

/// Largest config file read (4 MiB): a real config is a few KiB, and the TOML parser
/// needs several times the text's size in memory.
pub const MAX_CONFIG_BYTES: u64 = 4 * 1024 * 1024;

/// The config file's text, `None` when it does not exist. Only a regular file (after
/// following symlinks, which are legitimate) of at most [`MAX_CONFIG_BYTES`] is read: a
/// FIFO would block the start, `/dev/zero` would fill memory, and a huge file would
/// exhaust the TOML parser. It is opened without blocking and read with a cap
/// ([`crate::fs_guard`]), so a file swapped after the checks is bounded too. Errors name
/// `named` (the path the user gave).
fn read_config_text(read: &Path, named: &Path) -> Result<Option<String>, ConfigError> {
    let path = named;
    let read_err = |e: std::io::Error| ConfigError::Read {
        file: path.to_path_buf(),
        detail: e.to_string(),
    };
    let too_large = |size: u64| ConfigError::TooLarge {
        file: path.to_path_buf(),
        size,
        limit: MAX_CONFIG_BYTES,
    };
    let file = match fs_guard::open_regular(read) {
        Ok(f) => f,
        Err(OpenError::Io(e)) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(OpenError::Io(e)) => return Err(read_err(e)),
        Err(OpenError::NotRegular(kind)) => {
            return Err(ConfigError::NotRegular {
                file: path.to_path_buf(),
                kind,
            });
        }
    };
    let size = file.metadata().map_err(read_err)?.len();
    if size > MAX_CONFIG_BYTES {
        return Err(too_large(size));
    }
    let capped = fs_guard::read_capped(file, MAX_CONFIG_BYTES).map_err(read_err)?;
    if capped.truncated {
        return Err(too_large(capped.size.max(MAX_CONFIG_BYTES + 1)));
    }
    String::from_utf8(capped.bytes)
        .map(Some)
        .map_err(|e| ConfigError::Read {
            file: path.to_path_buf(),
            detail: e.utf8_error().to_string(),
        })
}

/// Follows `path` through symlinks (also a dangling last link, whose target is where the
/// file will be created). Gives up after 40 links, like the kernel.
pub(crate) fn resolve_symlinks(path: &Path) -> std::io::Result<PathBuf> {
    let mut p = path.to_path_buf();
    for _ in 0..40 {
        match std::fs::symlink_metadata(&p) {
            Ok(m) if m.file_type().is_symlink() => {
                let link = std::fs::read_link(&p)?;
                p = match p.parent() {
                    Some(dir) if link.is_relative() => dir.join(link),
                    _ => link,
                };
            }
            Ok(_) => return Ok(p),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(p),
            Err(e) => return Err(e),
        }
    }
    Err(std::io::Error::other("too many levels of symbolic links"))
}

/// Replaces the regular file `target` atomically: a temp file in the same directory
/// (so the rename never crosses file systems), synced, given the old file's permissions,
/// then renamed over it ([`tempfile::NamedTempFile::persist`]; a failed write or rename
/// removes the temp file). A crash leaves either the old or the new contents.
pub(crate) fn replace_file(target: &Path, contents: &[u8]) -> std::io::Result<()> {
    use std::io::Write;
    let dir = match target.parent() {
        Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
        _ => PathBuf::from("."),
    };
    let name = target
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| "config.toml".to_string());
    let old_perms = std::fs::metadata(target).ok().map(|m| m.permissions());
    let prefix = format!(".{name}.");
    let mut builder = tempfile::Builder::new();
    builder.prefix(&prefix).suffix(".tmp");
    // A new file gets the usual mode (0666 minus the umask). A replacement stays private
    // (the crate's 0600) until the old file's mode is copied: that may be owner-only.
    #[cfg(unix)]
    if old_perms.is_none() {
        use std::os::unix::fs::PermissionsExt;
        builder.permissions(std::fs::Permissions::from_mode(0o666));
    }
    let mut tmp = builder.tempfile_in(&dir)?;
    tmp.write_all(contents)?;
    if let Some(p) = old_perms {
        tmp.as_file().set_permissions(p)?;
    }
    tmp.as_file().sync_all()?;
    tmp.persist(target).map(drop).map_err(|e| e.error)
}

#[cfg(test)]
#[path = "file_tests.rs"]
mod tests;
