# Elicitation (SPEC §15.2): an MCP server asks the user for input while it works.

## Why an answer cannot be submitted yet (shown under the field).
elicit-err-required = 必填。
elicit-err-too-short = 至少 { $min } 个字符。
elicit-err-too-long = 最多 { $max } 个字符。
elicit-err-email = 不是电子邮件地址（name@example.com）。
elicit-err-uri = 不是 URI（https://example.com）。
elicit-err-date = 不是日期（YYYY-MM-DD）。
elicit-err-date-time = 不是日期时间（2026-01-31T09:30:00Z）。
elicit-err-integer = 不是整数。
elicit-err-number = 不是数字。
elicit-err-min = 不能小于 { $min }。
elicit-err-max = 不能大于 { $max }。
elicit-err-min-items = 至少选择 { $min } 项。
elicit-err-max-items = 最多选择 { $max } 项。

## Why a request cannot be shown (it is declined).
elicit-bad-schema-no-properties = 其表单没有字段
elicit-bad-schema-too-many-fields = 其表单有 { $count } 个字段（最多显示 { $limit } 个）
elicit-bad-schema-required-missing = 它要求的字段“{ $field }”未加描述
elicit-bad-schema-field = 字段“{ $field }”：{ $why }
elicit-bad-schema-spec = 其表单不符合 MCP 规范
elicit-why-options = 其选项不是字符串列表
elicit-why-too-many-options = 它有 { $count } 个选项（最多显示 { $limit } 个）
elicit-why-format = 格式“{ $format }”无法在表单中校验
elicit-why-range = 其下限大于上限
elicit-why-type = 类型“{ $type }”无法在表单中显示
elicit-bad-url = 其 URL 不是普通的 http 或 https 地址
elicit-bad-mode = 它的询问方式本版本不支持

## Notices.
elicit-declined-unshowable = MCP 服务器 { $name } 请求的输入无法显示，已拒绝：{ $why }。
elicit-declined-exec = MCP 服务器 { $name } 请求输入；exec 无法询问，已拒绝：{ $message }
elicit-url-opened = 已在浏览器中打开 { $url }。
elicit-url-not-opened = 未设置浏览器（$BROWSER）；请自行打开：{ $url }
elicit-cancelled-closed = MCP 服务器 { $name } 的问题未回答即被关闭（已取消）。

## The form overlay.
elicit-form-title = { $name } 请求输入
elicit-url-title = { $name } 请你打开一个页面
elicit-url-question = 在浏览器中打开此页面吗？
elicit-submit = 提交
elicit-decline = 拒绝
elicit-cancel = 取消
elicit-required = 必填
elicit-yes = 是
elicit-no = 否
elicit-none-chosen = （未选择）
elicit-form-invalid = { $count ->
    [one] 有一个字段需要修改。
   *[other] 有 { $count } 个字段需要修改。
}
elicit-form-keys = Tab/↑↓ 字段 · ←→ 选择 · 空格 切换 · Enter 下一项/提交 · Esc 取消
elicit-url-keys = y 打开 · n 拒绝 · Esc 取消
