# Checkpoints, /diff, /undo, /rewind and /fork (SPEC §14.3).

cmd-diff = Show what this session (or turn N) changed in the workspace
cmd-diff-args = [N]
cmd-undo = Put back the files the last turn changed
cmd-undo-args = [--force]
cmd-rewind = Go back to before an earlier prompt: the conversation, the code or both
cmd-rewind-args = [N [conversation|code|both]] [--force]
cmd-fork = Start a new session that continues from this point
cli-fork = Start a new session continuing from a saved one (id, unique id prefix, or "last")

checkpoint-off = Checkpoints are off ([checkpoints] enabled = false).
checkpoint-failed = Checkpoint failed: { $error }
checkpoint-why-store = the checkpoint store { $path } could not be read or written (detail: "{ $error }")
checkpoint-why-corrupt = a record in the checkpoint store { $path } is unreadable (detail: "{ $error }")
checkpoint-why-walk = the workspace { $path } could not be read (detail: "{ $error }")
checkpoint-skipped = { $count ->
    [one] One file is over the checkpoint size cap and cannot be restored: { $files }
   *[other] { $count } files are over the checkpoint size cap and cannot be restored: { $files }
  }
checkpoint-taken = Checkpoint before turn { $turn } ({ $files } files)

diff-nothing = This session has not changed any file.
diff-turn-nothing = Turn { $n } did not change any file.
diff-session-title = { $count ->
    [one] This session changed 1 file:
   *[other] This session changed { $count } files:
  }
diff-turn-title = { $count ->
    [one] Turn { $n } changed 1 file:
   *[other] Turn { $n } changed { $count } files:
  }
diff-binary = Binary file { $path } changed.
diff-not-kept = { $path } is over the checkpoint size cap: not kept, not shown.

undo-nothing = Nothing to undo: no turn of this session changed a file.
undo-title = Undid prompt { $n } (“{ $prompt }”): { $count ->
    [one] 1 file put back.
   *[other] { $count } files put back.
  }
undo-restored-file = {"  "}restored { $path }
undo-not-kept = {"  "}not restorable (over the size cap): { $path }
undo-failed-file = {"  "}could not restore { $path } (detail: "{ $error }")
undo-conflict-file = {"  "}conflict, left alone (changed since the turn): { $path }
undo-conflict-hint = To overwrite the conflicting files too: { $command }
undo-conflicts = { $count ->
    [one] 1 file changed since the turn was left alone.
   *[other] { $count } files changed since the turn were left alone.
  }

rewind-title = Earlier prompts:
rewind-choice = {"  "}{ $n }. { $prompt }
rewind-choice-files = {"  "}{ $n }. { $prompt }  (changed files)
rewind-none = {"  "}(no prompts yet)
rewind-hint = Rewind with /rewind N [conversation|code|both] (both by default).
rewind-done = Rewound to before prompt { $n } (“{ $prompt }”): { $scope }.
rewind-scope-conversation = the conversation
rewind-scope-code = the code
rewind-scope-both = the conversation and the code
rewind-prompt-back = The prompt is back in the composer: { $prompt }

fork-done = Forked: you are now in the new session { $id }. The session you came from, { $parent }, stays as it was: /resume { $parent } goes back to it. Both go on independently.
tui-inspector-reason-rewind = after a rewind: the request repeats the prefix the session had at that prompt, so the cache still holds it
