# Elicitation (SPEC §15.2): an MCP server asks the user for input while it works.

## Why an answer cannot be submitted yet (shown under the field).
elicit-err-required = Required.
elicit-err-too-short = At least { $min } characters.
elicit-err-too-long = At most { $max } characters.
elicit-err-email = Not an email address (name@example.com).
elicit-err-uri = Not a URI (https://example.com).
elicit-err-date = Not a date (YYYY-MM-DD).
elicit-err-date-time = Not a date and time (2026-01-31T09:30:00Z).
elicit-err-integer = Not a whole number.
elicit-err-number = Not a number.
elicit-err-min = At least { $min }.
elicit-err-max = At most { $max }.
elicit-err-min-items = Choose at least { $min }.
elicit-err-max-items = Choose at most { $max }.

## Why a request cannot be shown (it is declined).
elicit-bad-schema-no-properties = its form has no fields
elicit-bad-schema-too-many-fields = its form has { $count } fields (at most { $limit } are shown)
elicit-bad-schema-required-missing = it requires a field "{ $field }" it does not describe
elicit-bad-schema-field = field "{ $field }": { $why }
elicit-bad-schema-spec = its form is not one the MCP specification allows
elicit-why-options = its options are not a list of strings
elicit-why-too-many-options = it has { $count } options (at most { $limit } are shown)
elicit-why-format = the format "{ $format }" is not one a form can check
elicit-why-range = its lower bound is above its upper bound
elicit-why-type = the type "{ $type }" is not one a form can show
elicit-bad-url = its URL is not a plain http or https address
elicit-bad-mode = it asks in a way this version does not know

## Notices.
elicit-declined-unshowable = MCP server { $name } asked for input that cannot be shown, so it was declined: { $why }.
elicit-declined-exec = MCP server { $name } asked for input; exec cannot ask, so it was declined: { $message }
elicit-url-opened = Opened { $url } in the browser.
elicit-url-not-opened = No browser is set ($BROWSER); open it yourself: { $url }
elicit-cancelled-closed = The question from MCP server { $name } was closed unanswered (cancelled).

## The form overlay.
elicit-form-title = { $name } asks
elicit-url-title = { $name } asks you to open a page
elicit-url-question = Open this page in the browser?
elicit-submit = Submit
elicit-decline = Decline
elicit-cancel = Cancel
elicit-required = required
elicit-yes = yes
elicit-no = no
elicit-none-chosen = (none)
elicit-form-invalid = { $count ->
    [one] One field needs attention.
   *[other] { $count } fields need attention.
}
elicit-form-keys = Tab/↑↓ field · ←→ choose · Space toggle · Enter next/submit · Esc cancel
elicit-url-keys = y open · n decline · Esc cancel
