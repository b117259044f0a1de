# 共享文本：工具变更提示（参考 U-3/U-5）。
tool-added = 已添加工具：{ $name }
tool-removed = 已移除工具：{ $name }
tools-updated = 工具已更新
tools-changed = 新增 { $added } 个，移除 { $removed } 个
tools-added-count = 新增 { $count } 个
tools-removed-count = 移除 { $count } 个
tools-no-net-change = 最终无变化（改了又改回）
tools-added-list = 新增：{ $names }
tools-removed-list = 移除：{ $names }
context-injection = 上下文注入

# 代理循环提示。
agent-turn-cancelled = 本轮已取消。
agent-session-error = 会话日志错误：{ $error }
# 会话日志出了什么问题；写入端或日志规则的原话作为引用的详情附在后面。
session-error-invalid = 有事件违反了日志规则（详情：“{ $detail }”）
session-error-write = 写入失败（详情：“{ $detail }”）
session-error-sync = 保存到磁盘失败（详情：“{ $detail }”）
session-error-tool-history = 工具历史前后不一致（详情：“{ $detail }”）
session-error-empty = 日志为空（没有 session/start）
session-error-redaction = 无法从事件中去除密钥值（详情：“{ $detail }”）
agent-too-many-steps = 单轮超过 { $count } 步，已停止。
agent-max-tokens = 回复达到输出上限（max_tokens），已被截断。

# 斜杠命令。
cmd-help-title = 命令：
cmd-help = 显示命令和快捷键
cmd-model = 显示当前路由，或切换到其他路由
cmd-tools = 列出已启用和可用的工具
cmd-tool = 启用或停用工具
cmd-mcp = 显示 MCP 服务器；连接、断开、登录或登出其中一个
cmd-system = 显示本会话的附加指令；clear 清除它们，给出文本则替换它们
cmd-compact = 总结目前的对话以释放上下文
cmd-lang = 切换界面语言
cmd-inspect = 将下一个请求与上一个已发送的请求对比，或查看第 N 个请求
cmd-new = 开始新会话
cmd-resume = 列出已保存的会话，或恢复其中一个
cmd-quit = 退出
cmd-unknown = 未知命令 { $command }。输入 /help 查看命令列表。
cmd-lang-switched = 界面语言已切换为{ $locale ->
    [zh-CN] 简体中文
   *[en-US] {" "}English
    }。
cmd-lang-not-saved = 语言已切换，但无法保存到配置文件：{ $error }
cmd-system-set = 已设置本会话的附加指令，从下一个请求开始生效。
cmd-system-cleared = 已清除附加指令。
cmd-model-current = 当前路由：{ $route }
cmd-model-switched = 路由已切换为 { $route }。
cmd-model-failed = 无法切换路由：{ $error }
cmd-model-choices = 可切换的路由（/model 提供方/模型）：
cmd-model-choice = {"  "}{ $route }
cmd-model-choice-current = {"  "}{ $route }（当前）
cmd-model-unknown = 无法切换路由：“{ $route }”不在模型目录和配置中，提供方的模型列表里也没有它。输入 /model 查看可用路由。
cmd-model-unchecked = 无法切换路由：“{ $route }”不在模型目录和配置中，且无法读取提供方的模型列表（{ $error }）。如需使用，请在配置的 [[providers.NAME.models]] 中添加它。
cmd-tool-failed = { $error }
cmd-new-done = 已开始新会话。
cmd-resume-title = 已保存的会话（最新的在前）：
cmd-resume-done = 会话已恢复。
cmd-session-failed = 无法打开会话：{ $error }

# 无界面模式与启动。
exec-bad-json-line = 脚本第 { $line } 行以 " 开头，但不是合法的 JSON 字符串：{ $error }
exec-not-utf8 = 脚本不是合法的 UTF-8 文本（第一个错误字节位于偏移 { $offset }）。
exec-script-unreadable = 无法读取脚本 { $path }：{ $error }
exec-session-info = 会话 { $id }：{ $path }
exec-tool-denied = 已拒绝工具调用 { $tool }：exec 默认以 --approve none 回答审批（传入 --approve all 即可允许）。
exec-tool-denied-subagent = 已拒绝子代理 { $agent }（{ $description }）的工具调用 { $tool }：exec 默认以 --approve none 回答审批（传入 --approve all 即可允许）。
exec-no-key-hint = { $error } 也可以运行 `deepterm exec --demo`，无需密钥即可试用内置模拟器。
app-demo-no-key = 演示模式：未设置 { $var }，由内置模拟器代替 { $route } 回答。已忽略：{ $flags }。
app-demo-ignores = 演示模式：由内置模拟器回答。已忽略：{ $flags }。
app-unknown-route = 未知路由“{ $route }”：它不在模型目录和配置中。已知路由：{ $routes }。如需使用，请在配置的 [[providers.NAME.models]] 中添加它。
app-unknown-config-route = { $file }：model = “{ $route }”不在模型目录和配置中。已知路由：{ $routes }。如需使用，请在 [[providers.NAME.models]] 中添加它。
app-session-invalid = 无法加载会话 { $path }：{ $error }
app-no-config-dir = 系统上没有可用的配置目录；请使用 --config 指定文件以保存设置。
app-client-failed = 无法创建 HTTP 客户端：{ $error }
app-runtime-failed = 无法启动异步运行时：{ $error }
app-sim-failed = 无法启动内置模拟器：{ $error }
app-ui-failed = 终端界面出错退出：{ $error }

# 压缩。
compact-nothing = 目前没有可压缩的内容。
compact-done = 对话已压缩：较早的部分已替换为摘要。
compact-failed = 压缩失败，历史未作改动：{ $message }
app-no-other-session = 没有其他可恢复的已保存会话。
app-session-already-open = 该会话就是当前打开的会话。

# hardening: wire
agent-tool-ids-repaired = 服务商发来的工具调用缺少 ID 或 ID 重复，已重命名：{ $renamed }

# issue 10: exec waits for MCP servers
exec-mcp-failed = MCP 服务器 { $name } 启动失败，其工具不可用：{ $error }
exec-mcp-timeout = MCP 服务器 { $name } 在 { $seconds } 秒内未连接，最初的请求中缺少它的工具（可用 [mcp] startup_wait_secs 设置等待时间）。

# issue 10: command table and typed output
output-row = {"  "}{ $left }  { $right }
cmd-help-synopsis = { $name } { $args }
output-verbatim = { $text }

# issue 10: clean-ups
app-env-unsupported = 此处不可用。

# issue 12: /system shows and clears
cmd-system-current = 本会话的附加指令：{ $text }
cmd-system-none = 本会话尚未设置附加指令；输入 /system 文本 即可设置。

# issue 12: slash popup and help
cmd-model-args = [提供方/模型]
cmd-tool-args = enable|disable 名称
cmd-mcp-args = [connect|disconnect|login|logout 名称|resources [名称]]
cmd-system-args = [clear|文本]
cmd-lang-args = en|zh
cmd-inspect-args = [N]
cmd-resume-args = [ID|last]
cmd-usage = 用法：{ $command } { $args }

# issue 13: copy, mouse, notify
cmd-copy = 把最后一条回复（或倒数第 N 条）复制到剪贴板
cmd-copy-args = [N]
cmd-copy-needs-tui = /copy 需要终端界面：它把回复写入终端的剪贴板。
cmd-clear = 清屏（会话及其日志保持不变）
cmd-status = 显示路由、工作区、会话、用量和 MCP 服务器
cmd-cost = 按路由显示本会话的 token 用量和费用
cmd-clear-no-screen = /clear 清除的是终端界面的屏幕；exec 没有屏幕，未清除任何内容。
status-title = 状态
status-route = 路由：{ $route }
status-workspace = 工作区：{ $path }
status-session = 会话：{ $id }
status-tokens = token：输入 { $input }，缓存读取 { $cached }，输出 { $output }
status-cost = 费用：{ $cost }
status-cost-unpriced = 费用：未知（所用路由中有未定价的）
status-cache = 缓存命中：{ $hit }%
status-cache-none = 缓存命中：—（尚无请求）
status-usage-unknown = 有 { $count } 个请求的用量未知，未计入
cost-title = 会话费用
cost-none = 尚无请求。
cost-route = { $route }：输入 { $input }，缓存 { $cached }，输出 { $output } · { $cost }
cost-route-unpriced = { $route }：输入 { $input }，缓存 { $cached }，输出 { $output } · 价格未知
cost-total = 合计：{ $cost }
cost-total-unpriced = 合计：未知（所用路由中有未定价的）
agent-startup-warning = { $text }
