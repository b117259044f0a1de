# Cache-first on every route (SPEC §15.1, decision 0120).
cache-first-removal-free = Cache: removing { $tools } on { $route } keeps the cached prefix: the tool stays declared, the model is told it is gone, and a call of it gets an error.
cache-first-downgrade = { $route } refused a tool-change block ({ $blocks }), so this session sends those changes as text instead; the request was sent again. The provider said: { $message }
cache-first-trajectory-downgrade = { $route } refused { $blocks }: tool changes go as text from here ({ $message })
cache-first-inspector-downgrade = the provider refused a tool-change block, so this route sends tool changes as text from here and the same log was sent again (the Trajectory shows the provider's words)
cache-first-bridged-call = (via call_tool)
cache-first-config-non-negative = must be an integer of 0 or more (0 switches it off)
