# Configuration errors and warnings (SPEC §3).
config-builtin-defaults = the built-in defaults
config-error-read = Cannot read the config file { $file }: { $detail }
config-error-not-found = The config file { $file } does not exist.
config-error-write = Cannot write the config file { $file }: { $detail }
config-error-syntax = { $file }, line { $line }, column { $column }: invalid TOML: { $detail }
config-error-invalid = { $file }: `{ $key }` { $expected }
config-error-route-syntax = Invalid model route "{ $spec }": expected PROVIDER/MODEL, for example deepseek/deepseek-flash.
config-error-unknown-provider = Unknown provider "{ $provider }" in route "{ $spec }". Configured providers: { $available }.
config-error-missing-key = No API key for provider "{ $provider }": set the environment variable { $var }.
config-warning-unknown-key = { $file }: ignoring unknown config key `{ $key }`.
config-warning-missing-instructions = { $file }: instructions file "{ $path }" (`{ $key }`) was not found; skipping it.

config-type-string = a string
config-type-table = a table
config-type-array = an array
config-type-boolean = true or false
config-type-integer = an integer
config-expected-type = must be { $type }
config-expected-required = is required
config-expected-provider-kind = must be "deepseek-messages" or "openai-chat" (found "{ $got }")
config-expected-tool-update = must be "in-history", "addition-only" or "none" when present (found "{ $got }")
config-expected-system-prompt-update = must be "in-history" or "none" when present (found "{ $got }")
config-expected-approval = must be "ask" or "never" (found "{ $got }")
config-expected-locale = must be "en-US" or "zh-CN" (found "{ $got }")
config-expected-sandbox-mode = must be "read-only", "workspace-write" or "full-access" (found "{ $got }")
config-expected-sandbox-backend = must be "auto", "bwrap" or "landlock" (found "{ $got }")
config-expected-route = must be "PROVIDER/MODEL", for example "deepseek/deepseek-flash" (found "{ $got }")
config-expected-known-provider = must name a configured provider; "{ $provider }" is not one (configured: { $available })
config-expected-command = must be a non-empty array whose first element is the program to run
config-expected-non-empty = must not be empty
config-expected-positive = must be a positive integer
config-expected-name = must be 1–64 characters of letters, digits, "_" or "-" (found "{ $got }")
config-expected-server-name = must be 1–64 characters of letters, digits, "_" or "-", without "__" (found "{ $got }")
config-expected-unique-model = must be unique: model "{ $id }" is listed twice
config-expected-unreserved-name = must not reuse the name of the built-in tool "{ $name }"
config-expected-no-modes = is not supported by { $kind } providers (they declare no update modes); remove it
config-expected-parameters = must be "object" (tool parameters are a JSON-schema object)

# hardening: config
config-unnamed = the configuration
config-warning-unknown-key-suggest = { $file }: ignoring unknown config key `{ $key }`; did you mean `{ $suggestion }`?
config-expected-url = must be an http:// or https:// URL with a host, for example "https://api.deepseek.com" (found "{ $got }")
config-expected-mcp-command-or-url = needs exactly one of command (a server deepterm starts) or url (a remote server over Streamable HTTP)
config-expected-mcp-stdio-key = applies only to a server started with command, not to one with url
config-expected-mcp-remote-key = applies only to a remote server with url, not to one started with command
config-expected-mcp-auth = must be "oauth" (found "{ $got }")
config-expected-header-name = is not a header deepterm may send: "{ $got }" is invalid or set by the transport itself (use bearer_token_env or auth = "oauth" for Authorization)
config-expected-header-value = contains characters an HTTP header cannot carry
config-expected-env-name = must be an environment variable name such as TRACKER_TOKEN (found "{ $got }")
config-expected-bearer-or-oauth = cannot be "oauth" together with bearer_token_env: choose one way to authenticate
config-error-base-url-arg = Invalid --base-url "{ $url }": it must be an http:// or https:// URL with a host, for example "https://api.deepseek.com".
config-error-duplicate-key = { $file }, line { $line }, column { $column }: invalid TOML: the key `{ $key }` is defined more than once; keep only one.

# issue 10: tool removal retain
config-expected-tool-removal = must be "retain" (the default) or "rewrite" when present (found "{ $got }")

# issue 13: cost
config-type-number = a number
config-expected-price = must be a number of US dollars per million tokens, 0 or more
config-expected-prices-complete = is missing: a model entry sets all three of price_input_hit, price_input_miss and price_output, or none of them (to keep the built-in prices)

# Files deepterm refuses to read (config file, instruction files).
config-error-not-regular = Cannot read the config file { $file }: it is { $kind }, not a regular file. Point --config at a regular file (a symlink to one is fine).
config-error-too-large = Cannot read the config file { $file }: it is { $size } bytes; a config file may be at most { $mib } MiB.
config-instructions-outside = Instructions file { $path } was not read: it resolves to { $target }, which is outside the workspace, the config file's directory and the user config directory.
config-instructions-not-regular = Instructions file { $path } was not read: it is { $kind }, not a regular file.
config-instructions-not-text = Instructions file { $path } was not read: it is binary or not UTF-8 text.
config-instructions-missing = Instructions file { $path } was not found; skipping it.
config-instructions-unreadable = Instructions file { $path } was not read: { $detail }
config-instructions-truncated = Instructions file { $path } is { $size } bytes; only its first { $kib } KiB are used.
config-file-kind-directory = a directory
config-file-kind-fifo = a FIFO (named pipe)
config-file-kind-socket = a socket
config-file-kind-block-device = a block device
config-file-kind-char-device = a character device
config-file-kind-special = a special file
