//! The `@` file popup's data: the workspace file list, walked once on a
//! background thread ([`crate::tools::walk::workspace_files`], gitignore-aware, capped),
//! and the ranking of files against what is typed after `@`.

use std::path::PathBuf;
use std::sync::{Arc, OnceLock};

use crate::tools::walk::{MAX_MENTION_FILES, workspace_files};

/// Rows the popup offers at most.
pub const MENTION_ROWS: usize = 8;

/// The workspace files, filled in the background; empty until the walk finishes.
#[derive(Debug, Default, Clone)]
pub struct FileIndex(Option<Arc<OnceLock<Vec<String>>>>);

impl FileIndex {
    /// Starts walking `root` on a background thread.
    pub fn spawn(root: PathBuf) -> Self {
        let cell = Arc::new(OnceLock::new());
        let fill = Arc::clone(&cell);
        let started = std::thread::Builder::new()
            .name("deepterm-files".into())
            .spawn(move || {
                let _ = fill.set(workspace_files(&root, MAX_MENTION_FILES));
            });
        if started.is_err() {
            let _ = cell.set(Vec::new());
        }
        FileIndex(Some(cell))
    }

    /// An index with a fixed list (tests).
    pub fn fixed(files: Vec<String>) -> Self {
        FileIndex(Some(Arc::new(OnceLock::from(files))))
    }

    /// The files, once walked.
    pub fn files(&self) -> &[String] {
        self.0
            .as_ref()
            .and_then(|c| c.get())
            .map_or(&[], Vec::as_slice)
    }

    /// Whether the walk is still running.
    pub fn loading(&self) -> bool {
        self.0.as_ref().is_some_and(|c| c.get().is_none())
    }
}

/// How well `path` matches the lowercase `query` (lower is better), `None` for no match:
/// the exact path or file name, a path prefix, a file-name prefix, a substring, then a
/// fuzzy subsequence.
fn score(path: &str, query: &str) -> Option<u8> {
    let p = path.to_lowercase();
    let base = p.rsplit('/').next().unwrap_or(&p);
    if query.is_empty() {
        return Some(4);
    }
    if p == query || base == query {
        Some(0)
    } else if p.starts_with(query) {
        Some(1)
    } else if base.starts_with(query) {
        Some(2)
    } else if p.contains(query) {
        Some(3)
    } else if crate::ui::text::fuzzy_match(&p, query) {
        Some(4)
    } else {
        None
    }
}

/// The best `limit` files for `query`, best first; ties go to the shorter path, then the
/// walk order (sorted by name).
pub fn rank<'a>(files: &'a [String], query: &str, limit: usize) -> Vec<&'a str> {
    rank_indices(files, query, limit)
        .into_iter()
        .map(|i| files[i].as_str())
        .collect()
}

/// [`rank`] as indices into `files`.
pub fn rank_indices(files: &[String], query: &str, limit: usize) -> Vec<usize> {
    let q = query.to_lowercase();
    let mut hits: Vec<(u8, usize, usize)> = files
        .iter()
        .enumerate()
        .filter_map(|(i, f)| score(f, &q).map(|s| (s, f.len(), i)))
        .collect();
    if hits.len() > limit {
        hits.select_nth_unstable(limit);
        hits.truncate(limit);
    }
    hits.sort_unstable();
    hits.into_iter().map(|h| h.2).collect()
}

/// What `@NAME:…` completes to when NAME is an MCP server with resources (SPEC §15.2):
/// its `NAME:URI` entries ranked by the URI against what follows the colon, as files are
/// against the query; `None` when the query names no such server (files then).
pub fn rank_resources<'a>(resources: &'a [String], query: &str) -> Option<Vec<&'a str>> {
    let (server, _) = query.split_once(':')?;
    let prefix = format!("{server}:");
    let mine: Vec<String> = resources
        .iter()
        .filter(|r| r.starts_with(&prefix))
        .cloned()
        .collect();
    if mine.is_empty() {
        return None;
    }
    // Scored as a path: the whole `NAME:URI`, so a typed URI prefix ranks first.
    let idx = rank_indices(&mine, query, MENTION_ROWS);
    let hits: Vec<&'a str> = idx
        .into_iter()
        .filter_map(|i| resources.iter().find(|r| **r == mine[i]))
        .map(String::as_str)
        .collect();
    Some(hits)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mentions_popup_ranks_exact_then_prefix_then_basename_then_fuzzy() {
        let files: Vec<String> = [
            "docs/main_notes.md",
            "src/main.rs",
            "main.rs",
            "src/ui/mod.rs",
            "tests/domain.rs",
            "src/maintenance.rs",
        ]
        .iter()
        .map(|s| s.to_string())
        .collect();
        assert_eq!(
            rank(&files, "main.rs", 10),
            vec![
                "main.rs",
                "src/main.rs",
                "tests/domain.rs",
                "src/maintenance.rs"
            ]
        );
        assert_eq!(
            rank(&files, "src/ma", 10),
            vec!["src/main.rs", "src/maintenance.rs"]
        );
        // Exact file name, then a name prefix, then substrings, then fuzzy.
        assert_eq!(
            rank(&files, "Main", 3),
            vec!["main.rs", "src/main.rs", "docs/main_notes.md"]
        );
        assert_eq!(rank(&files, "mntnc", 10), vec!["src/maintenance.rs"]);
        assert!(rank(&files, "zzz", 10).is_empty());
        assert_eq!(rank(&files, "", 2).len(), 2);
    }

    fn composer() -> crate::ui::composer::Composer {
        let mut c = crate::ui::composer::Composer::new();
        c.set_files(FileIndex::fixed(vec![
            "README.md".into(),
            "src/main.rs".into(),
            "src/lib.rs".into(),
        ]));
        c
    }

    #[test]
    fn mentions_at_a_word_start_opens_the_popup_and_tab_completes() {
        let mut c = composer();
        for ch in "explain @mai".chars() {
            c.insert_char(ch);
        }
        assert!(c.mention_open() && c.popup_open());
        assert_eq!(c.mention_matches(), vec!["src/main.rs"]);
        c.complete();
        assert_eq!(c.text(), "explain @src/main.rs ");
        assert!(!c.popup_open(), "completed: the popup closes");
        // Not at a word start: an e-mail address opens nothing.
        let mut c = composer();
        for ch in "me@mai".chars() {
            c.insert_char(ch);
        }
        assert!(!c.mention_open());
        // ↓ moves the highlight; Esc closes until the next keystroke.
        let mut c = composer();
        c.insert_char('@');
        assert_eq!(c.mention_matches().len(), 3);
        // Shorter paths first: README.md, src/lib.rs, src/main.rs.
        c.down();
        c.complete_mention();
        assert_eq!(c.text(), "@src/lib.rs ");
        let mut c = composer();
        c.insert_char('@');
        c.close_popup();
        assert!(!c.popup_open());
        c.insert_char('s');
        assert!(c.popup_open());
    }

    #[test]
    fn mentions_chat_shows_a_collapsed_attachment_line_that_expands() {
        use crate::i18n::{Locale, Localizer};
        use crate::session::event::{Event, EventKind, UserMessageData};
        use crate::ui::chat::{AttachmentCell, CellKind, Transcript};
        use crate::ui::model::{RenderCtx, ToolCardMode};
        let d = tempfile::tempdir().unwrap();
        std::fs::write(d.path().join("a.rs"), "fn a() {}\n").unwrap();
        let m = crate::agent::mentions::user_message(d.path(), "look at @a.rs".into(), 1000);
        let mut t = Transcript::new();
        t.apply(&Event {
            kind: EventKind::UserMessage(UserMessageData { message: m }),
            seq: 1,
            time: String::new(),
            surface_op: None,
            source_event_seqs: None,
        });
        assert_eq!(t.len(), 2);
        assert!(matches!(
            t.cells()[1].kind,
            CellKind::Attachment(AttachmentCell { .. })
        ));
        let text = |t: &mut Transcript, i: usize, loc: Locale| {
            let ctx = RenderCtx {
                l: Localizer::new(loc),
                cards: ToolCardMode::Collapsed,
                generation: u64::from(loc == Locale::ZhCn),
            };
            t.rows(i, 80, &ctx)
                .iter()
                .map(|l| {
                    l.spans
                        .iter()
                        .map(|s| s.content.as_ref())
                        .collect::<String>()
                })
                .collect::<Vec<_>>()
                .join("\n")
        };
        let user = text(&mut t, 0, Locale::EnUs);
        assert!(
            user.contains("look at @a.rs") && !user.contains("fn a()"),
            "{user}"
        );
        assert_eq!(text(&mut t, 1, Locale::EnUs).trim(), "▸ @a.rs · 1 line");
        assert_eq!(text(&mut t, 1, Locale::ZhCn).trim(), "▸ @a.rs · 1 行");
        assert!(t.toggle(1));
        let open = text(&mut t, 1, Locale::EnUs);
        assert!(
            open.contains("▾ @a.rs") && open.contains("fn a() {}"),
            "{open}"
        );
    }
}
