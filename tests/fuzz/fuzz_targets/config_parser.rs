//! Config parser on arbitrary text: a malformed config is an error or a warning, never a
//! panic (the property proptest checks further in tests/suite/config/arbitrary_values.rs).
#![no_main]

use std::path::Path;

use deepterm::config::Config;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|bytes: &[u8]| {
    if let Ok(text) = std::str::from_utf8(bytes) {
        let _ = Config::parse_in(
            text,
            Some(Path::new("fuzz.toml")),
            Path::new("/nonexistent"),
        );
    }
});
