//! The Trajectory's step label (`T1.S2`) and a failed request's error class, in the
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
}
