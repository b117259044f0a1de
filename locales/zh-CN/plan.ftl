# 计划工具、计划模式与 /review（SPEC §15.3）。

plan-title = 计划 · 已完成 { $done }/{ $total }
plan-execute-question = 执行这个计划？y：切换到 workspace-write 并开始 · n：保持
plan-go-ahead = 请按计划执行。
