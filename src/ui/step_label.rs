//! The Trajectory's step label (`T1.S2`) and a failed request's error class and cause, in the
//! interface language (§14.5): Chinese reads `1.2` under the column `轮.步`, and `认证`
//! instead of `auth`.

use crate::i18n::{Arg, Localizer};

/// The label of step `step` of turn `turn`.
pub fn step_label(turn: u64, step: u64, l: Localizer) -> String {
    l.tra(
        "tui-traj-step-label",
        &[
            ("turn", Arg::Str(turn.to_string())),
            ("step", Arg::Str(step.to_string())),
        ],
    )
}

/// The short label of a logged error class (`auth`, `rate_limit`, …); an unknown class (a
/// newer log) is shown as written.
pub fn error_code_label(code: &str, l: Localizer) -> String {
    let key = format!("llm-code-{code}");
    if l.has(&key) {
        l.tr(&key)
    } else {
        code.to_string()
    }
}

/// What a failed request's row says of its error: a transport failure's cause in plain
/// words (`connection refused`) instead of the transport's English error chain, which
/// the inspector and the log keep; a provider's text as it sent it (§14.5).
pub fn error_message(code: &str, message: &str, l: Localizer) -> String {
    use crate::llm::cause::Cause;
    use crate::llm::types::{ErrorCode, LlmError};
    match ErrorCode::parse(code) {
        Some(ErrorCode::Transport) => {
            match Cause::of(&LlmError::new(ErrorCode::Transport, message)) {
                Cause::Other => message.to_string(),
                cause => l.tr(cause.key()),
            }
        }
        _ => message.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::i18n::Locale;

    #[test]
    fn labels_follow_the_interface_language() {
        let en = Localizer::new(Locale::EnUs);
        let zh = Localizer::new(Locale::ZhCn);
        assert_eq!(step_label(12, 3, en), "T12.S3");
        assert_eq!(step_label(12, 3, zh), "12.3");
        assert_eq!(error_code_label("auth", en), "auth");
        assert_eq!(error_code_label("auth", zh), "认证");
        assert_eq!(error_code_label("rate_limit", zh), "限流");
        assert_eq!(error_code_label("from_the_future", zh), "from_the_future");
    }

    #[test]
    fn a_failed_request_row_says_a_transport_cause_in_the_interface_language() {
        let en = Localizer::new(Locale::EnUs);
        let zh = Localizer::new(Locale::ZhCn);
        let chain = "error sending request for url (http://127.0.0.1:9/v1): client error \
                     (Connect): tcp connect error: Connection refused (os error 111)";
        assert_eq!(error_message("transport", chain, en), "connection refused");
        assert_eq!(error_message("transport", chain, zh), "连接被拒绝");
        // A provider's text stays as it sent it; an unknown transport cause too.
        assert_eq!(error_message("auth", "bad key", zh), "bad key");
        assert_eq!(error_message("transport", "odd", zh), "odd");
    }
}
