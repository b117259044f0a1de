# DeepSeek 控制与项目感知（SPEC §14.4）：/effort、/instructions、/init，会话归属于工作区。

cmd-effort = 显示或设置推理强度：off、low、high 或 max
cmd-effort-args = [off|low|high|max]
cmd-effort-default = 服务商默认值
cmd-effort-current = 推理强度：{ $effort }（可选：{ $choices }）
cmd-effort-set = 推理强度：{ $effort }，从下一个请求起生效。已缓存的前缀保持不变。
cmd-effort-unknown = 未知的推理强度“{ $effort }”。{ $usage }
config-expected-effort = 必须是“off”“low”“high”或“max”（实际为“{ $got }”）
tui-footer-effort = 强度 { $effort }

cmd-instructions = 列出正在使用的指令文件（AGENTS.md 与 instructions.files）
cmd-instructions-title = 正在使用的指令文件（按模型读取的顺序）：
cmd-instructions-file = {"  "}{ $path }（{ $bytes } 字节）
cmd-instructions-none = 当前没有使用任何指令文件。可以在工作区放一个 AGENTS.md，或运行 /init 让模型来写。
cmd-instructions-problem = {"  "}{ $problem }

cmd-init = 让模型为这个工作区写一份 AGENTS.md
cmd-init-prompt = 请在这个工作区的根目录写一个 AGENTS.md 文件，供在此项目上工作的编程智能体阅读。先用工具了解项目：目录结构、构建与测试命令、代码风格，以及文件里能找到的各种约定。然后写一份简洁的 AGENTS.md，包括项目概览、如何构建和测试、代码风格，以及智能体不应做的事。如果已经有 AGENTS.md，请在保留仍然正确的内容的基础上改进它。除非项目明显以其他语言撰写文档，否则请用中文写。

resume-other-workspace = 这个会话属于工作区 { $workspace }，将在那里继续。
resume-workspace-missing = 这个会话属于工作区 { $workspace }，但该目录已不存在；将在 { $here } 继续。

tui-reasoning-streaming = 思考中…
tui-reasoning-collapsed = ▸ 思考了 { $secs } 秒
tui-reasoning-expanded = ▾ 思考了 { $secs } 秒
