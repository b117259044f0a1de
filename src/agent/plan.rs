//! The plan as `exec` prints it, and the glyphs every view of a plan shares (SPEC §15.3,
//! decision 0175). The plan itself is `tools::plan`: a projection of the log.

use crate::i18n::{Arg, Localizer};
use crate::tools::plan::{Plan, StepStatus};

/// The mark of a step's status: one column wide in every terminal (East Asian width
/// neutral, so a CJK terminal does not widen it).
pub fn mark(status: StepStatus) -> &'static str {
    match status {
        StepStatus::Pending => "☐",
        StepStatus::InProgress => "▸",
        StepStatus::Completed => "☑",
    }
}

/// The title line: "Plan · 1 of 3 done".
pub fn title(plan: &Plan, l: Localizer) -> String {
    l.tra(
        "plan-title",
        &[
            ("done", Arg::from(plan.completed())),
            ("total", Arg::from(plan.plan.len())),
        ],
    )
}

/// The plan as plain lines (`exec`): the title, the explanation, one line per step.
/// The texts are the model's: the caller escapes them as it escapes everything it prints.
pub fn plain_lines(plan: &Plan, l: Localizer) -> Vec<String> {
    let mut out = vec![title(plan, l)];
    if let Some(e) = &plan.explanation {
        out.push(format!("  {}", one_line(e)));
    }
    for s in &plan.plan {
        out.push(format!("  {} {}", mark(s.status), one_line(&s.step)));
    }
    out
}

/// A model's text on one line (a checklist row is one line; newlines become spaces).
pub fn one_line(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::i18n::Locale;
    use crate::tools::plan::PlanStep;

    fn plan() -> Plan {
        Plan {
            explanation: Some("Parser first\nthen tests".into()),
            plan: vec![
                PlanStep {
                    step: "Read the parser".into(),
                    status: StepStatus::Completed,
                },
                PlanStep {
                    step: "Fix the bug".into(),
                    status: StepStatus::InProgress,
                },
                PlanStep {
                    step: "Run the tests".into(),
                    status: StepStatus::Pending,
                },
            ],
        }
    }

    #[test]
    fn exec_prints_the_plan_as_a_checklist_with_its_progress_in_both_languages() {
        let en = plain_lines(&plan(), Localizer::new(Locale::EnUs));
        assert_eq!(
            en,
            vec![
                "Plan · 1 of 3 done",
                "  Parser first then tests",
                "  ☑ Read the parser",
                "  ▸ Fix the bug",
                "  ☐ Run the tests",
            ]
        );
        let zh = plain_lines(&plan(), Localizer::new(Locale::ZhCn));
        assert_eq!(zh[0], "计划 · 已完成 1/3");
    }
}
