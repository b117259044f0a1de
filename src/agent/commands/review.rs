//! `/review [BASE]` (SPEC §15.3, decision 0178): the model reviews the workspace's changes
//! read-only. The changes are the hardened `git diff` against `HEAD` or `BASE`
//! (`agent::review`), else this session's checkpoint diff; they are attached as text
//! (capped) to a localized prompt asking for findings by severity with `path:line`. The
//! turn runs with the read-only sandbox whatever the mode, and the mode comes back after it;
//! no mode note is logged (the prompt says the turn is read-only), so the cache keeps its
//! bytes as for any user turn.

use crate::agent::commands::CommandContext;
use crate::agent::protocol::DiffFile;
use crate::agent::review::{cap, git_diff, in_git_repo};
use crate::agent::turn::LineOutcome;
use crate::checkpoint::CheckpointError;
use crate::i18n::Arg;
use crate::sandbox::SandboxMode;

impl CommandContext<'_> {
    /// `/review [BASE]`.
    pub(crate) async fn review_command(&mut self, base: Option<String>) -> LineOutcome {
        let dir = self
            .services
            .sandbox
            .scope
            .read()
            .unwrap_or_else(|e| e.into_inner())
            .workspace
            .clone();
        let (diff, cut, source) = if in_git_repo(&dir) {
            match git_diff(&dir, base.as_deref()) {
                Ok((d, cut)) => (d, cut, base.unwrap_or_else(|| "HEAD".into())),
                Err(e) => {
                    return self.warn(
                        "review-git-failed",
                        vec![("error", Arg::from(e.to_string()))],
                    );
                }
            }
        } else if base.is_some() {
            return self.warn("review-base-needs-git", vec![]);
        } else {
            match self.session_diff_text() {
                Ok(Some((d, cut))) => (d, cut, String::new()),
                Ok(None) => (String::new(), false, String::new()),
                Err(e) => {
                    return self.warn(
                        "checkpoint-failed",
                        vec![("error", Arg::from(e.to_string()))],
                    );
                }
            }
        };
        if diff.trim().is_empty() {
            return self.info("review-nothing", vec![]);
        }
        let l = self.localizer();
        let prompt = l.tra(
            "review-prompt",
            &[
                (
                    "kind",
                    Arg::from(if source.is_empty() { "session" } else { "git" }),
                ),
                ("source", Arg::from(source)),
                ("cut", Arg::from(if cut { "yes" } else { "no" })),
                ("diff", Arg::from(diff)),
            ],
        );
        // Read-only for this turn, whatever the mode (SPEC §15.3); the mode comes back.
        let before = self.services.sandbox.mode();
        self.services.sandbox.set_mode(SandboxMode::ReadOnly);
        let out = self.runner().run_turn(prompt).await;
        self.services.sandbox.set_mode(before);
        out
    }

    /// This session's checkpoint diff as one unified diff, capped.
    fn session_diff_text(&mut self) -> Result<Option<(String, bool)>, CheckpointError> {
        if !self.services.checkpoints.enabled() {
            return Ok(None);
        }
        let Some((a, b, paths, _)) = self.session_change()? else {
            return Ok(None);
        };
        let mut text = String::new();
        for f in self.diff_files(&paths, &a, &b) {
            match f {
                DiffFile::Text { diff, .. } => text.push_str(&diff),
                DiffFile::Binary { path } => {
                    text.push_str(&format!("Binary file {path} changed\n"));
                }
                DiffFile::NotKept { path } => {
                    text.push_str(&format!("{path} changed (too large to show)\n"));
                }
            }
        }
        Ok(Some(cap(text)))
    }
}
