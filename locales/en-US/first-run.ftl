# The first run (SPEC §15.4): the guided demo, the prompt on the command line, folder trust.

## The guided demo's scripted agent (in the interface language).
demo-guided-thinking-read = The user wants the failing test fixed. I'll read the tests and the code they check before changing anything.
demo-guided-read = Let me look at the tests and the code first.
demo-guided-thinking-run = Now the tests, in the sandbox, with the sample's own command.
demo-guided-run = Running the tests: `{ $command }`.
demo-guided-thinking-edit = test.sh expects `sub 7 4` to print 3, but `sub` computes `$2 - $1`: the operands are the wrong way round.
demo-guided-edit = Found it: `sub` in `calc.sh` subtracts the first number from the second. I'll swap the operands; the card shows the diff, for you to approve.
demo-guided-edited = Edited `calc.sh`. Now the tests: `{ $command }`.
demo-guided-already-fixed = `sub` already subtracts in the right order. Let me run the tests to check.
demo-guided-thinking-passed = Every test passes. I'll say what changed and how to take it back.
demo-guided-passed = Done: `{ $command }` passes now. `sub` in `calc.sh` subtracts in the right order. To look at the change or take it back:
demo-guided-way-diff = `/diff` shows what changed in this session
demo-guided-way-undo = `/undo` puts the files back as they were before the last change
demo-guided-way-rewind = Esc Esc picks an earlier message to go back to, files included
demo-guided-real-model = This was the built-in demo. Set `DEEPSEEK_API_KEY` and start deepterm again to work with a real model on your own project.
demo-guided-thinking-failed = The tests ran and one fails. I'll report it.
demo-guided-failed = `{ $command }` ran: { $count ->
    [one] 1 test fails
   *[other] { $count } tests fail
}.
demo-guided-ask-fix = Ask me to **fix the failing test** and I will propose an edit.
demo-guided-declined = You declined { $tool }, so it did not run and nothing changed. Ask again when you want to try it.
demo-guided-edit-failed = The edit did not go through: { $reason }. Nothing was changed.
demo-guided-can-show = There is no model behind this demo, so I cannot answer that. What I can show is one task done the way a real agent does it, in a copy of a small sample project: ask me to **fix the failing test**, and watch me read the files, propose an edit for you to approve, run the tests in the sandbox and report.
demo-guided-connect = To work with a real model, set `DEEPSEEK_API_KEY` and start deepterm again. To script your own replies, run `deepterm sim --script replies.json` (see the README).

## The demo's workspace.
first-run-demo-banner = Demo mode: built-in simulator, no API key · working in { $dir }
first-run-demo-workspace = Guided demo: working in a copy of a sample project, { $dir }; nothing outside it is changed. Try "fix the failing test".
first-run-demo-copy-failed = The guided demo could not copy its sample project into a temporary directory: { $error }

## The command line.
first-run-cli-prompt = A first message: the TUI opens and sends it
first-run-cli-exec-prompt = The one message to send ("-" reads it from standard input); instead of --script
first-run-cli-no-project-files = Do not load AGENTS.md, project commands or project rules from this folder

## Folder trust.
first-run-trust-intro = This folder holds files deepterm would load from it as instructions, commands and approval rules: { $folder }
first-run-trust-ask = Trust this folder and load them? (asked once) [y/N]
first-run-trust-trusted = Trusted: they are loaded.
first-run-trust-untrusted = Not trusted: they are not loaded (/instructions lists them as skipped).
first-run-trust-not-saved = The answer could not be remembered in { $path }: { $error }
first-run-instructions-skipped = Skipped, the folder is not trusted: { $path }
first-run-cli-arguments-heading = Arguments
