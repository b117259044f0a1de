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
tools-error-unknown-name = 没有名为“{ $name }”的工具；用 /tools 查看可用工具。

# MCP 服务器（/mcp、/mcp connect|disconnect 名称）。
mcp-none-configured = 尚未配置 MCP 服务器；请在配置文件中添加 [mcp.servers.名称]。
mcp-status-header = MCP 服务器（{ $count } 个）：
mcp-status-line = { $name }：{ $state }，{ $count } 个工具
mcp-status-line-bare = { $name }：{ $state }
mcp-status-error =     最近的错误：{ $error }
mcp-status-mapped =     { $model } ← 工具“{ $original }”
mcp-state-idle = 未连接
mcp-state-connecting = 正在连接
mcp-state-connected = 已连接
mcp-state-disconnected = 已断开
mcp-state-reconnecting = 已断开，正在重连
mcp-state-failed = 连接失败
mcp-connected = MCP 服务器 { $name } 已连接（{ $count } 个工具）。
mcp-disconnected = MCP 服务器 { $name } 已断开，其工具已移除。
mcp-not-running = MCP 服务器 { $name } 未在运行。
mcp-connect-failed = 无法连接 MCP 服务器 { $name }：{ $error }
mcp-unknown-server = 没有名为“{ $name }”的 MCP 服务器；/mcp 会列出已配置的服务器。
mcp-connecting = 正在连接 MCP 服务器 { $name }……
tools-mapped-header = 为模型改名的 MCP 工具（模型看到的名称 ← 服务器上的名称）：

# hardening: mcp
tools-limit-dropped = 有 { $count } 个工具未声明给模型：每个请求最多声明 { $limit } 个工具（内置工具和命令工具优先）。模型可用 tool_search 找到其余工具；未声明的工具来自 { $sources }：{ $names }

# MCP 服务器发来的工具列表（决策 0033）与两个来源同名的工具（决策 0032）。
mcp-tool-skipped-deep = MCP 服务器 { $name }：工具“{ $tool }”未注册：其定义的嵌套超过 { $levels } 层。
mcp-tool-skipped-schema-size = MCP 服务器 { $name }：工具“{ $tool }”未注册：其输入模式有 { $bytes } 字节，超过 { $limit } KiB 的上限（每个请求都会携带它）。
mcp-tool-skipped-malformed = MCP 服务器 { $name }：工具“{ $tool }”未注册：它不是有效的 MCP 工具（{ $error }）。
mcp-description-cut = MCP 服务器 { $name }：有 { $count } 个工具的描述超过 { $limit } KiB，已截断到这一长度（每个请求都会携带描述），例如 { $tool }。
tools-name-clash = 有两个工具都叫 { $name }：来自{ $kept }的工具保留这个名称，来自{ $hidden }的工具被隐藏。只要其中任一工具需要确认，调用 { $name } 前就会请求确认。请将其中一个改名。
mcp-refresh-failed = MCP 服务器 { $name } 更改了工具，但无法读取新的工具列表，因此保留原有工具：{ $error }

# 子代理（`task` 工具，SPEC §15.3）
tui-task-running = 运行中 · { $agent } · 第 { $step } 步
tui-task-running-tool = 运行中 · { $agent } · 第 { $step } 步 · { $tool }
tui-task-waiting = 等待你确认 · { $agent } · 第 { $step } 步 · { $tool }
tui-trajectory-subagent = { $label } · 缓存命中 { $hit }／{ $total } token
