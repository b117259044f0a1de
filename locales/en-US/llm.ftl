# Model request failures: one line, the provider's text stays verbatim in { $message }.
llm-error-auth = Authentication failed: { $message } — check your API key.
llm-error-quota = Out of quota: { $message } — top up your account balance.
llm-error-invalid-request = The provider rejected the request: { $message }
llm-error-context-overflow = The conversation is too long for this model: { $message } — try /compact.
llm-error-rate-limit = Rate limited: { $message }
llm-error-server = The provider had a server error: { $message }
llm-error-transport = Connection problem: { $message }
llm-error-unsupported-content = This route cannot send the conversation: { $message }
llm-error-invalid-content = The conversation is inconsistent: { $message }
llm-error-malformed = The provider sent a malformed response: { $message }
llm-error-empty-response = The model returned an empty reply: { $message }
llm-error-cancelled = Cancelled.
llm-error-missing-key = No API key: { $message }

# hardening: wire
llm-error-too-large = The reply is too large and was stopped (not retried): { $message } — raise the cap in the [limits] table of the config if this is expected.
llm-error-no-progress = The provider sent no new content for too long: { $message }

# The short cause of a failed request (status line, final error).
llm-cause-refused = connection refused
llm-cause-timed-out = timed out
llm-cause-dns = host not found
llm-cause-reset = connection dropped
llm-cause-tls = TLS failed
llm-cause-rate-limited = rate limited
llm-cause-server = server error
llm-cause-other = request failed
llm-cause-with-hint = { $cause } · { $hint }
llm-hint-refused = nothing listening at { $origin } — check base_url
llm-hint-dns = cannot resolve { $origin } — check base_url
llm-hint-tls = TLS with { $origin } failed — check base_url and the certificate

# A failed request's error class in the Trajectory (`FAIL auth 401`).
llm-code-auth = auth
llm-code-quota = quota
llm-code-invalid_request = invalid_request
llm-code-context_overflow = context_overflow
llm-code-rate_limit = rate_limit
llm-code-server = server
llm-code-transport = transport
llm-code-unsupported_content = unsupported_content
llm-code-invalid_content = invalid_content
llm-code-malformed = malformed
llm-code-empty_response = empty_response
llm-code-cancelled = cancelled
llm-code-missing_key = missing_key
llm-code-too_large = too_large
llm-code-no_progress = no_progress
