# 计划工具、计划模式与 /review（SPEC §15.3）。

plan-title = 计划 · 已完成 { $done }/{ $total }
plan-execute-question = 执行这个计划？y：切换到 workspace-write 并开始 · n：保持
plan-go-ahead = 请按计划执行。
cmd-review = 只读审查工作区的改动：与 HEAD 或 BASE 比较的 git diff，否则为本会话的改动
cmd-review-args = [基准]
review-nothing = 没有可审查的内容：没有改动。
review-base-needs-git = /review 基准 需要 git 仓库；不在 git 中时，/review 审查本会话的改动。
review-git-failed = 无法读取 git diff：{ $error }
review-prompt = 请审查这些改动{ $kind ->
    [session] （本会话的改动）
   *[git] （与 { $source } 比较的 git diff）
  }。这是只读审查：不要修改任何文件（本轮沙箱为只读）；需要时可以读取文件了解上下文。按严重程度（critical、major、minor、nit）列出发现的问题，每条注明位置 path:line，并给出一行修复建议。如果没有发现问题，请说明。{ $cut ->
    [yes] 改动内容过长已截断，其余部分请读取文件。
   *[no] {""}
  }

  ```diff
  { $diff }
  ```
