# 配置错误与警告（SPEC §3）。
config-builtin-defaults = 内置默认配置
config-error-read = 无法读取配置文件 { $file }：{ $detail }
config-error-not-found = 配置文件 { $file } 不存在。
config-error-write = 无法写入配置文件 { $file }：{ $detail }
config-error-syntax = { $file } 第 { $line } 行第 { $column } 列：TOML 语法错误：{ $detail }
config-error-invalid = { $file }：`{ $key }` { $expected }
config-error-route-syntax = 模型路由“{ $spec }”无效：应为 提供方/模型，例如 deepseek/deepseek-flash。
config-error-unknown-provider = 路由“{ $spec }”中的提供方“{ $provider }”不存在。已配置的提供方：{ $available }。
config-error-missing-key = 提供方“{ $provider }”没有 API 密钥：请设置环境变量 { $var }。
config-warning-unknown-key = { $file }：已忽略未知的配置项 `{ $key }`。
config-warning-missing-instructions = { $file }：未找到指令文件“{ $path }”（`{ $key }`），已跳过。

config-type-string = 字符串
config-type-table = 表（table）
config-type-array = 数组
config-type-boolean = 布尔值（true 或 false）
config-type-integer = 整数
config-expected-type = 必须是{ $type }
config-expected-required = 是必填项
config-expected-provider-kind = 必须是“deepseek-messages”或“openai-chat”（实际为“{ $got }”）
config-expected-tool-update = 如果填写，必须是“in-history”“addition-only”或“none”（实际为“{ $got }”）
config-expected-system-prompt-update = 如果填写，必须是“in-history”或“none”（实际为“{ $got }”）
config-expected-approval = 必须是“ask”或“never”（实际为“{ $got }”）
config-expected-locale = 必须是“en-US”或“zh-CN”（实际为“{ $got }”）
config-expected-sandbox-mode = 必须是“read-only”、“workspace-write”或“full-access”（实际为“{ $got }”）
config-expected-sandbox-backend = 必须是“auto”、“bwrap”或“landlock”（实际为“{ $got }”）
config-expected-route = 必须是“提供方/模型”格式，例如“deepseek/deepseek-flash”（实际为“{ $got }”）
config-expected-known-provider = 必须指向已配置的提供方；“{ $provider }”不在其中（已配置：{ $available }）
config-expected-command = 必须是非空数组，第一个元素为要运行的程序
config-expected-non-empty = 不能为空
config-expected-positive = 必须是正整数
config-expected-name = 只能包含 1–64 个字母、数字、“_”或“-”（实际为“{ $got }”）
config-expected-server-name = 只能包含 1–64 个字母、数字、“_”或“-”，且不能含有“__”（实际为“{ $got }”）
config-expected-unique-model = 不能重复：模型“{ $id }”出现了两次
config-expected-unreserved-name = 不能与内置工具“{ $name }”重名
config-expected-no-modes = 不适用于 { $kind } 类型的提供方（它不声明任何更新模式），请删除此项
config-expected-parameters = 必须是“object”（工具参数是一个 JSON Schema 对象）

# hardening: config
config-unnamed = 配置
config-warning-unknown-key-suggest = { $file }：已忽略未知的配置项 `{ $key }`；你是不是想写 `{ $suggestion }`？
config-expected-url = 必须是带主机名的 http:// 或 https:// 地址，例如“https://api.deepseek.com”（实际为“{ $got }”）
config-expected-mcp-command-or-url = 必须且只能设置 command（由 deepterm 启动的服务器）或 url（通过 Streamable HTTP 连接的远程服务器）之一
config-expected-mcp-stdio-key = 只适用于用 command 启动的服务器，不适用于设置了 url 的服务器
config-expected-mcp-remote-key = 只适用于设置了 url 的远程服务器，不适用于用 command 启动的服务器
config-expected-mcp-auth = 必须是“oauth”（实际为“{ $got }”）
config-expected-header-name = 不是 deepterm 可以发送的请求头：“{ $got }”无效或由传输层自行设置（Authorization 请使用 bearer_token_env 或 auth = "oauth"）
config-expected-header-value = 含有 HTTP 请求头无法携带的字符
config-expected-env-name = 必须是环境变量名，例如 TRACKER_TOKEN（实际为“{ $got }”）
config-expected-bearer-or-oauth = 不能在设置 bearer_token_env 的同时设置 auth = "oauth"：请只选一种认证方式
config-error-base-url-arg = --base-url “{ $url }”无效：必须是带主机名的 http:// 或 https:// 地址，例如“https://api.deepseek.com”。
config-error-duplicate-key = { $file } 第 { $line } 行第 { $column } 列：TOML 语法错误：配置项 `{ $key }` 被重复定义，请只保留一处。

# issue 10: tool removal retain
config-expected-tool-removal = 如果填写，必须是“retain”（默认）或“rewrite”（实际为“{ $got }”）

# issue 13: cost
config-type-number = 数字
config-expected-price = 必须是不小于 0 的数字（单位：美元/百万 token）
config-expected-prices-complete = 缺失：模型条目要么同时设置 price_input_hit、price_input_miss 和 price_output 三项，要么一项都不设（沿用内置价格）

# deepterm 拒绝读取的文件（配置文件、指令文件）。
config-error-not-regular = 无法读取配置文件 { $file }：它是{ $kind }，不是普通文件。请让 --config 指向一个普通文件（指向普通文件的符号链接也可以）。
config-error-too-large = 无法读取配置文件 { $file }：文件大小为 { $size } 字节，配置文件最大为 { $mib } MiB。
config-instructions-outside = 未读取指令文件 { $path }：它实际指向 { $target }，不在工作区、配置文件所在目录或用户配置目录之内。
config-instructions-not-regular = 未读取指令文件 { $path }：它是{ $kind }，不是普通文件。
config-instructions-not-text = 未读取指令文件 { $path }：它是二进制文件或不是 UTF-8 文本。
config-instructions-missing = 未找到指令文件 { $path }，已跳过。
config-instructions-unreadable = 未读取指令文件 { $path }：{ $detail }
config-instructions-truncated = 指令文件 { $path } 大小为 { $size } 字节，只使用前 { $kib } KiB。
config-file-kind-directory = 目录
config-file-kind-fifo = 命名管道（FIFO）
config-file-kind-socket = 套接字
config-file-kind-block-device = 块设备
config-file-kind-char-device = 字符设备
config-file-kind-special = 特殊文件
