# 审批策略与规则文件（SPEC §14.2）。
config-expected-approval-policy = 必须是“untrusted”、“on-request”或“never”（实际为“{ $got }”）
rules-error-io = 无法使用规则文件 { $file }：{ $detail }
rules-error-not-regular = 无法读取规则文件 { $file }：它是{ $kind }，不是普通文件。
rules-error-too-large = 无法读取规则文件 { $file }：规则文件最大为 { $kib } KiB。
rules-error-syntax = { $file }：TOML 格式无效：{ $detail }
rules-error-invalid = { $file }：`{ $key }` { $expected }
rules-error-changed = { $file } 在列出后已被修改：第 { $index } 条规则已不是显示的那条，因此未删除任何内容。请重新打开 /permissions。
rules-expected-rule-array = 必须是 [[rule]] 表的列表
rules-expected-prefix = 必须是由非空字符串组成的非空列表，每个词一个字符串（例如 git 和 push 两个词）
rules-expected-decision = 必须是“allow”、“prompt”或“forbidden”
rules-expected-required = 是必填项
rules-warning-project-allow = { $file }：第 { $index } 条规则（allow“{ $prefix }”）已忽略：项目的规则只能设为 prompt 或 forbidden。
rules-warning-unknown-key = { $file }：忽略未知键 `{ $key }`。
