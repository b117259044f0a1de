# Hooks and custom commands (SPEC §14.4).

## Config errors
config-expected-hook-matcher = must be a regular expression of tool names, such as "shell|apply_patch" ({ $detail })
config-expected-hook-matcher-tool = applies only to pre_tool_use and post_tool_use hooks; remove it
config-expected-hook-timeout = must be a whole number of seconds from 1 to { $max }

## Hook runs
hook-no-reason = no reason given
hook-ran = Hook { $event } ran { $command } ({ $ms } ms).
hook-blocked-tool = Hook { $event } ({ $command }) blocked { $tool }: { $reason }
hook-blocked-prompt = Hook { $event } ({ $command }) blocked the prompt, which was not sent: { $reason }
hook-feedback = Hook { $event } ({ $command }) on { $tool } said (passed on to the model): { $reason }
hook-said = Hook { $event } ({ $command }) exited with status 2: { $reason }
hook-failed = Hook { $event } ({ $command }) exited with status { $code }; continuing. { $stderr }
hook-signal = Hook { $event } ({ $command }) was killed by a signal; continuing.
hook-timed-out = Hook { $event } ({ $command }) did not finish within { $secs } s and was stopped with its processes; continuing.
hook-cancelled = Hook { $event } ({ $command }) was stopped because the turn was cancelled.
hook-not-started = Hook { $event } could not start { $command }: { $error }; continuing.

## A tool hook's run, one line in the call's tool card (decision 0105)
tui-hook-ok = hook { $event } { $command }: ok ({ $ms } ms)
tui-hook-blocked = hook { $event } { $command }: blocked: { $reason }
tui-hook-feedback = hook { $event } { $command }: told the model: { $reason }
tui-hook-warning = hook { $event } { $command }: warning, exit status { $code }
tui-hook-signal = hook { $event } { $command }: warning, killed by a signal
tui-hook-timed-out = hook { $event } { $command }: timed out after { $secs } s
tui-hook-cancelled = hook { $event } { $command }: stopped, the turn was cancelled
tui-hook-not-started = hook { $event } { $command }: could not start: { $error }

## Custom commands
cmd-custom-no-description = custom command
cmd-custom-args = [ARGUMENTS]
cmd-custom-help-title = Custom commands:
cmd-custom-empty = The custom command { $name } has no text to send.
cmd-custom-refused = Custom command file { $path } is ignored: { $reason }.
cmd-custom-why-missing = it no longer exists
cmd-custom-why-outside = it resolves to { $target }, outside its directory's workspace or config directory
cmd-custom-why-not-regular = it is { $kind }, not a regular file
cmd-custom-why-not-text = it is binary or not UTF-8 text
cmd-custom-why-unreadable = { $detail }
cmd-custom-too-large = Custom command file { $path } is ignored: it is larger than { $kib } KiB.
cmd-custom-bad-name = Custom command file { $path } is ignored: a command name is 1–64 letters, digits, "_" or "-".
cmd-custom-clash = Custom command { $name } ({ $path }) is ignored: a built-in command has that name and stays.
cmd-custom-shadowed = Custom command { $name } ({ $path }) is ignored: { $kept } already defines it.
