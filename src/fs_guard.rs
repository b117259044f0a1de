//! Reading files that someone else may control (a repository's files, a config file, a
//! file swapped in after a check): only regular files, opened without blocking, read
//! with a cap, and, for [`read_confined`], only inside given directories after every
//! symlink is resolved. See `docs/decisions/0031-confined-instruction-files.md`.
//!
//! Opening a FIFO for reading blocks until a writer appears, and `/dev/zero` never ends,
//! so a plain `File::open` plus `read_to_end` can hang or exhaust memory. The pattern here
//! (metadata check, `O_NONBLOCK` open, `fstat` of the handle, `take` for the cap) is the
//! one the built-in tools use; it depends on nothing else in the crate, so `config`,
//! `tools` and `agent` share it.

use std::fs;
use std::io::Read;
use std::path::{Component, Path, PathBuf};

/// What a file that is not a regular file is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SpecialKind {
    /// A directory.
    Directory,
    /// A named pipe.
    Fifo,
    /// A Unix socket.
    Socket,
    /// A block device.
    BlockDevice,
    /// A character device (`/dev/zero`, a terminal).
    CharDevice,
    /// Anything else.
    Other,
}

impl SpecialKind {
    /// The kind of a file type that is not a regular file.
    pub fn of(t: fs::FileType) -> SpecialKind {
        if t.is_dir() {
            return SpecialKind::Directory;
        }
        #[cfg(unix)]
        {
            use std::os::unix::fs::FileTypeExt;
            if t.is_fifo() {
                return SpecialKind::Fifo;
            }
            if t.is_socket() {
                return SpecialKind::Socket;
            }
            if t.is_block_device() {
                return SpecialKind::BlockDevice;
            }
            if t.is_char_device() {
                return SpecialKind::CharDevice;
            }
        }
        SpecialKind::Other
    }

    /// English, with an article ("a FIFO"), for text the model reads.
    pub fn describe(self) -> &'static str {
        match self {
            SpecialKind::Directory => "a directory",
            SpecialKind::Fifo => "a FIFO",
            SpecialKind::Socket => "a socket",
            SpecialKind::BlockDevice => "a block device",
            SpecialKind::CharDevice => "a character device",
            SpecialKind::Other => "a special file",
        }
    }

    /// A stable id for localized text (`config-file-kind-<id>` in the Fluent files).
    pub fn id(self) -> &'static str {
        match self {
            SpecialKind::Directory => "directory",
            SpecialKind::Fifo => "fifo",
            SpecialKind::Socket => "socket",
            SpecialKind::BlockDevice => "block-device",
            SpecialKind::CharDevice => "char-device",
            SpecialKind::Other => "special",
        }
    }
}

/// Why [`open_regular`] did not give a file.
#[derive(Debug)]
pub enum OpenError {
    /// The path (after following symlinks) is not a regular file.
    NotRegular(SpecialKind),
    /// The file could not be examined or opened.
    Io(std::io::Error),
}

/// Opens `path` for reading only if it is a regular file. The metadata is checked before
/// opening (opening a FIFO for reading would block), the open itself does not block
/// (`O_NONBLOCK`), and the handle is checked again with `fstat`, in case the path was
/// swapped in between. Symlinks are followed (a symlinked file is legitimate).
pub fn open_regular(path: &Path) -> Result<fs::File, OpenError> {
    open_regular_for(path, false)
}

/// [`open_regular`], for appending too when `append` (a session log). The open never makes
/// a terminal the controlling one (`O_NOCTTY`).
pub fn open_regular_for(path: &Path, append: bool) -> Result<fs::File, OpenError> {
    let meta = fs::metadata(path).map_err(OpenError::Io)?;
    if !meta.is_file() {
        return Err(OpenError::NotRegular(SpecialKind::of(meta.file_type())));
    }
    let mut opts = fs::OpenOptions::new();
    opts.read(true).append(append);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        opts.custom_flags(libc::O_NONBLOCK | libc::O_NOCTTY);
    }
    let file = opts.open(path).map_err(OpenError::Io)?;
    let meta = file.metadata().map_err(OpenError::Io)?;
    if !meta.is_file() {
        return Err(OpenError::NotRegular(SpecialKind::of(meta.file_type())));
    }
    Ok(file)
}

/// What [`read_capped`] read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Capped {
    /// At most the cap's bytes.
    pub bytes: Vec<u8>,
    /// The file's size when it was opened (`fstat`).
    pub size: u64,
    /// More bytes followed than the cap allows (the file was larger, or grew).
    pub truncated: bool,
}

/// Reads at most `max` bytes of an opened file. A file that grew since its size was taken
/// is still read up to the cap only, so memory stays bounded whatever the file does.
pub fn read_capped(file: fs::File, max: u64) -> std::io::Result<Capped> {
    let size = file.metadata()?.len();
    let mut bytes = Vec::with_capacity(size.min(max).min(1 << 20) as usize);
    file.take(max.saturating_add(1)).read_to_end(&mut bytes)?;
    let truncated = bytes.len() as u64 > max;
    bytes.truncate(max as usize);
    Ok(Capped {
        bytes,
        size,
        truncated,
    })
}

/// Why [`read_confined`] refused a file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Refusal {
    /// The file does not exist (also a dangling symlink).
    Missing,
    /// After resolving symlinks the file lies outside every allowed directory.
    Outside {
        /// Where it really is.
        target: PathBuf,
    },
    /// Not a regular file (a FIFO, a device, a directory).
    NotRegular(SpecialKind),
    /// Binary (a NUL byte) or not UTF-8.
    NotText,
    /// Any other I/O failure (permissions, for example).
    Unreadable {
        /// The OS error text.
        detail: String,
    },
}

/// The text of a file [`read_confined`] accepted.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConfinedText {
    /// The text (cut at a character boundary when `truncated`).
    pub text: String,
    /// The file's size in bytes.
    pub size: u64,
    /// Only the first `max` bytes were read.
    pub truncated: bool,
}

/// `path` with symlinks resolved: canonical when it exists; otherwise its longest existing
/// ancestor canonicalized, with the missing components appended lexically (`..` and `.`
/// removed), so a path that does not exist yet still compares against canonical roots.
pub fn canonical_or_lexical(path: &Path) -> PathBuf {
    if let Ok(c) = std::fs::canonicalize(path) {
        return c;
    }
    let comps: Vec<Component> = path.components().collect();
    for i in (1..comps.len()).rev() {
        let prefix: PathBuf = comps[..i].iter().collect();
        if let Ok(mut out) = std::fs::canonicalize(&prefix) {
            for c in &comps[i..] {
                out.push(c.as_os_str());
            }
            return normalize_lexically(&out);
        }
    }
    normalize_lexically(path)
}

/// The canonical forms of `roots` that exist (a root that does not exist confines
/// nothing, so it is left out rather than compared as written).
/// `path` with `.` removed and `..` resolved against the components before it, without
/// touching the file system (for paths that do not exist yet, and before a check that
/// resolves symlinks).
pub fn normalize_lexically(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for c in path.components() {
        match c {
            std::path::Component::CurDir => {}
            std::path::Component::ParentDir => {
                out.pop();
            }
            other => out.push(other.as_os_str()),
        }
    }
    out
}

/// `given` (absolute, or relative to `base`) joined and normalized lexically.
pub fn join_lexically(base: &Path, given: &str) -> PathBuf {
    let p = Path::new(given);
    if p.is_absolute() {
        normalize_lexically(p)
    } else {
        normalize_lexically(&base.join(p))
    }
}

pub fn canonical_roots(roots: &[PathBuf]) -> Vec<PathBuf> {
    let mut out: Vec<PathBuf> = roots
        .iter()
        .filter_map(|r| fs::canonicalize(r).ok())
        .collect();
    out.sort();
    out.dedup();
    out
}

/// Reads a UTF-8 text file only if, after resolving every symlink, it is a regular file
/// inside one of `roots` (canonical directories, see [`canonical_roots`]). At most `max`
/// bytes are read; the rest is cut at a character boundary and reported as `truncated`.
///
/// The containment is checked on the canonical path before opening and, on Linux, again
/// on the opened handle (`/proc/self/fd`), so a directory swapped for a symlink between
/// the check and the open is still caught.
pub fn read_confined(path: &Path, roots: &[PathBuf], max: u64) -> Result<ConfinedText, Refusal> {
    let io = |e: std::io::Error| match e.kind() {
        std::io::ErrorKind::NotFound => Refusal::Missing,
        _ => Refusal::Unreadable {
            detail: e.to_string(),
        },
    };
    let canonical = fs::canonicalize(path).map_err(io)?;
    let inside = |p: &Path| roots.iter().any(|r| p.starts_with(r));
    if !inside(&canonical) {
        return Err(Refusal::Outside { target: canonical });
    }
    let file = open_regular(&canonical).map_err(|e| match e {
        OpenError::NotRegular(k) => Refusal::NotRegular(k),
        OpenError::Io(e) => io(e),
    })?;
    if let Some(opened) = opened_path(&file)
        && !inside(&opened)
    {
        return Err(Refusal::Outside { target: opened });
    }
    let capped = read_capped(file, max).map_err(io)?;
    let text = utf8_text(capped.bytes, capped.truncated).ok_or(Refusal::NotText)?;
    Ok(ConfinedText {
        text,
        size: capped.size,
        truncated: capped.truncated,
    })
}

/// Where an opened file really is (Linux: the `/proc/self/fd` link); `None` elsewhere or
/// when `/proc` is not mounted.
fn opened_path(file: &fs::File) -> Option<PathBuf> {
    #[cfg(target_os = "linux")]
    {
        use std::os::fd::AsRawFd;
        fs::read_link(format!("/proc/self/fd/{}", file.as_raw_fd())).ok()
    }
    #[cfg(not(target_os = "linux"))]
    {
        let _ = file;
        None
    }
}

/// `bytes` as text: `None` for a NUL byte or invalid UTF-8. A cut inside the last
/// character (`truncated`) is not a decoding error; the partial character is dropped.
pub fn utf8_text(bytes: Vec<u8>, truncated: bool) -> Option<String> {
    if bytes.contains(&0) {
        return None;
    }
    match String::from_utf8(bytes) {
        Ok(t) => Some(t),
        Err(e) if truncated && e.as_bytes().len() - e.utf8_error().valid_up_to() < 4 => {
            let n = e.utf8_error().valid_up_to();
            let mut b = e.into_bytes();
            b.truncate(n);
            String::from_utf8(b).ok()
        }
        Err(_) => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn roots(d: &Path) -> Vec<PathBuf> {
        canonical_roots(&[d.to_path_buf()])
    }

    #[test]
    fn a_regular_file_inside_a_root_is_read() {
        let d = tempfile::tempdir().unwrap();
        std::fs::write(d.path().join("AGENTS.md"), "be brief\n").unwrap();
        let t = read_confined(&d.path().join("AGENTS.md"), &roots(d.path()), 1000).unwrap();
        assert_eq!(t.text, "be brief\n");
        assert_eq!(t.size, 9);
        assert!(!t.truncated);
    }

    #[cfg(unix)]
    #[test]
    fn a_symlink_leading_outside_the_roots_is_refused_but_one_inside_is_followed() {
        let outer = tempfile::tempdir().unwrap();
        let ws = outer.path().join("ws");
        std::fs::create_dir(&ws).unwrap();
        std::fs::write(outer.path().join("outside_secret"), "top secret").unwrap();
        std::os::unix::fs::symlink("../outside_secret", ws.join("AGENTS.md")).unwrap();
        std::os::unix::fs::symlink("/proc/self/environ", ws.join("ENV.md")).unwrap();
        std::fs::write(ws.join("real.md"), "inside").unwrap();
        std::os::unix::fs::symlink("real.md", ws.join("link.md")).unwrap();
        let r = roots(&ws);
        match read_confined(&ws.join("AGENTS.md"), &r, 1000) {
            Err(Refusal::Outside { target }) => assert!(target.ends_with("outside_secret")),
            other => panic!("{other:?}"),
        }
        assert!(matches!(
            read_confined(&ws.join("ENV.md"), &r, 1000),
            Err(Refusal::Outside { .. })
        ));
        assert_eq!(
            read_confined(&ws.join("link.md"), &r, 1000).unwrap().text,
            "inside"
        );
        // The same outside file is read when its directory is a root: the refusal is
        // the containment, not the symlink.
        let wider = canonical_roots(&[outer.path().to_path_buf()]);
        assert_eq!(
            read_confined(&ws.join("AGENTS.md"), &wider, 1000)
                .unwrap()
                .text,
            "top secret"
        );
    }

    #[cfg(unix)]
    #[test]
    fn a_fifo_or_a_device_inside_a_root_is_refused_without_blocking() {
        let d = tempfile::tempdir().unwrap();
        let fifo = d.path().join("AGENTS.md");
        let c = std::ffi::CString::new(fifo.as_os_str().as_encoded_bytes()).unwrap();
        assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
        let zero = d.path().join("zero.md");
        std::os::unix::fs::symlink("/dev/zero", &zero).unwrap();
        let dev_root = canonical_roots(&[d.path().to_path_buf(), PathBuf::from("/dev")]);
        assert_eq!(
            read_confined(&fifo, &dev_root, 1000),
            Err(Refusal::NotRegular(SpecialKind::Fifo))
        );
        assert_eq!(
            read_confined(&zero, &dev_root, 1000),
            Err(Refusal::NotRegular(SpecialKind::CharDevice))
        );
        assert!(matches!(
            open_regular(&fifo),
            Err(OpenError::NotRegular(SpecialKind::Fifo))
        ));
    }

    #[test]
    fn reading_stops_at_the_cap_and_cuts_at_a_character_boundary() {
        let d = tempfile::tempdir().unwrap();
        let p = d.path().join("big.md");
        std::fs::write(&p, "aé".repeat(1000)).unwrap();
        let t = read_confined(&p, &roots(d.path()), 4).unwrap();
        assert!(t.truncated);
        assert_eq!(t.size, 3000);
        // "aéa" is 4 bytes; the cut falls after it.
        assert_eq!(t.text, "aéa");
        let t = read_confined(&p, &roots(d.path()), 5).unwrap();
        assert_eq!(t.text, "aéa", "half a character is dropped");
    }

    #[test]
    fn read_capped_bounds_an_endless_file() {
        let f = std::fs::File::open("/dev/zero").unwrap();
        let c = read_capped(f, 4096).unwrap();
        assert_eq!(c.bytes.len(), 4096);
        assert!(c.truncated);
    }

    #[test]
    fn binary_and_missing_files_are_refused() {
        let d = tempfile::tempdir().unwrap();
        std::fs::write(d.path().join("blob"), b"a\0b").unwrap();
        std::fs::write(d.path().join("latin1"), b"caf\xe9").unwrap();
        let r = roots(d.path());
        assert_eq!(
            read_confined(&d.path().join("blob"), &r, 100),
            Err(Refusal::NotText)
        );
        assert_eq!(
            read_confined(&d.path().join("latin1"), &r, 100),
            Err(Refusal::NotText)
        );
        assert_eq!(
            read_confined(&d.path().join("nope"), &r, 100),
            Err(Refusal::Missing)
        );
    }
}
