# Terminal UI (SPEC §10).
tui-demo-banner = Demo mode: built-in simulator, no API key
tui-pane-chat = Chat
tui-pane-trajectory = Trajectory
tui-chat-empty = No messages yet. Type below and press Enter; ? shows the keys.
tui-chat-empty-quit = Ctrl+D on an empty composer, or /quit, quits.
tui-chat-empty-quit-one-pane = Tab twice shows the Trajectory; Ctrl+D on an empty composer, or /quit, quits.
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
tui-approval-title-subagent = Allow { $tool } for subagent { $agent } ({ $description })?
tui-approval-keys = [y] allow  [a] always, this session  [n] deny with a reason  [Esc] deny — the turn goes on
tui-approval-prompt = y allow · a always (this session) · n deny, say why · Esc deny
tui-approval-allowed = Allowed
tui-approval-always = Always allowed for this session
tui-approval-denied = Denied by you
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
tui-phase-asking-server = Waiting for the MCP server
tui-status-idle-hint = ? for keys · / for commands
tui-status-cancel-hint = Esc cancels
tui-status-queued = { $count } queued
tui-footer-no-route = no route
tui-footer-context = context { $pct }%
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
tui-traj-compaction = context compacted ({ $trigger ->
    [manual] /compact
   *[auto] the window was nearly full
    })
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
tui-help-transcript = Transcript: the whole conversation with reasoning and tool output in full
tui-help-transcript-keys = In the transcript: scroll, close (Esc)
tui-help-transcript-close = In the transcript: close it again
tui-transcript-title = Transcript
tui-transcript-keys = ↑/↓ PgUp/PgDn scroll · Esc or Ctrl+T close
tui-help-cancel = Cancel the running turn
tui-help-quit = Quit when idle (or /quit)
tui-help-approve = Allow, always allow, deny (turn goes on)
tui-help-lang = Switch language (English / 简体中文)
tui-help-help = This help
tui-help-close = Press any key to close
tui-table-pending = table …

## Request inspector (/inspect)
tui-inspector-title = Request inspector
tui-inspector-request = Request #{ $n }
tui-inspector-subagent-request = Subagent request { $label }
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
tui-inspector-hint = ↑/↓ PgUp/PgDn scroll · Esc/q close
tui-inspector-usage = Usage: /inspect [REQUEST-NUMBER]
tui-inspector-failed = Cannot inspect the request: { $error }
inspect-no-request = no request #{ $n }
inspect-no-subagent-request = no subagent request { $label }
inspect-no-context = request #{ $n } has no route record before it in the log
inspect-unknown-provider = the log names an unknown provider “{ $provider }”
tui-inspector-reason-first = first request
tui-inspector-reason-tool-addition = tool addition appended
tui-inspector-reason-tool-removal = tool removal appended
tui-inspector-reason-prompt-update = prompt update appended
tui-inspector-reason-consolidation = consolidation (system prompt replaced at the head)
tui-inspector-reason-removal-addition-only = removal on an addition-only route (history rewritten, cache prefix lost) — tool_removal = "retain" would have kept it
tui-inspector-reason-history = history appended
tui-inspector-reason-identical = no change

# Trajectory badges.
tui-badge-turn = TURN { $turn }
tui-badge-end = END
tui-badge-route = ROUTE
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
tui-help-line = Start / end of the line; pressed there, of the whole draft
tui-help-word = Move one word left / right
tui-help-kill-word = Delete the word before the caret (Ctrl+W: back to a space)
tui-help-kill = Cut to the end / start of the line (Ctrl+C clears the draft, ↑ brings it back)
tui-help-yank = Paste back the text cut last
tui-help-eof = Delete after the caret; on an empty composer, quit
tui-unknown-command = Unknown command { $command }: it stays in the composer to correct. Type /help for the list.
tui-help-traj-select = In Trajectory: select a request
tui-help-inspect = In Trajectory: inspect the selected request
tui-help-inspector-scroll = In the inspector: scroll
tui-help-inspector-close = Close the inspector
tui-help-mouse = Wheel scrolls the pane under the pointer, a click expands a Chat node
tui-key-mouse = Mouse
tui-key-any = Any key
# issue 11: cells

# issue 12: cache breaks and the Trajectory
tui-footer-hit-session = session hit { $pct }%
tui-footer-hit-last = last { $pct }%
tui-traj-col-number = #
tui-traj-col-step = step
tui-traj-col-ttft = TTFT
tui-traj-col-total = total
tui-traj-col-in = ↑in
tui-traj-col-cached = ⟳cache
tui-traj-col-out = ↓out
tui-traj-col-hit = hit
tui-traj-col-summary = summary
tui-traj-empty = No requests yet. Each model request will appear here with its timing, tokens and cache hit; select one and press Enter to inspect it.
tui-traj-break = cache break: { $reason }
tui-traj-break-tools-removal = tools changed ({ $removed ->
        [0] { $added } added
       *[other] { $added ->
            [0] { $removed } removed
           *[other] { $added } added, { $removed } removed
        }
    }): removal on an addition-only route
tui-traj-break-tools = tools changed ({ $removed ->
        [0] { $added } added
       *[other] { $added ->
            [0] { $removed } removed
           *[other] { $added } added, { $removed } removed
        }
    })
tui-traj-break-prompt = system prompt changed
tui-traj-break-model = model changed
tui-traj-break-route = route settings changed
tui-traj-break-header = request settings changed (new series)
tui-traj-break-compaction = context compacted
tui-traj-break-unexplained = request unchanged; the provider's cache expired or was evicted
tui-inspector-diverges-tools = First difference: the tool list, entry { $index } ({ $name }); tools come before the system prompt and the messages.
tui-inspector-diverges-system = First difference: the system prompt (the tool lists are the same).
tui-help-legend-title = Trajectory columns
tui-help-legend-step = turn 1, step 2 (each step is one model request)
tui-help-legend-ttft = time to first token, and the whole request's duration
tui-help-legend-tokens = uncached input ↑, cache-read input ⟳, output ↓ (also in the footer)
tui-help-legend-hit = cache hit: green ≥ 90 %, yellow 50–89 %, red < 50 %
tui-help-legend-break = cache break: read less than the previous request's prefix; the reason is below the row
tui-key-legend-durations = TTFT / total
tui-key-legend-hit = hit

# issue 12: slash popup and help
tui-help-complete = Slash popup: Tab completes; Enter runs the command, or completes one that needs arguments
tui-help-help-scroll = In this help: scroll
tui-help-close-scroll = ↑/↓, PgUp/PgDn, Home/End scroll; any other key closes
tui-help-position = { $first }–{ $last } of { $total }
tui-user-collapsed = ▸ { $hidden ->
    [0] long lines cut (Enter expands)
    [one] { $hidden } more line (Enter expands)
   *[other] { $hidden } more lines (Enter expands)
}
tui-user-expanded = ▾ { $lines ->
    [one] { $lines } line
   *[other] { $lines } lines
} (Enter collapses)
tui-queued-item = ↳ queued: { $text }
tui-queued-more = … { $count } more queued

# issue 12: approvals
tui-tool-waiting = waiting for you
tui-tool-denied = not run
tui-phase-awaiting-approval = Waiting for you
tui-status-paused = { $secs }s paused
tui-status-approval-hint = y once · a: see card · n / Esc deny, turn goes on
tui-tool-queued = queued

# issue 12: nodes and resume
tui-node-source = Source: { $source }
tui-node-no-description = (no description)
tui-node-added = Added
tui-node-removed = Removed
tui-turn-failed = The turn failed.
tui-resume-hint = Resume with: { $command }
tui-help-node-legend = Tool-change nodes: ◆ one tool, ▸ several (Enter expands), ▾ expanded

# issue 12: Chinese and labels
tui-key-mode-in-history = in-history
tui-key-mode-addition-only = addition-only
tui-help-legend-in-history = route mode: tool changes are written into the history in place (cache kept)
tui-help-legend-addition-only = route mode: tools can only be added at the end; a removal rewrites the history and loses the cache unless tool_removal = "retain"
tui-inspector-role-user = user
tui-inspector-role-assistant = assistant
tui-inspector-role-system = system
tui-inspector-role-tool = tool

# issue 13: cost
tui-footer-cost = cost { $cost }
tui-traj-col-cost = cost
tui-key-legend-cost = cost
tui-help-legend-cost = the request's cost in US dollars at its model's prices (built-in, or price_* in the config); the footer shows the session's total
tui-inspector-cache-saved = cache saved { $cost } on { $tokens } cached tokens
tui-footer-cost-at-least = cost ≥{ $cost }
tui-footer-context-unknown = context ?
tui-traj-usage-unknown = ?
tui-inspector-usage-unknown = usage unknown (the provider reported impossible numbers)

# issue 13: history search and external editor
tui-help-history-search = Search the messages of all sessions (type to narrow, Ctrl+R older, Enter takes, Esc leaves)
tui-help-external-editor = Edit the draft in $VISUAL / $EDITOR
tui-history-search = (reverse-i-search) `{ $query }`:
tui-history-search-failed = (failing reverse-i-search) `{ $query }`:
tui-history-reading = reading history… ({ $count ->
    [one] 1 session
   *[other] { $count } sessions
} so far)
tui-editor-spawn-failed = Could not start the editor “{ $command }”: { $error }. The draft is unchanged.
tui-editor-failed = The editor “{ $command }” failed ({ $status }). The draft is unchanged.
tui-editor-file-failed = Could not pass the draft to the editor: { $error }. The draft is unchanged.

# issue 13: copy, mouse, notify
tui-copy-done = Copied reply #{ $n } ({ $chars } characters)
tui-copy-nothing = Nothing to copy yet: no reply in this session.
tui-copy-no-such = There is no reply #{ $n } to copy.
tui-footer-mouse-scroll = mouse: scroll
tui-footer-mouse-select = mouse: select
tui-help-mouse-toggle = Mouse capture on / off (off: the terminal's own text selection works)
tui-notify-turn-finished = deepterm: turn finished
tui-notify-turn-finished-reply = deepterm: turn finished — { $reply }

# issue 13: resume picker
tui-resume-title = Resume a session
tui-resume-filter = Filter:
tui-resume-keys = Type to filter · ↑/↓ PgUp/PgDn move · Enter resume · Esc close
tui-resume-count = { $shown } of { $total }
tui-resume-stats = { $count ->
    [one] 1 message
   *[other] { $count } messages
} · { $size }
tui-resume-stats-at-least = { $count ->
    [one] at least 1 message
   *[other] at least { $count } messages
} · { $size }
tui-resume-no-prompt = (no message yet)
tui-resume-empty = No other saved session has messages.
tui-resume-no-match = No session matches “{ $filter }”.
tui-help-resume-move = In the session picker: move; type to filter, Backspace deletes
tui-help-resume-open = In the session picker: resume the highlighted session (Enter) or close (Esc)

# issue 13: @ mentions
tui-help-mention = At a word start: workspace-file popup (Tab/Enter completes); attached on send
tui-attachment = ▸ @{ $path } · { $lines ->
    [one] 1 line
   *[other] { $lines } lines
}
tui-attachment-truncated = ▸ @{ $path } · { $lines ->
    [one] 1 line
   *[other] { $lines } lines
} (cut at { $kib } KiB of { $total } KiB)
tui-attachment-expanded = ▾ @{ $path } (Enter collapses)
tui-attachment-outside = ▸ @{ $path } · not attached: outside the workspace
tui-attachment-binary = ▸ @{ $path } · not attached: binary or not UTF-8
tui-attachment-not-regular = ▸ @{ $path } · not attached: not a regular file
tui-attachment-unavailable = ▸ @{ $path } · not attached: the MCP server could not give it
tui-status-reconnecting = reconnecting { $attempt }/{ $max } · { $cause } · next try in { $seconds } s
