//! A server's prompts as commands and its resources as `@NAME:URI` attachments (SPEC
//! §15.2), against the real npm `server-everything` over stdio: what the user types reaches
//! the model's request, a prompt missing an argument says which, and what `@NAME:`
//! completes to follows the server's `list_changed`. Against the in-repo fixture: hostile
//! prompt listings, and a prompt list changed mid-session changes the commands.

use std::time::Duration;

use deepterm::agent::protocol::{AgentCommand, AgentEvent};
use deepterm::sim::{ScriptedReply, ScriptedToolCall, SimConfig};
use serde_json::json;

use super::mcp_npm::{PACKAGE, entry_script, node_available, npm_dir};
use crate::common::*;

/// The installed server's entry script, or `None` when the test is skipped.
fn everything() -> Option<String> {
    if !require_external("node", node_available()) {
        return None;
    }
    let what = format!(
        "the npm package {PACKAGE} (npm install --prefix {})",
        npm_dir().unwrap_or_default().display()
    );
    let entry = entry_script();
    if !require_external(&what, entry.is_some()) {
        return None;
    }
    entry.map(|e| e.display().to_string())
}

fn config(env: &TestEnv, entry: &str, extra: &str) -> std::path::PathBuf {
    env.config_builder()
        .builtin_tools(false)
        .mcp_server(
            "ev",
            &format!(
                "command = \"node\"\nargs = [{entry:?}, \"stdio\"]\ntimeout_secs = 30\n{extra}"
            ),
        )
        .write(env.dir.path())
}

/// The text of every user message of a request, joined.
fn user_texts(r: &serde_json::Value) -> String {
    messages(r)
        .iter()
        .filter(|m| m["role"] == "user")
        .map(|m| m.to_string())
        .collect::<Vec<_>>()
        .join("\n")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_server_prompt_command_sends_its_text_with_the_arguments_given() {
    let Some(entry) = everything() else { return };
    let env = TestEnv::new(SimConfig::default()).await;
    let cfg = config(&env, &entry, "enabled = false");
    let script = "/mcp connect ev\n/ev:args-prompt state=Texas\n\
                  /ev:args-prompt city=\"New York\" state=NY\n\
                  /ev:resource-prompt resourceType=Text resourceId=1\n/help\n";
    let out = env.exec(&cfg, script, &[]).await;
    let (o, e) = (stdout(&out), stderr(&out));
    // A required argument missing: the error names it and shows the usage.
    assert!(
        e.contains(
            "/ev:args-prompt needs the argument city. Usage: /ev:args-prompt city=… [state=…]"
        ),
        "{e}"
    );
    let reqs = env.requests();
    assert_eq!(reqs.len(), 2, "only the two complete prompts ran: {e}");
    // The prompt's message, with the arguments filled in by the server, is the user's.
    assert!(
        user_texts(&reqs[0]).contains("What's weather in New York, NY?"),
        "{}",
        user_texts(&reqs[0])
    );
    // An embedded resource arrives as its text.
    let second = user_texts(&reqs[1]);
    assert!(
        second.contains("This prompt includes the Text resource with id: 1"),
        "{second}"
    );
    assert!(
        second.contains("@demo://resource/dynamic/text/1"),
        "{second}"
    );
    // `/help` lists the prompts with their arguments.
    assert!(o.contains("Server prompts:"), "{o}");
    assert!(o.contains("/ev:args-prompt city=… [state=…]"), "{o}");
    assert!(o.contains("A prompt with two arguments"), "{o}");
    assert!(o.contains("/ev:simple-prompt"), "{o}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_at_mentioned_server_resource_is_attached_and_a_blob_is_only_named() {
    let Some(entry) = everything() else { return };
    let env = TestEnv::new(SimConfig::default()).await;
    let cfg = config(&env, &entry, "enabled = false");
    let script = "/mcp connect ev\nsummarize @ev:demo://resource/static/document/features.md \
                  and @ev:demo://resource/dynamic/blob/1 and @ev:demo://nothing/here\n";
    let out = env.exec_ok(&cfg, script, &[]).await;
    let e = stderr(&out);
    let reqs = env.requests();
    let sent = user_texts(&reqs[0]);
    assert!(
        sent.contains("@ev:demo://resource/static/document/features.md ("),
        "{sent}"
    );
    assert!(sent.contains("Everything Server - Features"), "{sent}");
    assert!(
        sent.contains("@ev:demo://resource/dynamic/blob/1 was not attached: it is binary"),
        "{sent}"
    );
    // The blob's bytes (base64 of "Resource 1: …") stay out of the request.
    assert!(!sent.contains("UmVzb3VyY2UgMT"), "{sent}");
    assert!(
        sent.contains("@ev:demo://nothing/here was not attached"),
        "{sent}"
    );
    assert!(
        e.contains("the resource demo://nothing/here could not be read"),
        "{e}"
    );
    // The log lists the attachments, so resume shows them.
    let log = env.log();
    let user = log
        .iter()
        .find(|ev| ev["type"] == "user/message")
        .expect("a user message");
    let atts = user["data"]["message"]["source"]["attachments"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    assert_eq!(atts[1]["refused"], "binary");
    assert_eq!(atts[2]["refused"], "unavailable");
    let paths: Vec<&str> = atts.iter().filter_map(|a| a["path"].as_str()).collect();
    assert_eq!(
        paths,
        [
            "ev:demo://resource/static/document/features.md",
            "ev:demo://resource/dynamic/blob/1",
            "ev:demo://nothing/here"
        ],
        "{user}"
    );
}

/// Waits for the next `McpOffers` whose resources satisfy `done`.
async fn offers_until(
    agent: &mut Interactive,
    done: impl Fn(&[String]) -> bool,
) -> (
    Vec<deepterm::agent::command_spec::OfferedPrompt>,
    Vec<String>,
) {
    let deadline = tokio::time::Instant::now() + Duration::from_secs(60);
    loop {
        assert!(
            tokio::time::Instant::now() < deadline,
            "no such offer in time"
        );
        if let AgentEvent::McpOffers { prompts, resources } = agent.next_event().await
            && done(&resources)
        {
            return (prompts, resources);
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn at_server_completes_to_its_resources_and_follows_list_changed() {
    let Some(entry) = everything() else { return };
    let env = TestEnv::new(SimConfig::default()).await;
    let cfg = config(&env, &entry, "enabled = true\napproval = \"never\"");
    let mut agent = env.start_interactive(cfg);
    let features = "ev:demo://resource/static/document/features.md";
    let (prompts, resources) = offers_until(&mut agent, |r| !r.is_empty()).await;
    // The prompts are offered as commands with their synopsis (popup, key help).
    let args = prompts
        .iter()
        .find(|p| p.name == "/ev:args-prompt")
        .expect("args-prompt offered");
    assert_eq!(args.synopsis, "city=… [state=…]");
    assert!(args.required);
    // `@ev:` completes to the server's resource URIs, ranked like file paths.
    let hits = deepterm::ui::mention::rank_resources(&resources, "ev:").unwrap();
    assert!(!hits.is_empty() && hits.iter().all(|h| h.starts_with("ev:demo://")));
    let hits = deepterm::ui::mention::rank_resources(
        &resources,
        "ev:demo://resource/static/document/feat",
    )
    .unwrap();
    assert_eq!(hits.first(), Some(&features));
    // Another word before the colon is no server: files are completed instead.
    assert!(deepterm::ui::mention::rank_resources(&resources, "src:main").is_none());
    // A tool call that adds a resource: the server says `resources/list_changed`, and the
    // new resource is offered without a reconnect.
    env.sim.push_reply(ScriptedReply {
        tool_calls: vec![ScriptedToolCall {
            name: "ev__gzip-file-as-resource".into(),
            input: json!({
                "name": "notes.txt.gz",
                "data": "data:text/plain;base64,aGVsbG8gd29ybGQ=",
                "outputType": "resourceLink"
            }),
            id: None,
        }],
        ..ScriptedReply::default()
    });
    agent.submit("compress the notes");
    let added = "ev:demo://resource/session/notes.txt.gz";
    let (_, resources) = offers_until(&mut agent, |r| r.iter().any(|u| u == added)).await;
    assert!(resources.iter().any(|u| u == features));
    agent.commands.send(AgentCommand::Shutdown).unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn hostile_prompt_names_are_left_out_and_descriptions_become_one_short_line() {
    let env = TestEnv::new(SimConfig::default()).await;
    let cfg = env
        .config_builder()
        .builtin_tools(false)
        .fixture_server(
            "fx",
            "FIXTURE_TOOLS = \"echo\", FIXTURE_HOSTILE_PROMPTS = \"1\"",
        )
        .write(env.dir.path());
    let script = "/mcp connect fx\n/help\n/fx:greet who=Ada\n";
    let out = env.exec_ok(&cfg, script, &[]).await;
    let (o, e) = (stdout(&out), stderr(&out));
    // The names that are no command word are left out, told once, without their escapes.
    assert!(e.contains("fx: 3 prompts were left out"), "{e}");
    assert!(e.contains("two words"), "{e}");
    assert!(!o.contains('\u{1b}') && !e.contains('\u{1b}'));
    assert!(
        !e.contains("\\x1b"),
        "the escape was removed, not just shown: {e}"
    );
    assert!(!o.contains("evil") && !o.contains("/fx:two"), "{o}");
    assert!(!e.contains(&"p".repeat(65)), "a long name is quoted cut");
    // The well-formed prompt is offered: its 10,000-character description with control
    // characters is one line of at most 200.
    let line = o
        .lines()
        .find(|l| l.contains("/fx:greet who=…"))
        .unwrap_or_else(|| panic!("/help lists greet:\n{o}"));
    assert!(line.contains("Greets"), "{line}");
    assert!(line.chars().count() < 300, "{line}");
    assert!(!line.contains("\\x07"), "{line}");
    // And it runs.
    let reqs = env.requests();
    assert!(user_texts(&reqs[0]).contains("Hello Ada"), "{e}");
}

/// Waits for the next `McpOffers` whose prompt commands satisfy `done`.
async fn prompts_until(agent: &mut Interactive, done: impl Fn(&[String]) -> bool) -> Vec<String> {
    let deadline = tokio::time::Instant::now() + Duration::from_secs(30);
    loop {
        assert!(
            tokio::time::Instant::now() < deadline,
            "no such offer in time"
        );
        if let AgentEvent::McpOffers { prompts, .. } = agent.next_event().await {
            let names: Vec<String> = prompts.into_iter().map(|p| p.name).collect();
            if done(&names) {
                return names;
            }
        }
    }
}

/// The text of the next `/help` answer, in English.
async fn help_text(agent: &mut Interactive) -> String {
    agent.submit("/help");
    let l = deepterm::i18n::Localizer::new(deepterm::i18n::Locale::EnUs);
    loop {
        if let AgentEvent::Output(lines) = agent.next_event().await {
            return lines
                .iter()
                .map(|t| l.text(t))
                .collect::<Vec<_>>()
                .join("\n");
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_server_changing_its_prompts_mid_session_changes_the_prompt_commands() {
    let env = TestEnv::new(SimConfig::default()).await;
    let cfg = env
        .config_builder()
        .builtin_tools(false)
        .mcp_server(
            "fx",
            &format!(
                "command = \"{MCP_FIXTURE}\"\napproval = \"never\"\nenv = {{ \
                 FIXTURE_TOOLS = \"fixture_add_prompt,fixture_remove_prompt\", \
                 FIXTURE_PROMPTS = \"first\" }}"
            ),
        )
        .write(env.dir.path());
    let mut agent = env.start_interactive(cfg);
    prompts_until(&mut agent, |p| p == ["/fx:first"]).await;
    // A tool call adds a prompt and removes the other; the server says
    // `prompts/list_changed` and the commands follow without a reconnect.
    env.sim.push_reply(
        ScriptedReply::tool_call("fx__fixture_add_prompt", json!({ "name": "second" }))
            .with_tool_call("fx__fixture_remove_prompt", json!({ "name": "first" })),
    );
    env.sim.push_reply(ScriptedReply::text("changed"));
    agent.submit("change the prompts");
    prompts_until(&mut agent, |p| p == ["/fx:second"]).await;
    let help = help_text(&mut agent).await;
    assert!(help.contains("/fx:second"), "{help}");
    assert!(help.contains("The fixture's second prompt"), "{help}");
    assert!(!help.contains("/fx:first"), "{help}");
    // The new command runs; the removed one is no command any more.
    env.sim.push_reply(ScriptedReply::text("hello back"));
    agent.submit("/fx:second");
    agent.submit("/fx:first");
    let l = deepterm::i18n::Localizer::new(deepterm::i18n::Locale::EnUs);
    let unknown = loop {
        if let AgentEvent::Notice(n) = agent.next_event().await
            && n.key == "cmd-unknown"
        {
            break l.tra_owned(&n.key, &n.args);
        }
    };
    assert!(unknown.contains("/fx:first"), "{unknown}");
    let reqs = env.requests();
    assert_eq!(reqs.len(), 3, "two for the tool round, one for /fx:second");
    assert!(
        user_texts(&reqs[2]).contains("Prompt second says hello."),
        "{}",
        user_texts(&reqs[2])
    );
    agent.shutdown().await;
}
