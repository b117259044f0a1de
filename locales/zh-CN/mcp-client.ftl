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
