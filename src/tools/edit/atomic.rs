//! Writing at the moment of writing (SPEC §14.1, decision 0045): the parent directory is
//! opened component by component from `/` with `O_NOFOLLOW`, so a directory swapped for a
//! symlink after the plan was checked fails the walk instead of redirecting it; the real
//! path of the opened directory (`/proc/self/fd`) is checked against the scope again; the
//! file is then written through that directory handle only: a temporary file created
//! `O_EXCL` beside the target, fsynced, renamed over it with `renameat`, and the directory
//! fsynced. Nothing here opens a FIFO or a device: entries are examined with `fstatat`
//! without following links, and reads open with `O_NONBLOCK | O_NOFOLLOW` and check the
//! handle again.

use std::ffi::{OsStr, OsString};
use std::fs::File;
use std::io::{self, Read, Write};
use std::os::fd::{AsFd, OwnedFd};
use std::os::unix::ffi::OsStrExt;
use std::path::{Component, Path, PathBuf};

use rustix::fs::{AtFlags, FileType, Mode, OFlags};
use rustix::io::Errno;

use crate::fs_guard::SpecialKind;
use crate::sandbox::{WriteRefusal, WriteScope};

/// An opened directory and where it really is.
#[derive(Debug)]
pub struct Dir {
    fd: OwnedFd,
    /// The real path of the handle (or the walked path where `/proc` is missing).
    pub path: PathBuf,
}

/// What a directory entry is, examined without following a symlink.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Entry {
    /// Nothing of that name.
    Missing,
    /// A regular file with its permission bits.
    Regular { mode: u32 },
    /// A symbolic link.
    Symlink,
    /// A directory, FIFO, socket or device.
    Special(SpecialKind),
}

fn errno(e: Errno) -> io::Error {
    io::Error::from(e)
}

fn special_of(t: FileType) -> SpecialKind {
    match t {
        FileType::Directory => SpecialKind::Directory,
        FileType::Fifo => SpecialKind::Fifo,
        FileType::Socket => SpecialKind::Socket,
        FileType::BlockDevice => SpecialKind::BlockDevice,
        FileType::CharacterDevice => SpecialKind::CharDevice,
        _ => SpecialKind::Other,
    }
}

/// Where an opened handle really is (Linux `/proc/self/fd`).
fn real_path(fd: &OwnedFd) -> Option<PathBuf> {
    use std::os::fd::AsRawFd;
    std::fs::read_link(format!("/proc/self/fd/{}", fd.as_raw_fd())).ok()
}

/// Why opening a directory for a write failed.
#[derive(Debug, thiserror::Error)]
pub enum DirError {
    /// A component is (now) a symlink or not a directory: the tree changed since the plan.
    #[error(
        "{} changed while the edit was being written (a directory on the way is now a \
         symbolic link or not a directory)",
        .0.display()
    )]
    Changed(PathBuf),
    /// A directory that would have to be created is not writable.
    #[error("{0}")]
    Refused(WriteRefusal),
    /// Anything else.
    #[error("cannot open {path}: {error}", path = .0.display(), error = .1)]
    Io(PathBuf, io::Error),
}

/// Opens `dir` (absolute, already resolved) without following any symlink on the way. With
/// `create`, missing directories are made, each checked against that scope first, and
/// pushed onto `created` in creation order, so a rollback can remove them. The caller
/// checks the entry it writes against the handle's real path ([`Dir::check`]).
pub fn open_dir(
    dir: &Path,
    create: Option<&WriteScope>,
    created: &mut Vec<PathBuf>,
) -> Result<Dir, DirError> {
    let io_err = |p: &Path, e: Errno| DirError::Io(p.to_path_buf(), errno(e));
    // `O_PATH` (Linux) walks directories that may be searched but not read.
    #[cfg(target_os = "linux")]
    let walk_flags = OFlags::PATH | OFlags::DIRECTORY | OFlags::NOFOLLOW | OFlags::CLOEXEC;
    #[cfg(not(target_os = "linux"))]
    let walk_flags = OFlags::RDONLY | OFlags::DIRECTORY | OFlags::NOFOLLOW | OFlags::CLOEXEC;
    let mut fd = rustix::fs::open("/", walk_flags, Mode::empty()).map_err(|e| io_err(dir, e))?;
    let mut at = PathBuf::from("/");
    for c in dir.components() {
        let name = match c {
            Component::RootDir => continue,
            Component::Normal(n) => n,
            // Resolved paths have no `.`, `..` or prefixes; refuse rather than guess.
            _ => return Err(DirError::Changed(dir.to_path_buf())),
        };
        at.push(name);
        let next = match rustix::fs::openat(&fd, name, walk_flags, Mode::empty()) {
            Ok(next) => next,
            Err(Errno::NOENT) if create.is_some() => {
                let scope = create.expect("checked by the guard");
                scope.check(&at).map_err(DirError::Refused)?;
                match rustix::fs::mkdirat(&fd, name, Mode::from_raw_mode(0o777)) {
                    Ok(()) => created.push(at.clone()),
                    Err(Errno::EXIST) => {}
                    Err(e) => return Err(io_err(&at, e)),
                }
                rustix::fs::openat(&fd, name, walk_flags, Mode::empty()).map_err(|e| match e {
                    Errno::LOOP | Errno::NOTDIR => DirError::Changed(at.clone()),
                    e => io_err(&at, e),
                })?
            }
            Err(Errno::LOOP | Errno::NOTDIR) => return Err(DirError::Changed(at)),
            Err(e) => return Err(io_err(&at, e)),
        };
        fd = next;
    }
    // A real handle (not `O_PATH`) so the directory can be fsynced after the rename; where
    // the directory is not readable, the `O_PATH` handle still serves the `*at` calls.
    let fd = rustix::fs::openat(
        &fd,
        ".",
        OFlags::RDONLY | OFlags::DIRECTORY | OFlags::CLOEXEC,
        Mode::empty(),
    )
    .unwrap_or(fd);
    let path = real_path(&fd).unwrap_or(at);
    Ok(Dir { fd, path })
}

impl Dir {
    /// Checks that `name` in this directory may be written under `scope` now.
    pub fn check(&self, name: &OsStr, scope: &WriteScope) -> Result<(), WriteRefusal> {
        scope.check(&self.path.join(name))
    }

    /// What `name` is, without following a symlink.
    pub fn entry(&self, name: &OsStr) -> io::Result<Entry> {
        match rustix::fs::statat(&self.fd, name, AtFlags::SYMLINK_NOFOLLOW) {
            Ok(st) => {
                let t = FileType::from_raw_mode(st.st_mode);
                Ok(match t {
                    FileType::RegularFile => Entry::Regular {
                        mode: st.st_mode & 0o777,
                    },
                    FileType::Symlink => Entry::Symlink,
                    t => Entry::Special(special_of(t)),
                })
            }
            Err(Errno::NOENT) => Ok(Entry::Missing),
            Err(e) => Err(errno(e)),
        }
    }

    /// Reads the regular file `name` (at most `max + 1` bytes: more means too large),
    /// never blocking on a FIFO swapped in and never following a symlink.
    pub fn read(&self, name: &OsStr, max: u64) -> io::Result<Vec<u8>> {
        let fd = rustix::fs::openat(
            &self.fd,
            name,
            OFlags::RDONLY | OFlags::NOFOLLOW | OFlags::NONBLOCK | OFlags::NOCTTY | OFlags::CLOEXEC,
            Mode::empty(),
        )
        .map_err(errno)?;
        let st = rustix::fs::fstat(&fd).map_err(errno)?;
        if FileType::from_raw_mode(st.st_mode) != FileType::RegularFile {
            return Err(io::Error::other("not a regular file"));
        }
        let mut bytes = Vec::new();
        File::from(fd).take(max + 1).read_to_end(&mut bytes)?;
        Ok(bytes)
    }

    /// Replaces (or creates) `name` with `bytes`: a temporary file in this directory,
    /// fsynced, renamed over `name`, the directory fsynced. With `mode` the file gets those
    /// permission bits (the ones it had); without, a new file's (`0o666` less the umask).
    pub fn write(&self, name: &OsStr, bytes: &[u8], mode: Option<u32>) -> io::Result<()> {
        let tmp = temp_name(name);
        let fd = rustix::fs::openat(
            &self.fd,
            &tmp,
            OFlags::WRONLY | OFlags::CREATE | OFlags::EXCL | OFlags::NOFOLLOW | OFlags::CLOEXEC,
            Mode::from_raw_mode(if mode.is_some() { 0o600 } else { 0o666 }),
        )
        .map_err(errno)?;
        let written = (|| {
            let mut f = File::from(fd);
            f.write_all(bytes)?;
            if let Some(mode) = mode {
                // Explicitly, so the umask does not change the mode the file had.
                rustix::fs::fchmod(f.as_fd(), Mode::from_raw_mode(mode & 0o777)).map_err(errno)?;
            }
            f.sync_all()?;
            drop(f);
            fault(name)?;
            rustix::fs::renameat(&self.fd, &tmp, &self.fd, name).map_err(errno)
        })();
        if let Err(e) = written {
            let _ = rustix::fs::unlinkat(&self.fd, &tmp, AtFlags::empty());
            return Err(e);
        }
        self.sync();
        Ok(())
    }

    /// Removes the file `name` (whatever it is now: a removed symlink changes nothing
    /// elsewhere).
    pub fn remove(&self, name: &OsStr) -> io::Result<()> {
        fault(name)?;
        rustix::fs::unlinkat(&self.fd, name, AtFlags::empty()).map_err(errno)?;
        self.sync();
        Ok(())
    }

    /// Removes the empty directory `name` (a rollback of one this edit created).
    pub fn remove_dir(&self, name: &OsStr) -> io::Result<()> {
        rustix::fs::unlinkat(&self.fd, name, AtFlags::REMOVEDIR).map_err(errno)
    }

    /// Best effort: a directory opened `O_PATH` cannot be fsynced.
    fn sync(&self) {
        let _ = rustix::fs::fsync(&self.fd);
    }
}

/// `.NAME.deepterm-XXXXXXXX.tmp`, cut so it stays within the 255-byte name limit.
fn temp_name(name: &OsStr) -> OsString {
    let bytes = name.as_bytes();
    let keep = &bytes[..bytes.len().min(200)];
    let mut out = Vec::with_capacity(keep.len() + 32);
    out.push(b'.');
    out.extend_from_slice(keep);
    out.extend_from_slice(format!(".deepterm-{:016x}.tmp", fastrand::u64(..)).as_bytes());
    OsStr::from_bytes(&out).to_os_string()
}

/// A file name the tests make fail at write time ([`fail_writes_named`]): a real write
/// failure (full disk, a vanished directory) cannot be caused on demand as root.
#[cfg(test)]
fn fault(name: &OsStr) -> io::Result<()> {
    FAULT.with(|f| {
        if f.borrow().as_deref() == Some(name) {
            Err(io::Error::other("injected write failure"))
        } else {
            Ok(())
        }
    })
}

#[cfg(not(test))]
fn fault(_name: &OsStr) -> io::Result<()> {
    Ok(())
}

#[cfg(test)]
thread_local! {
    static FAULT: std::cell::RefCell<Option<OsString>> = const { std::cell::RefCell::new(None) };
}

/// Makes every write or removal of a file called `name` on this thread fail (tests only).
#[cfg(test)]
pub fn fail_writes_named(name: Option<&str>) {
    FAULT.with(|f| *f.borrow_mut() = name.map(OsString::from));
}
