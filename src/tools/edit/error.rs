//! Why an edit was refused or failed (decision 0138). The text of each is the tool error
//! the model reads: plain English and stable, like every tool error.

use std::io;
use std::path::PathBuf;

use super::atomic::DirError;
use super::patch::ParseError;
use crate::fs_guard::SpecialKind;
use crate::sandbox::WriteRefusal;

/// An edit that was not made, or not made whole.
#[derive(Debug, thiserror::Error)]
pub enum EditError {
    // The call's arguments.
    /// A required argument is absent or null.
    #[error("missing required argument \"{0}\"")]
    MissingArgument(String),
    /// An argument that must be a string is not.
    #[error("argument \"{0}\" must be a string")]
    NotAString(String),
    /// An argument that must be a boolean is not.
    #[error("argument \"{0}\" must be a boolean")]
    NotABoolean(String),
    /// An argument (or the file it makes) is over the edit tools' limit.
    #[error("argument \"{what}\" is too large ({len} bytes; the limit is {limit})")]
    ArgumentTooLarge {
        /// The argument, or what it makes.
        what: String,
        /// Its size in bytes.
        len: usize,
        /// The limit in bytes.
        limit: u64,
    },
    /// A tool name that is not an edit tool.
    #[error("unknown edit tool \"{0}\"")]
    UnknownTool(String),
    /// The sandbox mode is read-only.
    #[error("{0}: {ro}", ro = WriteRefusal::ReadOnlyMode)]
    ReadOnly(String),

    // Where a path leads.
    /// The path is empty or blank.
    #[error("the path is empty")]
    EmptyPath,
    /// The path holds a newline, a NUL or another control character.
    #[error("path \"{}\" contains a control character", .0.escape_debug())]
    ControlCharacter(String),
    /// No part of the path exists.
    #[error("cannot resolve path \"{0}\"")]
    Unresolvable(String),
    /// A symlink on the way leads nowhere (it is not followed).
    #[error("\"{shown}\" is a symbolic link that cannot be resolved ({error}); it is not followed")]
    BrokenLink {
        /// The link, as results name it.
        shown: String,
        /// Why it could not be resolved.
        error: io::Error,
    },
    /// The existing part of the path could not be resolved.
    #[error("cannot resolve \"{shown}\": {error}")]
    Resolve {
        /// The path, as results name it.
        shown: String,
        /// Why.
        error: io::Error,
    },
    /// A file stands where a directory of the path should be.
    #[error("\"{0}\" is not a directory")]
    NotADirectory(String),
    /// The write scope refuses the path.
    #[error("{0}")]
    Refused(WriteRefusal),

    // Reading what is there.
    /// The file holds NUL bytes.
    #[error("\"{0}\" is a binary file; only text files can be edited")]
    Binary(String),
    /// The file is not UTF-8.
    #[error("\"{0}\" is not UTF-8 text; only text files can be edited")]
    NotUtf8(String),
    /// Reading the file failed.
    #[error("cannot read \"{shown}\": {error}")]
    Read {
        /// The file, as results name it.
        shown: String,
        /// Why.
        error: io::Error,
    },
    /// A symlink appeared where resolution found none.
    #[error("\"{0}\" changed while it was being read")]
    ChangedWhileRead(String),
    /// A directory, FIFO, socket or device.
    #[error(
        "\"{shown}\" is not a regular file (it is {}); only regular files can be edited",
        kind.describe()
    )]
    NotRegular {
        /// The path, as results name it.
        shown: String,
        /// What it is.
        kind: SpecialKind,
    },
    /// The file is over the edit tools' limit.
    #[error("\"{shown}\" is too large to edit ({size} bytes; the limit is {limit})")]
    TooLarge {
        /// The file, as results name it.
        shown: String,
        /// Its size in bytes.
        size: u64,
        /// The limit in bytes.
        limit: u64,
    },

    // apply_patch.
    /// The patch text does not follow the grammar.
    #[error("{0}; no file was changed")]
    BadPatch(ParseError),
    /// One operation of a patch failed: the patch as a whole is refused.
    #[error("apply_patch: {0}; no file was changed")]
    Patch(Box<EditError>),
    /// `*** Add File:` for a file that exists.
    #[error("cannot add \"{0}\": it already exists (use '*** Update File:')")]
    AddExisting(String),
    /// `*** Delete File:` for a file that does not exist.
    #[error("cannot delete \"{0}\": it does not exist")]
    DeleteMissing(String),
    /// `*** Update File:` for a file that does not exist.
    #[error("cannot update \"{0}\": it does not exist (use '*** Add File:')")]
    UpdateMissing(String),
    /// A hunk's lines were not found.
    #[error(
        "the hunk at patch line {chunk_line} does not match \"{shown}\": could not find the \
         line {line:?}"
    )]
    HunkMismatch {
        /// The hunk's line in the patch.
        chunk_line: usize,
        /// The file, as results name it.
        shown: String,
        /// The line that was not found.
        line: String,
    },
    /// `*** Move to:` onto a file that exists.
    #[error("cannot move \"{from}\" to \"{to}\": the destination already exists")]
    MoveOntoExisting {
        /// The file moved.
        from: String,
        /// Where to.
        to: String,
    },

    // edit_file.
    /// `old_string` is empty.
    #[error("argument \"old_string\" must not be empty (use write_file to create a file)")]
    EmptyOldString,
    /// `old_string` equals `new_string`.
    #[error("old_string and new_string are the same; nothing would change")]
    NothingToChange,
    /// The file to edit does not exist.
    #[error("\"{0}\" does not exist (use write_file to create it)")]
    EditMissing(String),
    /// `old_string` is not in the file.
    #[error(
        "old_string occurs 0 times in \"{0}\"; \"{0}\" was not changed. It must match the \
         file exactly, whitespace included"
    )]
    NoMatch(String),
    /// `old_string` is in the file more than once and `replace_all` is not set.
    #[error(
        "old_string occurs {count} times in \"{shown}\"; \"{shown}\" was not changed. Include \
         more surrounding lines to make it unique, or set replace_all"
    )]
    NotUnique {
        /// How often it occurs.
        count: usize,
        /// The file, as results name it.
        shown: String,
    },

    // Writing (all or nothing).
    /// A target path without a parent or a name.
    #[error("cannot write {}", .0.display())]
    NoFileName(PathBuf),
    /// A directory on the way could not be opened (or changed).
    #[error("{0}")]
    Dir(DirError),
    /// The target could not be examined.
    #[error("cannot examine \"{shown}\": {error}")]
    Examine {
        /// The file, as results name it.
        shown: String,
        /// Why.
        error: io::Error,
    },
    /// The target became a symlink since the plan.
    #[error("\"{0}\" is now a symbolic link; it is not written through")]
    NowSymlink(String),
    /// A file appeared where the plan found none.
    #[error("\"{0}\" appeared since the edit was prepared")]
    Appeared(String),
    /// The file's content (or existence) changed since the plan.
    #[error("\"{0}\" changed since the edit was prepared; read it again")]
    ChangedSincePlanned(String),
    /// Writing or removing the file failed.
    #[error("cannot write \"{shown}\": {error}")]
    Write {
        /// The file, as results name it.
        shown: String,
        /// Why.
        error: io::Error,
    },
    /// A check before writing failed: nothing was written.
    #[error("{tool}: {error}; no file was changed")]
    NotWritten {
        /// The edit tool.
        tool: String,
        /// Why.
        error: Box<EditError>,
    },
    /// A write failed and every change already made was undone.
    #[error("{tool}: {error}; every change was undone, no file was changed")]
    Undone {
        /// The edit tool.
        tool: String,
        /// Why.
        error: Box<EditError>,
    },
    /// A write failed and undoing the changes already made failed too.
    #[error(
        "{tool}: {error}; undoing the changes already made failed for {}",
        lost.join(", ")
    )]
    UndoFailed {
        /// The edit tool.
        tool: String,
        /// Why the write failed.
        error: Box<EditError>,
        /// Each file that could not be put back, and why.
        lost: Vec<String>,
    },
}
