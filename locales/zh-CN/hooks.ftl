# 钩子与自定义命令（SPEC §14.4）。

## 配置错误
config-expected-hook-matcher = 必须是匹配工具名的正则表达式，例如“shell|apply_patch”（{ $detail }）
config-expected-hook-matcher-tool = 只适用于 pre_tool_use 和 post_tool_use 钩子，请删除
config-expected-hook-timeout = 必须是 1 到 { $max } 之间的整数秒

## 钩子运行
hook-no-reason = 未说明原因
hook-ran = 钩子 { $event } 已运行 { $command }（{ $ms } 毫秒）。
hook-blocked-tool = 钩子 { $event }（{ $command }）拦截了 { $tool }：{ $reason }
hook-blocked-prompt = 钩子 { $event }（{ $command }）拦截了这条提示，未发送：{ $reason }
hook-feedback = 钩子 { $event }（{ $command }）对 { $tool } 的反馈（已转给模型）：{ $reason }
hook-said = 钩子 { $event }（{ $command }）以状态码 2 退出：{ $reason }
hook-failed = 钩子 { $event }（{ $command }）以状态码 { $code } 退出，继续执行。{ $stderr }
hook-signal = 钩子 { $event }（{ $command }）被信号终止，继续执行。
hook-timed-out = 钩子 { $event }（{ $command }）未在 { $secs } 秒内结束，已连同其子进程一起终止，继续执行。
hook-cancelled = 本轮已取消，钩子 { $event }（{ $command }）随之终止。
hook-not-started = 钩子 { $event } 无法启动 { $command }：{ $error }，继续执行。

## 工具钩子的运行：在该调用的工具卡片里占一行（决定 0105）
tui-hook-ok = 钩子 { $event } { $command }：通过（{ $ms } 毫秒）
tui-hook-blocked = 钩子 { $event } { $command }：已拦截，原因：{ $reason }
tui-hook-feedback = 钩子 { $event } { $command }：反馈给模型：{ $reason }
tui-hook-warning = 钩子 { $event } { $command }：警告，退出状态码 { $code }
tui-hook-signal = 钩子 { $event } { $command }：警告，被信号终止
tui-hook-timed-out = 钩子 { $event } { $command }：超时，{ $secs } 秒后已终止
tui-hook-cancelled = 钩子 { $event } { $command }：本轮已取消，已终止
tui-hook-not-started = 钩子 { $event } { $command }：无法启动：{ $error }

## 自定义命令
cmd-custom-no-description = 自定义命令
cmd-custom-args = [参数]
cmd-custom-help-title = 自定义命令：
cmd-custom-empty = 自定义命令 { $name } 没有可发送的内容。
cmd-custom-refused = 已忽略自定义命令文件 { $path }：{ $reason }。
cmd-custom-why-missing = 文件已不存在
cmd-custom-why-outside = 它指向 { $target }，不在所属的工作区或配置目录内
cmd-custom-why-not-regular = 它是{ $kind }，不是普通文件
cmd-custom-why-not-text = 它是二进制文件或不是 UTF-8 文本
cmd-custom-why-unreadable = { $detail }
cmd-custom-too-large = 已忽略自定义命令文件 { $path }：文件超过 { $kib } KiB。
cmd-custom-bad-name = 已忽略自定义命令文件 { $path }：命令名须为 1–64 个字母、数字、“_”或“-”。
cmd-custom-clash = 已忽略自定义命令 { $name }（{ $path }）：已有同名内置命令，保留内置命令。
cmd-custom-shadowed = 已忽略自定义命令 { $name }（{ $path }）：{ $kept } 已定义了它。
