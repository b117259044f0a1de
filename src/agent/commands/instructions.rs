//! `/instructions` and `/init` (SPEC §14.4): which instruction files the system prompt
//! holds now, and a request to the model to write the workspace's `AGENTS.md`.

use crate::agent::commands::CommandContext;
use crate::agent::turn::LineOutcome;
use crate::i18n::{Arg, Text};

impl CommandContext<'_> {
    /// `/instructions`: every file in use with its size, then each refused or cut one
    /// with the reason (the same warning the loop gives), read now as the next request
    /// will read them.
    pub(crate) fn instructions_command(&mut self) -> LineOutcome {
        let read = self.env().instructions_in_use();
        let mut lines = vec![];
        if read.used.is_empty() {
            lines.push(Text::new("cmd-instructions-none", vec![]));
        } else {
            lines.push(Text::new("cmd-instructions-title", vec![]));
            for (path, size) in &read.used {
                lines.push(Text::new(
                    "cmd-instructions-file",
                    vec![
                        ("path", Arg::from(path.display().to_string())),
                        ("bytes", Arg::from(*size)),
                    ],
                ));
            }
        }
        // An untrusted folder's own files (SPEC §15.4).
        for p in &read.skipped {
            lines.push(Text::new(
                "first-run-instructions-skipped",
                vec![("path", Arg::from(p.display().to_string()))],
            ));
        }
        for p in &read.problems {
            let (id, args) = p.message();
            lines.push(Text::new(
                "cmd-instructions-problem",
                vec![("problem", Arg::from(Text::new(id, args)))],
            ));
        }
        self.output(lines)
    }

    /// `/init`: sends a fixed prompt, in the interface language, asking the model to
    /// write `AGENTS.md` for the workspace. It is an ordinary user turn, so the file is
    /// written through the edit tools and their approvals, and the next request reads it
    /// (discovery runs on every request).
    pub(crate) async fn init_command(&mut self) -> LineOutcome {
        let prompt = self.localizer().tr("cmd-init-prompt");
        self.runner().run_turn(prompt).await
    }
}
