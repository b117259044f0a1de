# 演示模拟器的回复（SPEC §9；跟随界面语言，§14.5）。
demo-results-intro = 工具返回了以下内容：
demo-result-line = { $lines } 行，{ $chars } 个字符。开头是：
demo-footer = deepterm 演示模拟器——没有真实模型参与。
demo-thinking-results = 工具已完成。我来简要总结它的输出。
demo-thinking-call = 用户提到了 { $tool }，而它正好可用。我将以 { $input } 调用它。
demo-call = 我来为你调用 { $tool }。
demo-no-tools = 目前没有可用的工具。
demo-tools-on-offer = 可用的工具：{ $tools }。提到其中一个的名字，我就会调用它。
demo-thinking-echo = 用户问的是：“{ $question }”。我是演示模拟器，所以我会复述问题，并说明我能做什么。
demo-hello = 你好，这里是 deepterm 演示模拟器！
demo-you-asked = 你的问题是：
demo-not-a-model = 我不是真实的模型，没法真正回答，但可以展示这个客户端如何工作：
demo-point-chunks = 回复会分成小块流式显示
demo-point-reasoning = 推理过程显示在回答之前
demo-label = 演示模拟器
demo-nothing-yet = 还没有可回答的内容——请发送一条用户消息。
