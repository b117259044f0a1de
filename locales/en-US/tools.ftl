# Tool registry texts (/tools, /tool enable|disable).
tools-list-empty = No tools are registered.
tools-list-header-active = Active tools ({ $count }):
tools-list-header-disabled = Available but disabled ({ $count }):
tools-list-active = { $name } ({ $source })
tools-list-active-ask = { $name } ({ $source }, asks for approval)
tools-list-disabled = { $name } ({ $source }) — /tool enable { $name }
tools-source-builtin = built-in
tools-source-command = command
tools-source-mcp = MCP server { $server }
tools-enabled = Tool enabled: { $name }
tools-disabled = Tool disabled: { $name }
tools-already-enabled = Tool { $name } is already enabled.
tools-already-disabled = Tool { $name } is already disabled.
tools-error-unknown-name = There is no tool named "{ $name }"; /tools lists the available tools.

# MCP servers (/mcp, /mcp connect|disconnect NAME).
mcp-none-configured = No MCP servers are configured; add [mcp.servers.NAME] to the config file.
mcp-status-header = MCP servers ({ $count }):
mcp-status-line = { $name }: { $state }, { $count ->
    [one] 1 tool
   *[other] { $count } tools
}
mcp-status-line-bare = { $name }: { $state }
mcp-status-error =     last error: { $error }
mcp-status-mapped =     { $model } ← tool "{ $original }"
mcp-state-idle = not connected
mcp-state-connecting = connecting
mcp-state-connected = connected
mcp-state-disconnected = disconnected
mcp-state-reconnecting = disconnected, reconnecting
mcp-state-failed = failed
mcp-connected = MCP server { $name } connected ({ $count ->
    [one] 1 tool
   *[other] { $count } tools
}).
mcp-disconnected = MCP server { $name } disconnected; its tools were removed.
mcp-not-running = MCP server { $name } is not running.
mcp-connect-failed = MCP server { $name } could not be connected: { $error }
mcp-unknown-server = There is no MCP server named "{ $name }"; /mcp lists the configured servers.
mcp-connecting = Connecting MCP server { $name }…
tools-mapped-header = MCP tools renamed for the model (model name ← name on the server):

# hardening: mcp
tools-limit-dropped = { $count ->
    [one] 1 tool was
   *[other] { $count } tools were
} not declared to the model: a request may declare at most { $limit } tools (built-in and command tools come first). The model finds the rest with tool_search; not declared from { $sources }: { $names }

# Tool lists MCP servers send (decision 0033) and names two sources share (decision 0032).
mcp-tool-skipped-deep = MCP server { $name }: tool "{ $tool }" was left out: its definition is nested more than { $levels } levels deep.
mcp-tool-skipped-schema-size = MCP server { $name }: tool "{ $tool }" was left out: its input schema is { $bytes } bytes, over the limit of { $limit } KiB (every request would carry it).
mcp-tool-skipped-malformed = MCP server { $name }: tool "{ $tool }" was left out: it is not a valid MCP tool ({ $error }).
mcp-description-cut = MCP server { $name }: { $count ->
    [one] the description of { $tool } was
   *[other] { $count } tool descriptions were
} longer than { $limit } KiB and cut to that length (every request carries them).
tools-name-clash = Two tools are named { $name }: the one from { $kept } keeps the name and the one from { $hidden } is hidden. Calls of { $name } ask for approval if either tool would. Rename one of them.
mcp-refresh-failed = MCP server { $name } changed its tools, but its new tool list could not be read, so the previous tools stay: { $error }

# Subagents (the `task` tool, SPEC §15.3)
tui-task-running = running · { $agent } · step { $step }
tui-task-running-tool = running · { $agent } · step { $step } · { $tool }
tui-task-waiting = waiting for you · { $agent } · step { $step } · { $tool }
tui-trajectory-subagent = { $label } · cache hit { $hit } of { $total } tokens
