//! Chunked SSE emission: frames, UTF-8-safe splitting, latency, stalls and cuts.

use std::convert::Infallible;
use std::time::Duration;

use axum::body::Body;
use bytes::Bytes;
use tokio::sync::mpsc;

use super::script::Fault;

/// One SSE frame of the response body.
#[derive(Debug, Clone, PartialEq)]
pub struct Frame {
    /// The raw text, including the terminating blank line.
    pub text: String,
    /// True for real events (counted by `cut_after_events`); false for comments and pings.
    pub counts: bool,
}

impl Frame {
    /// An Anthropic-style `event:` + `data:` frame.
    pub fn event(name: &str, data: &serde_json::Value) -> Self {
        Self {
            text: format!("event: {name}\ndata: {data}\n\n"),
            counts: true,
        }
    }

    /// A `data:`-only frame.
    pub fn data(data: &str) -> Self {
        Self {
            text: format!("data: {data}\n\n"),
            counts: true,
        }
    }

    /// A `: keep-alive` comment.
    pub fn keep_alive() -> Self {
        Self {
            text: ": keep-alive\n\n".to_string(),
            counts: false,
        }
    }

    /// A non-counting Anthropic `ping` event.
    pub fn ping() -> Self {
        Self {
            text: "event: ping\ndata: {\"type\":\"ping\"}\n\n".to_string(),
            counts: false,
        }
    }
}

/// Split text into chunks of 1–`max` bytes at UTF-8 boundaries (never empty chunks).
pub fn split_chunks(s: &str, rng: &mut fastrand::Rng, max: usize) -> Vec<String> {
    let mut out = Vec::new();
    let mut start = 0;
    while start < s.len() {
        let mut end = (start + rng.usize(1..=max.max(1))).min(s.len());
        while !s.is_char_boundary(end) {
            end += 1;
        }
        out.push(s[start..end].to_string());
        start = end;
    }
    out
}

/// How to play a frame list.
#[derive(Debug, Clone)]
pub struct Playback {
    /// Delay after each counted frame.
    pub latency: Duration,
    /// The fault to apply (stall / cut / stream error are handled here).
    pub fault: Option<Fault>,
    /// The in-stream error frame to use for `Fault::StreamError`.
    pub error_frame: Option<Frame>,
    /// Interval between keep-alives during a stall.
    pub keepalive_interval: Duration,
}

/// Build a streaming body that plays `frames` according to `playback`.
pub fn play(frames: Vec<Frame>, playback: Playback) -> Body {
    let (tx, rx) = mpsc::channel::<Bytes>(16);
    tokio::spawn(async move {
        if let Some(Fault::Stall { ms, close }) = playback.fault {
            let deadline = tokio::time::Instant::now() + Duration::from_millis(ms);
            loop {
                if tx
                    .send(Bytes::from_static(b": keep-alive\n\n"))
                    .await
                    .is_err()
                {
                    return;
                }
                let now = tokio::time::Instant::now();
                if now >= deadline {
                    break;
                }
                tokio::time::sleep((deadline - now).min(playback.keepalive_interval)).await;
            }
            if close {
                return;
            }
        }
        let cut = match &playback.fault {
            Some(Fault::CutAfterEvents(n)) => Some(*n),
            _ => None,
        };
        let error_after = match (&playback.fault, &playback.error_frame) {
            (Some(Fault::StreamError { .. }), Some(_)) => {
                let total = frames.iter().filter(|f| f.counts).count();
                Some(3.min(total.saturating_sub(1)).max(1))
            }
            _ => None,
        };
        let mut counted = 0usize;
        for f in frames {
            if f.counts {
                if cut == Some(counted) {
                    return;
                }
                if error_after == Some(counted) {
                    if let Some(e) = &playback.error_frame {
                        let _ = tx.send(Bytes::from(e.text.clone())).await;
                    }
                    return;
                }
                counted += 1;
            }
            if tx.send(Bytes::from(f.text)).await.is_err() {
                return;
            }
            if f.counts && !playback.latency.is_zero() {
                tokio::time::sleep(playback.latency).await;
            }
        }
    });
    let stream = futures_util::stream::unfold(rx, |mut rx| async move {
        rx.recv().await.map(|b| (Ok::<Bytes, Infallible>(b), rx))
    });
    Body::from_stream(stream)
}

/// A non-streaming body: optional blank lines during a stall, then the JSON.
pub fn play_json(json: String, fault: Option<Fault>, keepalive_interval: Duration) -> Body {
    let (tx, rx) = mpsc::channel::<Bytes>(4);
    tokio::spawn(async move {
        if let Some(Fault::Stall { ms, close }) = fault {
            let deadline = tokio::time::Instant::now() + Duration::from_millis(ms);
            loop {
                if tx.send(Bytes::from_static(b"\n")).await.is_err() {
                    return;
                }
                let now = tokio::time::Instant::now();
                if now >= deadline {
                    break;
                }
                tokio::time::sleep((deadline - now).min(keepalive_interval)).await;
            }
            if close {
                return;
            }
        }
        if let Some(Fault::CutAfterEvents(_)) | Some(Fault::StreamError { .. }) = fault {
            // A cut non-streaming response: half the body, then close.
            let half = super::turn::truncate_utf8(&json, json.len() / 2).to_string();
            let _ = tx.send(Bytes::from(half)).await;
            return;
        }
        let _ = tx.send(Bytes::from(json)).await;
    });
    let stream = futures_util::stream::unfold(rx, |mut rx| async move {
        rx.recv().await.map(|b| (Ok::<Bytes, Infallible>(b), rx))
    });
    Body::from_stream(stream)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn chunks_reassemble_and_respect_utf8() {
        let mut rng = fastrand::Rng::with_seed(7);
        let s = "héllo 世界, ünïcödé ✓ text";
        for _ in 0..50 {
            let parts = split_chunks(s, &mut rng, 5);
            assert_eq!(parts.concat(), s);
            assert!(parts.iter().all(|p| !p.is_empty()));
        }
    }
}
