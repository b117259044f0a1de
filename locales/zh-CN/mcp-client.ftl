# MCP 客户端的其余部分（SPEC §15.2）：工具注解、结果、资源、提示词、信息征询。

## 工具注解：服务器对其工具给出的提示。
mcp-hint-read-only = 只读
mcp-hint-not-read-only = 可能修改内容
mcp-hint-destructive = 破坏性
mcp-hint-not-destructive = 非破坏性
mcp-hint-idempotent = 幂等
mcp-hint-not-idempotent = 非幂等
mcp-hint-open-world = 开放环境
mcp-hint-closed-world = 封闭环境
mcp-hints-join = { $a } · { $b }
tools-list-hints = {"    "}服务器声明：{ $hints }
approval-why-with-hints = { $why }服务器对它的描述：{ $hints }。
approval-why-not-read-only = { $tool } 需要确认：该服务器只对标注为只读的工具受信任（approval = "trust-read-only-hint"），而此工具未标注为只读。
config-expected-mcp-approval = 必须是“ask”、“never”或“trust-read-only-hint”（实际为“{ $got }”）

## 正在运行的调用在卡片上的进度。
tui-tool-progress-percent = { $percent }%
tui-tool-progress-count = 已完成 { $done }
tui-tool-running-progress = 运行中 · { $done }
tui-tool-running-progress-message = 运行中 · { $done } · { $message }

## /mcp resources [名称]
mcp-resources-header = { $name }：{ $count } 个资源和模板
mcp-resource-line = {"  "}{ $uri } · { $name } · { $mime }
mcp-resource-template-line = {"  "}{ $uri }（模板）· { $name } · { $mime }
mcp-resources-more = {"  "}…… 只显示前 { $limit } 个
mcp-resources-none = { $name }：没有资源
mcp-resources-not-connected = { $name }：未连接（/mcp connect { $name }）
mcp-resources-failed = { $name }：无法列出资源：{ $error }
mcp-resources-timeout = { $name }：无法列出资源：{ $seconds } 秒内没有应答
mcp-resources-no-server = 没有已连接的 MCP 服务器。
mcp-prompt-no-args = 它不接受参数
mcp-prompt-bad-arg = { $command }：“{ $word }”不是 ARG=VALUE 形式。可用参数：{ $accepted }
mcp-prompt-unknown-arg = { $command } 没有参数“{ $arg }”。可用参数：{ $accepted }
mcp-prompt-missing-args = { $command } 缺少 { $count } 个必需参数：{ $names }。用法：{ $command } { $accepted }
mcp-prompt-not-connected = { $command }：MCP 服务器 { $name } 未连接（/mcp connect { $name }）
mcp-prompt-failed = { $command }：服务器无法提供该提示：{ $error }
mcp-prompt-timeout = { $command }：服务器在 { $seconds } 秒内没有提供该提示
mcp-prompt-cancelled = { $command }：已取消，已通知服务器停止准备该提示
mcp-prompt-empty = { $command }：该提示没有可发送的文本
mcp-prompts-skipped = { $name }：有 { $count } 个提示被略过（名称最多 { $limit } 个字符，只能包含字母、数字、_、- 或 .）：{ $prompts }
mcp-catalog-failed = { $name }：{ $what } 失败：{ $error }
mcp-resource-read-failed = { $name }：无法读取资源 { $uri }：{ $error }
mcp-resource-read-timeout = { $name }：资源 { $uri } 在 { $seconds } 秒内没有读到
mcp-resource-read-cancelled = { $name }：已取消读取资源 { $uri }，已通知服务器停止
cmd-prompts-help-title = 服务器提示：
cmd-prompt-no-description = MCP 服务器提示
