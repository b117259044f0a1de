# Before a change that costs the cached prefix (§14.5, decision 0091). One line each.
cache-cost-removal-rewrites = Cache: removing { $tools } on { $route } rewrites the history, so the next request re-sends about { $tokens } tokens uncached; set tool_removal = "retain" in this model's entry to keep the prefix.
cache-cost-removal-tool-list = Cache: { $route } declares every tool up front, so removing { $tools } changes the tool list and the next request re-sends about { $tokens } tokens uncached; change tools before the conversation starts to avoid it.
cache-cost-model-switch = Cache: each model has its own cache, so after switching to { $route } the next request re-sends about { $tokens } tokens uncached; switch before a long conversation, or after /compact, to pay less.
