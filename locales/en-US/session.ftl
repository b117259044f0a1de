store-io = Cannot use the session file { $path }: { $error }
store-locked = The session { $path } is open in another deepterm process. Close it there first.
store-corrupt = The session file { $path } is damaged at line { $line }: { $error }. The file was left unchanged.
store-not-found = No session matches “{ $query }” in { $dir }.
store-ambiguous = “{ $query }” matches several sessions: { $candidates }. Give more of the id.
store-torn-tail = The last line of the session (line { $line }, { $bytes } bytes) was incomplete, probably from a crash; it was cut off and saved to { $saved }.

# hardening: session store
store-not-a-directory = The session directory { $path } is not a directory. Point --session-dir at a directory.

# the session directory may hold anything
store-not-a-file = The session { $path } is not a regular file (a directory, pipe or device), so it cannot be opened as a session.
store-newer-format = The session file { $path } was written by a newer deepterm (format { $found }); this one reads format { $supported }. Update deepterm to open it. The file was left unchanged.
