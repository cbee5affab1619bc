-- A run's JSON report in a table of its own. Kept in the run row, the
-- report (about 10 KB) sat between the columns every list reads, so a
-- scan of the runs (the pages, /api/runs, the regressions) read every
-- report's overflow pages too: 141 ms for the newest 50 of 10,000 runs
-- against 9 ms without (bench/pages, issue 23). One row per run that
-- has a report; a run without one (still running, or made before it
-- finished) has none.
CREATE TABLE run_report (
	run_id INTEGER PRIMARY KEY REFERENCES run(id),
	report TEXT NOT NULL
);
INSERT INTO run_report (run_id, report) SELECT id, report FROM run WHERE report IS NOT NULL;
ALTER TABLE run DROP COLUMN report;
-- A run's job (jobs_for_run(), and the front page's runs that no job
-- made) without a scan of the jobs.
CREATE INDEX job_run ON job (run_id);
-- Runs newest first (the pages, /api/runs, a case's runs) read in index
-- order: with LIMIT, only a page's rows are looked at (a case page of
-- 10,000 runs: 111 ms without it, 2 ms with it).
CREATE INDEX run_started ON run (started_at, id);
-- Runs by when their verdict came (the front page's newest run of a
-- configured queue that no job made, history_latest_unjobbed()).
CREATE INDEX run_finished ON run (finished_at, id);
