# The sandbox's fourth round (SPEC §15.5): the session's private temporary directory, the
# process limit, Unix sockets with the network off, the Landlock root.

sandbox-tmp-line = Temporary files: { $dir } ($TMPDIR{ $mounted ->
    [yes] , mounted as /tmp
   *[no] {""}
  }), shared by this session's sandboxed commands and deleted when the session ends.
sandbox-processes-line = Processes: at most { $max } per command and its children ([sandbox] max_processes), { $how ->
    [cgroup] counted by a pids cgroup
    [rlimit] counted by the process limit (RLIMIT_NPROC)
   *[none] NOT enforced
  }.
sandbox-limit-unix-sockets-refused =   with the network off, no Unix socket can be created, not even one in the workspace (socketpair still works): the kernel cannot tell a socket inside the writable roots from one outside
sandbox-limit-processes-unenforced =   max_processes is not enforced: deepterm runs as root, where the kernel ignores RLIMIT_NPROC, and no pids cgroup is writable
sandbox-process-limit-hit = A command reached the sandbox's process limit ({ $max }, [sandbox] max_processes): its further forks failed.
sandbox-vcs-created = A command created a version-control directory, which the sandbox could not protect in advance: its hooks and config would run as you at the next git (or hg, svn, jj) command there. See the call's result.
