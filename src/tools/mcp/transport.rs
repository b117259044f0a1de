//! The stdio transport to an MCP server process, with a message size limit that is
//! configurable per server and reported as such.
//!
//! rmcp's child-process transport reads at most 16 MiB per message (one JSON-RPC message is
//! one line), drops a longer one with only a log line, and cannot be configured; the
//! request it answered then waits until its timeout. This transport uses rmcp's line
//! reader with our limit, and watches the bytes it reads: every line over the limit is
//! reported through a callback with its full size, so a waiting request can fail at once
//! with "sent a message of N bytes, over the limit of M bytes".

use std::future::Future;
use std::pin::Pin;
use std::process::Stdio;
use std::sync::Arc;
use std::task::{Context, Poll, ready};
use std::time::Duration;

use rmcp::RoleClient;
use rmcp::service::{RxJsonRpcMessage, TxJsonRpcMessage};
use rmcp::transport::Transport;
use rmcp::transport::async_rw::AsyncRwTransport;
use tokio::io::{AsyncRead, ReadBuf};
use tokio::process::{Child, ChildStderr, ChildStdin, ChildStdout};

/// Default largest message a server may send.
pub const DEFAULT_MAX_MESSAGE_BYTES: u64 = 64 * 1024 * 1024;

/// How long `close` waits for the process to exit after its stdin closed.
const EXIT_WAIT: Duration = Duration::from_secs(3);

/// A message over the limit: its size (without the line end) and the limit.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Oversize {
    /// Size of the message in bytes.
    pub bytes: u64,
    /// The limit in force.
    pub limit: u64,
}

impl Oversize {
    /// The error text (untranslated, like the other MCP errors the model sees).
    pub fn message(&self, server: &str) -> String {
        format!(
            "MCP server \"{server}\" sent a message of {} bytes, over the limit of {} bytes \
             (max_message_bytes)",
            self.bytes, self.limit
        )
    }
}

/// Called for every oversized message.
pub type OversizeReport = Arc<dyn Fn(Oversize) + Send + Sync>;

/// Passes reads through and measures lines: a line longer than `limit` is reported
/// (once, when it ends or at end of stream) with its full length.
pub struct Metered<R> {
    inner: R,
    line: u64,
    limit: u64,
    report: OversizeReport,
}

impl<R> Metered<R> {
    /// Wraps `inner`.
    pub fn new(inner: R, limit: u64, report: OversizeReport) -> Self {
        Metered {
            inner,
            line: 0,
            limit,
            report,
        }
    }

    fn end_line(&mut self, len: u64) {
        if len > self.limit {
            (self.report)(Oversize {
                bytes: len,
                limit: self.limit,
            });
        }
        self.line = 0;
    }

    /// Accounts for bytes read (an empty slice is the end of the stream).
    fn observe(&mut self, mut bytes: &[u8]) {
        if bytes.is_empty() {
            let len = self.line;
            self.end_line(len);
            return;
        }
        while let Some(i) = bytes.iter().position(|b| *b == b'\n') {
            let len = self.line.saturating_add(i as u64);
            self.end_line(len);
            bytes = &bytes[i + 1..];
        }
        self.line = self.line.saturating_add(bytes.len() as u64);
    }
}

impl<R: AsyncRead + Unpin> AsyncRead for Metered<R> {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<std::io::Result<()>> {
        let this = self.get_mut();
        let before = buf.filled().len();
        ready!(Pin::new(&mut this.inner).poll_read(cx, buf))?;
        // A zero-byte read into a full buffer is not the end of the stream.
        let at_end = buf.filled().len() == before && buf.remaining() > 0;
        if at_end || buf.filled().len() > before {
            this.observe(&buf.filled()[before..]);
        }
        Poll::Ready(Ok(()))
    }
}

/// An MCP server process spoken to over its stdin and stdout.
pub struct ChildTransport {
    child: Child,
    io: AsyncRwTransport<RoleClient, Metered<ChildStdout>, ChildStdin>,
}

impl ChildTransport {
    /// Starts `cmd` with piped stdio; messages over `limit` bytes are dropped and reported
    /// to `report`. Also returns the process's stderr.
    pub fn spawn(
        mut cmd: tokio::process::Command,
        limit: u64,
        report: OversizeReport,
    ) -> std::io::Result<(ChildTransport, Option<ChildStderr>)> {
        cmd.stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        let mut child = cmd.spawn()?;
        let (Some(stdout), Some(stdin)) = (child.stdout.take(), child.stdin.take()) else {
            return Err(std::io::Error::other(
                "the server's stdio could not be piped",
            ));
        };
        let stderr = child.stderr.take();
        // rmcp drops a line once it and its newline exceed its limit: one more than ours.
        let rmcp_limit = usize::try_from(limit.saturating_add(1)).unwrap_or(usize::MAX);
        let io = AsyncRwTransport::new_client(Metered::new(stdout, limit, report), stdin)
            .with_max_line_length(rmcp_limit);
        Ok((ChildTransport { child, io }, stderr))
    }
}

impl Transport<RoleClient> for ChildTransport {
    type Error = std::io::Error;

    fn send(
        &mut self,
        item: TxJsonRpcMessage<RoleClient>,
    ) -> impl Future<Output = Result<(), Self::Error>> + Send + 'static {
        self.io.send(item)
    }

    fn receive(&mut self) -> impl Future<Output = Option<RxJsonRpcMessage<RoleClient>>> + Send {
        self.io.receive()
    }

    /// Closes stdin (the MCP stdio shutdown), waits briefly for the process, then kills it.
    async fn close(&mut self) -> Result<(), Self::Error> {
        self.io.close().await?;
        match tokio::time::timeout(EXIT_WAIT, self.child.wait()).await {
            Ok(r) => r.map(|_| ()),
            Err(_) => self.child.kill().await,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Mutex;
    use tokio::io::AsyncReadExt;

    fn metered(data: &'static [u8], limit: u64) -> (Metered<&'static [u8]>, Arc<Mutex<Vec<u64>>>) {
        let seen = Arc::new(Mutex::new(Vec::new()));
        let s = seen.clone();
        let report: OversizeReport = Arc::new(move |o: Oversize| {
            assert_eq!(o.limit, limit);
            s.lock().unwrap().push(o.bytes);
        });
        (Metered::new(data, limit, report), seen)
    }

    #[tokio::test]
    async fn metered_reports_each_line_over_the_limit_with_its_size() {
        let (mut m, seen) = metered(b"12345\n123456\n\n1234567890\n1234567", 5);
        let mut out = Vec::new();
        let mut buf = [0u8; 3];
        loop {
            let n = m.read(&mut buf).await.unwrap();
            if n == 0 {
                break;
            }
            out.extend_from_slice(&buf[..n]);
        }
        assert_eq!(
            out, b"12345\n123456\n\n1234567890\n1234567",
            "bytes pass unchanged"
        );
        // A line of exactly the limit is fine; the unterminated last line counts at EOF.
        assert_eq!(*seen.lock().unwrap(), vec![6, 10, 7]);
    }

    #[test]
    fn oversize_message_names_server_size_and_limit() {
        let o = Oversize {
            bytes: 200_000,
            limit: 100_000,
        };
        assert_eq!(
            o.message("fx"),
            "MCP server \"fx\" sent a message of 200000 bytes, over the limit of 100000 bytes \
             (max_message_bytes)"
        );
    }
}
