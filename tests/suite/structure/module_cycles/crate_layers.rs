//! The layering rules on the crate itself: no module or file cycle, in the build and in the
//! test build, and the layers the scan is expected to see.

use super::*;

fn crate_src() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("src")
}

/// The production build's graphs of `src/`, read once for the tests below: the sources do
/// not change while the suite runs, and each reading lexes the whole crate.
fn crate_graphs() -> &'static Analysis {
    static GRAPHS: std::sync::OnceLock<Analysis> = std::sync::OnceLock::new();
    GRAPHS.get_or_init(|| analyze(&crate_src()))
}

#[test]
fn crate_has_no_module_or_file_cycle() {
    let a = crate_graphs();
    let report = a.report();
    assert!(
        report.is_empty(),
        "`use crate::…` paths form cycles; each line below is a cycle to break \
         (layers: docs/architecture.md):\n{report}"
    );
}

#[test]
fn test_build_has_no_module_cycle() {
    // Test code links into the same crate: a unit test of a low layer that reaches a higher
    // one (the session's tests using the app, say) is a cycle in the test build.
    let a = analyze_build(&crate_src(), true);
    let cycles = a.module_cycles();
    let mut report = String::new();
    for c in &cycles {
        report.push_str(&format!("  {}\n", c.join(" -> ")));
        for w in c.windows(2) {
            report.push_str(&format!(
                "    {} -> {}: {}\n",
                w[0], w[1], a.modules[&w[0]][&w[1]]
            ));
        }
    }
    assert!(
        cycles.is_empty(),
        "test code closes module cycles (layers: docs/architecture.md):\n{report}"
    );
}

#[test]
fn scan_sees_the_known_layers() {
    // Guards the test itself: if the scanner stopped seeing paths, the cycle test would pass
    // vacuously. These edges exist by design (the loop uses the session, the UI the protocol).
    let a = crate_graphs();
    for m in [
        "agent", "config", "llm", "session", "tools", "sim", "ui", "i18n", "startup", "cli",
    ] {
        assert!(a.modules.contains_key(m), "top-level module {m} not found");
    }
    for (from, to) in [
        ("agent", "session"),
        ("agent", "llm"),
        ("ui", "agent"),
        ("startup", "agent"),
    ] {
        assert!(
            a.modules[from].contains_key(to),
            "expected edge {from} -> {to}"
        );
    }
}

#[test]
fn sim_is_independent_of_the_provider_client() {
    let a = crate_graphs();
    let sim_files: Vec<&String> = a
        .files
        .keys()
        .filter(|f| f.starts_with("src/sim/"))
        .collect();
    assert!(!sim_files.is_empty());
    for f in sim_files {
        let reach = a.reachable(f);
        let client = reach
            .iter()
            .find(|r| r.starts_with("src/llm/client/") || *r == "src/llm/client.rs");
        assert!(
            client.is_none(),
            "{f} depends (directly or through other files) on {client:?}; \
             the simulator must stay independent of the client"
        );
    }
}
