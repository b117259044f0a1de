//! `/diff`, `/undo`, `/rewind` and `/fork` (SPEC §14.3), identical in the TUI and `exec`:
//! what they report travels as output lines and notices, except that in the TUI `/diff`
//! sends its files for the diff overlay ([`AgentEvent::Diff`]) and a bare `/rewind` the
//! prompts for the picker ([`AgentEvent::RewindChoices`]). Chat shows each checkpoint,
//! undo and rewind as a node folded from the logged events.

use crate::agent::checkpoint::{TurnRecord, turn_records};
use crate::agent::command_spec::CommandId;
use crate::agent::commands::CommandContext;
use crate::agent::protocol::{
    AgentEvent, DiffFile, DiffView, NoticeLevel, OUTPUT_VERBATIM, OutputLine, PromptChoice,
};
use crate::agent::turn::LineOutcome;
use crate::checkpoint::diff::{changed_paths, unified};
use crate::checkpoint::restore::{RestoreReport, restore};
use crate::checkpoint::{CheckpointError, Manifest};
use crate::i18n::{Arg, Text};
use crate::sandbox::SandboxMode;
use crate::session::checkpoint_event::{CheckpointUndo, RewindScope, SessionRewind};
use crate::session::event::EventKind;

/// The base, the workspace now, the changed paths and the title of `/diff`.
type SessionChange = (Manifest, Manifest, Vec<String>, Text);

/// The largest file content a diff reads back from the store.
const DIFF_MAX_BYTES: u64 = 16 * 1024 * 1024;

fn verbatim(text: impl Into<String>) -> OutputLine {
    Text::new(OUTPUT_VERBATIM, vec![("text", Arg::from(text.into()))])
}

/// A diff as output lines: the title, then each file's unified diff or why there is none.
fn diff_lines(title: Text, files: &[DiffFile]) -> Vec<OutputLine> {
    let mut out = vec![title];
    for f in files {
        match f {
            DiffFile::Text { diff, .. } => out.extend(diff.lines().map(verbatim)),
            DiffFile::Binary { path } => out.push(Text::new(
                "diff-binary",
                vec![("path", Arg::from(path.as_str()))],
            )),
            DiffFile::NotKept { path } => out.push(Text::new(
                "diff-not-kept",
                vec![("path", Arg::from(path.as_str()))],
            )),
        }
    }
    out
}

/// One prompt on one line, shortened.
fn short_prompt(p: &str) -> String {
    let one: String = p.split_whitespace().collect::<Vec<_>>().join(" ");
    let mut out: String = one.chars().take(60).collect();
    if one.chars().count() > 60 {
        out.push('…');
    }
    out
}

impl CommandContext<'_> {
    pub(crate) fn checkpoints_off(&self) -> Option<LineOutcome> {
        (!self.services.checkpoints.enabled()).then(|| self.info("checkpoint-off", vec![]))
    }

    /// The content of `path` in manifest `m` (`None`: no such file; `Some(None)`: binary
    /// or unreadable).
    fn content(&self, m: &Manifest, path: &str) -> Option<Option<String>> {
        let e = m.files.get(path)?;
        let (store, _) = self.services.checkpoints.parts()?;
        Some(
            store
                .get_object(&e.hash, DIFF_MAX_BYTES)
                .ok()
                .and_then(|b| String::from_utf8(b).ok()),
        )
    }

    /// The files of `paths` between `a` and `b`: each one's unified diff, or why none.
    pub(super) fn diff_files(&self, paths: &[String], a: &Manifest, b: &Manifest) -> Vec<DiffFile> {
        let mut out = Vec::new();
        for p in paths {
            let path = p.clone();
            if a.is_skipped(p) || b.is_skipped(p) {
                out.push(DiffFile::NotKept { path });
                continue;
            }
            let before = self.content(a, p);
            let after = self.content(b, p);
            if matches!(before, Some(None)) || matches!(after, Some(None)) {
                out.push(DiffFile::Binary { path });
                continue;
            }
            let diff = unified(p, before.flatten().as_deref(), after.flatten().as_deref());
            out.push(DiffFile::Text { path, diff });
        }
        out
    }

    /// `/diff` (what this session changed) and `/diff N` (what turn N changed).
    pub(crate) fn diff_command(&mut self, turn: Option<usize>) -> LineOutcome {
        if let Some(off) = self.checkpoints_off() {
            return off;
        }
        let records = turn_records(self.session());
        let (a, b, paths, title) = match turn {
            None => match self.session_change() {
                Ok(Some(x)) => x,
                Ok(None) => return self.info("diff-nothing", vec![]),
                Err(e) => {
                    return self.warn(
                        "checkpoint-failed",
                        vec![("error", Arg::from(e.to_string()))],
                    );
                }
            },
            Some(n) => {
                let Some(r) = records.get(n.wrapping_sub(1)) else {
                    return self.usage_of(CommandId::Diff);
                };
                match self.turn_change(r) {
                    Ok(Some((a, b, paths))) => {
                        let t = Text::new(
                            "diff-turn-title",
                            vec![
                                ("n", Arg::from(r.position)),
                                ("count", Arg::from(paths.len())),
                            ],
                        );
                        (a, b, paths, t)
                    }
                    Ok(None) => {
                        return self.info("diff-turn-nothing", vec![("n", Arg::from(r.position))]);
                    }
                    Err(e) => {
                        return self.warn(
                            "checkpoint-failed",
                            vec![("error", Arg::from(e.to_string()))],
                        );
                    }
                }
            }
        };
        let files = self.diff_files(&paths, &a, &b);
        // The TUI shows the diff in its overlay; `exec` prints it as a plain unified diff.
        if self.is_interactive() {
            self.events
                .emit(AgentEvent::Diff(DiffView { title, files }));
            return LineOutcome::default();
        }
        self.output(diff_lines(title, &files))
    }

    /// Turn `r`'s change: its checkpoint, the state it left (the workspace now when it
    /// logged none) and the paths they disagree on.
    fn turn_change(
        &mut self,
        r: &TurnRecord,
    ) -> Result<Option<(Manifest, Manifest, Vec<String>)>, CheckpointError> {
        let Some(before) = &r.before else {
            return Ok(None);
        };
        let a = self.services.checkpoints.load(before)?;
        let b = match &r.after {
            Some(id) => self.services.checkpoints.load(id)?,
            None => self.services.checkpoints.take(None)?.1,
        };
        let paths = changed_paths(&a, &b);
        Ok((!paths.is_empty()).then_some((a, b, paths)))
    }

    /// What this session changed: for each path a turn changed (and that was not undone),
    /// its state before the first such turn against the workspace now.
    pub(super) fn session_change(&mut self) -> Result<Option<SessionChange>, CheckpointError> {
        let records = turn_records(self.session());
        let mut base = Manifest::default();
        let mut touched: Vec<String> = Vec::new();
        for r in records.iter().filter(|r| !r.undone) {
            if let Some((a, _, paths)) = self.turn_change(r)? {
                for p in paths {
                    if !touched.contains(&p) {
                        if let Some(e) = a.files.get(&p) {
                            base.files.insert(p.clone(), e.clone());
                        }
                        if let Some(s) = a.skipped.iter().find(|s| s.path == p) {
                            base.skipped.push(s.clone());
                        }
                        touched.push(p);
                    }
                }
            }
        }
        if touched.is_empty() {
            return Ok(None);
        }
        let now = self.services.checkpoints.take(None)?.1;
        let mut paths: Vec<String> = changed_paths(&base, &now)
            .into_iter()
            .filter(|p| touched.contains(p))
            .collect();
        // A file created and removed again shows as nothing.
        paths.retain(|p| {
            base.files.contains_key(p) || now.files.contains_key(p) || now.is_skipped(p)
        });
        if paths.is_empty() {
            return Ok(None);
        }
        let t = Text::new(
            "diff-session-title",
            vec![("count", Arg::from(paths.len()))],
        );
        Ok(Some((base, now, paths, t)))
    }

    fn usage_of(&self, id: CommandId) -> LineOutcome {
        self.usage(id.spec())
    }

    /// Puts back what turn `r` changed; logs the undo (complete when nothing conflicted
    /// or the user confirmed).
    fn undo_turn(&mut self, r: &TurnRecord, force: bool) -> Result<RestoreReport, CheckpointError> {
        let change = self.turn_change(r)?;
        self.undo_change(r, change, force)
    }

    /// Puts back `change`, turn `r`'s change as [`Agent::turn_change`] found it.
    fn undo_change(
        &mut self,
        r: &TurnRecord,
        change: Option<(Manifest, Manifest, Vec<String>)>,
        force: bool,
    ) -> Result<RestoreReport, CheckpointError> {
        let Some((a, b, paths)) = change else {
            let kind = EventKind::CheckpointUndo(CheckpointUndo {
                turn: r.turn,
                restored: vec![],
                conflicts: vec![],
                forced: force,
            });
            self.runner().commit_checkpoint_event(kind);
            return Ok(RestoreReport::default());
        };
        // The user asked for this restore: it writes the workspace as `workspace-write`
        // does, whatever the mode, and never a protected path (.git, the config).
        let mut scope = self
            .services
            .sandbox
            .scope
            .read()
            .unwrap_or_else(|e| e.into_inner())
            .clone();
        scope.mode = SandboxMode::WorkspaceWrite;
        let Some((store, walk)) = self.services.checkpoints.parts() else {
            return Ok(RestoreReport::default());
        };
        let report = restore(walk, store, &scope, &paths, &a, &b, force);
        let kind = EventKind::CheckpointUndo(CheckpointUndo {
            turn: r.turn,
            restored: report.restored.clone(),
            conflicts: report.conflicts.clone(),
            forced: force,
        });
        self.runner().commit_checkpoint_event(kind);
        Ok(report)
    }

    /// The lines of a restore report. In the TUI the logged event's node already lists
    /// the files put back and the conflicts, so the report adds only what the node does
    /// not say: files that could not be restored and how to force the conflicts.
    fn report_lines(&self, r: &RestoreReport, force_hint: &str) -> Vec<OutputLine> {
        let mut out = Vec::new();
        let node_says_it = self.is_interactive();
        for p in r.restored.iter().filter(|_| !node_says_it) {
            out.push(Text::new(
                "undo-restored-file",
                vec![("path", Arg::from(p.as_str()))],
            ));
        }
        for p in &r.not_restorable {
            out.push(Text::new(
                "undo-not-kept",
                vec![("path", Arg::from(p.as_str()))],
            ));
        }
        for (p, why) in &r.failed {
            out.push(Text::new(
                "undo-failed-file",
                vec![
                    ("path", Arg::from(p.as_str())),
                    ("error", Arg::from(why.as_str())),
                ],
            ));
        }
        for p in r.conflicts.iter().filter(|_| !node_says_it) {
            out.push(Text::new(
                "undo-conflict-file",
                vec![("path", Arg::from(p.as_str()))],
            ));
        }
        if !r.conflicts.is_empty() {
            out.push(Text::new(
                "undo-conflict-hint",
                vec![("command", Arg::from(force_hint))],
            ));
        }
        out
    }

    /// `/undo [--force]`: puts back the files the last turn that changed any changed.
    pub(crate) fn undo_command(&mut self, force: bool) -> LineOutcome {
        if let Some(off) = self.checkpoints_off() {
            return off;
        }
        let records = turn_records(self.session());
        // The last turn that changed a file: a turn that took a checkpoint and changed
        // nothing (a command that wrote nothing) is not a step of `/undo`.
        let mut found = None;
        for r in records
            .iter()
            .rev()
            .filter(|r| r.before.is_some() && !r.undone)
        {
            match self.turn_change(r) {
                Ok(Some(change)) => {
                    found = Some((r.clone(), change));
                    break;
                }
                Ok(None) => {}
                Err(e) => {
                    return self.warn(
                        "checkpoint-failed",
                        vec![("error", Arg::from(e.to_string()))],
                    );
                }
            }
        }
        let Some((r, change)) = found else {
            return self.info("undo-nothing", vec![]);
        };
        let report = match self.undo_change(&r, Some(change), force) {
            Ok(x) => x,
            Err(e) => {
                return self.warn(
                    "checkpoint-failed",
                    vec![("error", Arg::from(e.to_string()))],
                );
            }
        };
        // In the TUI the logged undo's node is the title.
        let mut lines = Vec::new();
        if !self.is_interactive() {
            lines.push(Text::new(
                "undo-title",
                vec![
                    ("n", Arg::from(r.position)),
                    ("prompt", Arg::from(short_prompt(&r.prompt))),
                    ("count", Arg::from(report.restored.len())),
                ],
            ));
        }
        lines.extend(self.report_lines(&report, "/undo --force"));
        if !report.conflicts.is_empty() && !self.is_interactive() {
            self.events.emit(crate::agent::protocol::Notice::new(
                NoticeLevel::Warn,
                "undo-conflicts",
                vec![("count", Arg::from(report.conflicts.len()))],
            ));
        }
        self.output_if_any(lines)
    }

    /// `/rewind` lists the prompts; `/rewind N [conversation|code|both] [--force]` goes
    /// back to before prompt N (both by default).
    pub(crate) fn rewind_command(
        &mut self,
        to: Option<usize>,
        scope: RewindScope,
        force: bool,
    ) -> LineOutcome {
        let records = turn_records(self.session());
        if to.is_none() && self.is_interactive() {
            // The TUI opens its picker over these (Esc Esc sends a bare `/rewind` too).
            let choices = records
                .iter()
                .map(|r| PromptChoice {
                    n: r.position,
                    prompt: short_prompt(&r.prompt),
                    changed_files: r.before.is_some() && !r.undone,
                })
                .collect();
            self.events.emit(AgentEvent::RewindChoices(choices));
            return LineOutcome::default();
        }
        let Some(n) = to else {
            let mut lines = vec![Text::new("rewind-title", vec![])];
            for r in &records {
                let key = if r.before.is_some() && !r.undone {
                    "rewind-choice-files"
                } else {
                    "rewind-choice"
                };
                lines.push(Text::new(
                    key,
                    vec![
                        ("n", Arg::from(r.position)),
                        ("prompt", Arg::from(short_prompt(&r.prompt))),
                    ],
                ));
            }
            if records.is_empty() {
                lines.push(Text::new("rewind-none", vec![]));
            }
            lines.push(Text::new("rewind-hint", vec![]));
            return self.output(lines);
        };
        let Some(r) = records.get(n.wrapping_sub(1)).cloned() else {
            return self.usage_of(CommandId::Rewind);
        };
        if scope.code()
            && let Some(off) = self.checkpoints_off()
        {
            return off;
        }
        let title = Text::new(
            "rewind-done",
            vec![
                ("n", Arg::from(r.position)),
                ("prompt", Arg::from(short_prompt(&r.prompt))),
                (
                    "scope",
                    Arg::from(Text::new(
                        match scope {
                            RewindScope::Conversation => "rewind-scope-conversation",
                            RewindScope::Code => "rewind-scope-code",
                            RewindScope::Both => "rewind-scope-both",
                        },
                        vec![],
                    )),
                ),
            ],
        );
        // In the TUI the logged rewind's node is the title.
        let mut lines = Vec::new();
        if !self.is_interactive() {
            lines.push(title);
        }
        let mut restored = Vec::new();
        if scope.code() {
            let all = match self.rewind_code(&records, &r, force) {
                Ok(all) => all,
                Err(e) => {
                    return self.warn(
                        "checkpoint-failed",
                        vec![("error", Arg::from(e.to_string()))],
                    );
                }
            };
            let hint = format!("/rewind {} {} --force", r.position, scope.as_str());
            lines.extend(self.report_lines(&all, &hint));
            // The count is said once: by the node in the TUI, by a line in `exec`.
            if !self.is_interactive() {
                lines.push(Text::new(
                    "rewind-files-restored",
                    vec![("count", Arg::from(all.restored.len()))],
                ));
            }
            restored = all.restored;
        }
        let kind = EventKind::SessionRewind(SessionRewind {
            to_seq: r.start_seq,
            scope,
            restored,
        });
        if !self.runner().commit_checkpoint_event(kind) {
            return LineOutcome::default();
        }
        if scope.conversation() {
            // Input that was queued for the rewound conversation is dropped with it.
            self.state_mut().pending_user.clear();
            self.events.emit(AgentEvent::Rewound {
                history: self.session().events().to_vec(),
                prompt: r.prompt.clone(),
            });
            lines.push(Text::new(
                "rewind-prompt-back",
                vec![("prompt", Arg::from(short_prompt(&r.prompt)))],
            ));
        }
        self.output_if_any(lines)
    }

    /// The files back as they were before prompt `r`: what happened since is taken back
    /// newest first. A later turn's change is undone (as `/undo` repeated would); an
    /// `/undo` made since of an earlier turn is taken back too, so that turn's change is
    /// in the files again, as Chat shows it once the rewind drops the undo's node.
    fn rewind_code(
        &mut self,
        records: &[TurnRecord],
        r: &TurnRecord,
        force: bool,
    ) -> Result<RestoreReport, CheckpointError> {
        let mut all = RestoreReport::default();
        let mut merge = |rep: RestoreReport| {
            for p in rep.restored {
                if !all.restored.contains(&p) {
                    all.restored.push(p);
                }
            }
            all.conflicts.extend(rep.conflicts);
            all.not_restorable.extend(rep.not_restorable);
            all.failed.extend(rep.failed);
        };
        // What to take back, by the seq it happened at: later turns, and undos since.
        let mut steps: Vec<(u64, &TurnRecord, bool)> = records[r.position - 1..]
            .iter()
            .filter(|t| t.before.is_some() && !t.undone)
            .map(|t| (t.start_seq, t, false))
            .collect();
        for e in self.session().effective_events() {
            if e.seq < r.start_seq {
                continue;
            }
            if let EventKind::CheckpointUndo(u) = &e.kind
                && (u.conflicts.is_empty() || u.forced)
                && let Some(t) = records[..r.position - 1]
                    .iter()
                    .find(|t| t.turn == u.turn && t.undone)
            {
                steps.push((e.seq, t, true));
            }
        }
        steps.sort_by_key(|s| std::cmp::Reverse(s.0));
        for (_, t, redo) in steps {
            let rep = if redo {
                self.redo_turn(t, force)?
            } else {
                self.undo_turn(t, force)?
            };
            merge(rep);
        }
        all.restored.sort();
        all.conflicts.sort();
        all.conflicts.dedup();
        Ok(all)
    }

    /// Puts turn `t`'s change back in the files after an `/undo` took it out (a rewind to
    /// a point before that undo). Nothing is logged: the rewind drops the undo itself.
    fn redo_turn(&mut self, t: &TurnRecord, force: bool) -> Result<RestoreReport, CheckpointError> {
        let (Some(before), Some(after)) = (&t.before, &t.after) else {
            return Ok(RestoreReport::default());
        };
        let a = self.services.checkpoints.load(before)?;
        let b = self.services.checkpoints.load(after)?;
        let paths = changed_paths(&a, &b);
        let mut scope = self
            .services
            .sandbox
            .scope
            .read()
            .unwrap_or_else(|e| e.into_inner())
            .clone();
        scope.mode = SandboxMode::WorkspaceWrite;
        let Some((store, walk)) = self.services.checkpoints.parts() else {
            return Ok(RestoreReport::default());
        };
        Ok(restore(walk, store, &scope, &paths, &b, &a, force))
    }

    /// Command output, unless there is none to show.
    fn output_if_any(&self, lines: Vec<OutputLine>) -> LineOutcome {
        if lines.is_empty() {
            return LineOutcome::default();
        }
        self.output(lines)
    }

    /// `/fork`: a new session holding this one's history; this one stays as it is.
    pub(crate) fn fork_command(&mut self) -> LineOutcome {
        let parent = self.session().id().to_string();
        let _ = self.state_mut().session.sync();
        // The fork continues from this point (SPEC §14.3), `/system` text included: without
        // it the fork's first request would append a prompt update the parent never sent
        // instead of repeating the parent's prompt.
        let extra = self.extra_instructions().map(str::to_string);
        match self.env().fork_session(self.session()) {
            Ok((s, path)) => {
                self.replace_session(s, path);
                self.state_mut().extra_instructions = extra;
                let id = self.session().id().to_string();
                self.info(
                    "fork-done",
                    vec![("parent", Arg::from(parent)), ("id", Arg::from(id))],
                )
            }
            Err(e) => {
                let e = e.localized(self.localizer());
                self.warn(
                    "cmd-session-failed",
                    vec![("error", Arg::from(e.to_string()))],
                )
            }
        }
    }
}
