# 终端界面（SPEC §10）。
tui-demo-banner = 演示模式：内置模拟器，无需 API 密钥
tui-pane-chat = 对话
tui-pane-trajectory = 轨迹
tui-chat-empty = 还没有消息。在下方输入并按 Enter 发送；按 ? 查看快捷键。
tui-chat-empty-quit = 在空输入框中按 Ctrl+D 或输入 /quit 退出。
tui-chat-empty-quit-one-pane = 按两次 Tab 查看轨迹；在空输入框中按 Ctrl+D 或输入 /quit 退出。
tui-composer-placeholder = 有什么想问的，输入 / 查看命令
tui-role-user = 你
tui-role-assistant = 助手
tui-thinking-collapsed = ▸ 思考过程（{ $lines } 行）
tui-thinking-expanded = ▾ 思考过程
tui-interrupted = （已中断）
tui-tool = 工具
tui-tool-running = 运行中
tui-tool-done = 完成
tui-tool-failed = 失败
tui-more-lines = … 还有 { $count } 行
tui-approval-title = 允许调用 { $tool } 吗？
tui-approval-title-subagent = 允许子代理 { $agent }（{ $description }）调用 { $tool } 吗？
tui-approval-keys = [y] 允许  [a] 本会话中总是允许  [n] 拒绝并说明理由  [Esc] 拒绝（本轮继续）
tui-approval-prompt = y 允许 · a 本会话中总是允许 · n 拒绝并说明理由 · Esc 拒绝
tui-approval-allowed = 已允许
tui-approval-always = 本会话中总是允许
tui-approval-denied = 已被你拒绝
tui-checkpoint = 更早的上下文已压缩
tui-jump-latest = ↓ 未跟随最新 · 按 End 跳到最新
tui-cards-collapsed = 卡片：折叠
tui-cards-expanded = 卡片：展开
tui-cards-hidden = 卡片：隐藏
tui-paste-placeholder = [已粘贴 { $lines } 行]
tui-phase-idle = 空闲
tui-phase-waiting = 等待模型响应
tui-phase-thinking = 思考中
tui-phase-responding = 回复中
tui-phase-tools = 正在运行工具
tui-phase-compacting = 正在压缩上下文
tui-phase-asking-server = 等待 MCP 服务器
tui-status-idle-hint = ? 查看快捷键 · / 查看命令
tui-status-cancel-hint = Esc 取消
tui-status-queued = { $count } 条排队中
tui-footer-no-route = 未选择路由
tui-footer-context = 上下文 { $pct }%
tui-quit-hint = 再按一次 Ctrl+C 退出。
tui-mcp-connecting = 连接中
tui-mcp-connected = 已连接
tui-mcp-disconnected = 已断开
tui-mcp-failed = 失败
tui-mcp-tools = { $count } 个工具
tui-traj-cancelled = 第 { $turn } 轮已取消
tui-traj-error = 第 { $turn } 轮因错误结束
tui-traj-retried = 已重试
tui-traj-compaction = 上下文已压缩（{ $trigger ->
    [manual] 手动执行 /compact
   *[auto] 上下文窗口将满
    }）
tui-traj-compaction-request = 压缩摘要
tui-help-title = 快捷键
tui-help-send = 发送消息（或执行命令）
tui-help-newline = 换行
tui-help-history = 在首行 / 末行时切换上一条 / 下一条消息
tui-help-commands = 斜杠命令（模糊筛选，Tab 补全）
tui-help-focus = 切换焦点：输入框 → 对话 → 轨迹
tui-help-select = 在对话中：选择节点，Enter / 空格展开
tui-help-scroll = 滚动当前窗格
tui-help-cards = 工具卡片：折叠 → 展开 → 隐藏
tui-help-toggle-tools = 展开 / 折叠最近一次工具变更
tui-help-transcript = 对话全文：完整显示整段对话，包括思考过程和工具输出
tui-help-transcript-keys = 在对话全文中：滚动，关闭（Esc）
tui-help-transcript-close = 在对话全文中：再按一次即关闭
tui-transcript-title = 对话全文
tui-transcript-keys = ↑/↓ PgUp/PgDn 滚动 · Esc 或 Ctrl+T 关闭
tui-help-cancel = 取消正在进行的一轮
tui-help-quit = 空闲时退出（或 /quit）
tui-help-approve = 确认请求：允许、总是允许、拒绝（本轮继续）
tui-help-lang = 切换语言（English / 简体中文）
tui-help-help = 显示本帮助
tui-help-close = 按任意键关闭
tui-table-pending = 表格接收中…

## 请求检查器（/inspect）
tui-inspector-title = 请求检查器
tui-inspector-request = 请求 #{ $n }
tui-inspector-subagent-request = 子代理请求 { $label }
tui-inspector-next = 下一个请求（尚未发送）
tui-inspector-none = （没有更早的请求）
tui-inspector-reason = 原因：{ $reasons }
tui-inspector-system-line = 系统：{ $text }
tui-inspector-tools = 工具
tui-inspector-no-tools = （无）
tui-inspector-messages = 消息
tui-inspector-deferred = 延迟加载
tui-inspector-no-previous = 没有可供对比的更早请求。
tui-inspector-identical = 两个请求体逐字节相同。
tui-inspector-diverges = 请求体从第 { $offset } 字节开始不同。
tui-inspector-hint = ↑/↓ PgUp/PgDn 滚动 · Esc/q 关闭
tui-inspector-usage = 用法：/inspect [请求编号]
tui-inspector-failed = 无法检查该请求：{ $error }
inspect-no-request = 没有第 { $n } 号请求
inspect-no-subagent-request = 没有子代理请求 { $label }
inspect-no-context = 日志中第 { $n } 号请求之前没有路由记录
inspect-unknown-provider = 日志中的服务商“{ $provider }”未知
tui-inspector-reason-first = 第一个请求
tui-inspector-reason-tool-addition = 在末尾追加了新增工具的声明
tui-inspector-reason-tool-removal = 在末尾追加了移除工具的声明
tui-inspector-reason-prompt-update = 在末尾追加了提示词更新
tui-inspector-reason-consolidation = 合并（在开头替换了系统提示词）
tui-inspector-reason-removal-addition-only = 在仅追加路由上移除工具（历史被改写，缓存前缀失效）——设置 tool_removal = "retain" 本可保住缓存
tui-inspector-reason-history = 在末尾追加了对话历史
tui-inspector-reason-identical = 无变化

# 轨迹标签。
tui-badge-turn = 第 { $turn } 轮
tui-badge-end = 结束
tui-badge-route = 路由
tui-badge-tool = 工具
tui-badge-context = 上下文
tui-badge-mcp = MCP
tui-badge-fail = 失败
tui-badge-compact = 压缩

# issue 10: command table and typed output
tui-help-commands-title = 斜杠命令

# issue 10: tool removal retain
tui-inspector-reason-removal-retained = 在设置了 tool_removal = "retain" 的仅追加路由上移除工具（保留声明，前缀不变）

# issue 11: event loop
tui-task-panicked = { $task } 内部错误：{ $message }

# issue 11: components and keymap
tui-help-edit = 编辑：移动光标、删除；输入框为空时 Home / End 滚动对话
tui-help-line = 移到行首 / 行尾；已在行首 / 行尾时，移到整个草稿的开头 / 结尾
tui-help-word = 向左 / 向右移动一个词
tui-help-kill-word = 删除光标前的一个词（Ctrl+W 删到空格为止）
tui-help-kill = 剪切到行尾 / 行首（Ctrl+C 清空草稿，↑ 可找回）
tui-help-yank = 粘贴最近剪切的文字
tui-help-eof = 删除光标后的字符；输入框为空时退出
tui-unknown-command = 未知命令 { $command }，它仍留在输入框中，可以修改。输入 /help 查看命令列表。
tui-help-traj-select = 在轨迹中：选择一个请求
tui-help-inspect = 在轨迹中：查看所选请求
tui-help-inspector-scroll = 在检查器中：滚动
tui-help-inspector-close = 关闭检查器
tui-help-mouse = 滚轮滚动指针下的窗格，点击展开对话节点
tui-key-mouse = 鼠标
tui-key-any = 任意键
# issue 11: cells

# issue 12: cache breaks and the Trajectory
tui-footer-hit-session = 会话命中 { $pct }%
tui-footer-hit-last = 上次 { $pct }%
tui-traj-col-number = #
tui-traj-col-step = 轮.步
tui-traj-col-ttft = 首字
tui-traj-col-total = 耗时
tui-traj-col-in = ↑输入
tui-traj-col-cached = ⟳缓存
tui-traj-col-out = ↓输出
tui-traj-col-hit = 命中
tui-traj-col-summary = 摘要
tui-traj-empty = 还没有请求。每次模型请求都会显示在这里，包括耗时、token 数和缓存命中；选中一行后按 Enter 查看详情。
tui-traj-break = 缓存失效：{ $reason }
tui-traj-break-tools-removal = 工具有变化（{ $removed ->
        [0] 新增 { $added } 个
       *[other] { $added ->
            [0] 移除 { $removed } 个
           *[other] 新增 { $added } 个、移除 { $removed } 个
        }
    }）：在仅追加路由上移除了工具
tui-traj-break-tools = 工具有变化（{ $removed ->
        [0] 新增 { $added } 个
       *[other] { $added ->
            [0] 移除 { $removed } 个
           *[other] 新增 { $added } 个、移除 { $removed } 个
        }
    }）
tui-traj-break-prompt = 系统提示词已更改
tui-traj-break-model = 模型已更改
tui-traj-break-route = 路由设置已更改
tui-traj-break-header = 请求设置已更改（新的请求序列）
tui-traj-break-compaction = 上下文已压缩
tui-traj-break-unexplained = 请求未变；服务商的缓存已过期或被清除
tui-inspector-diverges-tools = 首个差异：工具列表第 { $index } 项（{ $name }）；工具列表位于系统提示词和消息之前。
tui-inspector-diverges-system = 首个差异：系统提示词（工具列表相同）。
tui-help-legend-title = 轨迹各列
tui-help-legend-step = 第 1 轮第 2 步（每一步是一次模型请求）
tui-help-legend-ttft = 收到第一个 token 的时间，以及整个请求的时长
tui-help-legend-tokens = 未缓存输入 ↑、缓存读取输入 ⟳、输出 ↓（底栏也用这些符号）
tui-help-legend-hit = 缓存命中：绿色 ≥ 90%、黄色 50–89%、红色 < 50%
tui-help-legend-break = 缓存失效：读取的缓存少于上一请求的前缀；原因显示在该行下方
tui-key-legend-durations = 首字 / 耗时
tui-key-legend-hit = 命中

# issue 12: slash popup and help
tui-help-complete = 斜杠命令弹窗：Tab 补全；Enter 运行命令，需要参数的命令则补全并显示用法
tui-help-help-scroll = 在本帮助中：滚动
tui-help-close-scroll = ↑/↓、PgUp/PgDn、Home/End 滚动；按其他任意键关闭
tui-help-position = 第 { $first }–{ $last } 行，共 { $total } 行
tui-user-collapsed = ▸ { $hidden ->
    [0] 长行已截断（Enter 展开）
   *[other] 还有 { $hidden } 行（Enter 展开）
}
tui-user-expanded = ▾ 共 { $lines } 行（Enter 折叠）
tui-queued-item = ↳ 排队中：{ $text }
tui-queued-more = … 另有 { $count } 条排队中

# issue 12: approvals
tui-tool-waiting = 等待你确认
tui-tool-denied = 未运行
tui-phase-awaiting-approval = 等待你确认
tui-status-paused = { $secs }s 已暂停
tui-status-approval-hint = y 允许一次 · a 见卡片 · n / Esc 拒绝，本轮继续
tui-tool-queued = 排队中

# issue 12: nodes and resume
tui-node-source = 来源：{ $source }
tui-node-no-description = （无描述）
tui-node-added = 新增
tui-node-removed = 移除
tui-turn-failed = 本轮失败。
tui-resume-hint = 继续此会话：{ $command }
tui-help-node-legend = 工具变更节点：◆ 单个工具、▸ 多个工具（Enter 展开）、▾ 已展开

# issue 12: Chinese and labels
tui-key-mode-in-history = 历史内更新
tui-key-mode-addition-only = 仅追加
tui-help-legend-in-history = 路由模式：工具变化直接写入历史中的相应位置（缓存保留）
tui-help-legend-addition-only = 路由模式：工具只能在末尾追加；移除工具会改写历史，缓存随之失效，除非设置 tool_removal = "retain"
tui-inspector-role-user = 用户
tui-inspector-role-assistant = 助手
tui-inspector-role-system = 系统
tui-inspector-role-tool = 工具

# issue 13: cost
tui-footer-cost = 费用 { $cost }
tui-traj-col-cost = 费用
tui-key-legend-cost = 费用
tui-help-legend-cost = 该请求按模型价格计算的费用（美元；内置价格或配置中的 price_*）；底栏显示整个会话的总费用
tui-inspector-cache-saved = 缓存节省 { $cost }（{ $tokens } 个缓存 token）
tui-footer-cost-at-least = 费用 ≥{ $cost }
tui-footer-context-unknown = 上下文 ?
tui-traj-usage-unknown = ?
tui-inspector-usage-unknown = 用量未知（服务商报告的数字不可能成立）

# issue 13: history search and external editor
tui-help-history-search = 搜索所有会话中的消息（输入以缩小范围，Ctrl+R 更早，Enter 采用，Esc 退出）
tui-help-external-editor = 在 $VISUAL / $EDITOR 中编辑草稿
tui-history-search = （反向搜索）“{ $query }”：
tui-history-search-failed = （反向搜索无结果）“{ $query }”：
tui-history-reading = 正在读取历史…（已读 { $count } 个会话）
tui-editor-spawn-failed = 无法启动编辑器“{ $command }”：{ $error }。草稿未改动。
tui-editor-failed = 编辑器“{ $command }”执行失败（{ $status }）。草稿未改动。
tui-editor-file-failed = 无法把草稿交给编辑器：{ $error }。草稿未改动。

# issue 13: copy, mouse, notify
tui-copy-done = 已复制倒数第 { $n } 条回复（{ $chars } 个字符）
tui-copy-nothing = 还没有可复制的内容：本会话中没有回复。
tui-copy-no-such = 没有倒数第 { $n } 条回复可复制。
tui-footer-mouse-scroll = 鼠标：滚动
tui-footer-mouse-select = 鼠标：选择
tui-help-mouse-toggle = 开启 / 关闭鼠标捕获（关闭时可用终端自带的文本选择）
tui-notify-turn-finished = deepterm：本轮已完成
tui-notify-turn-finished-reply = deepterm：本轮已完成 — { $reply }

# issue 13: resume picker
tui-resume-title = 恢复会话
tui-resume-filter = 筛选：
tui-resume-keys = 输入以筛选 · ↑/↓ PgUp/PgDn 移动 · Enter 恢复 · Esc 关闭
tui-resume-count = { $shown } / { $total }
tui-resume-stats = { $count } 条消息 · { $size }
tui-resume-stats-at-least = 至少 { $count } 条消息 · { $size }
tui-resume-no-prompt = （尚无消息）
tui-resume-empty = 没有其他含消息的已保存会话。
tui-resume-no-match = 没有会话匹配“{ $filter }”。
tui-help-resume-move = 在会话选择器中：移动；输入文字筛选，Backspace 删除
tui-help-resume-open = 在会话选择器中：恢复选中的会话（Enter）或关闭（Esc）

# issue 13: @ mentions
tui-help-mention = 在词首：工作区文件弹窗（Tab/Enter 补全）；发送时附加文件
tui-attachment = ▸ @{ $path } · { $lines } 行
tui-attachment-truncated = ▸ @{ $path } · { $lines } 行（截取 { $total } KiB 中的前 { $kib } KiB）
tui-attachment-expanded = ▾ @{ $path }（Enter 折叠）
tui-attachment-outside = ▸ @{ $path } · 未附加：位于工作区之外
tui-attachment-binary = ▸ @{ $path } · 未附加：二进制或非 UTF-8 文件
tui-attachment-not-regular = ▸ @{ $path } · 未附加：不是普通文件
tui-attachment-unavailable = ▸ @{ $path } · 未附加：MCP 服务器无法提供
tui-status-reconnecting = 正在重连 { $attempt }/{ $max } · { $cause } · { $seconds } 秒后重试
