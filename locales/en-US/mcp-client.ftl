# The rest of the MCP client (SPEC §15.2): tool annotations, results, resources, prompts,
# elicitation.

## Tool annotations: hints a server gives about its tools.
mcp-hint-read-only = read-only
mcp-hint-not-read-only = may change things
mcp-hint-destructive = destructive
mcp-hint-not-destructive = not destructive
mcp-hint-idempotent = idempotent
mcp-hint-not-idempotent = not idempotent
mcp-hint-open-world = open world
mcp-hint-closed-world = closed world
mcp-hints-join = { $a } · { $b }
tools-list-hints = {"    "}server says: { $hints }
approval-why-with-hints = { $why } The server describes it as: { $hints }.
approval-why-not-read-only = { $tool } asks: its server is trusted only for tools it annotates read-only (approval = "trust-read-only-hint"), and this one is not.
config-expected-mcp-approval = must be "ask", "never" or "trust-read-only-hint" (found "{ $got }")

## A running call's progress on its card.
tui-tool-progress-percent = { $percent }%
tui-tool-progress-count = { $done } done
tui-tool-running-progress = running · { $done }
tui-tool-running-progress-message = running · { $done } · { $message }

## /mcp resources [NAME]
mcp-resources-header = { $name }: { $count } resources and templates
mcp-resource-line = {"  "}{ $uri } · { $name } · { $mime }
mcp-resource-template-line = {"  "}{ $uri } (template) · { $name } · { $mime }
mcp-resources-more = {"  "}… only the first { $limit } are shown
mcp-resources-none = { $name }: no resources
mcp-resources-not-connected = { $name }: not connected (/mcp connect { $name })
mcp-resources-failed = { $name }: the resources could not be listed: { $error }
mcp-resources-timeout = { $name }: the resources could not be listed: no answer within { $seconds } s
mcp-resources-no-server = No MCP server is connected.
