# Shared texts: tool-change notices (reference U-3/U-5), general words.
tool-added = Tool added: { $name }
tool-removed = Tool removed: { $name }
tools-updated = Tools updated
tools-updated-title = Tools Updated
tools-changed = { $added } added, { $removed } removed
tools-added-count = { $count } added
tools-removed-count = { $count } removed
tools-added-list = Added: { $names }
tools-removed-list = Removed: { $names }
system-prompt-and-tools-updated = System Prompt and Tools Updated
context-injection = Context injection
