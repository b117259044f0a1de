# 检查点的终端界面部分（SPEC §14.3）：/diff 视图、回退选择器、Chat 中检查点、撤销与回退的
# 节点、轨迹中的已回退标记、会话选择器中的分叉。

tui-diff-keys = ↑/↓ PgUp/PgDn 滚动 · Esc 关闭
tui-rewind-keys = ↑/↓ 移动 · Enter 选择 · Esc 关闭
tui-rewind-keys-scope = ↑/↓ 移动 · Enter 回退 · Esc 返回
tui-rewind-hint = 再按一次 Esc 可回退到之前的某条提示。

tui-help-rewind = 输入框为空时：回退到之前的某条提示
tui-help-diff = 在 /diff 视图中：滚动，关闭（Esc）
tui-help-rewind-picker = 在回退选择器中：移动，选择（Enter），返回（Esc）

tui-node-checkpoint = ◇ 第 { $n } 条提示之前的检查点 · 保存了 { $files } 个文件
tui-node-checkpoint-skipped = {"  "}未保存（超过大小上限）：{ $path }
tui-node-undo = ↶ 已撤销第 { $n } 条提示 · 恢复了 { $count } 个文件
tui-node-undo-conflicts = ，{ $count } 个冲突文件保持原样
tui-node-restored = {"  "}已恢复：{ $path }
tui-node-conflict = {"  "}冲突，未改动：{ $path }
tui-node-rewind = ↶ 已回到第 { $n } 条提示（“{ $prompt }”）之前 · { $scope }

tui-traj-rewound = ↶ 已回退
tui-resume-fork = ⑂ 分叉自 { $parent }
