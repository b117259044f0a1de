//! `@path` mentions: on send, each mentioned file of the workspace is attached
//! to the user message the model sees.
//!
//! The message keeps the typed text as its first `text` block; each attachment follows as
//! one more `text` block (a fenced copy of the file, or a one-line note when it was
//! refused), and `source.attachments` lists them in the same order, so the Chat can show a
//! collapsed line per file and the log alone reproduces the request (resume shows it too).

use std::fs;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::fs_guard::{self, OpenError};
use crate::session::event::{Block, Message, Role, Source};

/// Bytes of one file attached at most; the rest is cut with a note.
pub const MAX_MENTION_BYTES: usize = 64 * 1024;

/// Why a mentioned file was not attached.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Refusal {
    /// The path leads outside the workspace.
    OutsideWorkspace,
    /// Binary or not UTF-8.
    Binary,
    /// Not a regular file (a FIFO or device put in its place).
    NotRegular,
    /// An MCP resource (`@NAME:URI`) the server could not give (SPEC §15.2).
    Unavailable,
}

/// One entry of `source.attachments`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Attachment {
    /// The path as mentioned (workspace-relative when inside).
    pub path: String,
    /// Lines attached.
    #[serde(default)]
    pub lines: usize,
    /// The file's size in bytes.
    #[serde(default)]
    pub bytes: u64,
    /// Only the first [`MAX_MENTION_BYTES`] were attached.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub truncated: bool,
    /// Not attached, and why.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub refused: Option<Refusal>,
}

/// The `@…` tokens of `text`: an `@` at the start or after whitespace, up to the next
/// whitespace, in order, without repeats.
pub fn mentioned(text: &str) -> Vec<&str> {
    let mut out: Vec<&str> = Vec::new();
    let mut prev_ws = true;
    for (i, c) in text.char_indices() {
        if c == '@' && prev_ws {
            let rest = &text[i + 1..];
            let end = rest.find(char::is_whitespace).unwrap_or(rest.len());
            let tok = &rest[..end];
            if !tok.is_empty() && !out.contains(&tok) {
                out.push(tok);
            }
        }
        prev_ws = c.is_whitespace();
    }
    out
}

/// What one token resolves to.
enum Resolved {
    /// Nothing to attach (no such file, a directory, an e-mail-like word).
    Skip,
    /// A regular file inside the root: canonical path and root-relative display path.
    File(PathBuf, String),
    /// An existing file outside the root.
    Outside,
}

fn resolve(root: &Path, tok: &str) -> Resolved {
    let norm = fs_guard::join_lexically(root, tok);
    let Ok(canonical) = fs::canonicalize(&norm) else {
        return Resolved::Skip;
    };
    let Ok(meta) = fs::metadata(&canonical) else {
        return Resolved::Skip;
    };
    if !meta.is_file() {
        return Resolved::Skip;
    }
    let Ok(rel) = canonical.strip_prefix(root) else {
        return Resolved::Outside;
    };
    let rel = rel
        .components()
        .map(|c| c.as_os_str().to_string_lossy())
        .collect::<Vec<_>>()
        .join("/");
    Resolved::File(canonical, rel)
}

/// What reading a mentioned file gave.
enum Read {
    /// The text, the file size and whether it was cut.
    Text(String, u64, bool),
    /// Binary or not UTF-8.
    Binary,
    /// Not a regular file when opened (a FIFO or device swapped in after the check).
    NotRegular,
}

/// Reads at most `max` bytes without blocking on a swapped-in FIFO and without reading
/// past the cap of an endless file (the built-in tools' pattern, [`fs_guard`]).
fn read_text(path: &Path, max: usize) -> Read {
    let file = match fs_guard::open_regular(path) {
        Ok(f) => f,
        Err(OpenError::NotRegular(_)) => return Read::NotRegular,
        Err(OpenError::Io(_)) => return Read::Binary,
    };
    let Ok(c) = fs_guard::read_capped(file, max as u64) else {
        return Read::Binary;
    };
    match fs_guard::utf8_text(c.bytes, c.truncated) {
        Some(text) => Read::Text(text, c.size, c.truncated),
        None => Read::Binary,
    }
}

/// A fence longer than any backtick run in `text`.
pub(crate) fn fence(text: &str) -> String {
    let mut longest = 0;
    let mut run = 0;
    for c in text.chars() {
        run = if c == '`' { run + 1 } else { 0 };
        longest = longest.max(run);
    }
    "`".repeat((longest + 1).max(3))
}

/// The user message for `text` typed in the workspace `root`, with every `@path` that is a
/// regular file in the workspace attached (at most `max` bytes each).
pub fn user_message(root: &Path, text: String, max: usize) -> Message {
    let root = fs::canonicalize(root).unwrap_or_else(|_| root.to_path_buf());
    let mut blocks = vec![Block::text(text.clone())];
    let mut list: Vec<Attachment> = Vec::new();
    for tok in mentioned(&text) {
        // `@a.rs,` or `@a.rs.` at the end of a sentence: try without the punctuation too.
        let trimmed = tok.trim_end_matches([',', '.', ';', ':', '!', '?', ')', ']', '"', '\'']);
        let mut found = resolve(&root, tok);
        if matches!(found, Resolved::Skip) && trimmed != tok && !trimmed.is_empty() {
            found = resolve(&root, trimmed);
        }
        let (block, att) = match found {
            Resolved::Skip => continue,
            Resolved::Outside => (
                format!("\n\n[@{tok} was not attached: it is outside the workspace]"),
                Attachment {
                    path: tok.to_string(),
                    lines: 0,
                    bytes: 0,
                    truncated: false,
                    refused: Some(Refusal::OutsideWorkspace),
                },
            ),
            Resolved::File(path, rel) => {
                if list.iter().any(|a| a.path == rel) {
                    continue;
                }
                match read_text(&path, max) {
                    Read::Binary => (
                        format!("\n\n[@{rel} was not attached: it is binary or not UTF-8 text]"),
                        Attachment {
                            path: rel,
                            lines: 0,
                            bytes: fs::metadata(&path).map(|m| m.len()).unwrap_or(0),
                            truncated: false,
                            refused: Some(Refusal::Binary),
                        },
                    ),
                    Read::NotRegular => (
                        format!("\n\n[@{rel} was not attached: it is not a regular file]"),
                        Attachment {
                            path: rel,
                            lines: 0,
                            bytes: 0,
                            truncated: false,
                            refused: Some(Refusal::NotRegular),
                        },
                    ),
                    Read::Text(content, size, truncated) => {
                        let lines = content.lines().count();
                        let f = fence(&content);
                        let body = content.strip_suffix('\n').unwrap_or(&content);
                        let mut b = format!("\n\n@{rel} ({lines} lines):\n{f}\n{body}\n{f}");
                        if truncated {
                            b.push_str(&format!(
                                "\n[truncated: only the first {} of {size} bytes are attached]",
                                content.len()
                            ));
                        }
                        (
                            b,
                            Attachment {
                                path: rel,
                                lines,
                                bytes: size,
                                truncated,
                                refused: None,
                            },
                        )
                    }
                }
            }
        };
        blocks.push(Block::text(block));
        list.push(att);
    }
    let mut source = Source::kind("user");
    if !list.is_empty()
        && let Ok(v) = serde_json::to_value(&list)
    {
        source.extra.insert("attachments".to_string(), v);
    }
    Message::new(Role::User, blocks, source)
}

/// The typed text and the attachments (each with its block's text) of a user message.
/// A message without `source.attachments` is all typed text.
pub fn split(m: &Message) -> (String, Vec<(Attachment, String)>) {
    let list: Vec<Attachment> = m
        .source
        .extra
        .get("attachments")
        .cloned()
        .and_then(|v: Value| serde_json::from_value(v).ok())
        .unwrap_or_default();
    let texts: Vec<&str> = m
        .content
        .iter()
        .filter_map(|b| match b {
            Block::Text { text } => Some(text.as_str()),
            _ => None,
        })
        .collect();
    if list.is_empty() || texts.len() != list.len() + 1 {
        return (m.joined_text(), vec![]);
    }
    let atts = list
        .into_iter()
        .zip(texts[1..].iter())
        .map(|(a, t)| (a, t.trim_start_matches('\n').to_string()))
        .collect();
    (texts[0].to_string(), atts)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ws() -> tempfile::TempDir {
        let d = tempfile::tempdir().unwrap();
        std::fs::create_dir(d.path().join("src")).unwrap();
        std::fs::write(d.path().join("src/main.rs"), "fn main() {}\n// two\n").unwrap();
        d
    }

    #[test]
    fn a_prompts_embedded_resource_is_capped_like_a_file_mention() {
        assert_eq!(
            crate::tools::mcp::prompts::MAX_MENTION_BYTES,
            MAX_MENTION_BYTES
        );
    }

    #[test]
    fn mentions_tokens_start_words_and_do_not_repeat() {
        assert_eq!(
            mentioned("see @a.rs and x@y.com, @a.rs @b\n@c"),
            vec!["a.rs", "b", "c"]
        );
    }

    #[test]
    fn mentions_attach_a_file_fenced_with_its_path_and_list_it_in_the_source() {
        let d = ws();
        let m = user_message(d.path(), "explain @src/main.rs, please".into(), 1000);
        assert_eq!(m.content.len(), 2);
        let Block::Text { text } = &m.content[1] else {
            panic!()
        };
        assert_eq!(
            text,
            "\n\n@src/main.rs (2 lines):\n```\nfn main() {}\n// two\n```"
        );
        let (typed, atts) = split(&m);
        assert_eq!(typed, "explain @src/main.rs, please");
        // Ctrl+R history and the /resume picker show what was typed, not the file.
        assert_eq!(m.typed_text(), "explain @src/main.rs, please");
        assert_eq!(atts.len(), 1);
        assert_eq!(atts[0].0.path, "src/main.rs");
        assert_eq!(atts[0].0.lines, 2);
        // Words that are not files stay plain text.
        let m = user_message(d.path(), "@nobody @src hi".into(), 1000);
        assert_eq!(m.content.len(), 1);
        assert!(m.source.extra.is_empty());
    }

    #[test]
    fn mentions_truncated_file_says_so() {
        let d = ws();
        std::fs::write(d.path().join("big.txt"), "a\n".repeat(100)).unwrap();
        let m = user_message(d.path(), "@big.txt".into(), 10);
        let (_, atts) = split(&m);
        assert!(atts[0].0.truncated);
        assert_eq!(atts[0].0.lines, 5);
        assert!(
            atts[0]
                .1
                .ends_with("[truncated: only the first 10 of 200 bytes are attached]"),
            "{}",
            atts[0].1
        );
    }

    #[test]
    fn mentions_outside_workspace_and_binary_are_refused_with_a_note() {
        let outer = tempfile::tempdir().unwrap();
        let root = outer.path().join("ws");
        std::fs::create_dir(&root).unwrap();
        std::fs::write(outer.path().join("secret.txt"), "top secret").unwrap();
        std::fs::write(root.join("blob.bin"), b"a\0b").unwrap();
        std::fs::write(root.join("latin1.txt"), b"caf\xe9").unwrap();
        let abs = outer.path().join("secret.txt").display().to_string();
        let text = format!("@../secret.txt @{abs} @blob.bin @latin1.txt");
        let m = user_message(&root, text, 1000);
        let (_, atts) = split(&m);
        let refused: Vec<_> = atts.iter().map(|(a, _)| a.refused).collect();
        assert_eq!(
            refused,
            vec![
                Some(Refusal::OutsideWorkspace),
                Some(Refusal::OutsideWorkspace),
                Some(Refusal::Binary),
                Some(Refusal::Binary)
            ]
        );
        assert!(!m.joined_text().contains("top secret"));
        assert!(atts[0].1.contains("outside the workspace"), "{}", atts[0].1);
        assert!(atts[2].1.contains("binary"), "{}", atts[2].1);
    }

    #[cfg(unix)]
    #[test]
    fn a_mentioned_file_swapped_for_a_fifo_is_refused_instead_of_hanging() {
        let d = ws();
        // What a swap after the check leaves: the reader meets a FIFO with no writer.
        let fifo = d.path().join("swapped.txt");
        let c = std::ffi::CString::new(fifo.as_os_str().as_encoded_bytes()).unwrap();
        assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
        let (tx, rx) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            let _ = tx.send(matches!(read_text(&fifo, 1000), Read::NotRegular));
        });
        let refused = rx
            .recv_timeout(std::time::Duration::from_secs(60))
            .expect("reading returned instead of hanging");
        assert!(refused);
    }
}
