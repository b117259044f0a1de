# 沙箱第四轮加固（SPEC §15.5）：会话的私有临时目录、进程上限、关闭网络时的 Unix 套接字、Landlock 下的根目录。

sandbox-tmp-line = 临时文件：{ $dir }（$TMPDIR{ $mounted ->
    [yes] ，并挂载为 /tmp
   *[no] {""}
  }），本会话中沙箱内的命令共用，会话结束时删除。
sandbox-processes-line = 进程：每条命令及其子进程最多 { $max } 个（[sandbox] max_processes），{ $how ->
    [cgroup] 由 pids cgroup 计数
    [rlimit] 由进程数上限（RLIMIT_NPROC）计数
   *[none] 未实施
  }。
sandbox-limit-unix-sockets-refused =   关闭网络时不能创建任何 Unix 套接字，工作区中的也不行（socketpair 仍可用）：内核无法区分可写目录内外的套接字
sandbox-limit-processes-unenforced =   max_processes 未实施：deepterm 以 root 运行，内核对 root 不检查 RLIMIT_NPROC，且没有可写的 pids cgroup
sandbox-process-limit-hit = 一条命令达到了沙箱的进程上限（{ $max }，[sandbox] max_processes）：之后的 fork 都失败了。
sandbox-vcs-created = 一条命令创建了版本控制目录，沙箱无法事先保护它：其中的钩子和配置会在你下次在那里运行 git（或 hg、svn、jj）命令时以你的身份运行。详见该调用的结果。
