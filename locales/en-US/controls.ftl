# DeepSeek controls and project awareness (SPEC §14.4): /effort, /instructions, /init,
# sessions that belong to a workspace.

cmd-effort = Show or set the reasoning effort: off, low, high or max
cmd-effort-args = [off|low|high|max]
cmd-effort-default = the provider's default
cmd-effort-current = Reasoning effort: { $effort } (choices: { $choices })
cmd-effort-set = Reasoning effort: { $effort }, from the next request. The cached prefix is kept.
cmd-effort-unknown = Unknown effort “{ $effort }”. { $usage }
config-expected-effort = must be "off", "low", "high" or "max" (found "{ $got }")
tui-footer-effort = effort { $effort }

cmd-instructions = List the instruction files in use (AGENTS.md and instructions.files)
cmd-instructions-title = Instruction files in use, in the order the model reads them:
cmd-instructions-file = {"  "}{ $path }  ({ $bytes } bytes)
cmd-instructions-none = No instruction files are in use. Put an AGENTS.md in the workspace, or run /init to have the model write one.
cmd-instructions-problem = {"  "}{ $problem }

cmd-init = Ask the model to write an AGENTS.md for this workspace
cmd-init-prompt = Please write an AGENTS.md file at the root of this workspace for coding agents working on it. First look at the project with the tools: its layout, build and test commands, code style and any conventions you can find in its files. Then write a concise AGENTS.md with sections for the project overview, how to build and test, code style, and anything an agent must not do. If an AGENTS.md already exists, improve it instead of replacing what is still true. Write it in English unless the project is clearly documented in another language.

resume-other-workspace = This session belongs to the workspace { $workspace }; continuing there.
resume-workspace-missing = This session belongs to the workspace { $workspace }, which no longer exists; continuing in { $here }.

tui-reasoning-streaming = Thinking…
tui-reasoning-collapsed = ▸ Thought for { $secs } s
tui-reasoning-expanded = ▾ Thought for { $secs } s
