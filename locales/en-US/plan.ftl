# The plan tool, plan mode and /review (SPEC §15.3).

plan-title = Plan · { $done } of { $total } done
plan-execute-question = Execute this plan? y: switch to workspace-write and go · n: stay
plan-go-ahead = Go ahead with the plan.
cmd-review = Review the workspace's changes read-only: the git diff against HEAD or BASE, else this session's changes
cmd-review-args = [BASE]
review-nothing = Nothing to review: there are no changes.
review-base-needs-git = /review BASE needs a git repository; outside git, /review reviews this session's changes.
review-git-failed = Cannot read the git diff: { $error }
review-prompt = Review these changes{ $kind ->
    [session] {" "}(this session's changes)
   *[git] {" "}(the git diff against { $source })
  }. This is a read-only review: do not change any file (the sandbox is read-only for this turn); read files for context when you need to. List your findings by severity (critical, major, minor, nit), each with its location as path:line and a one-line fix. Say so if you find nothing.{ $cut ->
    [yes] {" "}The diff was cut to fit; read the files for the rest.
   *[no] {""}
  }

  ```diff
  { $diff }
  ```
