store-io = 无法使用会话文件 { $path }：{ $error }
store-locked = 会话 { $path } 已在另一个 deepterm 进程中打开，请先在那里关闭。
store-corrupt = 会话文件 { $path } 第 { $line } 行已损坏：{ $error }。文件未作任何修改。
store-not-found = 在 { $dir } 中找不到与“{ $query }”匹配的会话。
store-ambiguous = “{ $query }”匹配多个会话：{ $candidates }。请提供更完整的 ID。
store-torn-tail = 会话最后一行（第 { $line } 行，{ $bytes } 字节）不完整，可能是程序崩溃所致；已将其截除并保存到 { $saved }。

# hardening: session store
store-not-a-directory = 会话目录 { $path } 不是目录。请用 --session-dir 指定一个目录。
