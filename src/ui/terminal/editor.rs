//! Ctrl+G: the draft edited in `$VISUAL`, else `$EDITOR`, else `vi`.
//! The terminal is handed to the editor by the event loop ([`super::event_loop::Screen`]);
//! this runs the child: the draft in a private temporary file, the command split on
//! whitespace (`code --wait`), the file read back with one trailing newline trimmed. The
//! child's environment is scrubbed like every child's (`tools::child_env`): no variable
//! with a secret-looking name and none holding one of deepterm's API keys.

use std::ffi::OsString;
use std::io::Write;
use std::path::PathBuf;
use std::process::Command;

use crate::tools::child_env::ChildEnvPolicy;

/// Why the draft could not be edited.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum EditorError {
    /// The editor did not start (`command`, the OS error).
    Spawn(String, String),
    /// The editor exited unsuccessfully (`command`, the exit status).
    Failed(String, String),
    /// The temporary file could not be written or read.
    File(String),
}

/// The editor command: `$VISUAL`, else `$EDITOR`, else `vi` (empty values skipped).
pub fn editor_command(visual: Option<OsString>, editor: Option<OsString>) -> Vec<String> {
    [visual, editor]
        .into_iter()
        .flatten()
        .map(|v| v.to_string_lossy().into_owned())
        .find(|v| !v.trim().is_empty())
        .unwrap_or_else(|| "vi".to_string())
        .split_whitespace()
        .map(str::to_string)
        .collect()
}

/// The command from the process environment.
pub fn command_from_env() -> Vec<String> {
    editor_command(std::env::var_os("VISUAL"), std::env::var_os("EDITOR"))
}

/// The variables to remove from the child's environment: secret-looking names, and any
/// variable whose value is one of `secrets` (the configured key, whatever its name).
pub fn scrubbed_vars(
    vars: impl IntoIterator<Item = (OsString, OsString)>,
    secrets: &[String],
) -> Vec<OsString> {
    let policy = ChildEnvPolicy::new(&[], &[]);
    vars.into_iter()
        .filter(|(k, v)| {
            policy.removes(&k.to_string_lossy())
                || secrets
                    .iter()
                    .any(|s| !s.is_empty() && v.to_string_lossy().trim() == s.as_str())
        })
        .map(|(k, _)| k)
        .collect()
}

fn temp_path() -> PathBuf {
    std::env::temp_dir().join(format!(
        "deepterm-draft-{}-{:08x}.md",
        std::process::id(),
        fastrand::u32(..)
    ))
}

/// Runs `command` on a temporary file holding `draft` and returns the edited text. Blocks
/// until the editor exits; the caller has handed it the terminal.
pub fn edit(command: &[String], draft: &str, secrets: &[String]) -> Result<String, EditorError> {
    let shown = command.join(" ");
    let Some((prog, args)) = command.split_first() else {
        return Err(EditorError::Spawn(shown, "empty command".into()));
    };
    let path = temp_path();
    let mut opts = std::fs::OpenOptions::new();
    opts.write(true).create_new(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        opts.mode(0o600);
    }
    let written = opts
        .open(&path)
        .and_then(|mut f| f.write_all(draft.as_bytes()));
    if let Err(e) = written {
        let _ = std::fs::remove_file(&path);
        return Err(EditorError::File(e.to_string()));
    }
    let mut cmd = Command::new(prog);
    cmd.args(args).arg(&path);
    for name in scrubbed_vars(std::env::vars_os(), secrets) {
        cmd.env_remove(name);
    }
    let result = match cmd.status() {
        Err(e) => Err(EditorError::Spawn(shown, e.to_string())),
        Ok(st) if !st.success() => Err(EditorError::Failed(shown, st.to_string())),
        Ok(_) => std::fs::read_to_string(&path)
            .map_err(|e| EditorError::File(e.to_string()))
            .map(|t| {
                let t = t.strip_suffix('\n').unwrap_or(&t);
                t.strip_suffix('\r').unwrap_or(t).to_string()
            }),
    };
    let _ = std::fs::remove_file(&path);
    result
}

#[cfg(test)]
mod tests {
    use super::*;

    fn os(s: &str) -> Option<OsString> {
        Some(OsString::from(s))
    }

    #[test]
    fn visual_then_editor_then_vi_split_on_whitespace() {
        assert_eq!(
            editor_command(os("code --wait"), os("nano")),
            ["code", "--wait"]
        );
        assert_eq!(editor_command(None, os("nano -w")), ["nano", "-w"]);
        assert_eq!(editor_command(os("  "), os("ed")), ["ed"]);
        assert_eq!(editor_command(None, None), ["vi"]);
    }

    #[test]
    fn child_env_loses_keys_by_name_and_by_value() {
        let vars = vec![
            (
                OsString::from("DEEPSEEK_API_KEY"),
                OsString::from("sk-abc12345"),
            ),
            (OsString::from("MY_KEY"), OsString::from("sk-live-99999")),
            (OsString::from("HOME"), OsString::from("/home/u")),
        ];
        let gone = scrubbed_vars(vars, &["sk-live-99999".to_string()]);
        assert_eq!(
            gone,
            [OsString::from("DEEPSEEK_API_KEY"), OsString::from("MY_KEY")]
        );
    }

    #[cfg(unix)]
    #[test]
    fn edit_returns_the_file_and_failures_keep_nothing() {
        let dir = tempfile::tempdir().unwrap();
        let script = dir.path().join("ed.sh");
        std::fs::write(&script, "#!/bin/sh\nprintf 'edited text\\n' > \"$1\"\n").unwrap();
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755)).unwrap();
        let cmd = vec![script.to_string_lossy().into_owned()];
        assert_eq!(edit(&cmd, "draft", &[]).unwrap(), "edited text");
        let fail = vec!["false".to_string()];
        assert!(matches!(
            edit(&fail, "draft", &[]),
            Err(EditorError::Failed(..))
        ));
        let missing = vec!["/nonexistent/editor-xyz".to_string()];
        assert!(matches!(
            edit(&missing, "draft", &[]),
            Err(EditorError::Spawn(..))
        ));
    }
}
