//! Helpers shared by the unit tests, the integration suite, the benches and the examples.
//! Compiled only for tests or with the `testing` feature (which the dev targets enable), so
//! a plain `cargo build` leaves them out of the library.

/// How many cases each property test runs: `DEEPTERM_PROPTEST_CASES` when it is set to a
/// number (CI and a quick local run choose their own depth), else `default`, which each
/// property picks for what one case costs.
pub fn proptest_cases(default: u32) -> u32 {
    std::env::var("DEEPTERM_PROPTEST_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}
