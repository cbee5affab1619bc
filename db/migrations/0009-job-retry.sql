-- Retries that match the fault (record/jobs.h): a job whose attempt ended
-- without a verdict waits before its next try, twice as long each time,
-- until [server] retry-max after its first failed attempt. Both ISO 8601
-- UTC; next_try_at NULL: it may start at once.
ALTER TABLE job ADD COLUMN next_try_at TEXT;
ALTER TABLE job ADD COLUMN first_failed_at TEXT;
