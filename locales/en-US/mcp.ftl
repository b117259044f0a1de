# Why an MCP server failed (decision 0090): plain words, then what the server wrote to stderr.
mcp-err-exited = the server exited with status { $status }
mcp-err-signal = the server was ended by signal { $signal }
mcp-err-process-exited = the server process exited
mcp-err-command-not-found = the command "{ $command }" was not found
mcp-err-command-denied = the command "{ $command }" may not be run (permission denied)
mcp-err-cannot-start = cannot start "{ $command }": { $error }
mcp-err-handshake = MCP handshake failed: { $error }
mcp-err-list-failed = tools/list failed: { $error }
mcp-err-no-answer = no answer within { $seconds } s
mcp-err-list-no-answer = tools/list: no answer within { $seconds } s
mcp-err-task-failed = the MCP connection task failed: { $error }
mcp-err-oversize = MCP server "{ $name }" sent a message of { $bytes } bytes, over the limit of { $limit } bytes (max_message_bytes)
mcp-err-gave-up = the server stopped { $count } times in a row within { $seconds } s of connecting, so it is not restarted again; /mcp connect { $name } tries again (last: { $last })
mcp-err-stderr = { $error } (stderr: { $stderr })
