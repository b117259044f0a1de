cli-about = deepterm —— DeepSeek 模型的终端聊天客户端，工具增减时依然保持提示缓存命中。
cli-usage-heading = 用法
cli-commands-heading = 子命令
cli-options-heading = 选项
cli-heading = { $heading }：
cli-usage-line = { $heading }：{ $usage }
cli-root-usage = deepterm [选项] [提示] | deepterm [选项] <子命令>
cli-exec-usage = deepterm exec [选项] <提示 | --script FILE>
cli-sim-usage = deepterm sim [选项]
cli-with-default = { $help }（默认：{ $value }）
cli-config = 配置文件（默认：$DEEPTERM_CONFIG，其次是用户配置目录）
cli-model = 使用的路由，格式为 提供方/模型（例如 deepseek/deepseek-flash）
cli-base-url = 覆盖所选提供方的基础 URL
cli-session-dir = 会话日志目录（默认：用户数据目录）
cli-resume = 按 ID（或唯一的 ID 前缀）恢复会话，或使用“last”恢复最近的会话
cli-locale = 界面语言
cli-demo = 演示模式：使用内置模拟器，无需网络和 API 密钥
cli-help = 显示帮助
cli-version = 显示版本
cli-exec-about = 无界面运行：一条提示，或一个脚本（每一行相当于在输入框提交一次）
cli-exec-script = 脚本文件（“-”表示标准输入）。普通行是消息，“/…”行是命令，以 " 开头的行是 JSON 字符串
cli-exec-approve = 工具审批的自动回答：all（全部允许）或 none（全部拒绝）
cli-sim-about = 以 HTTP 服务器形式运行兼容 DeepSeek 的模拟器
cli-sim-addr = 监听地址
cli-sim-script = 回复脚本（见 docs/simulator.md）
cli-sim-cache-unit = 前缀缓存单元大小（token 数）
cli-err-missing = 缺少必需的参数：{ $arg }
cli-err-unknown = 未知参数：{ $arg }
cli-err-invalid-value = 参数 { $arg } 的值“{ $value }”无效（可选值：{ $valid }）
cli-err-generic = 参数有误：{ $message }
cli-err-hint = 运行“deepterm --help”查看用法。

# hardening: config
cli-sim-keep-requests = 为 GET /_sim/requests 保留的已记录请求数（保留最新的；更早的会被丢弃并计数）

# issue 10: exec --json
cli-exec-json = 在标准输出上每行打印一个协议事件的 JSON 对象（包括流式增量），代替纯文本回答
