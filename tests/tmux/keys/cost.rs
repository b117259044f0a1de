//! Scenarios: cost. In demo mode the route is `deepseek/deepseek-flash`, which the
//! built-in catalog prices ($0.0028 / $0.14 / $0.28 per million tokens): after a request
//! the footer shows the session's cost, and at 120 columns the request row shows its own.
//! A model with no price known shows no cost anywhere.

use std::path::Path;

use crate::common;
use crate::common::tmux::Tmux;

/// Starts `deepterm --demo` in a `w`×30 tmux pane with `config` text and `args`.
fn start(
    socket: &str,
    w: u16,
    locale: &str,
    config: &str,
    args: &str,
) -> (Tmux, tempfile::TempDir) {
    let dir = tempfile::tempdir().unwrap();
    let cfg = dir.path().join("config.toml");
    std::fs::write(&cfg, config).unwrap();
    let cmd = format!(
        "env -u DEEPSEEK_API_KEY {} --demo --session-dir {} --config {} --locale {locale} {args}; sleep 60",
        common::shell_quote(Path::new(env!("CARGO_BIN_EXE_deepterm"))),
        common::shell_quote(&dir.path().join("sessions")),
        common::shell_quote(&cfg),
    );
    let tmux = Tmux::start(socket, w, 30, &cmd);
    (tmux, dir)
}

/// The footer (the last non-empty line of the screen).
fn footer(screen: &str) -> String {
    screen
        .lines()
        .rev()
        .find(|l| !l.trim().is_empty())
        .unwrap_or_default()
        .to_string()
}

/// One request in demo mode; returns the screen once its row is listed and the footer
/// names the cost (`label`).
fn priced_request(socket: &str, w: u16, locale: &str, label: &str) -> String {
    let (tmux, _dir) = start(socket, w, locale, "", "");
    tmux.wait_for("the first frame", |s| s.contains("deepseek"));
    tmux.type_line("Hello there");
    let screen = tmux.wait_for("the footer's session cost", |s| {
        footer(s).contains(&format!("{label} $"))
    });
    // The demo request is tiny: a cost of about $0.0002, shown with two significant
    // digits (never rounded to "$0").
    let f = footer(&screen);
    assert!(!f.contains(&format!("{label} $0 ")), "{f}");
    screen
}

#[test]
fn cost_footer_and_request_row_show_the_cost_at_120_columns_en() {
    if !common::require_external("tmux", common::tmux_available()) {
        return;
    }
    let screen = priced_request("i13-cost-120-en", 120, "en-US", "cost");
    // The Trajectory's cost column, and the request row's own cost before its hit %.
    assert!(screen.contains("cost  hit"), "{screen}");
    let row = screen
        .lines()
        .find(|l| l.contains("#1   T1.S1"))
        .unwrap_or_else(|| panic!("request row in {screen}"));
    assert!(row.contains(" $0.000"), "{row}");
}

#[test]
fn cost_footer_and_request_row_show_the_cost_at_120_columns_zh() {
    if !common::require_external("tmux", common::tmux_available()) {
        return;
    }
    let screen = priced_request("i13-cost-120-zh", 120, "zh-CN", "费用");
    assert!(screen.contains("费用 命中"), "{screen}");
    // The step label reads under the column 轮.步 (§14.5).
    let row = screen
        .lines()
        .find(|l| l.contains("#1   1.1"))
        .unwrap_or_else(|| panic!("request row in {screen}"));
    assert!(row.contains(" $0.000"), "{row}");
}

#[test]
fn cost_footer_shows_the_session_cost_at_80_columns_in_both_locales() {
    if !common::require_external("tmux", common::tmux_available()) {
        return;
    }
    for (socket, locale, label) in [
        ("i13-cost-80-en", "en-US", "cost"),
        ("i13-cost-80-zh", "zh-CN", "费用"),
    ] {
        priced_request(socket, 80, locale, label);
    }
}

#[test]
fn cost_config_prices_override_the_builtin_ones_and_the_inspector_shows_the_saving() {
    if !common::require_external("tmux", common::tmux_available()) {
        return;
    }
    // $1,000 per million output tokens: a ~100-token demo reply costs about $0.10.
    let config = "[[providers.deepseek.models]]\nid = \"deepseek-flash\"\n\
                  price_input_hit = 1\nprice_input_miss = 100\nprice_output = 1000\n";
    for (socket, w, locale, label, warm, saved) in [
        (
            "i13-cost-cfg-en",
            120,
            "en-US",
            "cost $0.",
            "last ",
            "cache saved $",
        ),
        (
            "i13-cost-cfg-zh",
            80,
            "zh-CN",
            "费用 $0.",
            "上次 ",
            "缓存节省 $",
        ),
    ] {
        let (tmux, _dir) = start(socket, w, locale, config, "");
        tmux.wait_for("the first frame", |s| s.contains("deepseek"));
        tmux.type_line("Hello there");
        let total = |s: &str| -> Option<f64> {
            footer(s)
                .split(label)
                .nth(1)
                .and_then(|r| r.split_whitespace().next())
                .and_then(|n| format!("0.{n}").parse().ok())
        };
        let first = tmux.wait_for("the first reply", |s| total(s).is_some());
        let first = total(&first).unwrap();
        tmux.type_line("again");
        // The second request is known by the total growing (at 80 columns the last
        // request's hit gives way to the cost), its cache read by the inspector below.
        let screen = tmux.wait_for("the second request", |s| {
            total(s).is_some_and(|c| c > first)
        });
        // Two requests of ~100 output tokens at $1,000/M: more than $0.1 in total.
        assert!(
            total(&screen).is_some_and(|c| c > 0.1),
            "{}",
            footer(&screen)
        );
        let f = footer(&screen);
        if w >= 120 {
            // Wide enough for the last request's hit too: the second read the first.
            let last = f
                .split(warm)
                .nth(1)
                .and_then(|r| r.split('%').next())
                .and_then(|n| n.trim().parse::<u32>().ok());
            assert!(last.is_some_and(|pct| pct >= 90), "{f}");
        }
        // The second request read the first from the cache: the inspector says what
        // that saved at these prices.
        tmux.type_line("/inspect 2");
        tmux.wait_for("the inspector's cache saving", |s| {
            s.lines().next().is_some_and(|l| l.contains(saved))
        });
    }
}

#[test]
fn cost_no_price_known_shows_no_cost() {
    if !common::require_external("tmux", common::tmux_available()) {
        return;
    }
    // Not in the catalog and no prices in the config (the simulator serves it as Flash);
    // listed under the provider's models, as an unknown route is refused at start.
    for (socket, w, locale, header, last) in [
        ("i13-cost-none-en", 120, "en-US", "↓out  hit", "last "),
        ("i13-cost-none-zh", 80, "zh-CN", "", "上次 "),
    ] {
        let (tmux, _dir) = start(
            socket,
            w,
            locale,
            "[[providers.deepseek.models]]\nid = \"claude-sonnet-4\"\n",
            "--model deepseek/claude-sonnet-4",
        );
        tmux.wait_for("the first frame", |s| s.contains("claude-sonnet-4"));
        tmux.type_line("Hello there");
        // The reply's usage: the token counts where they fit, else the last request's hit,
        // which appears only once a reply's usage is known.
        let screen = tmux.wait_for("the reply's usage in the footer", |s| {
            let f = footer(s);
            (f.contains("↓") && !f.contains("↓0 ")) || f.contains(last)
        });
        assert!(!screen.contains('$'), "{screen}");
        assert!(screen.contains(header), "{screen}");
    }
}
