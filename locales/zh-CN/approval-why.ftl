# 审批卡片为何询问、a 键的确切含义，以及在沙箱外重试的命令卡片（SPEC §15.5）。

## 为何询问
approval-why-escalation-past-rule = 模型请求在沙箱外运行此命令。你的规则只允许它在沙箱内运行，因此在沙箱外运行每次都要询问。
approval-why-tool-asks = { $tool } 被设置为每次调用前都询问（approval = "ask"）。
approval-why-shadowed = 来自 { $kept } 的 { $tool } 遮蔽了来自 { $hidden } 的同名工具，而后者每次调用前都要询问，因此每次调用 { $tool } 都会询问。

## a 键的含义
approval-always-tool = 本会话中的 { $tool }
tui-approval-why = 询问原因：{ $why }
tui-approval-prompt-always = y 允许一次 · a 总是允许：{ $always } · n 拒绝并说明理由 · Esc 拒绝
tui-approval-prompt-once = y 允许一次 · n 拒绝并说明理由 · Esc 拒绝（此调用没有“总是允许”）

## 沙箱似乎拒绝了的命令
tui-retry-sandboxed-failed = 在沙箱中运行失败 · { $status }
tui-retry-ran-again = 经你允许，已在沙箱外重新运行：
tui-retry-denied = 未在沙箱外运行 · 已被你拒绝
tui-retry-denied-reason = 未在沙箱外运行 · 已被你拒绝：{ $reason }
