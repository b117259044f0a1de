//! Why an MCP server failed, in plain words and in the interface language: an error is a
//! [`Text`] (rendered when shown), so a Chinese notice never carries an English clause of
//! ours. The session log keeps its English rendering in `error` and the message itself in
//! `detail`. What the server itself wrote (its stderr) is quoted as it is.

use std::process::ExitStatus;

use crate::i18n::{Arg, Locale, Localizer, Text};

/// A message with string arguments.
pub(super) fn text(key: &str, args: Vec<(&str, String)>) -> Text {
    Text::new(
        key,
        args.into_iter().map(|(k, v)| (k, Arg::Str(v))).collect(),
    )
}

/// "the server exited with status N" (or "was ended by signal N").
pub(super) fn exited(status: ExitStatus) -> Text {
    if let Some(code) = status.code() {
        return text("mcp-err-exited", vec![("status", code.to_string())]);
    }
    #[cfg(unix)]
    {
        use std::os::unix::process::ExitStatusExt;
        if let Some(sig) = status.signal() {
            return text("mcp-err-signal", vec![("signal", sig.to_string())]);
        }
    }
    text("mcp-err-process-exited", vec![])
}

/// The process could not be started at all.
pub(super) fn cannot_start(command: &str, e: &std::io::Error) -> Text {
    let command = command.to_string();
    match e.kind() {
        std::io::ErrorKind::NotFound => {
            text("mcp-err-command-not-found", vec![("command", command)])
        }
        std::io::ErrorKind::PermissionDenied => {
            text("mcp-err-command-denied", vec![("command", command)])
        }
        _ => text(
            "mcp-err-cannot-start",
            vec![("command", command), ("error", e.to_string())],
        ),
    }
}

/// Why the MCP handshake failed, in plain words; rmcp's own words follow only as a
/// quoted detail, set apart from ours.
pub(super) fn handshake(e: &rmcp::service::ClientInitializeError) -> Text {
    use rmcp::service::ClientInitializeError as E;
    let why = match e {
        E::ConnectionClosed(_) => "mcp-why-closed",
        E::TransportError { .. } => "mcp-why-transport",
        E::JsonRpcError(_) => "mcp-why-refused",
        E::NoCompatibleProtocolVersion { .. } => "mcp-why-version",
        E::Cancelled => "mcp-why-cancelled",
        _ => "mcp-why-not-mcp",
    };
    why_and_detail("mcp-err-handshake", why, e.to_string())
}

/// Why `tools/list` failed, the same way as [`handshake`].
pub(super) fn list_failed(e: &rmcp::service::ServiceError) -> Text {
    use rmcp::service::ServiceError as E;
    let why = match e {
        E::McpError(d) if d.message.starts_with(super::listing::UNPARSABLE_LIST) => {
            "mcp-why-not-a-list"
        }
        E::McpError(_) => "mcp-why-refused",
        E::TransportSend(_) => "mcp-why-transport",
        E::TransportClosed => "mcp-why-closed",
        E::Timeout { .. } => "mcp-why-timeout",
        E::Cancelled { .. } => "mcp-why-cancelled",
        _ => "mcp-why-not-mcp",
    };
    why_and_detail("mcp-err-list-failed", why, e.to_string())
}

fn why_and_detail(key: &str, why: &str, detail: String) -> Text {
    Text::new(
        key,
        vec![
            ("why", Arg::from(Text::new(why, vec![]))),
            ("detail", Arg::Str(detail)),
        ],
    )
}

/// `error`, followed by the stderr lines that carry the cause, if any.
pub(super) fn with_stderr(error: Text, cause: Option<String>) -> Text {
    match cause {
        Some(stderr) => Text::new(
            "mcp-err-stderr",
            vec![("error", Arg::from(error)), ("stderr", Arg::Str(stderr))],
        ),
        None => error,
    }
}

/// The English rendering (the session log's `error`, the tracing log).
pub fn english(t: &Text) -> String {
    Localizer::new(Locale::EnUs).text(t)
}

/// `t` with `redact` applied to every string it quotes (a server's stderr may quote a key
/// it was given explicitly).
pub fn redact_text(t: Text, redact: &dyn Fn(&str) -> String) -> Text {
    let args = t
        .args
        .into_iter()
        .map(|(k, v)| {
            let v = match v {
                Arg::Str(s) => Arg::Str(redact(&s)),
                Arg::Text(inner) => Arg::from(redact_text(*inner, redact)),
                Arg::List(items) => Arg::List(items.iter().map(|s| redact(s)).collect()),
                n @ Arg::Num(_) => n,
            };
            (k, v)
        })
        .collect();
    Text { key: t.key, args }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_failed_handshake_is_said_in_plain_words_and_quotes_the_library() {
        let e =
            rmcp::service::ClientInitializeError::ConnectionClosed("initialize response".into());
        let t = handshake(&e);
        assert_eq!(
            Localizer::new(Locale::ZhCn).text(&t),
            "MCP 握手失败：服务器在应答前关闭了连接（详情：“connection closed: initialize response”）"
        );
        assert_eq!(
            english(&t),
            "MCP handshake failed: the server closed the connection before answering \
             (detail: \"connection closed: initialize response\")"
        );
        let t = list_failed(&rmcp::service::ServiceError::TransportClosed);
        assert_eq!(
            Localizer::new(Locale::ZhCn).text(&t),
            "tools/list 请求失败：服务器在应答前关闭了连接（详情：“Transport closed”）"
        );
    }

    #[test]
    fn an_exit_with_its_stderr_reads_in_one_language() {
        let status = std::process::Command::new("sh")
            .args(["-c", "exit 3"])
            .status()
            .unwrap();
        let t = with_stderr(exited(status), Some("Error: Cannot find module 'x'".into()));
        assert_eq!(
            english(&t),
            "the server exited with status 3 (stderr: Error: Cannot find module 'x')"
        );
        let zh = Localizer::new(Locale::ZhCn).text(&t);
        assert_eq!(
            zh,
            "服务器已退出，退出状态为 3（stderr：Error: Cannot find module 'x'）"
        );
    }

    #[test]
    fn a_missing_command_says_so_in_plain_words() {
        let e = std::io::Error::from(std::io::ErrorKind::NotFound);
        assert_eq!(
            english(&cannot_start("nodee", &e)),
            "the command \"nodee\" was not found"
        );
    }

    #[test]
    fn redaction_reaches_nested_arguments() {
        let t = with_stderr(
            why_and_detail("mcp-err-handshake", "mcp-why-closed", "k=secret".into()),
            Some("secret here".into()),
        );
        let r = redact_text(t, &|s| s.replace("secret", "[REDACTED]"));
        assert!(!format!("{r:?}").contains("secret"), "{r:?}");
    }
}
