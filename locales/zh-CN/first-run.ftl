# 第一次运行（SPEC §15.4）：引导演示、命令行上的提示、文件夹信任。

## 引导演示的脚本代理（界面语言）。
demo-guided-thinking-read = 用户想修好失败的测试。改动之前，我先读测试和它检查的代码。
demo-guided-read = 我先看看测试和代码。
demo-guided-thinking-run = 现在在沙箱里用示例项目自己的命令跑测试。
demo-guided-run = 运行测试：`{ $command }`。
demo-guided-thinking-edit = test.sh 期望 `sub 7 4` 输出 3，但 `sub` 算的是 `$2 - $1`：两个操作数反了。
demo-guided-edit = 找到了：`calc.sh` 里的 `sub` 用第二个数减第一个数。我把两个操作数对调；卡片里有差异，等你允许。
demo-guided-edited = 已修改 `calc.sh`。现在跑测试：`{ $command }`。
demo-guided-already-fixed = `sub` 的减法顺序已经是对的。我跑一下测试确认。
demo-guided-thinking-passed = 所有测试都通过了。我说明改了什么，以及怎样撤回。
demo-guided-passed = 完成：`{ $command }` 现在通过了。`calc.sh` 里的 `sub` 按正确的顺序相减。查看或撤回这次改动：
demo-guided-way-diff = `/diff` 显示本会话改了什么
demo-guided-way-undo = `/undo` 把文件恢复到上一次改动之前
demo-guided-way-rewind = 按两次 Esc 选一条更早的消息回到那里，文件一起恢复
demo-guided-real-model = 这是内置演示。设置 `DEEPSEEK_API_KEY` 后重新启动 deepterm，即可让真正的模型处理你自己的项目。
demo-guided-thinking-failed = 测试跑完了，有一个失败。我来报告。
demo-guided-failed = `{ $command }` 已运行：{ $count } 个测试失败。
demo-guided-ask-fix = 让我**修复失败的测试**，我会提出一处修改。
demo-guided-declined = 你拒绝了 { $tool }，所以它没有运行，什么也没改。想试的时候再说一次。
demo-guided-edit-failed = 修改没有完成：{ $reason }。什么也没改。
demo-guided-can-show = 这个演示背后没有模型，所以我回答不了这个问题。我能展示的是像真正的代理那样完成一件任务，在一个小示例项目的副本里：让我**修复失败的测试**，看我读文件、提出修改等你允许、在沙箱里跑测试并报告。
demo-guided-connect = 要使用真正的模型，请设置 `DEEPSEEK_API_KEY` 后重新启动 deepterm。想自己编写回复脚本，运行 `deepterm sim --script replies.json`（见 README）。

## 演示的工作区。
first-run-demo-banner = 演示模式：内置模拟器，无需 API 密钥 · 工作目录 { $dir }
first-run-demo-workspace = 引导演示：在示例项目的副本 { $dir } 里工作；副本之外什么也不会改。试试“修复失败的测试”。
first-run-demo-copy-failed = 引导演示无法把示例项目复制到临时目录：{ $error }

## 命令行。
first-run-cli-prompt = 第一条消息：打开界面后立即发送
first-run-cli-exec-prompt = 要发送的那一条消息（“-”表示从标准输入读取）；可代替 --script
first-run-cli-no-project-files = 不加载此文件夹中的 AGENTS.md、项目命令和项目规则

## 文件夹信任。
first-run-trust-intro = 这个文件夹里有 deepterm 会加载为指令、命令和审批规则的文件：{ $folder }
first-run-trust-ask = 信任这个文件夹并加载它们吗？（只问一次）[y/N]
first-run-trust-trusted = 已信任：这些文件会被加载。
first-run-trust-untrusted = 未信任：这些文件不会被加载（/instructions 会把它们列为已跳过）。
first-run-trust-not-saved = 无法把回答记在 { $path }：{ $error }
first-run-instructions-skipped = 已跳过，文件夹未被信任：{ $path }
first-run-cli-arguments-heading = 参数
