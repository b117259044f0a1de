# What a new user hit on day two: /status, /clear, /model, tool cards, rewinds (SPEC §14.2–§14.5).

## /status: what the agent may do, and how hard it thinks
status-mode = Sandbox mode: { $mode }; network { $network ->
    [on] on
   *[off] off
  }
status-approval = Approval policy: { $policy }
status-approval-none = Approval policy: none (this session has no acting tools)
status-effort = Effort: { $effort }
status-effort-default = Effort: the provider's default

## /clear empties the screen only
tui-chat-cleared = Screen cleared. The session and its history go on: the model still sees the whole conversation, Ctrl+T shows it, and new messages appear here.

## /model: routes without a key
cmd-model-choice-no-key = {"  "}{ $route }  (needs a key: set { $var })
cmd-model-choice-current-no-key = {"  "}{ $route }  (current; needs a key: set { $var }; the demo answers until then)

## A code rewind's files
tui-node-rewind-files = { $count ->
    [one] {" "}· 1 file put back
   *[other] {" "}· { $count } files put back
  }
rewind-files-restored = { $count ->
    [one] 1 file put back.
   *[other] { $count } files put back.
  }

## A shell card's status and duration, and refusals shown in tool cards
tui-shell-exit = exit status { $code }
tui-shell-signal = killed by signal { $signal }
tui-shell-timed-out = timed out after { $ms } ms; the command and every process it started were killed
tui-shell-duration = { $secs } s
tui-result-read-only = the sandbox mode is read-only: no file may be written (switch with /mode)
tui-result-hook-refused = a pre_tool_use hook refused this call: { $reason }
tui-result-outside = { $path } is outside the workspace and the writable roots
tui-result-protected = { $path } is protected ({ $protected } is never writable)
