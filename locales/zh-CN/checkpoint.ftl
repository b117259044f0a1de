# 检查点、/diff、/undo、/rewind 与 /fork（SPEC §14.3）。

cmd-diff = 查看本次会话（或第 N 轮）对工作区做的改动
cmd-diff-args = [N]
cmd-undo = 把上一轮改动的文件恢复原样
cmd-undo-args = [--force]
cmd-rewind = 回到之前某条提示之前：对话、代码或两者
cmd-rewind-args = [N [conversation|code|both]] [--force]
cmd-fork = 从当前位置分叉出一个新会话
cli-fork = 从已保存的会话分叉出一个新会话（ID、唯一的 ID 前缀或“last”）

checkpoint-off = 检查点已关闭（[checkpoints] enabled = false）。
checkpoint-failed = 检查点失败：{ $error }
checkpoint-why-store = 无法读写检查点存储 { $path }（详情：“{ $error }”）
checkpoint-why-corrupt = 检查点存储 { $path } 中有无法读取的记录（详情：“{ $error }”）
checkpoint-why-walk = 无法读取工作区 { $path }（详情：“{ $error }”）
checkpoint-skipped = 有 { $count } 个文件超过检查点大小上限，无法恢复：{ $files }
checkpoint-taken = 第 { $turn } 轮之前的检查点（{ $files } 个文件）

diff-nothing = 本次会话没有改动任何文件。
diff-turn-nothing = 第 { $n } 轮没有改动任何文件。
diff-session-title = 本次会话改动了 { $count } 个文件：
diff-turn-title = 第 { $n } 轮改动了 { $count } 个文件：
diff-binary = 二进制文件 { $path } 有改动。
diff-not-kept = { $path } 超过检查点大小上限：未保存，不显示。

undo-nothing = 没有可撤销的内容：本次会话还没有哪一轮改动过文件。
undo-title = 已撤销第 { $n } 条提示（“{ $prompt }”）：恢复了 { $count } 个文件。
undo-restored-file = {"  "}已恢复 { $path }
undo-not-kept = {"  "}无法恢复（超过大小上限）：{ $path }
undo-failed-file = {"  "}无法恢复 { $path }（详情：“{ $error }”）
undo-conflict-file = {"  "}冲突，未改动（该轮之后被改过）：{ $path }
undo-conflict-hint = 如需连冲突文件一起覆盖：{ $command }
undo-conflicts = 有 { $count } 个文件在该轮之后被改过，已保持原样。

rewind-title = 之前的提示：
rewind-choice = {"  "}{ $n }. { $prompt }
rewind-choice-files = {"  "}{ $n }. { $prompt }（改动过文件）
rewind-none = {"  "}（还没有提示）
rewind-hint = 用 /rewind N [conversation|code|both] 回退（默认两者都回退）。
rewind-done = 已回到第 { $n } 条提示（“{ $prompt }”）之前：{ $scope }。
rewind-scope-conversation = 对话
rewind-scope-code = 代码
rewind-scope-both = 对话和代码
rewind-prompt-back = 这条提示已放回输入框：{ $prompt }

fork-done = 已分叉：你现在位于新会话 { $id }。原会话 { $parent } 保持不变：/resume { $parent } 可回到它。两者各自独立继续。
tui-inspector-reason-rewind = 回退之后：请求重复了会话在那条提示时的前缀，缓存仍然有效
