# 沙箱模式、审批与可执行操作的工具（SPEC §14.1、§14.2）。

cmd-mode = 显示或切换模式：workspace-write、plan（只读，由模型提出计划）、read-only 或 full-access（Shift+Tab 依次切换 workspace-write → plan → read-only）
cmd-mode-args = [模式]
cmd-mode-current = 沙箱模式：{ $mode }；网络{ $network ->
    [on] 开启
   *[off] 关闭
  }。可选：workspace-write、plan、read-only、full-access。
cmd-mode-unknown = 未知的模式“{ $given }”：请使用 workspace-write、plan、read-only 或 full-access。
cmd-mode-same = 沙箱模式已经是 { $mode }。
cmd-mode-set = 沙箱模式：{ $mode }。从下一个请求起告知模型。

tui-footer-mode = { $mode ->
    [read-only] read-only
    [workspace-write] workspace-write
    [plan] plan
   *[full-access] full-access
  }{ $network ->
    [on] {" "}· 网络开
   *[off] {""}
  }
tui-mode-confirm-full = 离开沙箱、切换到 full-access（每次调用都会询问）？y：切换 · 其他键：保持
tui-help-mode = 切换模式：workspace-write → plan → read-only → workspace-write（full-access：/mode full-access）
tui-approval-reason = 拒绝的理由？（可选，会发送给模型）{ $reason }▏ · Enter 拒绝 · Esc 不说明理由直接拒绝
tui-approval-denied-reason = 已被你拒绝：{ $reason }
tui-shell-where-sandboxed = 目录 { $dir } · 在沙箱中
tui-shell-where-unsandboxed = 目录 { $dir } · 不在沙箱中：以你的身份运行
tui-shell-justification = 理由：{ $why }
tui-diff-more = … 还有 { $count } 行差异
tui-edit-added = 已添加 { $path }
tui-edit-edited = 已编辑 { $path }
tui-edit-deleted = 已删除 { $path }
tui-edit-moved = 已移动 { $path }
tui-edit-diff-cut = … 日志中的差异已截断；文件本身完整
cmd-sandbox = 显示沙箱：模式、后端及原因、可写目录、受保护路径
cmd-permissions = 列出已保存的规则和本会话的授权；revoke N 撤销其中一项
cmd-permissions-args = [revoke 编号]
sandbox-mode-line = 沙箱模式：{ $mode }；网络{ $network ->
    [on] 开启
   *[off] 关闭
  }。
sandbox-backend-line = 后端：{ $backend }（backend = "{ $choice }"）。
sandbox-backend-none = 没有后端能实施沙箱（backend = "{ $choice }"）：{ $why }。沙箱内的命令不会运行。
sandbox-writable-title = 可写：
sandbox-protected-title = 受保护（始终不可写）：
sandbox-limits-title = 此后端无法覆盖：
sandbox-item =   { $item }
sandbox-not-set-up = 本会话没有沙箱（未设置可执行操作的工具）。
permissions-none = 本会话没有审批规则（未设置可执行操作的工具）。
permissions-policy = 审批策略：{ $policy }。
permissions-empty = 没有已保存的规则，本会话也没有授权。
permissions-entry = { $n }. { $text }
permissions-revoke-hint = 用 /permissions revoke 编号 撤销对应条目。
permissions-revoked = 已撤销第 { $n } 项。
permissions-not-revocable = 第 { $n } 项是项目规则：请在项目的 .deepterm/rules.toml 中修改。
permissions-revoke-failed = 第 { $n } 项无法撤销（列出后规则文件已改变；请重新列出）。
permissions-no-such = 没有第 { $n } 项；用 /permissions 查看列表。
sandbox-denied-call = 一条 shell 命令的失败看起来是被沙箱拒绝（模式 { $mode }）；可写范围见 /sandbox。
sandbox-limit-hard-link =   命令开始前从受保护路径硬链接到可写目录中的文件，仍可通过该链接写入
sandbox-limit-symlink =   本身是符号链接的受保护路径（如 .git 符号链接）可被删除和替换；其指向的目标仍受保护
sandbox-limit-landlock-root =   包含受保护路径的目录（工作区根目录）中不能直接创建、删除或重命名条目；其中已有的文件仍可写
sandbox-limit-landlock-tmp =   /tmp 不是私有的：TMPDIR 指向私有目录，对 /tmp 本身的写入会被拒绝
sandbox-limit-landlock-setsid =   setsid 和 setpgid 会被拒绝，因此启动新会话的程序会失败
sandbox-limit-landlock-abstract =   抽象 Unix 套接字和信号不受限制（Landlock ABI { $abi } < 6）
