# The sandbox mode, approvals and the acting tools (SPEC §14.1, §14.2).

cmd-mode = Show or switch the mode: workspace-write, plan (read-only, the model proposes a plan), read-only or full-access (Shift+Tab cycles workspace-write → plan → read-only)
cmd-mode-args = [MODE]
cmd-mode-current = Sandbox mode: { $mode }; network { $network ->
    [on] on
   *[off] off
  }. Choices: workspace-write, plan, read-only, full-access.
cmd-mode-unknown = Unknown mode “{ $given }”: use workspace-write, plan, read-only or full-access.
cmd-mode-same = The sandbox mode is already { $mode }.
cmd-mode-set = Sandbox mode: { $mode }. The model is told from the next request.

tui-footer-mode = { $mode ->
    [read-only] read-only
    [workspace-write] workspace-write
    [plan] plan
   *[full-access] full-access
  }{ $network ->
    [on] {" "}· net on
   *[off] {""}
  }
tui-mode-confirm-full = Leave the sandbox for full-access (every call asks)? y: switch · other key: stay
tui-help-mode = Switch the mode: workspace-write → plan → read-only → workspace-write (full-access: /mode full-access)
tui-approval-reason = Why deny? (optional, sent to the model) { $reason }▏ · Enter deny · Esc deny without a reason
tui-approval-denied-reason = Denied by you: { $reason }
tui-shell-where-sandboxed = in { $dir } · sandboxed
tui-shell-where-unsandboxed = in { $dir } · NOT sandboxed: runs as you
tui-shell-justification = Why: { $why }
tui-diff-more = … { $count } more diff lines
tui-edit-added = Added { $path }
tui-edit-edited = Edited { $path }
tui-edit-deleted = Deleted { $path }
tui-edit-moved = Moved { $path }
tui-edit-diff-cut = … the diff was cut in the log; the file itself is whole
cmd-sandbox = Show the sandbox: mode, backend and why, writable roots, protected paths
cmd-permissions = List saved rules and this session's grants; revoke N revokes one
cmd-permissions-args = [revoke N]
sandbox-mode-line = Sandbox mode: { $mode }; network { $network ->
    [on] on
   *[off] off
  }.
sandbox-backend-line = Backend: { $backend } (backend = "{ $choice }").
sandbox-backend-none = No backend can enforce the sandbox (backend = "{ $choice }"): { $why }. Sandboxed commands run nothing.
sandbox-writable-title = Writable:
sandbox-protected-title = Protected (never writable):
sandbox-limits-title = Not covered by this backend:
sandbox-item =   { $item }
sandbox-not-set-up = This session has no sandbox (the acting tools are not set up).
permissions-none = This session has no approval rules (the acting tools are not set up).
permissions-policy = Approval policy: { $policy }.
permissions-empty = No saved rules and no grants in this session.
permissions-entry = { $n }. { $text }
permissions-revoke-hint = /permissions revoke N revokes entry N.
permissions-revoked = Revoked entry { $n }.
permissions-not-revocable = Entry { $n } is a project rule: change it in the project's .deepterm/rules.toml.
permissions-revoke-failed = Entry { $n } could not be revoked (the rules file changed since it was listed; list again).
permissions-no-such = There is no entry { $n }; /permissions lists them.
sandbox-denied-call = A shell command failed in a way that looks like a sandbox denial (mode { $mode }); see /sandbox for what is writable.
sandbox-limit-hard-link =   a file hard-linked into a writable root from a protected path before the command started stays writable through that link
sandbox-limit-symlink =   a protected path that is a symlink (a .git symlink) can be removed and replaced; what it points to stays protected
sandbox-limit-landlock-root =   entries directly in a directory that holds a protected path (the workspace root) cannot be created, removed or renamed; existing files there stay writable
sandbox-limit-landlock-tmp =   /tmp is not private: TMPDIR points to a private directory, and writes to /tmp itself are refused
sandbox-limit-landlock-setsid =   setsid and setpgid are refused, so programs that start a new session fail
sandbox-limit-landlock-abstract =   abstract Unix sockets and signals are not scoped (Landlock ABI { $abi } < 6)
