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
