-- What a running job's worker is doing and how far it is ("build 812/1290
-- objects, ~1 min left"), written by the worker at most every few seconds
-- (basic/progress.h); shown only while the job runs.
ALTER TABLE job ADD COLUMN progress TEXT;
