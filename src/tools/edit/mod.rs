//! The edit tools `apply_patch`, `edit_file` and `write_file` (SPEC §14.1, decision 0045).
//!
//! An edit is planned first ([`preview`]: every path resolved and checked against the
//! [`WriteScope`], every new content computed in memory, nothing written), then applied
//! ([`apply`]: every target checked again at the moment of writing through directory
//! handles that follow no symlink, then one atomic rename per file, undone in reverse
//! order if any fails). Edits are made by deepterm itself, never through a shell. The
//! [`WriteScope`] is the only authority on what may be written; the tools read the
//! session's [`SharedScope`] at call time, so `/mode` takes effect on the next call.
//!
//! For the approval card, [`preview`] gives the diffs before anything is applied; for the
//! Chat card of a logged (or resumed) result, [`parse_result`] recovers the files, their
//! counts and diffs from the result text.

pub(crate) mod atomic;
mod commit;
mod error;
pub mod patch;
mod paths;
mod plan;
mod report;
mod seek;

#[cfg(test)]
mod tests_patch;
#[cfg(test)]
mod tests_plan;
#[cfg(test)]
mod tests_security;
#[cfg(test)]
mod tests_tools;

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use futures_util::FutureExt;
use futures_util::future::BoxFuture;
use serde_json::{Value, json};
use tokio_util::sync::CancellationToken;

use super::{Approval, Interrupted, RegisteredTool, ToolExecutor, ToolOutcome, run_guarded};
use crate::sandbox::{SandboxMode, SharedScope, WriteScope};
use crate::session::event::ToolSchema;

pub use commit::apply;
pub use error::EditError;
pub use plan::{EditPlan, MAX_EDIT_BYTES, preview};
pub use report::{
    ChangeKind, EditSummary, EditedFile, FileChange, MAX_RESULT_DIFF_BYTES, parse_result,
};

/// The edit tools' names, in name order.
pub const EDIT_TOOL_NAMES: [&str; 3] = ["apply_patch", "edit_file", "write_file"];

/// A write scope for `workspace` in `mode`, with the protected paths this module knows:
/// `.git` (and the directory a `.git` file's `gitdir:` names) and `.deepterm/` of the
/// workspace. The sandbox's full list (config file, session directory) replaces this when
/// the session builds its scope.
pub fn workspace_scope(workspace: &Path, mode: SandboxMode) -> WriteScope {
    let ws = std::fs::canonicalize(workspace).unwrap_or_else(|_| workspace.to_path_buf());
    let mut protected: Vec<PathBuf> = Vec::new();
    let mut add = |p: PathBuf| {
        if let Ok(c) = std::fs::canonicalize(&p) {
            protected.push(c);
        }
        protected.push(p);
    };
    add(ws.join(".git"));
    add(ws.join(".deepterm"));
    add(ws.join(".claude"));
    if let Ok(text) =
        crate::fs_guard::read_confined(&ws.join(".git"), std::slice::from_ref(&ws), 4096)
        && let Some(dir) = text.text.lines().find_map(|l| l.strip_prefix("gitdir:"))
    {
        add(paths::lexical(&ws, dir.trim()));
    }
    protected.sort();
    protected.dedup();
    WriteScope {
        mode,
        workspace: ws.clone(),
        writable_roots: vec![ws],
        protected,
    }
}

/// The scope as it is now (a poisoned lock still holds the last scope written).
fn current(scope: &SharedScope) -> WriteScope {
    scope.read().unwrap_or_else(|e| e.into_inner()).clone()
}

/// Why the blocking work stopped without a result of its own.
enum Done {
    Finished(Result<String, EditError>),
    Stopped,
}

/// One edit tool bound to the session's scope.
struct EditTool {
    name: &'static str,
    scope: SharedScope,
    timeout: Duration,
}

impl ToolExecutor for EditTool {
    fn call<'a>(
        &'a self,
        arguments: Value,
        cancel: &'a CancellationToken,
    ) -> BoxFuture<'a, ToolOutcome> {
        let scope = current(&self.scope);
        let name = self.name;
        let stop = CancellationToken::new();
        let stopped = stop.clone();
        async move {
            let mut task = tokio::task::spawn_blocking(move || {
                let plan = match preview(name, &arguments, &scope) {
                    Ok(p) => p,
                    Err(e) => return Done::Finished(Err(e)),
                };
                // The last moment a stop leaves every file as it was; once writing starts
                // it runs to the end (or rolls back), so no call is left half applied.
                if stopped.is_cancelled() {
                    return Done::Stopped;
                }
                Done::Finished(apply(&plan, &scope))
            });
            let interrupted = match run_guarded(&mut task, self.timeout, cancel).await {
                Ok(joined) => return outcome(name, joined),
                Err(why) => why,
            };
            stop.cancel();
            match task.await {
                Ok(Done::Stopped) => ToolOutcome::error(match interrupted {
                    Interrupted::Cancelled => {
                        "tool call cancelled; no file was changed".to_string()
                    }
                    Interrupted::TimedOut => format!(
                        "tool \"{name}\" timed out after {} s; no file was changed",
                        self.timeout.as_secs_f64()
                    ),
                }),
                joined => outcome(name, joined),
            }
        }
        .boxed()
    }
}

fn outcome(name: &str, joined: Result<Done, tokio::task::JoinError>) -> ToolOutcome {
    match joined {
        Ok(Done::Finished(Ok(text))) => ToolOutcome::ok(text),
        Ok(Done::Finished(Err(e))) => ToolOutcome::error(e.to_string()),
        Ok(Done::Stopped) => ToolOutcome::error("tool call cancelled; no file was changed"),
        Err(e) => ToolOutcome::error(format!("tool \"{name}\" failed: {e}")),
    }
}

fn schema(name: &str, description: &str, parameters: Value) -> ToolSchema {
    ToolSchema {
        name: name.to_string(),
        description: description.to_string(),
        parameters,
        defer_loading: None,
    }
}

/// What the sandbox mode allows, said in every edit tool's description (§14.2).
macro_rules! mode_note {
    () => {
        "Writes follow the sandbox mode: in read-only nothing is written; short of \
         full-access, only the workspace and the writable roots are writable, and .git and \
         .deepterm never are."
    };
}

/// The declarations of the edit tools, in name order. Fixed text with a stable key order:
/// they are part of the cached prompt prefix.
pub fn schemas() -> Vec<ToolSchema> {
    vec![
        schema(
            "apply_patch",
            concat!(
                "Edit files in the workspace with a patch: add, delete, update and move files in one \
             call. `patch` is the whole patch text:\n\
             *** Begin Patch\n\
             *** Add File: path/new.txt\n\
             +first line of the new file\n\
             *** Delete File: path/old.txt\n\
             *** Update File: path/file.py\n\
             *** Move to: path/renamed.py (optional)\n\
             @@ def function_the_change_is_in():\n \
             context line (unchanged)\n\
             -removed line\n\
             +added line\n \
             context line (unchanged)\n\
             *** End of File (optional: the hunk ends the file)\n\
             *** End Patch\n\
             Each hunk starts with `@@` (optionally followed by a line that occurs before the \
             change, such as a function signature) and has about 3 unchanged lines before and \
             after each change. Paths are relative to the workspace root (or absolute). \
             Every operation is checked before any file is written: if one fails, no file is \
             changed. ",
                mode_note!(),
                " Returns per file `+added -removed` and the unified diff."
            ),
            json!({
                "type": "object",
                "properties": {
                    "patch": {"type": "string", "description": "The patch, from `*** Begin Patch` to `*** End Patch`."}
                },
                "required": ["patch"]
            }),
        ),
        schema(
            "edit_file",
            concat!(
                "Replace text in a file in the workspace. `old_string` must occur exactly once in \
             the file (with `replace_all`, at least once, and every occurrence is replaced); \
             include enough surrounding lines to make it unique, matching the file exactly, \
             whitespace included. On 0 or several matches the file is not changed and the \
             error says how many times it occurs. `path` is relative to the workspace root (or \
             absolute). ",
                mode_note!(),
                " Returns `+added -removed` and the unified diff."
            ),
            json!({
                "type": "object",
                "properties": {
                    "path": {"type": "string", "description": "File to edit, relative to the workspace root."},
                    "old_string": {"type": "string", "description": "Exact text to replace."},
                    "new_string": {"type": "string", "description": "Text to put in its place."},
                    "replace_all": {"type": "boolean", "description": "Replace every occurrence (default false)."}
                },
                "required": ["path", "old_string", "new_string"]
            }),
        ),
        schema(
            "write_file",
            concat!(
                "Create a file, or replace a file's whole content, in the workspace; missing parent \
             directories are created. `path` is relative to the workspace root (or absolute). \
             Prefer edit_file or apply_patch to change part of an existing file. ",
                mode_note!(),
                " Returns `+added -removed` and the unified diff."
            ),
            json!({
                "type": "object",
                "properties": {
                    "path": {"type": "string", "description": "File to write, relative to the workspace root."},
                    "content": {"type": "string", "description": "The complete new content of the file."}
                },
                "required": ["path", "content"]
            }),
        ),
    ]
}

/// The edit tools, writing under `scope` (read at every call), each call limited to
/// `timeout`. They ask for approval ([`Approval::Ask`]; the session's policy layer decides
/// in the end) and run one at a time.
pub fn tools(scope: SharedScope, timeout: Duration) -> Vec<RegisteredTool> {
    schemas()
        .into_iter()
        .map(|s| {
            let name = EDIT_TOOL_NAMES
                .into_iter()
                .find(|n| *n == s.name)
                .expect("every schema is an edit tool");
            RegisteredTool {
                schema: s,
                approval: Approval::Ask,
                enabled: true,
                executor: Arc::new(EditTool {
                    name,
                    scope: scope.clone(),
                    timeout,
                }),
                // Edits write: never overlap another call.
                parallel_safe: false,
            }
        })
        .collect()
}
