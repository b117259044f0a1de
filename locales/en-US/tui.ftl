# Terminal UI (SPEC §10).
tui-demo-banner = Demo mode: built-in simulator, no API key
tui-pane-chat = Chat
tui-pane-trajectory = Trajectory
tui-chat-empty = No messages yet. Type below and press Enter; ? shows the keys.
tui-composer-placeholder = Ask anything, / for commands
tui-role-user = You
tui-role-assistant = Assistant
tui-thinking-collapsed = ▸ Thinking ({ $lines ->
    [one] { $lines } line
   *[other] { $lines } lines
})
tui-thinking-expanded = ▾ Thinking
tui-interrupted = (interrupted)
tui-tool = Tool
tui-tool-running = running
tui-tool-done = done
tui-tool-failed = failed
tui-more-lines = … { $count ->
    [one] { $count } more line
   *[other] { $count } more lines
}
tui-approval-title = Allow { $tool }?
tui-approval-keys = [y] allow  [a] always allow  [n] deny
tui-approval-prompt = Approval needed: y allow · a always · n / Esc deny
tui-approval-allowed = Allowed
tui-approval-always = Always allowed for this session
tui-approval-denied = Denied
tui-checkpoint = earlier context was compacted
tui-jump-latest = ↓ Not following · End jumps to the latest
tui-cards-collapsed = cards: collapsed
tui-cards-expanded = cards: expanded
tui-cards-hidden = cards: hidden
tui-paste-placeholder = [Pasted { $lines ->
    [one] { $lines } line
   *[other] { $lines } lines
}]
tui-phase-idle = Idle
tui-phase-waiting = Waiting for the model
tui-phase-thinking = Thinking
tui-phase-responding = Responding
tui-phase-tools = Running tools
tui-phase-compacting = Compacting
tui-status-idle-hint = ? for keys · / for commands
tui-status-cancel-hint = Esc cancels
tui-status-queued = { $count } queued
tui-footer-no-route = no route
tui-footer-context = context { $pct }%
tui-hit = hit { $pct }%
tui-quit-hint = Press Ctrl+C again to quit.
tui-mcp-connecting = connecting
tui-mcp-connected = connected
tui-mcp-disconnected = disconnected
tui-mcp-failed = failed
tui-mcp-tools = { $count ->
    [one] { $count } tool
   *[other] { $count } tools
}
tui-traj-cancelled = turn { $turn } cancelled
tui-traj-error = turn { $turn } ended with an error
tui-traj-retried = retried
tui-traj-compaction = context compacted ({ $trigger })
tui-traj-compaction-request = compaction summary
tui-help-title = Keys
tui-help-send = Send the message (or run the command)
tui-help-newline = New line
tui-help-history = Previous / next message on the first / last line
tui-help-commands = Slash commands (fuzzy filter, Tab completes)
tui-help-focus = Move focus: composer → Chat → Trajectory
tui-help-select = In Chat: select a node, Enter / Space expands it
tui-help-scroll = Scroll the focused pane
tui-help-cards = Tool cards: collapsed → expanded → hidden
tui-help-toggle-tools = Expand / collapse the latest tool change
tui-help-cancel = Cancel the running turn
tui-help-quit = Quit when idle (or /quit)
tui-help-approve = Answer an approval: allow, always, deny
tui-help-lang = Switch language (English / 中文)
tui-help-help = This help
tui-help-close = Press any key to close
tui-table-pending = table …

## Request inspector (/inspect)
tui-inspector-title = Request inspector
tui-inspector-request = Request #{ $n }
tui-inspector-next = Next request (not sent yet)
tui-inspector-none = (no earlier request)
tui-inspector-reason = Why: { $reasons }
tui-inspector-system-line = System: { $text }
tui-inspector-tools = Tools
tui-inspector-no-tools = (none)
tui-inspector-messages = Messages
tui-inspector-deferred = deferred
tui-inspector-no-previous = No earlier request to compare with.
tui-inspector-identical = The request bodies are byte-identical.
tui-inspector-diverges = Bodies first differ at byte { $offset }.
tui-inspector-diverges-message = Bodies first differ at byte { $offset } (messages[{ $index }]).
tui-inspector-hint = ↑/↓ PgUp/PgDn scroll · Esc/q close
tui-inspector-usage = Usage: /inspect [REQUEST-NUMBER]
tui-inspector-failed = Cannot inspect the request: { $error }
tui-inspector-reason-first = first request
tui-inspector-reason-tool-addition = tool addition appended
tui-inspector-reason-tool-removal = tool removal appended
tui-inspector-reason-prompt-update = prompt update appended
tui-inspector-reason-consolidation = consolidation (system prompt replaced at the head)
tui-inspector-reason-new-series = new series
tui-inspector-reason-removal-addition-only = removal on an addition-only route (history rewritten, cache prefix lost) — tool_removal = "retain" would have kept it
tui-inspector-reason-route-changed = route changed
tui-inspector-reason-history = history appended
tui-inspector-reason-identical = no change

# Trajectory badges.
tui-badge-turn = TURN { $turn }
tui-badge-end = END
tui-badge-route = ROUTE
tui-badge-req = REQ
tui-badge-tool = TOOL
tui-badge-context = CONTEXT
tui-badge-mcp = MCP
tui-badge-fail = FAIL
tui-badge-compact = COMPACT

# issue 10: command table and typed output
tui-help-commands-title = Slash commands

# issue 10: tool removal retain
tui-inspector-reason-removal-retained = tool removal on an addition-only route with tool_removal = "retain" (declaration kept, prefix unchanged)

# issue 11: event loop
tui-task-panicked = Internal error in { $task }: { $message }

# issue 11: components and keymap
tui-help-edit = Edit: move the caret, delete; Home / End scroll Chat when empty
tui-help-clear = Clear the composer
tui-help-traj-select = In Trajectory: select a request
tui-help-inspect = In Trajectory: inspect the selected request
tui-help-inspector-scroll = In the inspector: scroll
tui-help-inspector-close = Close the inspector
tui-help-mouse = Wheel scrolls the pane under the pointer, a click expands a Chat node
tui-key-mouse = Mouse
tui-key-any = Any key
# issue 11: cells
tui-attempt-retrying = attempt { $attempt } failed — retrying
tui-attempt-failed = attempt { $attempt } failed
# issue 12: nodes and resume
tui-node-source = Source: { $source }
tui-node-no-description = (no description)
tui-node-added = Added
tui-node-removed = Removed
tui-turn-failed = The turn failed.
tui-resume-hint = Resume with: deepterm --resume { $id }
tui-help-node-legend = Tool-change nodes: ◆ one tool, ▸ several (Enter expands), ▾ expanded
