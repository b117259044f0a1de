//! Session-log loader on arbitrary bytes: never panics; an error names a line that exists;
//! a successful load keeps only whole lines, and what it keeps loads again unchanged.
#![no_main]

use deepterm::session::store::parse_log;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|bytes: &[u8]| {
    match parse_log(bytes) {
        Err(e) => {
            let lines = bytes.split(|&b| b == b'\n').count();
            assert!(e.line >= 1 && e.line <= lines, "line {} of {lines}", e.line);
        }
        Ok(parsed) => {
            assert!(parsed.keep <= bytes.len());
            let kept = &bytes[..parsed.keep];
            let again = parse_log(kept).expect("the kept prefix loads again");
            assert_eq!(again.keep, kept.len());
        }
    }
});
