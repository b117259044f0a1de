# 所有路由上缓存优先（SPEC §15.1，决策 0120）。
cache-first-removal-free = 缓存：在 { $route } 上移除 { $tools } 不会使缓存前缀失效：该工具仍保留声明，模型会被告知它已不可用，调用它会得到错误。
cache-first-downgrade = { $route } 拒绝了工具变更块（{ $blocks }），本会话改为以文本发送这些变更；请求已重新发送。服务商的原话：{ $message }
cache-first-trajectory-downgrade = { $route } 拒绝了 { $blocks }：此后工具变更以文本发送（{ $message }）
cache-first-inspector-downgrade = 服务商拒绝了工具变更块，此后该路由以文本发送工具变更，同一份日志已重新发送（服务商的原话见轨迹面板）
cache-first-bridged-call = （经 call_tool 调用）
cache-first-config-non-negative = 必须是大于或等于 0 的整数（0 表示关闭）
