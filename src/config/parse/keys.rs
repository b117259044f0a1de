//! The keys each config table accepts, and the suggestion for a misspelt one.

pub(super) const TOP_KEYS: &[&str] = &[
    "locale",
    "model",
    "effort",
    "providers",
    "instructions",
    "mcp",
    "tools",
    "limits",
    "ui",
    "sandbox",
    "approval",
    "checkpoints",
    "hooks",
];
pub(super) const PROVIDER_KEYS: &[&str] = &["kind", "base_url", "api_key_env", "models"];
pub(super) const MODEL_KEYS: &[&str] = &[
    "id",
    "context_window",
    "system_prompt_update",
    "tool_update",
    "image_input",
    "max_tools",
    "tool_removal",
    "price_input_hit",
    "price_input_miss",
    "price_output",
    "effort",
];
pub(super) const INSTRUCTIONS_KEYS: &[&str] = &["text", "files"];
pub(super) const MCP_KEYS: &[&str] = &["servers", "startup_wait_secs"];
pub(super) const MCP_SERVER_KEYS: &[&str] = &[
    "command",
    "args",
    "env",
    "enabled",
    "approval",
    "timeout_secs",
    "env_passthrough",
    "max_message_bytes",
    "parallel",
    "url",
    "headers",
    "bearer_token_env",
    "auth",
    "client_id",
];
pub(super) const TOOLS_KEYS: &[&str] = &["command", "builtin", "defer_tools_over", "max_subagents"];
pub(super) const BUILTIN_KEYS: &[&str] = &["enabled"];
pub(super) const COMMAND_TOOL_KEYS: &[&str] = &[
    "description",
    "command",
    "parameters",
    "enabled",
    "approval",
    "timeout_secs",
    "env_passthrough",
    "parallel",
];
pub(super) const UI_KEYS: &[&str] = &["notify"];
pub(super) const SANDBOX_KEYS: &[&str] = &[
    "mode",
    "network",
    "writable_roots",
    "backend",
    "max_processes",
];
pub(super) const APPROVAL_KEYS: &[&str] = &["policy"];
pub(super) const CHECKPOINT_KEYS: &[&str] = &["enabled", "max_file_bytes"];
pub(super) const LIMITS_KEYS: &[&str] = &[
    "max_event_bytes",
    "max_reply_bytes",
    "no_progress_timeout_secs",
];

/// The keys the table at dotted path `prefix` accepts (`providers.X`,
/// `providers.X.models[i]`, `mcp.servers.X` and `tools.command.X` by shape).
pub(super) fn known_keys(prefix: &str) -> &'static [&'static str] {
    match prefix {
        "" => TOP_KEYS,
        "instructions" => INSTRUCTIONS_KEYS,
        "mcp" => MCP_KEYS,
        "tools" => TOOLS_KEYS,
        "tools.builtin" => BUILTIN_KEYS,
        "limits" => LIMITS_KEYS,
        "ui" => UI_KEYS,
        "sandbox" => SANDBOX_KEYS,
        "approval" => APPROVAL_KEYS,
        "checkpoints" => CHECKPOINT_KEYS,
        p if p.starts_with("providers.") && p.ends_with(']') => MODEL_KEYS,
        p if p.starts_with("providers.") => PROVIDER_KEYS,
        p if p.starts_with("mcp.servers.") => MCP_SERVER_KEYS,
        p if p.starts_with("tools.command.") => COMMAND_TOOL_KEYS,
        _ => &[],
    }
}

/// Edit distance with adjacent transpositions (optimal string alignment), over chars.
pub(super) fn edit_distance(a: &str, b: &str) -> usize {
    let a: Vec<char> = a.chars().collect();
    let b: Vec<char> = b.chars().collect();
    let mut d = vec![vec![0usize; b.len() + 1]; a.len() + 1];
    for (i, row) in d.iter_mut().enumerate() {
        row[0] = i;
    }
    for (j, cell) in d[0].iter_mut().enumerate() {
        *cell = j;
    }
    for i in 1..=a.len() {
        for j in 1..=b.len() {
            let cost = usize::from(a[i - 1] != b[j - 1]);
            let mut v = (d[i - 1][j] + 1)
                .min(d[i][j - 1] + 1)
                .min(d[i - 1][j - 1] + cost);
            if i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] {
                v = v.min(d[i - 2][j - 2] + 1);
            }
            d[i][j] = v;
        }
    }
    d[a.len()][b.len()]
}

/// The known key an unknown one most likely meant: case and `-`/`_` are ignored, and at
/// most two edits are allowed (one for keys of up to five characters).
pub(super) fn suggest(key: &str, known: &[&'static str]) -> Option<&'static str> {
    // Long keys are not typos of short ones; this also bounds the distance table.
    if key.chars().count() > 64 {
        return None;
    }
    let norm = key.to_lowercase().replace('-', "_");
    known
        .iter()
        .map(|k| (edit_distance(&norm, k), *k))
        .filter(|(d, k)| *d <= if k.len() <= 5 { 1 } else { 2 })
        .min_by_key(|(d, _)| *d)
        .map(|(_, k)| k)
}
