//! `FIXTURE_DROP_STREAM=1`: the first `tools/call` of `slow_echo` answered as an SSE stream
//! is cut right after its first progress event (an event with an id the server can resume
//! from), as a proxy or a flaky network would. The client must reconnect with
//! `Last-Event-ID` to get the result (SPEC §15.2); each `/mcp` request's `Last-Event-ID` is
//! in the log (`oauth::guard`), and the cut is logged as `stream-cut`.

use std::sync::atomic::{AtomicBool, Ordering};

use axum::body::{Body, Bytes};
use axum::extract::Request;
use axum::middleware::Next;
use axum::response::Response;
use futures_util::StreamExt;

use crate::log_event;

/// Whether the one stream has been cut.
static CUT: AtomicBool = AtomicBool::new(false);

/// The most request body read to recognise the call.
const MAX_BODY: usize = 1 << 20;

pub async fn drop_first_stream(req: Request, next: Next) -> Response {
    if std::env::var("FIXTURE_DROP_STREAM").as_deref() != Ok("1") || CUT.load(Ordering::SeqCst) {
        return next.run(req).await;
    }
    let (parts, body) = req.into_parts();
    let Ok(bytes) = axum::body::to_bytes(body, MAX_BODY).await else {
        return Response::builder()
            .status(400)
            .body(Body::from("body too large"))
            .unwrap_or_default();
    };
    let text = String::from_utf8_lossy(&bytes);
    let is_call = text.contains("\"tools/call\"") && text.contains("\"slow_echo\"");
    let response = next
        .run(Request::from_parts(parts, Body::from(bytes)))
        .await;
    let sse = response
        .headers()
        .get(axum::http::header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.starts_with("text/event-stream"));
    if !is_call || !sse || CUT.swap(true, Ordering::SeqCst) {
        return response;
    }
    let (parts, body) = response.into_parts();
    // Pass the stream on up to the end of the first event that carries progress, then end.
    let stream = futures_util::stream::unfold(
        (body.into_data_stream(), String::new(), false),
        |(mut inner, mut seen, done)| async move {
            if done {
                return None;
            }
            let chunk: Bytes = match inner.next().await {
                Some(Ok(c)) => c,
                _ => return None,
            };
            seen.push_str(&String::from_utf8_lossy(&chunk));
            let end = seen
                .find("notifications/progress")
                .and_then(|at| seen[at..].find("\n\n").map(|e| at + e + 2));
            match end {
                Some(end) => {
                    log_event(serde_json::json!({"event": "stream-cut"}));
                    // What this chunk adds up to the event's end; the rest is dropped.
                    let before = seen.len() - chunk.len();
                    let keep = end.saturating_sub(before).min(chunk.len());
                    let out = Ok::<Bytes, std::io::Error>(chunk.slice(..keep));
                    Some((out, (inner, seen, true)))
                }
                None => Some((Ok(chunk), (inner, seen, false))),
            }
        },
    );
    Response::from_parts(parts, Body::from_stream(stream))
}

/// The events of every SSE stream, kept in memory so a client can resume any of them with
/// `Last-Event-ID` (rmcp's `EventStore`; without one its server cannot resume a call's own
/// stream once the connection that carried it is gone).
#[derive(Default)]
pub struct MemoryEvents {
    events: std::sync::Mutex<Vec<(String, ServerSseMessage)>>,
}

use rmcp::transport::streamable_http_server::session::{
    EventStore, EventStoreError, EventStream, ServerSseMessage,
};

#[async_trait::async_trait]
impl EventStore for MemoryEvents {
    async fn store_event(
        &self,
        stream_id: &str,
        event: &ServerSseMessage,
    ) -> Result<String, EventStoreError> {
        let mut events = self.events.lock().unwrap_or_else(|p| p.into_inner());
        let id = (events.len() + 1).to_string();
        let mut stored = event.clone();
        stored.event_id = Some(id.clone());
        events.push((stream_id.to_string(), stored));
        Ok(id)
    }

    async fn replay_events_after(
        &self,
        last_event_id: &str,
    ) -> Result<EventStream, EventStoreError> {
        let events = self.events.lock().unwrap_or_else(|p| p.into_inner());
        let at: usize = last_event_id
            .parse()
            .map_err(|e| Box::new(e) as EventStoreError)?;
        let stream = events
            .get(at.saturating_sub(1))
            .map(|(s, _)| s.clone())
            .ok_or_else(|| -> EventStoreError { "unknown event id".into() })?;
        // What that stream has had since; a finite answer: the client polls again.
        let later: Vec<ServerSseMessage> = events
            .iter()
            .skip(at)
            .filter(|(s, _)| *s == stream)
            .map(|(_, e)| e.clone())
            .collect();
        Ok(Box::pin(futures_util::stream::iter(later)))
    }
}
