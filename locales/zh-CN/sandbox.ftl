# 沙箱模式、审批与可执行操作的工具（SPEC §14.1、§14.2）。

cmd-mode = 显示或切换沙箱模式：read-only、workspace-write 或 full-access（Shift+Tab 循环切换）
cmd-mode-args = [模式]
cmd-mode-current = 沙箱模式：{ $mode }；网络{ $network ->
    [on] 开启
   *[off] 关闭
  }。可选：read-only、workspace-write、full-access。
cmd-mode-unknown = 未知的沙箱模式“{ $given }”：请使用 read-only、workspace-write 或 full-access。
cmd-mode-same = 沙箱模式已经是 { $mode }。
cmd-mode-set = 沙箱模式：{ $mode }。从下一个请求起告知模型。

tui-footer-mode = { $mode ->
    [read-only] 只读
    [workspace-write] 沙箱
   *[full-access] 无沙箱
  }{ $network ->
    [on] {" "}· 网络开
   *[off] {""}
  }
tui-mode-confirm-full = 切换到 full-access？没有沙箱：命令以你的身份运行，编辑可写入任何位置（每次调用仍会询问）。y：切换 · 其他键：保持
tui-help-mode = 切换沙箱模式：只读 → 工作区可写 → 完全访问
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
