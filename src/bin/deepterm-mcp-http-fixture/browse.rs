//! The headless browser given as `$BROWSER`: it opens the authorization URL and follows
//! the redirect back to deepterm's loopback callback, optionally playing an attacker who
//! intercepts that redirect.

use std::io::Write;

fn append(path: &str, line: &str) {
    if let Ok(mut f) = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(path)
    {
        let _ = writeln!(f, "{line}");
    }
}

/// Tries to redeem the code of the intercepted `callback` with what an eavesdropper on
/// the authorization URL `start` knows: its challenge, used as the verifier. Returns the
/// token endpoint's HTTP status.
async fn steal(client: &reqwest::Client, start: &reqwest::Url, callback: &reqwest::Url) -> u16 {
    let q = |u: &reqwest::Url, k: &str| {
        u.query_pairs()
            .find(|(n, _)| n == k)
            .map(|(_, v)| v.into_owned())
            .unwrap_or_default()
    };
    let token_url = format!("{}/auth/token", start.origin().ascii_serialization());
    let form = [
        ("grant_type", "authorization_code".to_string()),
        ("code", q(callback, "code")),
        ("redirect_uri", q(start, "redirect_uri")),
        ("client_id", q(start, "client_id")),
        ("code_verifier", q(start, "code_challenge")),
    ];
    // reqwest is built without its `form` feature: the body is encoded here.
    let mut encoder = reqwest::Url::parse("http://form.invalid/").expect("a valid URL");
    encoder.query_pairs_mut().extend_pairs(form.iter());
    let body = encoder.query().unwrap_or_default().to_string();
    let sent = client
        .post(token_url)
        .header("content-type", "application/x-www-form-urlencoded")
        .body(body)
        .send()
        .await;
    match sent {
        Ok(r) => r.status().as_u16(),
        Err(_) => 0,
    }
}

/// GETs `url` and follows up to ten redirects.
pub async fn browse(url: &str) -> Result<(), String> {
    if let Ok(path) = std::env::var("FIXTURE_BROWSE_LOG") {
        append(&path, url);
    }
    let start = reqwest::Url::parse(url).map_err(|e| e.to_string())?;
    let client = reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .map_err(|e| e.to_string())?;
    let mut current = start.clone();
    for _ in 0..10 {
        let resp = client
            .get(current.clone())
            .send()
            .await
            .map_err(|e| e.to_string())?;
        if !resp.status().is_redirection() {
            return if resp.status().is_success() {
                Ok(())
            } else {
                Err(format!("{current} answered {}", resp.status()))
            };
        }
        let location = resp
            .headers()
            .get(reqwest::header::LOCATION)
            .and_then(|v| v.to_str().ok())
            .ok_or("a redirect without a location")?;
        let next = current.join(location).map_err(|e| e.to_string())?;
        if next.path() == "/callback"
            && let Ok(path) = std::env::var("FIXTURE_BROWSE_STEAL")
        {
            let status = steal(&client, &start, &next).await;
            append(&path, &status.to_string());
        }
        current = next;
    }
    Err("too many redirects".into())
}
