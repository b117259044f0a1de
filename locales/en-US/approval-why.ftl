# Why an approval card asks, what `a` does on it, and the card of a command retried
# outside the sandbox (SPEC §15.5).

## Why a call asks
approval-why-escalation-past-rule = The model asks to run this outside the sandbox. Your rule allows it only inside the sandbox, so running it outside asks each time.
approval-why-tool-asks = { $tool } is set to ask before every call (approval = "ask").
approval-why-shadowed = { $tool } from { $kept } hides a tool of the same name from { $hidden } that asks before every call, so every call of { $tool } asks.

## What `a` does
approval-always-tool = { $tool }, for this session
tui-approval-why = Asks because: { $why }
tui-approval-prompt-always = y once · a always allows: { $always } · n deny, say why · Esc deny
tui-approval-prompt-once = y once · n deny, say why · Esc deny (no "always" for this call)

## A command the sandbox seemed to refuse
tui-retry-sandboxed-failed = ran in the sandbox and failed · { $status }
tui-retry-ran-again = ran again outside the sandbox, as you allowed:
tui-retry-denied = not run outside the sandbox · Denied by you
tui-retry-denied-reason = not run outside the sandbox · Denied by you: { $reason }
