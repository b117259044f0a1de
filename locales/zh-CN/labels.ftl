# 轨迹中的步骤标签，位于“轮.步”列下（§14.5）。
tui-traj-step-label = { $turn }.{ $step }

# 请求检查器对请求差异位置的说明（§14.5），从 1 开始编号。
tui-inspector-appended-tools = 追加：工具列表新增第 { $index } 项（{ $name }），为延迟声明，服务商在缓存前缀之后读取它；前缀保持不变。
tui-inspector-appended-message = 追加：从第 { $index } 条消息起是新的历史；之前的前缀保持不变。
tui-inspector-diverges-message-n = 首个差异：第 { $index } 条消息（请求体第 { $offset } 字节）。
