//! The `update_plan` built-in tool (SPEC §15.3, decision 0175): the model's checklist,
//! in codex's shape `{explanation?, plan: [{step, status}]}`.
//!
//! The tool keeps no state. Its call is logged like any other, and the plan is a projection
//! of the log: the arguments of the latest `update_plan` call whose result was not an
//! error ([`PlanFold`]). So the pinned checklist, `exec`, and a resumed session all read the
//! same thing, and a rewind takes a plan back with the turn that made it. The declaration
//! is part of the built-in tool list from the first request, so a plan never changes the
//! tool list mid-session; its description and schema are fixed text (they are cached
//! prefix bytes).

use std::sync::Arc;

use futures_util::FutureExt;
use futures_util::future::BoxFuture;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};
use tokio_util::sync::CancellationToken;

use super::{Approval, RegisteredTool, ToolExecutor, ToolOutcome};
use crate::session::event::{Event, EventKind, ToolSchema};

/// The tool's name.
pub const UPDATE_PLAN: &str = "update_plan";

/// What the model reads after a plan was accepted: short, the plan is in its own call.
pub const PLAN_UPDATED: &str = "Plan updated";

/// Steps a plan may hold; more is refused (the checklist is pinned on screen).
pub const MAX_STEPS: usize = 50;
/// Longest step text, in bytes; longer is refused.
pub const MAX_STEP_BYTES: usize = 2000;

/// Where a step is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum StepStatus {
    /// Not started.
    Pending,
    /// Being worked on (at most one step).
    InProgress,
    /// Done.
    Completed,
}

impl StepStatus {
    fn parse(s: &str) -> Option<StepStatus> {
        match s {
            "pending" => Some(StepStatus::Pending),
            "in_progress" => Some(StepStatus::InProgress),
            "completed" => Some(StepStatus::Completed),
            _ => None,
        }
    }
}

/// One step of a plan.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PlanStep {
    /// What the step does.
    pub step: String,
    /// Where it is.
    pub status: StepStatus,
}

/// A plan as the model last set it.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct Plan {
    /// Why the plan is what it is (or changed), when the model says.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub explanation: Option<String>,
    /// The steps, in order.
    pub plan: Vec<PlanStep>,
}

impl Plan {
    /// Reads a call's arguments; the error is the tool error the model gets (plain
    /// English and stable, like every tool error).
    pub fn parse(arguments: &Value) -> Result<Plan, String> {
        let obj = arguments
            .as_object()
            .ok_or("arguments must be a JSON object")?;
        let explanation = match obj.get("explanation") {
            None | Some(Value::Null) => None,
            Some(Value::String(s)) if s.trim().is_empty() => None,
            Some(Value::String(s)) => Some(s.clone()),
            Some(_) => return Err("argument \"explanation\" must be a string".into()),
        };
        let items = match obj.get("plan") {
            Some(Value::Array(a)) => a,
            None => return Err("missing required argument \"plan\"".into()),
            Some(_) => return Err("argument \"plan\" must be an array of steps".into()),
        };
        if items.len() > MAX_STEPS {
            return Err(format!(
                "a plan has at most {MAX_STEPS} steps (got {})",
                items.len()
            ));
        }
        let mut plan = Vec::with_capacity(items.len());
        for (i, item) in items.iter().enumerate() {
            let n = i + 1;
            let step = item
                .get("step")
                .and_then(Value::as_str)
                .map(str::trim)
                .filter(|s| !s.is_empty())
                .ok_or_else(|| format!("step {n}: \"step\" must be a non-empty string"))?;
            if step.len() > MAX_STEP_BYTES {
                return Err(format!("step {n}: longer than {MAX_STEP_BYTES} bytes"));
            }
            let status = item
                .get("status")
                .and_then(Value::as_str)
                .and_then(StepStatus::parse)
                .ok_or_else(|| {
                    format!(
                        "step {n}: \"status\" must be \"pending\", \"in_progress\" or \"completed\""
                    )
                })?;
            plan.push(PlanStep {
                step: step.to_string(),
                status,
            });
        }
        let in_progress = plan
            .iter()
            .filter(|s| s.status == StepStatus::InProgress)
            .count();
        if in_progress > 1 {
            return Err(format!(
                "at most one step can be in_progress (got {in_progress})"
            ));
        }
        Ok(Plan { explanation, plan })
    }

    /// Reads a logged call's raw argument string.
    pub fn parse_str(arguments: &str) -> Result<Plan, String> {
        let v: Value = serde_json::from_str(arguments)
            .map_err(|e| format!("arguments are not valid JSON: {e}"))?;
        Plan::parse(&v)
    }

    /// Steps completed.
    pub fn completed(&self) -> usize {
        self.plan
            .iter()
            .filter(|s| s.status == StepStatus::Completed)
            .count()
    }
}

/// The plan as the log has it: the latest `update_plan` call whose result was no error.
/// Feed it every event in order (skipping what a rewind took back).
#[derive(Debug, Clone, Default)]
pub struct PlanFold {
    /// Calls seen, waiting for their result.
    pending: Vec<(String, Plan)>,
    current: Option<Plan>,
}

impl PlanFold {
    /// The fold over `events`, leaving out what the log's rewinds took back.
    pub fn of(events: &[Arc<Event>]) -> PlanFold {
        let rewound = crate::session::rewound::Rewound::of(events);
        let mut f = PlanFold::default();
        for e in events {
            if !rewound.contains(e.seq) {
                f.observe(e);
            }
        }
        f
    }

    /// Folds one event in; returns the new plan when this event set one.
    pub fn observe(&mut self, e: &Event) -> Option<&Plan> {
        match &e.kind {
            EventKind::ToolCall(c) if c.name == UPDATE_PLAN => {
                if let Ok(p) = Plan::parse_str(&c.arguments) {
                    self.pending.push((c.call_id.clone(), p));
                }
                None
            }
            EventKind::ToolResult(r) => {
                let id = r.message.tool_call_id.as_deref()?;
                let i = self.pending.iter().position(|(c, _)| c == id)?;
                let (_, plan) = self.pending.swap_remove(i);
                if r.error.is_some() || r.message.is_error == Some(true) {
                    return None;
                }
                self.current = Some(plan);
                self.current.as_ref()
            }
            // A new turn: calls of an earlier one that never got a result are dropped.
            EventKind::TurnStart(_) => {
                self.pending.clear();
                None
            }
            _ => None,
        }
    }

    /// The current plan.
    pub fn current(&self) -> Option<&Plan> {
        self.current.as_ref()
    }
}

struct UpdatePlan;

impl ToolExecutor for UpdatePlan {
    fn call<'a>(
        &'a self,
        arguments: Value,
        _cancel: &'a CancellationToken,
    ) -> BoxFuture<'a, ToolOutcome> {
        async move {
            match Plan::parse(&arguments) {
                Ok(_) => ToolOutcome::ok(PLAN_UPDATED),
                Err(e) => ToolOutcome::error(e),
            }
        }
        .boxed()
    }
}

/// The declaration: fixed text, stable key order (cached prefix bytes).
pub fn schema() -> ToolSchema {
    ToolSchema {
        name: UPDATE_PLAN.to_string(),
        description: "Updates the task plan shown to the user as a checklist. Use it for \
                      work of several steps: give every step with its status, and keep \
                      exactly one step in_progress while you work (at most one). Mark a \
                      step completed when it is done and set the next one in_progress. \
                      Call it again whenever the plan or a status changes; the latest call \
                      replaces the whole plan. `explanation` says briefly why the plan \
                      changed."
            .to_string(),
        parameters: json!({
            "type": "object",
            "properties": {
                "explanation": {"type": "string", "description": "Why the plan is what it is, or what changed."},
                "plan": {
                    "type": "array",
                    "description": "The steps, in order.",
                    "items": {
                        "type": "object",
                        "properties": {
                            "step": {"type": "string", "description": "What the step does."},
                            "status": {"type": "string", "enum": ["pending", "in_progress", "completed"]}
                        },
                        "required": ["step", "status"]
                    }
                }
            },
            "required": ["plan"]
        }),
        defer_loading: None,
    }
}

/// The tool, registered with the built-ins: no approval (it changes nothing outside the
/// conversation), and its calls may overlap.
pub fn tool() -> RegisteredTool {
    RegisteredTool {
        schema: schema(),
        approval: Approval::Never,
        enabled: true,
        executor: Arc::new(UpdatePlan),
        parallel_safe: true,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_plan_in_codex_shape_is_accepted_with_its_explanation() {
        let p = Plan::parse(&json!({
            "explanation": "Start with the parser",
            "plan": [
                {"step": "Read the parser", "status": "completed"},
                {"step": "Fix the bug", "status": "in_progress"},
                {"step": "Run the tests", "status": "pending"}
            ]
        }))
        .unwrap();
        assert_eq!(p.explanation.as_deref(), Some("Start with the parser"));
        assert_eq!(p.plan.len(), 3);
        assert_eq!(p.plan[1].status, StepStatus::InProgress);
        assert_eq!(p.completed(), 1);
    }

    #[test]
    fn two_steps_in_progress_are_a_tool_error_naming_the_rule() {
        let e = Plan::parse(&json!({"plan": [
            {"step": "a", "status": "in_progress"},
            {"step": "b", "status": "in_progress"}
        ]}))
        .unwrap_err();
        assert!(e.contains("at most one step can be in_progress"), "{e}");
    }

    #[test]
    fn malformed_plans_are_refused_with_the_step_that_is_wrong() {
        for (args, says) in [
            (json!({}), "missing required argument \"plan\""),
            (json!({"plan": "x"}), "must be an array"),
            (
                json!({"plan": [{"step": "", "status": "pending"}]}),
                "step 1",
            ),
            (
                json!({"plan": [{"step": "a", "status": "done"}]}),
                "step 1: \"status\"",
            ),
            (json!({"plan": [], "explanation": 3}), "\"explanation\""),
        ] {
            let e = Plan::parse(&args).unwrap_err();
            assert!(e.contains(says), "{args}: {e}");
        }
    }

    #[tokio::test]
    async fn the_tool_answers_briefly_and_refuses_a_bad_plan() {
        let t = tool();
        let never = CancellationToken::new();
        let ok = t
            .executor
            .call(
                json!({"plan": [{"step": "a", "status": "pending"}]}),
                &never,
            )
            .await;
        assert_eq!(ok, ToolOutcome::ok(PLAN_UPDATED));
        let bad = t.executor.call(json!({"plan": 1}), &never).await;
        assert!(bad.is_error);
    }
}
