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
mcp-prompt-no-args = it takes no arguments
mcp-prompt-bad-arg = { $command }: “{ $word }” is not ARG=VALUE. It accepts: { $accepted }
mcp-prompt-unknown-arg = { $command } has no argument “{ $arg }”. It accepts: { $accepted }
mcp-prompt-missing-args = { $command } needs { $count ->
    [one] the argument
   *[other] the arguments
} { $names }. Usage: { $command } { $accepted }
mcp-prompt-not-connected = { $command }: the MCP server { $name } is not connected (/mcp connect { $name })
mcp-prompt-failed = { $command }: the server could not give the prompt: { $error }
mcp-prompt-timeout = { $command }: the server did not give the prompt within { $seconds } s
mcp-prompt-cancelled = { $command }: cancelled; the server was told to stop preparing the prompt
mcp-prompt-empty = { $command }: the prompt has no text to send
mcp-prompts-skipped = { $name }: { $count ->
    [one] a prompt was
   *[other] { $count } prompts were
} left out (a name must be at most { $limit } letters, digits, _, - or .): { $prompts }
mcp-catalog-failed = { $name }: { $what } failed: { $error }
mcp-resource-read-failed = { $name }: the resource { $uri } could not be read: { $error }
mcp-resource-read-timeout = { $name }: the resource { $uri } was not read within { $seconds } s
mcp-resource-read-cancelled = { $name }: reading the resource { $uri } was cancelled; the server was told to stop
cmd-prompts-help-title = Server prompts:
cmd-prompt-no-description = MCP server prompt
