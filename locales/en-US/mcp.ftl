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
