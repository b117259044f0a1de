# The plan tool, plan mode and /review (SPEC §15.3).

plan-title = Plan · { $done } of { $total } done
plan-execute-question = Execute this plan? y: switch to workspace-write and go · n: stay
plan-go-ahead = Go ahead with the plan.
