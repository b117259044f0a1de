# Approval policies and rules files (SPEC §14.2).
config-expected-approval-policy = must be "untrusted", "on-request" or "never" (found "{ $got }")
rules-error-io = Cannot use the rules file { $file }: { $detail }
rules-error-not-regular = Cannot read the rules file { $file }: it is { $kind }, not a regular file.
rules-error-too-large = Cannot read the rules file { $file }: a rules file may be at most { $kib } KiB.
rules-error-syntax = { $file }: invalid TOML: { $detail }
rules-error-invalid = { $file }: `{ $key }` { $expected }
rules-error-changed = { $file } changed since it was listed: rule { $index } is no longer the one shown, so nothing was removed. Open /permissions again.
rules-expected-rule-array = must be a list of [[rule]] tables
rules-expected-prefix = must be a non-empty list of non-empty strings, for example ["git", "push"]
rules-expected-decision = must be "allow", "prompt" or "forbidden"
rules-expected-required = is required
rules-warning-project-allow = { $file }: rule { $index } (allow "{ $prefix }") is ignored: a project's rules may only prompt or forbid.
rules-warning-unknown-key = { $file }: ignoring unknown key `{ $key }`.
