# 模型请求失败：一行显示，{ $message } 中保留服务商原文。
llm-error-auth = 身份验证失败：{ $message } —— 请检查 API 密钥。
llm-error-quota = 额度不足：{ $message } —— 请为账户充值。
llm-error-invalid-request = 服务商拒绝了请求：{ $message }
llm-error-context-overflow = 对话超出了该模型的上下文长度：{ $message } —— 可尝试 /compact。
llm-error-rate-limit = 请求过于频繁：{ $message }
llm-error-server = 服务商出现服务器错误：{ $message }
llm-error-transport = 连接出现问题：{ $message }
llm-error-unsupported-content = 该线路无法发送当前对话：{ $message }
llm-error-invalid-content = 对话内容不一致：{ $message }
llm-error-malformed = 服务商返回了格式错误的响应：{ $message }
llm-error-empty-response = 模型返回了空回复：{ $message }
llm-error-cancelled = 已取消。
llm-error-missing-key = 缺少 API 密钥：{ $message }

# hardening: wire
llm-error-too-large = 回复过大，已停止接收（不会重试）：{ $message } —— 如属正常，请在配置的 [limits] 表中调高上限。
llm-error-no-progress = 服务商长时间没有发送新内容：{ $message }

# 请求失败的简短原因（状态行、最终错误）。
llm-cause-refused = 连接被拒绝
llm-cause-timed-out = 超时
llm-cause-dns = 找不到主机
llm-cause-reset = 连接中断
llm-cause-tls = TLS 失败
llm-cause-rate-limited = 请求过于频繁
llm-cause-server = 服务器错误
llm-cause-other = 请求失败
llm-cause-with-hint = { $cause } · { $hint }
llm-hint-refused = { $origin } 上没有服务在监听——请检查 base_url
llm-hint-dns = 无法解析 { $origin }——请检查 base_url
llm-hint-tls = 与 { $origin } 的 TLS 连接失败——请检查 base_url 和证书

# 轨迹中失败请求的错误类别（“失败 认证 401”）。
llm-code-auth = 认证
llm-code-quota = 额度不足
llm-code-invalid_request = 请求无效
llm-code-context_overflow = 上下文过长
llm-code-rate_limit = 限流
llm-code-server = 服务器错误
llm-code-transport = 连接
llm-code-unsupported_content = 内容不受支持
llm-code-invalid_content = 内容不一致
llm-code-malformed = 响应格式错误
llm-code-empty_response = 空回复
llm-code-cancelled = 已取消
llm-code-missing_key = 缺少 API 密钥
llm-code-too_large = 回复过大
llm-code-no_progress = 无进展
