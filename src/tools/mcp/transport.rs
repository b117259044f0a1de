//! The stdio transport to an MCP server process, with a message size limit that is
//! configurable per server and reported as such.
//!
//! rmcp's child-process transport reads at most 16 MiB per message (one JSON-RPC message is
//! one line), drops a longer one with only a log line, and cannot be configured; the
//! request it answered then waits until its timeout. This transport uses rmcp's line
//! reader with our limit, and watches the bytes it reads: every line over the limit is
//! reported through a callback with its full size, so a waiting request can fail at once
//! with "sent a message of N bytes, over the limit of M bytes".
//!
//! Between the process and rmcp sits a line pump: it cuts the output into messages (at most
//! the limit each), and the answers to this client's `tools/list` requests go through
//! [`listing::screen_answer`] on the way, so a bad tool is skipped by name and an answer
//! that is no tool list fails as a parse error at once (decision 0033).

use std::collections::HashSet;
use std::future::Future;
use std::pin::Pin;
use std::process::Stdio;
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll, ready};
use std::time::Duration;

use rmcp::RoleClient;
use rmcp::model::{ClientRequest, JsonRpcMessage, RequestId};
use rmcp::service::{RxJsonRpcMessage, TxJsonRpcMessage};
use rmcp::transport::Transport;
use rmcp::transport::async_rw::AsyncRwTransport;
use tokio::io::{
    AsyncBufReadExt, AsyncRead, AsyncWrite, AsyncWriteExt, BufReader, ReadBuf, ReadHalf,
    SimplexStream,
};
use tokio::process::{ChildStderr, ChildStdin};
use tokio::sync::watch;
use tokio_util::sync::{CancellationToken, DropGuard};

use super::listing::{self, Skipped};

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

/// Called with the tools a `tools/list` answer listed but that were left out.
pub type SkipReport = Arc<dyn Fn(Vec<Skipped>) + Send + Sync>;

/// `tools/list` requests still waiting for their answer; a handful at most (one listing
/// runs at a time), capped so unanswered ones cannot pile up.
#[derive(Default)]
struct PendingLists(Mutex<HashSet<RequestId>>);

const MAX_PENDING_LISTS: usize = 64;

impl PendingLists {
    fn lock(&self) -> std::sync::MutexGuard<'_, HashSet<RequestId>> {
        self.0.lock().unwrap_or_else(|p| p.into_inner())
    }

    fn note(&self, item: &TxJsonRpcMessage<RoleClient>) {
        if let JsonRpcMessage::Request(r) = item
            && matches!(r.request, ClientRequest::ListToolsRequest(_))
        {
            let mut set = self.lock();
            if set.len() < MAX_PENDING_LISTS {
                set.insert(r.id.clone());
            }
        }
    }

    /// The request `line` answers, if it is a pending listing (which it then no longer is).
    fn answered_by(&self, line: &[u8]) -> Option<RequestId> {
        if self.lock().is_empty() {
            return None;
        }
        let id = listing::response_id(line)?;
        self.lock().remove(&id).then_some(id)
    }
}

/// Copies the server's output to rmcp one message (line) at a time: lines over `limit`
/// are dropped (the [`Metered`] reader reported them), answers to pending listings are
/// screened. Ends at the end of the output or when rmcp stops reading; either way rmcp
/// then reads the end of its stream.
async fn pump(
    read: impl AsyncRead + Unpin,
    mut out: impl AsyncWrite + Unpin,
    limit: usize,
    lists: Arc<PendingLists>,
    skipped: SkipReport,
) {
    copy_lines(read, &mut out, limit, &lists, &skipped).await;
    // The write half of a split pipe does not close it when dropped: say so explicitly.
    let _ = out.shutdown().await;
}

async fn copy_lines(
    read: impl AsyncRead + Unpin,
    out: &mut (impl AsyncWrite + Unpin),
    limit: usize,
    lists: &PendingLists,
    skipped: &SkipReport,
) {
    let mut read = BufReader::new(read);
    let mut line: Vec<u8> = Vec::new();
    let mut discarding = false;
    loop {
        let (consumed, complete) = {
            let Ok(buf) = read.fill_buf().await else {
                return;
            };
            if buf.is_empty() {
                // An unterminated last line is no message (rmcp drops it too).
                return;
            }
            let newline = buf.iter().position(|b| *b == b'\n');
            let take = newline.map_or(buf.len(), |i| i + 1);
            if discarding {
                discarding = newline.is_none();
                (take, false)
            } else if line.len().saturating_add(take) > limit {
                line.clear();
                discarding = newline.is_none();
                (take, false)
            } else {
                line.extend_from_slice(&buf[..take]);
                (take, newline.is_some())
            }
        };
        read.consume(consumed);
        if !complete {
            continue;
        }
        let body = line.strip_suffix(b"\n").unwrap_or(&line);
        let body = body.strip_suffix(b"\r").unwrap_or(body);
        let written = match lists.answered_by(body) {
            Some(id) => {
                let (mut clean, left_out) = listing::screen_answer(body, &id);
                if !left_out.is_empty() {
                    skipped(left_out);
                }
                clean.push(b'\n');
                out.write_all(&clean).await
            }
            None => out.write_all(&line).await,
        };
        if written.is_err() {
            return;
        }
        line.clear();
        // Keep no large buffer around after one big message.
        if line.capacity() > 1024 * 1024 {
            line = Vec::new();
        }
    }
}

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

/// How the server process ended, once it has: `None` while it runs. A failure reports
/// "exited with status N" from this rather than the broken pipe rmcp saw.
pub type ExitWatch = watch::Receiver<Option<Exit>>;

/// The end of a server process.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Exit {
    /// Its exit status.
    pub status: std::process::ExitStatus,
    /// deepterm ended it (the transport was dropped or closed while it ran): the status
    /// says nothing about why the connection failed.
    pub killed: bool,
}

/// An MCP server process spoken to over its stdin and stdout. A reaper task owns the
/// process, so its exit status is known even after rmcp dropped the transport; dropping the
/// transport kills the process, as the process handle's `kill_on_drop` did.
pub struct ChildTransport {
    io: AsyncRwTransport<RoleClient, ReadHalf<SimplexStream>, ChildStdin>,
    lists: Arc<PendingLists>,
    exit: ExitWatch,
    kill: CancellationToken,
    _kill_on_drop: DropGuard,
}

/// Room between the pump and rmcp's reader.
const PUMP_BUFFER: usize = 64 * 1024;

impl ChildTransport {
    /// Starts `cmd` with piped stdio; messages over `limit` bytes are dropped and reported
    /// to `report`, tools a listing leaves out to `skipped`. Also returns the process's
    /// stderr and a watch on its exit. Needs a tokio runtime (the output pump and the
    /// reaper are tasks).
    pub fn spawn(
        mut cmd: tokio::process::Command,
        limit: u64,
        report: OversizeReport,
        skipped: SkipReport,
    ) -> std::io::Result<(ChildTransport, Option<ChildStderr>, ExitWatch)> {
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
        // A line counts with its newline: one byte more than the message limit.
        let line_limit = usize::try_from(limit.saturating_add(1)).unwrap_or(usize::MAX);
        let lists = Arc::new(PendingLists::default());
        let (rx, tx) = tokio::io::simplex(PUMP_BUFFER);
        tokio::spawn(pump(
            Metered::new(stdout, limit, report),
            tx,
            line_limit,
            lists.clone(),
            skipped,
        ));
        let io = AsyncRwTransport::new_client(rx, stdin).with_max_line_length(line_limit);
        let (exit_tx, exit) = watch::channel(None);
        let kill = CancellationToken::new();
        let reap = kill.clone();
        tokio::spawn(async move {
            // A process that has already ended wins over a kill asked for at the same time.
            let ended = tokio::select! {
                biased;
                s = child.wait() => Some(s),
                () = reap.cancelled() => None,
            };
            let (status, killed) = match ended {
                Some(s) => (s, false),
                None => {
                    let _ = child.start_kill();
                    (child.wait().await, true)
                }
            };
            // A process that had already exited on its own (a code, not our signal) was
            // not ended by the kill, even if the kill was asked for first.
            if let Ok(status) = status {
                let killed = killed && status.code().is_none();
                exit_tx.send_replace(Some(Exit { status, killed }));
            }
        });
        let transport = ChildTransport {
            io,
            lists,
            exit: exit.clone(),
            _kill_on_drop: kill.clone().drop_guard(),
            kill,
        };
        Ok((transport, stderr, exit))
    }
}

impl Transport<RoleClient> for ChildTransport {
    type Error = std::io::Error;

    fn send(
        &mut self,
        item: TxJsonRpcMessage<RoleClient>,
    ) -> impl Future<Output = Result<(), Self::Error>> + Send + 'static {
        // Noted before the request is written, so its answer cannot arrive first.
        self.lists.note(&item);
        self.io.send(item)
    }

    fn receive(&mut self) -> impl Future<Output = Option<RxJsonRpcMessage<RoleClient>>> + Send {
        self.io.receive()
    }

    /// Closes stdin (the MCP stdio shutdown), waits briefly for the process, then kills it.
    async fn close(&mut self) -> Result<(), Self::Error> {
        self.io.close().await?;
        let mut exit = self.exit.clone();
        if tokio::time::timeout(EXIT_WAIT, exit.wait_for(Option::is_some))
            .await
            .is_err()
        {
            self.kill.cancel();
            let _ = exit.wait_for(Option::is_some).await;
        }
        Ok(())
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

    #[tokio::test]
    async fn the_pump_screens_only_pending_listings_drops_long_lines_and_ends_the_stream() {
        use rmcp::model::{JsonRpcRequest, ListToolsRequest};
        use tokio::io::AsyncReadExt;
        let lists = Arc::new(PendingLists::default());
        let request = ClientRequest::ListToolsRequest(ListToolsRequest {
            method: Default::default(),
            params: None,
            extensions: Default::default(),
        });
        lists.note(&JsonRpcMessage::Request(JsonRpcRequest::new(
            RequestId::Number(2),
            request,
        )));
        let seen = Arc::new(Mutex::new(Vec::new()));
        let report: SkipReport = {
            let seen = seen.clone();
            Arc::new(move |s: Vec<Skipped>| seen.lock().unwrap().extend(s))
        };
        let answer = r#"{"jsonrpc":"2.0","id":2,"result":{"tools":[{"name":"ok","inputSchema":{"type":"object"}},{"name":"bad","inputSchema":"x"}]}}"#;
        // Another response with a bad tool is not a listing: passed through untouched.
        let other = r#"{"jsonrpc":"2.0","id":3,"result":{"tools":[{"name":"bad"}]}}"#;
        let long = "x".repeat(200);
        let input = format!("{other}\n{long}\n{answer}\n{answer}\nunterminated");
        let (mut rx, tx) = tokio::io::simplex(1024);
        let pumping = tokio::spawn(pump(
            std::io::Cursor::new(input.into_bytes()),
            tx,
            180,
            lists,
            report,
        ));
        let mut out = String::new();
        rx.read_to_string(&mut out).await.unwrap();
        pumping.await.unwrap();
        let lines: Vec<&str> = out.lines().collect();
        assert_eq!(lines.len(), 3, "{out}");
        assert_eq!(lines[0], other);
        assert!(
            lines[1].contains(r#""name":"ok""#) && !lines[1].contains("bad"),
            "{}",
            lines[1]
        );
        assert_eq!(lines[2], answer, "an answered listing is no longer pending");
        let seen = seen.lock().unwrap();
        assert_eq!(seen.len(), 1);
        assert_eq!(seen[0].tool, "bad");
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
