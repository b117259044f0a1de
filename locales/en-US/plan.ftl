# The plan tool, plan mode and /review (SPEC §15.3).

plan-title = Plan · { $done } of { $total } done
