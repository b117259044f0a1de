//! Opening a URL in the user's browser: the `/mcp login` authorization URL and a URL-mode
//! elicitation the user said yes to (SPEC §15.2).

/// Starts `$BROWSER` with `url` (the URL replaces `%s`, or is appended), with the same
/// scrubbed environment as every child, and does not wait for it. Nothing happens without
/// `$BROWSER`: the URL is printed either way. Returns whether a browser was started.
pub fn open_browser(url: &str, key_vars: &[String]) -> bool {
    let Ok(browser) = std::env::var("BROWSER") else {
        return false;
    };
    // `$BROWSER` may list alternatives separated by ':'; the first one is used.
    let first = browser.split(':').next().unwrap_or_default();
    let Some(mut words) = shlex::split(first).filter(|w| !w.is_empty()) else {
        return false;
    };
    if words.iter().any(|w| w.contains("%s")) {
        for w in &mut words {
            *w = w.replace("%s", url);
        }
    } else {
        words.push(url.to_string());
    }
    let mut cmd = tokio::process::Command::new(&words[0]);
    cmd.args(&words[1..])
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null());
    crate::tools::child_env::ChildEnvPolicy::new(key_vars, &[]).apply(&mut cmd);
    match cmd.spawn() {
        // Reaped in the background so it leaves no zombie.
        Ok(mut child) => {
            tokio::spawn(async move {
                let _ = child.wait().await;
            });
            true
        }
        Err(e) => {
            tracing::warn!("could not start $BROWSER: {e}");
            false
        }
    }
}
