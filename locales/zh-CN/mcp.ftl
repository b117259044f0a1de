# MCP 服务器失败的原因（决策 0090）：先用平实的话说明，再引用服务器写到 stderr 的内容。
mcp-err-exited = 服务器已退出，退出状态为 { $status }
mcp-err-signal = 服务器被信号 { $signal } 终止
mcp-err-process-exited = 服务器进程已退出
mcp-err-command-not-found = 找不到命令“{ $command }”
mcp-err-command-denied = 没有运行命令“{ $command }”的权限
mcp-err-cannot-start = 无法启动“{ $command }”（详情：“{ $error }”）
mcp-err-handshake = MCP 握手失败：{ $why }（详情：“{ $detail }”）
mcp-err-list-failed = tools/list 请求失败：{ $why }（详情：“{ $detail }”）
mcp-err-no-answer = { $seconds } 秒内没有应答
mcp-err-list-no-answer = tools/list：{ $seconds } 秒内没有应答
mcp-err-task-failed = MCP 连接任务失败（详情：“{ $error }”）
# 握手或列出工具失败的原因；MCP 库的原话作为引用的详情附在后面。
mcp-why-closed = 服务器在应答前关闭了连接
mcp-why-transport = 无法向服务器发送消息
mcp-why-not-mcp = 服务器的应答不是有效的 MCP 应答
mcp-why-not-a-list = 应答不是有效的工具列表
mcp-why-refused = 服务器返回了错误
mcp-why-version = 服务器不支持 deepterm 所知的任何 MCP 协议版本
mcp-why-timeout = 服务器没有及时应答
mcp-why-cancelled = 已取消
mcp-err-oversize = MCP 服务器“{ $name }”发送了一条 { $bytes } 字节的消息，超过 { $limit } 字节的上限（max_message_bytes）
mcp-err-gave-up = 服务器连续 { $count } 次在连接后 { $seconds } 秒内停止，因此不再自动重启；可用 /mcp connect { $name } 重试（最近一次：{ $last }）
mcp-err-stderr = { $error }（stderr：{ $stderr }）
