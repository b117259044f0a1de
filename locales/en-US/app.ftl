# Shared texts: tool-change notices (reference U-3/U-5), general words.
tool-added = Tool added: { $name }
tool-removed = Tool removed: { $name }
tools-updated = Tools updated
tools-changed = { $added } added, { $removed } removed
tools-added-count = { $count } added
tools-removed-count = { $count } removed
tools-no-net-change = no net change (changed and changed back)
tools-added-list = Added: { $names }
tools-removed-list = Removed: { $names }
context-injection = Context injection

# Agent loop notices.
agent-turn-cancelled = Turn cancelled.
agent-session-error = Session log error: { $error }
# What went wrong with the session log; the sink's or a rule's own text follows as the quoted detail.
session-error-invalid = an event broke a log rule (detail: "{ $detail }")
session-error-write = writing failed (detail: "{ $detail }")
session-error-sync = saving to disk failed (detail: "{ $detail }")
session-error-tool-history = the tool history does not add up (detail: "{ $detail }")
session-error-empty = the log is empty (no session/start)
session-error-redaction = a key value could not be taken out of an event (detail: "{ $detail }")
agent-too-many-steps = Stopped after { $count } steps in one turn.
agent-max-tokens = The reply was cut off at the output limit (max_tokens).

# Slash commands.
cmd-help-title = Commands:
cmd-help = Show commands and keys
cmd-model = Show the current route, or switch to another
cmd-tools = List active and available tools
cmd-tool = Enable or disable a tool
cmd-mcp = Show the MCP servers; connect, disconnect, log in to or log out of one
cmd-system = Show this session's extra instructions; clear clears them, TEXT replaces them
cmd-compact = Summarize the conversation so far to free context
cmd-lang = Switch the interface language
cmd-inspect = Compare the next request with the last one sent, or inspect request N
cmd-new = Start a new session
cmd-resume = List saved sessions, or resume one
cmd-quit = Quit
cmd-unknown = Unknown command { $command }. Type /help for the list.
cmd-lang-switched = Language switched to { $locale ->
    [zh-CN] 简体中文
   *[en-US] English
    }.
cmd-lang-not-saved = Language switched, but it could not be saved to the config: { $error }
cmd-system-set = Extra instructions set for this session; they apply from the next request.
cmd-system-cleared = Extra instructions cleared.
cmd-model-current = Current route: { $route }
cmd-model-switched = Route switched to { $route }.
cmd-model-failed = Cannot switch route: { $error }
cmd-model-choices = Routes you can switch to (/model PROVIDER/MODEL):
cmd-model-choice = {"  "}{ $route }
cmd-model-choice-current = {"  "}{ $route }  (current)
cmd-model-unknown = Cannot switch route: “{ $route }” is not in the catalog or the config, and its provider does not list it. Run /model to see the routes.
cmd-model-unchecked = Cannot switch route: “{ $route }” is not in the catalog or the config, and its provider's model list could not be read ({ $error }). Add it under [[providers.NAME.models]] in the config to use it.
cmd-tool-failed = { $error }
cmd-new-done = New session started.
cmd-resume-title = Saved sessions (newest first):
cmd-resume-done = Session resumed.
cmd-session-failed = Cannot open the session: { $error }

# Headless mode and start-up.
exec-bad-json-line = Script line { $line } starts with " but is not a valid JSON string: { $error }
exec-not-utf8 = The script is not valid UTF-8 (first bad byte at offset { $offset }).
exec-script-unreadable = Cannot read the script { $path }: { $error }
exec-session-info = session { $id }: { $path }
exec-tool-denied = Tool call { $tool } denied: exec answers approvals with --approve none by default (pass --approve all to allow).
exec-tool-denied-subagent = Tool call { $tool } of subagent { $agent } ({ $description }) denied: exec answers approvals with --approve none by default (pass --approve all to allow).
exec-no-key-hint = { $error } Or run `deepterm exec --demo` to try the built-in simulator without a key.
app-demo-no-key = Demo mode: { $var } is not set, so the built-in simulator answers instead of { $route }. Ignored: { $flags }.
app-demo-ignores = Demo mode: the built-in simulator answers. Ignored: { $flags }.
app-unknown-route = Unknown route “{ $route }”: it is not in the catalog or the config. Known routes: { $routes }. Add it under [[providers.NAME.models]] in the config to use it.
app-unknown-config-route = { $file }: model = “{ $route }” is not in the catalog or the config. Known routes: { $routes }. Add it under [[providers.NAME.models]] to use it.
app-session-invalid = The session { $path } cannot be loaded: { $error }
app-no-config-dir = No config directory is known on this system; pass --config to save settings.
app-client-failed = Cannot set up the HTTP client: { $error }
app-runtime-failed = Cannot start the async runtime: { $error }
app-sim-failed = Cannot start the built-in simulator: { $error }
app-ui-failed = The terminal interface stopped with an error: { $error }

# Compaction.
compact-nothing = Nothing to compact yet.
compact-done = Conversation compacted: the earlier part was replaced by a summary.
compact-failed = Compaction failed; the history is unchanged: { $message }
app-no-other-session = There is no other saved session to resume.
app-session-already-open = That session is the one open now.

# hardening: wire
agent-tool-ids-repaired = The provider sent tool calls with missing or duplicate ids; renamed: { $renamed }

# issue 10: exec waits for MCP servers
exec-mcp-failed = MCP server { $name } failed to start, so its tools are missing: { $error }
exec-mcp-timeout = MCP server { $name } was not connected after { $seconds } s, so its tools are missing from the first requests ([mcp] startup_wait_secs sets the wait).

# issue 10: command table and typed output
output-row = {"  "}{ $left }  { $right }
cmd-help-synopsis = { $name } { $args }
output-verbatim = { $text }

# issue 10: clean-ups
app-env-unsupported = Not available here.

# issue 12: /system shows and clears
cmd-system-current = Extra instructions for this session: { $text }
cmd-system-none = No extra instructions are set for this session; /system TEXT sets them.

# issue 12: slash popup and help
cmd-model-args = [PROVIDER/MODEL]
cmd-tool-args = enable|disable NAME
cmd-mcp-args = [connect|disconnect|login|logout NAME|resources [NAME]]
cmd-system-args = [clear|TEXT]
cmd-lang-args = en|zh
cmd-inspect-args = [N]
cmd-resume-args = [ID|last]
cmd-usage = Usage: { $command } { $args }

# issue 13: copy, mouse, notify
cmd-copy = Copy the last reply (or the Nth last) to the clipboard
cmd-copy-args = [N]
cmd-copy-needs-tui = /copy needs the terminal UI: it writes the reply to the terminal's clipboard.
cmd-clear = Clear the screen (the session and its log stay as they are)
cmd-status = Show the route, workspace, session, usage and MCP servers
cmd-cost = Show the session's tokens and cost, per route
cmd-clear-no-screen = /clear clears the terminal UI's screen; exec has none, so nothing was cleared.
status-title = Status
status-route = Route: { $route }
status-workspace = Workspace: { $path }
status-session = Session: { $id }
status-tokens = Tokens: { $input } input, { $cached } read from the cache, { $output } output
status-cost = Cost: { $cost }
status-cost-unpriced = Cost: unknown (no price for a route used)
status-cache = Cache hit: { $hit }%
status-cache-none = Cache hit: — (no requests yet)
status-usage-unknown = { $count ->
        [one] 1 request with unknown usage is not counted
       *[other] { $count } requests with unknown usage are not counted
    }
cost-title = Session cost
cost-none = No requests yet.
cost-route = { $route }: { $input } input, { $cached } cached, { $output } output · { $cost }
cost-route-unpriced = { $route }: { $input } input, { $cached } cached, { $output } output · no price known
cost-total = Total: { $cost }
cost-total-unpriced = Total: unknown (no price for a route used)
agent-startup-warning = { $text }
