# Why an MCP server failed (decision 0090): plain words, then what the server wrote to stderr.
mcp-err-exited = the server exited with status { $status }
mcp-err-signal = the server was ended by signal { $signal }
mcp-err-process-exited = the server process exited
mcp-err-command-not-found = the command "{ $command }" was not found
mcp-err-command-denied = the command "{ $command }" may not be run (permission denied)
mcp-err-cannot-start = cannot start "{ $command }" (detail: "{ $error }")
mcp-err-handshake = MCP handshake failed: { $why } (detail: "{ $detail }")
mcp-err-list-failed = tools/list failed: { $why } (detail: "{ $detail }")
mcp-err-no-answer = no answer within { $seconds } s
mcp-err-list-no-answer = tools/list: no answer within { $seconds } s
mcp-err-task-failed = the MCP connection task failed (detail: "{ $error }")
# Why a handshake or a listing failed; the MCP library's words follow as the quoted detail.
mcp-why-closed = the server closed the connection before answering
mcp-why-transport = a message could not be sent to the server
mcp-why-not-mcp = the server's answer is not a valid MCP reply
mcp-why-not-a-list = the answer is not a valid tool list
mcp-why-refused = the server answered with an error
mcp-why-version = the server speaks no MCP protocol version deepterm knows
mcp-why-timeout = the server did not answer in time
mcp-why-cancelled = it was cancelled
mcp-err-oversize = MCP server "{ $name }" sent a message of { $bytes } bytes, over the limit of { $limit } bytes (max_message_bytes)
mcp-err-gave-up = the server stopped { $count } times in a row within { $seconds } s of connecting, so it is not restarted again; /mcp connect { $name } tries again (last: { $last })
mcp-err-stderr = { $error } (stderr: { $stderr })
# Remote servers over Streamable HTTP and OAuth (SPEC §15.2).
mcp-err-needs-login = needs login · /mcp login { $name }
mcp-err-http-client = the HTTP client could not be set up (detail: "{ $error }")
mcp-err-bearer-unset = the environment variable { $var } named by bearer_token_env is not set
mcp-err-oauth = OAuth failed (detail: "{ $error }")
mcp-err-http-401 = the server requires authorization (HTTP 401): set auth = "oauth" in [mcp.servers.{ $name }] and run /mcp login { $name }, or give a token with bearer_token_env
mcp-err-http-403 = the server refused the credentials (HTTP 403, insufficient scope); /mcp login { $name } asks again
mcp-err-http-status = the server answered HTTP { $status }
mcp-err-http-html = the server answered with a web page (HTTP { $status }), not MCP: is { $url } its MCP endpoint?
mcp-err-http-html-type = the server answered with a web page ({ $type }), not MCP: is the url its MCP endpoint?
mcp-err-http-type = the server answered { $type }, not MCP (JSON or an event stream)
mcp-err-http-answer = the server's answer is not MCP (HTTP { $status }: { $detail })
mcp-err-tls = the secure connection to { $url } failed (TLS; detail: "{ $error }")
mcp-err-unreachable = cannot reach { $url } (detail: "{ $error }")
mcp-err-http-timeout = { $url } did not answer in time
mcp-err-http-other = the HTTP request failed (detail: "{ $error }")
mcp-login-not-oauth = MCP server { $name } does not use OAuth: /mcp login needs url = "…" and auth = "oauth" in [mcp.servers.{ $name }].
mcp-login-open = To log in to MCP server { $name }, open: { $url }
mcp-login-waiting = Waiting for the browser to come back to deepterm (at most { $seconds } s)…
mcp-login-done = Logged in to MCP server { $name }; the tokens are stored in { $path }.
mcp-login-failed = Login to MCP server { $name } failed: { $error }
mcp-login-timeout = the browser did not come back within { $seconds } s
mcp-login-denied = the authorization server refused ({ $error })
mcp-logout-done = Logged out of MCP server { $name }; its tokens were deleted.
mcp-logout-none = MCP server { $name } had no stored login.
mcp-logout-failed = The tokens of MCP server { $name } could not be deleted: { $error }
