store-io = 无法使用会话文件 { $path }：{ $error }
store-locked = 会话 { $path } 已在另一个 deepterm 进程中打开，请先在那里关闭。
store-corrupt = 会话文件 { $path } 第 { $line } 行已损坏：{ $error }。文件未作任何修改。
store-not-found = 在 { $dir } 中找不到与“{ $query }”匹配的会话。
store-ambiguous = “{ $query }”匹配多个会话：{ $candidates }。请提供更完整的 ID。
store-torn-tail = 会话最后一行（第 { $line } 行，{ $bytes } 字节）不完整，可能是程序崩溃所致；已将其截除并保存到 { $saved }。

# hardening: session store
store-not-a-directory = 会话目录 { $path } 不是目录。请用 --session-dir 指定一个目录。

# the session directory may hold anything
store-not-a-file = 会话 { $path } 不是普通文件（而是目录、管道或设备），无法作为会话打开。
store-newer-format = 会话文件 { $path } 由更新版本的 deepterm 写入（格式 { $found }）；当前版本只能读取格式 { $supported }。请升级 deepterm 后再打开。文件未作任何修改。
