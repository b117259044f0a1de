# 会话日志校验与持久化（原因文本保持英文，放在本地化的外框中）。
session-invalid-event = 会话日志中序号为 { $seq } 的事件无效：{ $reason }
session-rejected-event = 无法记录会话事件：{ $reason }
session-write-failed = 无法写入会话日志：{ $reason }
