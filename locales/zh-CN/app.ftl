# 共享文本：工具变更提示（参考 U-3/U-5）。
tool-added = 已添加工具：{ $name }
tool-removed = 已移除工具：{ $name }
tools-updated = 工具已更新
tools-updated-title = 工具已更新
tools-changed = 新增 { $added } 个，移除 { $removed } 个
tools-added-count = 新增 { $count } 个
tools-removed-count = 移除 { $count } 个
tools-added-list = 新增：{ $names }
tools-removed-list = 移除：{ $names }
system-prompt-and-tools-updated = 系统提示词和工具已更新
context-injection = 上下文注入
