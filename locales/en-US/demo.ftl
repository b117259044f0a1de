# The demo simulator's replies (SPEC §9; in the interface language, §14.5).
demo-results-intro = Here is what the tool returned:
demo-result-line = { $lines ->
    [one] 1 line
   *[other] { $lines } lines
}, { $chars ->
    [one] 1 character
   *[other] { $chars } characters
}. It starts with:
demo-footer = deepterm demo simulator — no real model was involved.
demo-thinking-results = The tool finished. I'll summarise its output briefly.
demo-thinking-call = The user mentioned { $tool }, which is offered. I'll call it with { $input }.
demo-call = Let me call { $tool } for you.
demo-no-tools = No tools are offered right now.
demo-tools-on-offer = Tools on offer: { $tools }. Mention one by name and I will call it.
demo-thinking-echo = The user asked: "{ $question }". I'm the demo simulator, so I'll echo it and explain what I can do.
demo-hello = Hello from the deepterm demo simulator!
demo-you-asked = You asked:
demo-not-a-model = I'm not a real model, so I can't really answer, but I can show how the client works:
demo-point-chunks = replies stream in small chunks
demo-point-reasoning = reasoning appears before the answer
demo-label = demo simulator
demo-nothing-yet = Nothing to answer yet — send a user message.
