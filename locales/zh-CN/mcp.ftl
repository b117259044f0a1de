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
# 通过 Streamable HTTP 和 OAuth 连接的远程服务器（SPEC §15.2）。
mcp-err-needs-login = 需要登录 · /mcp login { $name }
mcp-err-http-client = 无法创建 HTTP 客户端（详情：“{ $error }”）
mcp-err-bearer-unset = bearer_token_env 指定的环境变量 { $var } 未设置
mcp-err-oauth = OAuth 失败（详情：“{ $error }”）
mcp-err-http-401 = 服务器要求授权（HTTP 401）：请在 [mcp.servers.{ $name }] 中设置 auth = "oauth" 并运行 /mcp login { $name }，或用 bearer_token_env 提供令牌
mcp-err-http-403 = 服务器拒绝了该凭据（HTTP 403，权限范围不足）；/mcp login { $name } 可重新授权
mcp-err-http-status = 服务器返回 HTTP { $status }
mcp-err-http-html = 服务器返回的是网页（HTTP { $status }），不是 MCP：{ $url } 是它的 MCP 端点吗？
mcp-err-http-html-type = 服务器返回的是网页（{ $type }），不是 MCP：url 是它的 MCP 端点吗？
mcp-err-http-type = 服务器返回的是 { $type }，不是 MCP（JSON 或事件流）
mcp-err-http-answer = 服务器的应答不是 MCP（HTTP { $status }：{ $detail }）
mcp-err-tls = 与 { $url } 的安全连接失败（TLS；详情：“{ $error }”）
mcp-err-unreachable = 无法连接 { $url }（详情：“{ $error }”）
mcp-err-http-timeout = { $url } 未及时应答
mcp-err-http-other = HTTP 请求失败（详情：“{ $error }”）
mcp-login-not-oauth = MCP 服务器 { $name } 未使用 OAuth：/mcp login 需要在 [mcp.servers.{ $name }] 中设置 url = "…" 和 auth = "oauth"。
mcp-login-open = 要登录 MCP 服务器 { $name }，请打开：{ $url }
mcp-login-waiting = 正在等待浏览器返回 deepterm（最多 { $seconds } 秒）…
mcp-login-done = 已登录 MCP 服务器 { $name }；令牌保存在 { $path }。
mcp-login-failed = 登录 MCP 服务器 { $name } 失败：{ $error }
mcp-login-timeout = 浏览器未在 { $seconds } 秒内返回
mcp-login-denied = 授权服务器拒绝了请求（{ $error }）
mcp-logout-done = 已登出 MCP 服务器 { $name }；其令牌已删除。
mcp-logout-none = MCP 服务器 { $name } 没有已保存的登录。
mcp-logout-failed = 无法删除 MCP 服务器 { $name } 的令牌：{ $error }
