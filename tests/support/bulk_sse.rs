//! A bare loopback HTTP server that answers every request with one Anthropic-format
//! stream: a text reply of `total` bytes in deltas of `delta` bytes. Frames are generated
//! into one reused buffer as they are written, so the server itself holds almost nothing:
//! a counting allocator then sees the client's memory, not the server's. Shared by
//! `tests/exec_memory.rs` and `examples/exec_memory.rs` (via `#[path]`).

use std::net::SocketAddr;

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpListener;

/// The text of delta `i` (ASCII, no JSON escapes, exactly `len` bytes).
#[allow(dead_code)] // the test checks the reply with it; the example does not
pub fn delta_text(i: usize, len: usize) -> String {
    let digits = format!("{i:0>width$}|", width = len.max(1) - 1);
    digits[digits.len() - len..].to_string()
}

/// Starts the server; it answers until the runtime stops. Returns its address.
pub async fn start(total: usize, delta: usize) -> SocketAddr {
    let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind");
    let addr = listener.local_addr().expect("local addr");
    tokio::spawn(async move {
        while let Ok((mut sock, _)) = listener.accept().await {
            tokio::spawn(async move {
                if read_request(&mut sock).await.is_err() {
                    return;
                }
                let _ = write_stream(&mut sock, total, delta).await;
                let _ = sock.shutdown().await;
            });
        }
    });
    addr
}

/// Reads the request head and its `content-length` body, and discards them.
async fn read_request(sock: &mut tokio::net::TcpStream) -> std::io::Result<()> {
    let mut buf = Vec::with_capacity(8192);
    let mut chunk = [0u8; 8192];
    let head_end = loop {
        let n = sock.read(&mut chunk).await?;
        if n == 0 {
            return Err(std::io::ErrorKind::UnexpectedEof.into());
        }
        buf.extend_from_slice(&chunk[..n]);
        if let Some(i) = buf.windows(4).position(|w| w == b"\r\n\r\n") {
            break i + 4;
        }
    };
    let head = String::from_utf8_lossy(&buf[..head_end]).to_ascii_lowercase();
    let len: usize = head
        .lines()
        .find_map(|l| l.strip_prefix("content-length:"))
        .and_then(|v| v.trim().parse().ok())
        .unwrap_or(0);
    let mut have = buf.len() - head_end;
    while have < len {
        let n = sock.read(&mut chunk).await?;
        if n == 0 {
            break;
        }
        have += n;
    }
    Ok(())
}

async fn write_stream(
    sock: &mut tokio::net::TcpStream,
    total: usize,
    delta: usize,
) -> std::io::Result<()> {
    let mut out: Vec<u8> = Vec::with_capacity(1 << 16);
    out.extend_from_slice(
        b"HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\nconnection: close\r\n\r\n\
          event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"id\":\"msg_bulk\",\"type\":\"message\",\"role\":\"assistant\",\"model\":\"deepseek-flash\",\"content\":[],\"stop_reason\":null,\"stop_sequence\":null,\"usage\":{\"input_tokens\":10,\"output_tokens\":0}}}\n\n\
          event: content_block_start\ndata: {\"type\":\"content_block_start\",\"index\":0,\"content_block\":{\"type\":\"text\",\"text\":\"\"}}\n\n",
    );
    let deltas = total / delta.max(1);
    for i in 0..deltas {
        out.extend_from_slice(
            b"event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"text_delta\",\"text\":\"",
        );
        // Written digit by digit so no per-delta String is allocated here.
        let mut n = i;
        let mut digits = [b'0'; 32];
        let width = delta.clamp(1, 32);
        digits[width - 1] = b'|';
        let mut pos = width - 1;
        while pos > 0 {
            pos -= 1;
            digits[pos] = b'0' + (n % 10) as u8;
            n /= 10;
        }
        out.extend_from_slice(&digits[..width]);
        out.extend_from_slice(b"\"}}\n\n");
        if out.len() >= (1 << 16) - 256 {
            sock.write_all(&out).await?;
            out.clear();
        }
    }
    out.extend_from_slice(
        b"event: content_block_stop\ndata: {\"type\":\"content_block_stop\",\"index\":0}\n\n\
          event: message_delta\ndata: {\"type\":\"message_delta\",\"delta\":{\"stop_reason\":\"end_turn\",\"stop_sequence\":null},\"usage\":{\"output_tokens\":5}}\n\n\
          event: message_stop\ndata: {\"type\":\"message_stop\"}\n\n",
    );
    sock.write_all(&out).await?;
    sock.flush().await
}
