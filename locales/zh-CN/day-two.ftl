# 新用户第二天遇到的问题：/status、/clear、/model、工具卡片、回退（SPEC §14.2–§14.5）。

## /status：智能体能做什么，以及思考强度
status-mode = 沙箱模式：{ $mode }；网络{ $network ->
    [on] 开启
   *[off] 关闭
  }
status-approval = 审批策略：{ $policy }
status-approval-none = 审批策略：无（本会话没有可执行操作的工具）
status-effort = 思考强度：{ $effort }
status-effort-default = 思考强度：服务商默认

## /clear 只清空屏幕
tui-chat-cleared = 屏幕已清空。会话及其历史仍在继续：模型仍能看到完整对话，Ctrl+T 可查看，新消息会显示在这里。

## /model：没有密钥的路由
cmd-model-choice-no-key = {"  "}{ $route }（需要密钥：请设置 { $var }）
cmd-model-choice-current-no-key = {"  "}{ $route }（当前；需要密钥：请设置 { $var }；在此之前由演示模式回答）

## 代码回退恢复的文件
tui-node-rewind-files = {" "}· 恢复了 { $count } 个文件
rewind-files-restored = 恢复了 { $count } 个文件。

## shell 卡片的状态与耗时，以及工具卡片中显示的拒绝
tui-shell-exit = 退出状态 { $code }
tui-shell-signal = 被信号 { $signal } 终止
tui-shell-timed-out = { $ms } 毫秒后超时；命令及其启动的所有进程已被终止
tui-shell-duration = { $secs } 秒
tui-result-read-only = 沙箱模式为只读：不能写入任何文件（可用 /mode 切换）
tui-result-hook-refused = pre_tool_use 钩子拒绝了这次调用：{ $reason }
tui-result-outside = { $path } 不在工作区和可写目录之内
tui-result-protected = { $path } 受保护（{ $protected } 永远不可写）
