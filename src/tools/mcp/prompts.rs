//! A server's prompts as slash commands `/NAME:PROMPT [ARG=VALUE…]` (SPEC §15.2,
//! decision 0168).
//!
//! The listing is the server's own words, screened like a tool listing before anyone sees
//! it: a prompt or argument name that is no command word (control characters, spaces, over
//! [`MAX_NAME_CHARS`]) leaves the prompt out with a warning, descriptions lose their
//! control characters and are cut to a line, and at most [`MAX_PROMPTS`] prompts of
//! [`MAX_PAGES`] pages are kept. A prompt's messages become the text of one user message:
//! text as is, embedded resources as text capped like a file mention, images and other
//! media named, not attached.

use rmcp::model::{
    ContentBlock, GetPromptRequestParams, GetPromptResult, PaginatedRequestParams, Prompt,
    ResourceContents,
};
use rmcp::service::{Peer, RoleClient};

use super::listing::quote_chars;
use crate::i18n::{Arg, Text};
use crate::tools::truncate_utf8;

/// Most prompts kept per server.
pub const MAX_PROMPTS: usize = 200;
/// Most pages of `prompts/list` read.
const MAX_PAGES: usize = 20;
/// Longest prompt or argument name (a command word).
pub const MAX_NAME_CHARS: usize = 64;
/// Most arguments one prompt may declare.
const MAX_ARGS: usize = 32;
/// Longest description kept (one popup line).
const MAX_DESCRIPTION_CHARS: usize = 200;
/// Largest embedded resource text kept: the cap of a file mention
/// (`crate::agent::mentions::MAX_MENTION_BYTES`, not imported: `tools` must not depend on
/// `agent`; a test keeps them equal).
pub const MAX_MENTION_BYTES: usize = 64 * 1024;
/// Largest text a prompt sends as the user message.
pub const MAX_PROMPT_BYTES: usize = 4 * MAX_MENTION_BYTES;

/// One argument of a prompt.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PromptArg {
    /// Its name (`NAME=` on the command line).
    pub name: String,
    /// Whether the prompt needs it.
    pub required: bool,
}

/// One prompt of one server, screened.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ServerPrompt {
    /// The server's configured name.
    pub server: String,
    /// The prompt's name as the server lists it.
    pub name: String,
    /// Its description (or title), on one line, cut.
    pub description: Option<String>,
    /// Its arguments in the server's order.
    pub args: Vec<PromptArg>,
}

impl ServerPrompt {
    /// The command that runs it, with `/`.
    pub fn command(&self) -> String {
        format!("/{}:{}", self.server, self.name)
    }

    /// The argument synopsis: `topic=… [style=…]` (required ones bare).
    pub fn synopsis(&self) -> String {
        self.args
            .iter()
            .map(|a| match a.required {
                true => format!("{}=…", a.name),
                false => format!("[{}=…]", a.name),
            })
            .collect::<Vec<_>>()
            .join(" ")
    }
}

/// A server's prompts and resource URIs as last listed.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct Catalog {
    /// Its prompts, screened.
    pub prompts: Vec<ServerPrompt>,
    /// Its resource URIs that can be typed after `@NAME:`.
    pub resources: Vec<String>,
}

/// Whether `s` can be a command word: 1 to [`MAX_NAME_CHARS`] of `A-Z a-z 0-9 _ - .`.
fn is_word(s: &str) -> bool {
    !s.is_empty()
        && s.chars().count() <= MAX_NAME_CHARS
        && s.chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.'))
}

/// A server's text on one line: control characters become spaces, cut with `…`.
pub fn one_line(s: &str, max: usize) -> String {
    let flat: String = s
        .chars()
        .map(|c| if c.is_control() { ' ' } else { c })
        .collect();
    quote_chars(flat.trim(), max)
}

/// The prompts that can be commands, and the names (quoted, cut) of those left out.
pub fn screen(server: &str, listed: Vec<Prompt>) -> (Vec<ServerPrompt>, Vec<String>) {
    let mut kept: Vec<ServerPrompt> = Vec::new();
    let mut skipped = Vec::new();
    for p in listed {
        let args = p.arguments.unwrap_or_default();
        let fits = is_word(&p.name)
            && args.len() <= MAX_ARGS
            && args.iter().all(|a| is_word(&a.name))
            && !kept.iter().any(|k| k.name == p.name);
        if !fits {
            skipped.push(one_line(&p.name, MAX_NAME_CHARS));
            continue;
        }
        if kept.len() >= MAX_PROMPTS {
            skipped.push(p.name);
            continue;
        }
        let description = p
            .description
            .or(p.title)
            .map(|d| one_line(&d, MAX_DESCRIPTION_CHARS))
            .filter(|d| !d.is_empty());
        kept.push(ServerPrompt {
            server: server.to_string(),
            name: p.name,
            description,
            args: args
                .into_iter()
                .map(|a| PromptArg {
                    name: a.name,
                    required: a.required == Some(true),
                })
                .collect(),
        });
    }
    (kept, skipped)
}

/// Every page of `prompts/list`, within [`MAX_PAGES`] and a little over [`MAX_PROMPTS`].
pub(super) async fn list(peer: &Peer<RoleClient>) -> Result<Vec<Prompt>, rmcp::ServiceError> {
    let mut out = Vec::new();
    let mut cursor = None;
    for _ in 0..MAX_PAGES {
        let page = peer
            .list_prompts(Some(PaginatedRequestParams::default().with_cursor(cursor)))
            .await?;
        out.extend(page.prompts);
        cursor = page.next_cursor;
        if cursor.is_none() || out.len() > MAX_PROMPTS {
            break;
        }
    }
    Ok(out)
}

/// Splits `ARG=VALUE …` at whitespace outside double quotes (quotes removed), so a value
/// may hold spaces: `topic="rust lifetimes"`.
fn words(args: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut cur = String::new();
    let mut quoted = false;
    let mut any = false;
    for c in args.chars() {
        match c {
            '"' => {
                quoted = !quoted;
                any = true;
            }
            c if c.is_whitespace() && !quoted => {
                if any {
                    out.push(std::mem::take(&mut cur));
                    any = false;
                }
            }
            c => {
                cur.push(c);
                any = true;
            }
        }
    }
    if any {
        out.push(cur);
    }
    out
}

/// The arguments typed after the command, checked against the prompt: every word is
/// `ARG=VALUE` with an argument the prompt has, and every required one is given. The
/// error names what is wrong and what the prompt accepts.
pub fn parse_args(
    p: &ServerPrompt,
    typed: &str,
) -> Result<serde_json::Map<String, serde_json::Value>, Text> {
    let accepted = || match p.args.is_empty() {
        true => Arg::from(Text::new("mcp-prompt-no-args", vec![])),
        false => Arg::from(p.synopsis()),
    };
    let mut out = serde_json::Map::new();
    for w in words(typed) {
        let Some((k, v)) = w.split_once('=') else {
            return Err(Text::new(
                "mcp-prompt-bad-arg",
                vec![
                    ("command", Arg::from(p.command())),
                    ("word", Arg::from(quote_chars(&w, MAX_NAME_CHARS))),
                    ("accepted", accepted()),
                ],
            ));
        };
        if !p.args.iter().any(|a| a.name == k) {
            return Err(Text::new(
                "mcp-prompt-unknown-arg",
                vec![
                    ("command", Arg::from(p.command())),
                    ("arg", Arg::from(quote_chars(k, MAX_NAME_CHARS))),
                    ("accepted", accepted()),
                ],
            ));
        }
        out.insert(k.to_string(), serde_json::Value::String(v.to_string()));
    }
    let missing: Vec<String> = p
        .args
        .iter()
        .filter(|a| a.required && !out.contains_key(&a.name))
        .map(|a| a.name.clone())
        .collect();
    if !missing.is_empty() {
        return Err(Text::new(
            "mcp-prompt-missing-args",
            vec![
                ("command", Arg::from(p.command())),
                ("count", Arg::from(missing.len())),
                ("names", Arg::List(missing)),
                ("accepted", accepted()),
            ],
        ));
    }
    Ok(out)
}

/// `text` cut to `max` bytes with a note.
fn capped(mut text: String, max: usize) -> String {
    let size = text.len();
    if truncate_utf8(&mut text, max) {
        text.push_str(&format!(
            "\n[truncated: only the first {} of {size} bytes are included]",
            text.len()
        ));
    }
    text
}

/// One message's content as text: text as is, an embedded text resource capped like a
/// file mention, anything else (images, audio, blobs, links) named only.
fn block_text(block: &ContentBlock) -> String {
    match block {
        ContentBlock::Text(t) => t.text.clone(),
        ContentBlock::Resource(r) => match &r.resource {
            ResourceContents::TextResourceContents { uri, text, .. } => format!(
                "@{} :\n{}",
                one_line(uri, 400),
                capped(text.clone(), MAX_MENTION_BYTES)
            ),
            ResourceContents::BlobResourceContents { uri, mime_type, .. } => format!(
                "[resource {} ({}) not included: binary]",
                one_line(uri, 400),
                one_line(
                    mime_type.as_deref().unwrap_or("application/octet-stream"),
                    80
                )
            ),
            _ => "[resource of an unsupported kind not included]".to_string(),
        },
        ContentBlock::Image(i) => format!("[image ({}) not included]", one_line(&i.mime_type, 80)),
        ContentBlock::Audio(a) => format!("[audio ({}) not included]", one_line(&a.mime_type, 80)),
        ContentBlock::ResourceLink(r) => format!("[resource link {}]", one_line(&r.uri, 400)),
        _ => "[content of an unsupported type not included]".to_string(),
    }
}

/// The user message a prompt's result sends: its messages' texts, in order, capped.
pub fn message_text(result: &GetPromptResult) -> String {
    let parts: Vec<String> = result
        .messages
        .iter()
        .map(|m| block_text(&m.content))
        .filter(|t| !t.trim().is_empty())
        .collect();
    capped(parts.join("\n\n"), MAX_PROMPT_BYTES)
}

/// `prompts/get` for `p` with `args`.
pub(super) async fn get(
    peer: &Peer<RoleClient>,
    p: &ServerPrompt,
    args: serde_json::Map<String, serde_json::Value>,
) -> Result<GetPromptResult, rmcp::ServiceError> {
    let mut params = GetPromptRequestParams::new(p.name.clone());
    if !args.is_empty() {
        params = params.with_arguments(args);
    }
    peer.get_prompt(params).await
}

#[cfg(test)]
mod tests {
    use super::*;
    use rmcp::model::{PromptArgument, PromptMessage, Role as PromptMessageRole};

    fn prompt(name: &str, args: &[(&str, bool)]) -> Prompt {
        Prompt::new(
            name,
            Some("Says hello"),
            Some(
                args.iter()
                    .map(|(n, r)| PromptArgument::new(*n).with_required(*r))
                    .collect(),
            ),
        )
    }

    #[test]
    fn hostile_prompt_names_are_left_out_and_descriptions_lose_control_characters() {
        let mut evil = prompt("ok", &[]);
        evil.description = Some("line one\n\u{1b}[2Jline two".into());
        let listed = vec![
            evil,
            prompt("two words", &[]),
            prompt("esc\u{1b}[31m", &[]),
            prompt(&"x".repeat(65), &[]),
            prompt("bad_arg", &[("a b", true)]),
            prompt("ok", &[]),
        ];
        let (kept, skipped) = screen("srv", listed);
        assert_eq!(kept.len(), 1);
        assert_eq!(kept[0].command(), "/srv:ok");
        let d = kept[0].description.as_deref().unwrap();
        assert!(!d.chars().any(char::is_control), "{d:?}");
        assert_eq!(skipped.len(), 5);
        assert!(skipped.iter().all(|s| !s.chars().any(char::is_control)));
    }

    #[test]
    fn a_prompt_with_missing_required_arguments_names_them() {
        let (kept, _) = screen(
            "srv",
            vec![prompt(
                "p",
                &[("topic", true), ("style", false), ("n", true)],
            )],
        );
        let p = &kept[0];
        assert_eq!(p.synopsis(), "topic=… [style=…] n=…");
        let e = parse_args(p, "style=short").unwrap_err();
        assert_eq!(e.key, "mcp-prompt-missing-args");
        let names = e.args.iter().find(|(k, _)| *k == "names").unwrap();
        assert_eq!(names.1, Arg::List(vec!["topic".into(), "n".into()]));
        assert_eq!(
            parse_args(p, "topic=x y").unwrap_err().key,
            "mcp-prompt-bad-arg"
        );
        assert_eq!(
            parse_args(p, "colour=red topic=x n=1").unwrap_err().key,
            "mcp-prompt-unknown-arg"
        );
        let ok = parse_args(p, r#"topic="rust lifetimes" n=3 style=a=b"#).unwrap();
        assert_eq!(ok["topic"], "rust lifetimes");
        assert_eq!(ok["n"], "3");
        assert_eq!(ok["style"], "a=b");
    }

    #[test]
    fn prompt_messages_become_text_with_resources_capped_and_images_named() {
        let big = "a".repeat(MAX_MENTION_BYTES + 10);
        let result = GetPromptResult::new(vec![
            PromptMessage::new_text(PromptMessageRole::User, "Explain this:"),
            PromptMessage::new(
                PromptMessageRole::User,
                ContentBlock::embedded_text("test://doc", big),
            ),
            PromptMessage::new(
                PromptMessageRole::User,
                ContentBlock::image("aGVsbG8=", "image/png"),
            ),
        ]);
        let t = message_text(&result);
        assert!(
            t.starts_with("Explain this:\n\n@test://doc :\n"),
            "{}",
            &t[..40]
        );
        assert!(t.contains("[truncated: only the first 65536 of 65546 bytes are included]"));
        assert!(t.ends_with("[image (image/png) not included]"));
        assert!(!t.contains("aGVsbG8="));
    }
}
