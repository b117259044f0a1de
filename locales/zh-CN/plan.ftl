# 计划工具、计划模式与 /review（SPEC §15.3）。

plan-title = 计划 · 已完成 { $done }/{ $total }
