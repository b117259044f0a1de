# The TUI side of checkpoints (SPEC §14.3): the /diff overlay, the rewind picker, the
# Chat nodes of checkpoints, undos and rewinds, the Trajectory's rewound mark, forks in
# the session picker.

tui-diff-keys = ↑/↓ PgUp/PgDn scroll · Esc close
tui-rewind-keys = ↑/↓ move · Enter choose · Esc close
tui-rewind-keys-scope = ↑/↓ move · Enter rewind · Esc back
tui-rewind-hint = Press Esc again to rewind to an earlier prompt.

tui-help-rewind = On an empty composer: rewind to an earlier prompt
tui-help-diff = In the /diff view: scroll, close (Esc)
tui-help-rewind-picker = In the rewind picker: move, choose (Enter), back out (Esc)

tui-node-checkpoint = ◇ Checkpoint before prompt { $n } · { $files ->
    [one] 1 file kept
   *[other] { $files } files kept
  }
tui-node-checkpoint-skipped = {"  "}not kept (over the size cap): { $path }
tui-node-undo = ↶ Undid prompt { $n } · { $count ->
    [one] 1 file put back
   *[other] { $count } files put back
  }
tui-node-undo-conflicts = { $count ->
    [one] , 1 conflict left alone
   *[other] , { $count } conflicts left alone
  }
tui-node-restored = {"  "}put back: { $path }
tui-node-conflict = {"  "}conflict, left alone: { $path }
tui-node-rewind = ↶ Rewound to before prompt { $n } (“{ $prompt }”) · { $scope }

tui-traj-rewound = ↶ rewound
tui-resume-fork = ⑂ fork of { $parent }
