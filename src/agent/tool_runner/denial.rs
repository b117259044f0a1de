//! How a call that did not run tells the model and the UI why: the denial texts (the UI
//! recognizes them, live and on resume, to show "Denied by you" and the reason), and the
//! notes marking a sandbox denial and a re-run outside the sandbox.

/// The model-facing result of a call the user denied. The UI recognizes it (see
/// [`is_denial`]) to show "Denied by you", live and on resume.
pub fn denial_text(name: &str) -> String {
    format!("the user denied this call of \"{name}\"; do not retry it unless asked")
}

/// [`denial_text`] with the user's reason, which the model reads (§14.5).
pub fn denial_text_with_reason(name: &str, reason: Option<&str>) -> String {
    match reason.map(str::trim).filter(|r| !r.is_empty()) {
        Some(r) => format!("{}. The user's reason: {r}", denial_text(name)),
        None => denial_text(name),
    }
}

/// Whether `result` is the denial of a call of `name` (an error result from [`denial_text`]
/// or [`denial_text_with_reason`]).
pub fn is_denial(name: &str, result: &str) -> bool {
    let base = denial_text(name);
    result == base
        || result
            .strip_prefix(base.as_str())
            .is_some_and(|rest| rest.starts_with(". The user's reason: "))
}

/// The reason inside a denial result, if the user gave one.
pub fn denial_reason<'a>(name: &str, result: &'a str) -> Option<&'a str> {
    result
        .strip_prefix(denial_text(name).as_str())?
        .strip_prefix(". The user's reason: ")
}

/// How the shell's result marks a failure that looks like a sandbox denial.
pub const SANDBOX_DENIAL_NOTE: &str = "\n[the sandbox (";

/// How a re-run outside the sandbox marks its result for the model (the card leaves the
/// note out: it says the same in the user's language).
pub const RERUN_NOTE: &str = "\n[ran again outside the sandbox";
