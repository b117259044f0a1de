//! A second `/resume` while the first listing is still read (decision 0101): the new
//! listing carries a newer id, the first one's reader stops at its next batch, and the
//! first listing never reports itself done, so the UI shows one listing at a time.

use std::path::PathBuf;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use deepterm::agent::env_error::EnvError;
use deepterm::agent::protocol::{AgentCommand, AgentEvent, SessionSummary};
use deepterm::session::Session;

use crate::common::config::ConfigBuilder;

/// How each listing job ended, in the order the jobs were started.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Ended {
    /// The sink said stop.
    Stopped,
    /// Every batch was handed over.
    Finished,
}

/// An environment whose first listing is long (a batch every 2 ms for 10 s) and every later
/// one three batches long; it records how each job ended.
struct Listings {
    started: Arc<AtomicUsize>,
    ended: Arc<Mutex<Vec<(usize, Ended)>>>,
}

fn summary(job: usize, i: usize) -> SessionSummary {
    SessionSummary {
        id: format!("job{job}-{i}"),
        modified: 1_000_000 - i as i64,
        first_prompt: Some(format!("prompt {i}")),
        messages: 1,
        bytes: 1,
        workspace: None,
        forked_from: None,
        messages_partial: false,
    }
}

impl deepterm::agent::run::Environment for Listings {
    fn resolve_route(
        &self,
        _spec: &str,
    ) -> Result<
        (
            deepterm::llm::types::Route,
            Option<deepterm::config::ApiKey>,
        ),
        EnvError,
    > {
        Err(EnvError::Unsupported)
    }
    fn save_locale(&self, _locale: deepterm::i18n::Locale) -> Result<(), EnvError> {
        Err(EnvError::Unsupported)
    }
    fn base_prompt(&self) -> String {
        "test".into()
    }
    fn new_session(&self) -> Result<(Session, PathBuf), EnvError> {
        Err(EnvError::Unsupported)
    }
    fn open_session(
        &self,
        _query: &str,
        _current_id: &str,
    ) -> Result<(Session, PathBuf, Option<deepterm::session::store::TornTail>), EnvError> {
        Err(EnvError::Unsupported)
    }
    fn list_sessions(&self, _current_id: &str) -> Vec<String> {
        vec![]
    }
    fn session_summaries(&self) -> deepterm::agent::run::SummaryJob {
        let job = self.started.fetch_add(1, Ordering::SeqCst);
        let ended = Arc::clone(&self.ended);
        let batches = if job == 0 { 5000 } else { 3 };
        Box::new(move |sink| {
            for i in 0..batches {
                if sink(vec![summary(job, i)]).is_break() {
                    ended.lock().unwrap().push((job, Ended::Stopped));
                    return;
                }
                std::thread::sleep(Duration::from_millis(2));
            }
            ended.lock().unwrap().push((job, Ended::Finished));
        })
    }
}

/// The loop over [`Listings`], running: how each listing job ended, the event channel,
/// the command channel and the loop's task.
struct Running {
    ended: Arc<Mutex<Vec<(usize, Ended)>>>,
    events: tokio::sync::mpsc::UnboundedReceiver<AgentEvent>,
    commands: tokio::sync::mpsc::UnboundedSender<AgentCommand>,
    task: tokio::task::JoinHandle<()>,
}

fn start() -> Running {
    let config = deepterm::config::Config::parse(
        &ConfigBuilder::with_provider("sim", "deepseek-messages", "http://127.0.0.1:9/anthropic")
            .key_env("UNUSED_KEY_VAR")
            .text(),
        None,
    )
    .unwrap();
    let ended = Arc::new(Mutex::new(Vec::new()));
    let (tx, events) = tokio::sync::mpsc::unbounded_channel();
    let agent = deepterm::agent::run::Agent::builder(
        Session::new("open", "/tmp"),
        config.resolve_route(None).unwrap(),
        Box::new(Listings {
            started: Arc::new(AtomicUsize::new(0)),
            ended: Arc::clone(&ended),
        }),
        deepterm::i18n::Localizer::new(deepterm::i18n::Locale::EnUs),
        tx,
    )
    .key(Some(deepterm::config::ApiKey::new("sk-unused")))
    .tools(deepterm::tools::ToolRegistry::new())
    .approval(deepterm::agent::run::ApprovalMode::Interactive)
    .build()
    .unwrap();
    let (commands, cmd_rx) = tokio::sync::mpsc::unbounded_channel();
    let task = tokio::spawn(agent.run_interactive(cmd_rx));
    Running {
        ended,
        events,
        commands,
        task,
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_second_resume_supersedes_the_listing_still_being_read() {
    let Running {
        ended,
        mut events,
        commands,
        task,
    } = start();
    let resume = || {
        commands
            .send(AgentCommand::Submit("/resume".into()))
            .unwrap()
    };
    let mut batches: Vec<(u64, Vec<String>, bool)> = Vec::new();
    let mut next_batch = async || loop {
        let ev = tokio::time::timeout(Duration::from_secs(20), events.recv())
            .await
            .expect("an event within 20 s")
            .expect("the loop runs");
        if let AgentEvent::Sessions {
            listing,
            sessions,
            done,
            ..
        } = ev
        {
            let ids = sessions.into_iter().map(|s| s.id).collect();
            return (listing, ids, done);
        }
    };

    resume();
    let (first, ids, _) = next_batch().await;
    assert_eq!(ids, ["job0-0"]);
    resume();
    // The second listing's batches carry a newer id; it runs to its end.
    let second = loop {
        let b = next_batch().await;
        batches.push(b.clone());
        if b.0 != first {
            break b.0;
        }
    };
    assert!(second > first, "{second} after {first}");
    while !batches.last().is_some_and(|b| b.0 == second && b.2) {
        batches.push(next_batch().await);
    }
    let second_ids: Vec<&str> = batches
        .iter()
        .filter(|b| b.0 == second)
        .flat_map(|b| b.1.iter().map(String::as_str))
        .collect();
    assert_eq!(second_ids, ["job1-0", "job1-1", "job1-2"]);

    // The first reader stopped at its next batch instead of reading on for 10 s.
    let t = Instant::now();
    while ended.lock().unwrap().len() < 2 && t.elapsed() < Duration::from_secs(5) {
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    let mut how = ended.lock().unwrap().clone();
    how.sort_by_key(|e| e.0);
    assert_eq!(
        how,
        [(0, Ended::Stopped), (1, Ended::Finished)],
        "the first listing's reader stops"
    );
    // …and its listing never says it is done (the UI would stop saying "still reading").
    tokio::time::sleep(Duration::from_millis(100)).await;
    while let Ok(ev) = events.try_recv() {
        if let AgentEvent::Sessions { listing, done, .. } = ev {
            batches.push((listing, Vec::new(), done));
        }
    }
    assert!(
        !batches.iter().any(|b| b.0 == first && b.2),
        "no end of the superseded listing: {batches:?}"
    );
    commands.send(AgentCommand::Shutdown).unwrap();
    task.await.unwrap();
}

/// The picker closed while its listing was still read: the UI says `StopListing`, and the
/// reader stops at its next batch instead of reading every log to the end.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_listing_whose_picker_closed_is_read_no_further() {
    let Running {
        ended,
        mut events,
        commands,
        task,
    } = start();
    commands
        .send(AgentCommand::Submit("/resume".into()))
        .unwrap();
    let listing = loop {
        let ev = tokio::time::timeout(Duration::from_secs(20), events.recv())
            .await
            .expect("an event within 20 s")
            .expect("the loop runs");
        if let AgentEvent::Sessions { listing, .. } = ev {
            break listing;
        }
    };
    commands
        .send(AgentCommand::StopListing { listing })
        .unwrap();
    // The first listing is 5,000 batches 2 ms apart (10 s): it stops long before.
    let t = Instant::now();
    while ended.lock().unwrap().is_empty() && t.elapsed() < Duration::from_secs(5) {
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    assert_eq!(
        ended.lock().unwrap().clone(),
        [(0, Ended::Stopped)],
        "the closed picker's reader stops"
    );
    // A stop for a listing that is no longer the newest leaves the newer one alone.
    commands
        .send(AgentCommand::Submit("/resume".into()))
        .unwrap();
    commands
        .send(AgentCommand::StopListing { listing })
        .unwrap();
    let t = Instant::now();
    while ended.lock().unwrap().len() < 2 && t.elapsed() < Duration::from_secs(5) {
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    assert_eq!(ended.lock().unwrap()[1], (1, Ended::Finished));
    commands.send(AgentCommand::Shutdown).unwrap();
    task.await.unwrap();
}
