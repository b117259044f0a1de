//! Helpers shared by the unit tests, the integration suite, the benches and the examples.
//! Compiled only for tests or with the `testing` feature (which the dev targets enable), so
//! a plain `cargo build` leaves them out of the library.

/// How many cases each property test runs. `DEEPTERM_PROPTEST_CASES`, when it is set to a
/// number, decides (a deep local run, or a quick one). Otherwise CI (`CI` set, as
/// `.ci/run` makes sure) runs each property's full `default`, which each property picks for
/// what one case costs, and a local `cargo test` runs a tenth of it (at least 100), so the
/// warm suite stays quick while CI keeps the depth.
pub fn proptest_cases(default: u32) -> u32 {
    cases_for(
        default,
        std::env::var("DEEPTERM_PROPTEST_CASES").ok().as_deref(),
        std::env::var("CI").ok().as_deref(),
    )
}

/// Whether this is a CI run (`CI` set to anything but empty, `0` or `false`): tests that
/// trade depth for time (property cases, soak durations) take the full depth then.
pub fn in_ci() -> bool {
    ci_set(std::env::var("CI").ok().as_deref())
}

fn ci_set(ci: Option<&str>) -> bool {
    ci.is_some_and(|v| !matches!(v.trim(), "" | "0" | "false"))
}

fn cases_for(default: u32, set: Option<&str>, ci: Option<&str>) -> u32 {
    if let Some(n) = set.and_then(|v| v.trim().parse().ok()) {
        return n;
    }
    if ci_set(ci) {
        default
    } else {
        (default / 10).max(100).min(default)
    }
}

#[cfg(test)]
mod tests {
    use super::cases_for;

    #[test]
    fn ci_runs_every_case_and_a_local_run_a_tenth() {
        assert_eq!(cases_for(10_000, None, Some("true")), 10_000);
        assert_eq!(cases_for(10_000, None, None), 1_000);
        assert_eq!(cases_for(10_000, None, Some("false")), 1_000);
        assert_eq!(cases_for(500, None, None), 100, "never below 100 locally");
        assert_eq!(cases_for(50, None, None), 50, "never above the default");
        assert_eq!(
            cases_for(10_000, Some("42"), Some("true")),
            42,
            "the variable decides"
        );
        assert_eq!(cases_for(10_000, Some("x"), Some("1")), 10_000);
    }
}
