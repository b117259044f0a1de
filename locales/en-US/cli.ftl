cli-about = deepterm — a terminal chat client for DeepSeek models that keeps the prompt cache warm while tools come and go.
cli-usage-heading = Usage
cli-commands-heading = Commands
cli-options-heading = Options
cli-heading = { $heading }:
cli-usage-line = { $heading }: { $usage }
cli-root-usage = deepterm [OPTIONS] [PROMPT] | deepterm [OPTIONS] <COMMAND>
cli-exec-usage = deepterm exec [OPTIONS] <PROMPT | --script FILE>
cli-sim-usage = deepterm sim [OPTIONS]
cli-with-default = { $help } [default: { $value }]
cli-config = Config file (default: $DEEPTERM_CONFIG, then the user config directory)
cli-model = Route to use, as PROVIDER/MODEL (e.g. deepseek/deepseek-flash)
cli-base-url = Override the chosen provider's base URL
cli-session-dir = Where session logs live (default: the user data directory)
cli-resume = Resume a session by id (or unique id prefix), or "last"
cli-locale = Interface language
cli-demo = Demo mode: use the built-in simulator, no network, no API key
cli-help = Print help
cli-version = Print version
cli-exec-about = Run headless: one prompt, or a script where each line is one composer submission
cli-exec-script = Script file ("-" reads standard input). Plain lines are messages, "/…" lines are commands, lines starting with " are JSON strings
cli-exec-approve = Answer tool approval prompts: all or none
cli-sim-about = Run the DeepSeek-compatible simulator as an HTTP server
cli-sim-addr = Listen address
cli-sim-script = Reply script (see docs/simulator.md)
cli-sim-cache-unit = Prefix-cache unit in tokens
cli-err-missing = Missing a required argument: { $arg }
cli-err-unknown = Unknown argument: { $arg }
cli-err-invalid-value = Invalid value “{ $value }” for { $arg } (expected one of: { $valid })
cli-err-generic = Invalid arguments: { $message }
cli-err-hint = Run “deepterm --help” to see the usage.

# hardening: config
cli-sim-keep-requests = How many recorded requests to keep for GET /_sim/requests (the newest; older ones are dropped and counted)

# issue 10: exec --json
cli-exec-json = Print every protocol event as one JSON object per line on stdout (stream deltas included) instead of the plain answers
