# Session log validation and persistence (reason texts stay in English inside the frame).
session-invalid-event = The session log has an invalid event at seq { $seq }: { $reason }
session-rejected-event = Could not record a session event: { $reason }
session-write-failed = Could not write the session log: { $reason }
