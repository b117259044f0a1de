//! Elicitation (SPEC §15.2, decision 0162): a server asks the user for input while it works
//! — a form (form mode) or a page to open (URL mode). The connection's handler hands each
//! request to [`Elicitations`], which screens it, shows it where the user is (the TUI's
//! form overlay through the agent's events) and waits for the answer, which the UI sends
//! back as `AgentCommand::Elicit` and the inbox passes to [`Elicitations::answer`].
//!
//! `exec` has no one to ask: it declines every request and says so on stderr. A request
//! the form cannot show (a schema outside the MCP specification, too many fields, a URL
//! that is not http(s)) is declined with a notice naming the reason. Nothing of a request
//! or its answer is written to the session log: the model never sees them, and an answer
//! may hold what the user would not want kept.

pub mod form;
pub mod schema;

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use rmcp::model::{ElicitRequestParams, ElicitResult, ElicitationAction};
use serde_json::Value;
use tokio::sync::oneshot;

pub use form::{
    Choice, ElicitAnswer, ElicitKind, ElicitationRequest, Entry, Field, Input, TextFormat,
};

use crate::i18n::{Arg, Text};

/// Shows a request to the user; `false` when nobody is there to answer (the UI is gone).
pub type Asker = Arc<dyn Fn(ElicitationRequest) -> bool + Send + Sync>;

/// Tells the user something (a notice; on stderr in `exec`).
pub type Teller = Arc<dyn Fn(Text) + Send + Sync>;

/// Who answers.
#[derive(Clone, Default)]
enum Mode {
    /// Nobody (tests, a manager built without a UI): decline silently.
    #[default]
    Silent,
    /// `exec`: decline, and say so.
    Decline(Teller),
    /// The TUI: ask; notices through the teller.
    Ask(Asker, Teller),
}

#[derive(Default)]
struct Shared {
    next: AtomicU64,
    pending: Mutex<HashMap<u64, oneshot::Sender<ElicitAnswer>>>,
}

/// The pending elicitations of every server, and who answers them. Cheap to clone.
#[derive(Clone, Default)]
pub struct Elicitations {
    shared: Arc<Shared>,
    mode: Mode,
    /// The config's `api_key_env` variables, kept out of a browser started for a URL.
    key_env_vars: Vec<String>,
}

impl std::fmt::Debug for Elicitations {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Elicitations").finish_non_exhaustive()
    }
}

impl Elicitations {
    /// Declines every request, telling `tell` each time (`exec`).
    pub fn declining(tell: Teller) -> Elicitations {
        Elicitations {
            mode: Mode::Decline(tell),
            ..Default::default()
        }
    }

    /// Asks the user through `ask`; notices go to `tell` (the TUI).
    pub fn asking(ask: Asker, tell: Teller) -> Elicitations {
        Elicitations {
            mode: Mode::Ask(ask, tell),
            ..Default::default()
        }
    }

    /// Keeps `vars` out of a browser opened for a URL request.
    pub fn with_key_env_vars(mut self, vars: Vec<String>) -> Elicitations {
        self.key_env_vars = vars;
        self
    }

    /// The capability a connection advertises: form and URL mode when someone answers
    /// (or `exec` declines and says so), nothing for a silent manager.
    pub fn capability(&self) -> Option<rmcp::model::ElicitationCapability> {
        use rmcp::model::{
            ElicitationCapability, FormElicitationCapability, UrlElicitationCapability,
        };
        match self.mode {
            Mode::Silent => None,
            Mode::Decline(_) | Mode::Ask(..) => Some(
                ElicitationCapability::new()
                    .with_form(FormElicitationCapability::new().with_schema_validation(true))
                    .with_url(UrlElicitationCapability::new()),
            ),
        }
    }

    /// How many requests are waiting for their answer.
    pub fn waiting(&self) -> usize {
        self.lock().len()
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<u64, oneshot::Sender<ElicitAnswer>>> {
        self.shared
            .pending
            .lock()
            .unwrap_or_else(|p| p.into_inner())
    }

    /// The user's answer to request `id` (an answer nobody waits for any more is dropped).
    pub fn answer(&self, id: u64, answer: ElicitAnswer) {
        if let Some(tx) = self.lock().remove(&id) {
            let _ = tx.send(answer);
        }
    }

    fn tell(&self, t: Text) {
        match &self.mode {
            Mode::Silent => tracing::info!("elicitation: {}", t.key),
            Mode::Decline(tell) | Mode::Ask(_, tell) => tell(t),
        }
    }

    /// Answers a typed request from `server`.
    pub async fn ask(&self, server: &str, params: ElicitRequestParams) -> ElicitResult {
        let request = match params {
            ElicitRequestParams::FormElicitationParams {
                message,
                requested_schema,
                ..
            } => serde_json::to_value(&requested_schema)
                .map_err(|_| Text::new("elicit-bad-schema-no-properties", vec![]))
                .and_then(|s| schema::fields(&s))
                .map(|fields| (message, ElicitKind::Form { fields })),
            ElicitRequestParams::UrlElicitationParams { message, url, .. } => {
                if url_ok(&url) {
                    Ok((message, ElicitKind::Url { url }))
                } else {
                    Err(Text::new("elicit-bad-url", vec![]))
                }
            }
            _ => Err(Text::new("elicit-bad-mode", vec![])),
        };
        match request {
            Ok((message, kind)) => self.show(server, &message, kind).await,
            Err(why) => self.unshowable(server, why),
        }
    }

    /// Answers an `elicitation/create` whose params rmcp could not type (a schema outside
    /// the specification): declined, with the reason read from the raw params.
    pub fn ask_raw(&self, server: &str, params: Option<&Value>) -> ElicitResult {
        let why = params
            .and_then(|p| p.get("requestedSchema"))
            .map(|s| match schema::fields(s) {
                Err(why) => why,
                Ok(_) => Text::new("elicit-bad-schema-spec", vec![]),
            })
            .unwrap_or_else(|| Text::new("elicit-bad-schema-spec", vec![]));
        self.unshowable(server, why)
    }

    fn unshowable(&self, server: &str, why: Text) -> ElicitResult {
        self.tell(Text::new(
            "elicit-declined-unshowable",
            vec![
                ("name", Arg::from(server)),
                ("why", Arg::Text(Box::new(why))),
            ],
        ));
        ElicitResult::new(ElicitationAction::Decline)
    }

    async fn show(&self, server: &str, message: &str, kind: ElicitKind) -> ElicitResult {
        let message = schema::screen(message, schema::MAX_MESSAGE_CHARS, true);
        let ask = match &self.mode {
            Mode::Silent => return ElicitResult::new(ElicitationAction::Decline),
            Mode::Decline(tell) => {
                tell(Text::new(
                    "elicit-declined-exec",
                    vec![("name", Arg::from(server)), ("message", Arg::from(message))],
                ));
                return ElicitResult::new(ElicitationAction::Decline);
            }
            Mode::Ask(ask, _) => ask.clone(),
        };
        let id = self.shared.next.fetch_add(1, Ordering::Relaxed) + 1;
        let (tx, rx) = oneshot::channel();
        self.lock().insert(id, tx);
        let url = match &kind {
            ElicitKind::Url { url } => Some(url.clone()),
            ElicitKind::Form { .. } => None,
        };
        let shown = ask(ElicitationRequest {
            id,
            server: server.to_string(),
            message,
            kind,
        });
        if !shown {
            self.lock().remove(&id);
            return ElicitResult::new(ElicitationAction::Decline);
        }
        // A dropped sender (the UI went away, a new session) is a cancel.
        let answer = rx.await.unwrap_or(ElicitAnswer::Cancel);
        match answer {
            ElicitAnswer::Accept(content) => match url {
                // URL mode: "yes" opens it; the server learns the user went there.
                Some(url) => {
                    let key = match super::browser::open_browser(&url, &self.key_env_vars) {
                        true => "elicit-url-opened",
                        false => "elicit-url-not-opened",
                    };
                    self.tell(Text::new(key, vec![("url", Arg::from(url))]));
                    ElicitResult::new(ElicitationAction::Accept)
                }
                None => ElicitResult::new(ElicitationAction::Accept)
                    .with_content(Value::Object(content)),
            },
            ElicitAnswer::Decline => ElicitResult::new(ElicitationAction::Decline),
            ElicitAnswer::Cancel => ElicitResult::new(ElicitationAction::Cancel),
        }
    }
}

/// The longest URL shown and opened (as `ui::terminal::hyperlink` links).
pub const MAX_URL_BYTES: usize = 2048;

/// Whether a URL request may be shown and opened: http or https, printable ASCII (nothing
/// a terminal would interpret, no spaces to hide a second target), not too long.
pub fn url_ok(url: &str) -> bool {
    (url.starts_with("https://") || url.starts_with("http://"))
        && url.len() <= MAX_URL_BYTES
        && url.bytes().all(|b| b.is_ascii_graphic())
}

#[cfg(test)]
mod tests;
