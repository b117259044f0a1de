# 工具注册表文本（/tools、/tool enable|disable）。
tools-list-empty = 当前没有注册任何工具。
tools-list-header-active = 已启用的工具（{ $count } 个）：
tools-list-header-disabled = 可用但已停用（{ $count } 个）：
tools-list-active = { $name }（{ $source }）
tools-list-active-ask = { $name }（{ $source }，调用前需确认）
tools-list-disabled = { $name }（{ $source }）— /tool enable { $name }
tools-source-builtin = 内置
tools-source-command = 命令
tools-source-mcp = MCP 服务器 { $server }
tools-enabled = 已启用工具：{ $name }
tools-disabled = 已停用工具：{ $name }
tools-already-enabled = 工具 { $name } 已处于启用状态。
tools-already-disabled = 工具 { $name } 已处于停用状态。
tools-error-unknown-name = 没有名为 "{ $name }" 的工具；用 /tools 查看可用工具。
