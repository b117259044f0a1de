# 可能使缓存失效的操作之前的提示（§14.5，决策 0091）。每条一行。
cache-cost-removal-rewrites = 缓存：在 { $route } 上移除 { $tools } 会改写历史，下一个请求将重新发送约 { $tokens } 个未缓存的 token；从此模型的条目中删去 tool_removal = "rewrite"（默认为 retain）可保住缓存前缀。
cache-cost-removal-tool-list = 缓存：{ $route } 在开头声明全部工具，移除 { $tools } 会改变工具列表，下一个请求将重新发送约 { $tokens } 个未缓存的 token；从此模型的条目中删去 tool_removal = "rewrite"，即可通过工具桥保住缓存前缀。
cache-cost-model-switch = 缓存：每个模型的缓存各自独立，切换到 { $route } 后，下一个请求将重新发送约 { $tokens } 个未缓存的 token；在长对话开始前或 /compact 之后切换，代价更小。
