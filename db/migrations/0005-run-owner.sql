-- Which process records a run while it is 'running': "<boot id>:<pid>" of
-- the machine's boot and the process. A run whose process is gone (killed
-- with -9, or the machine rebooted) is ended as an error by the next run
-- on the database (run.h: run_reap()). NULL for runs made before this
-- migration, which are left as they are.
ALTER TABLE run ADD COLUMN owner TEXT;
