-- Every sequence a run judged (base plus a subset of the queue, in series
-- order), so a report can name each checkout, the build of its tree and
-- the boots of that build (KCIDB's checkouts, builds and tests). Builds
-- and boots stay keyed by tree: several runs may share one.
CREATE TABLE run_sequence (
	run_id INTEGER NOT NULL REFERENCES run(id),
	position INTEGER NOT NULL,	-- 1-based, in the order first judged
	patches TEXT NOT NULL,		-- JSON array of 1-based series positions
	commit_id TEXT,			-- NULL when a patch did not apply
	tree TEXT,			-- NULL when a patch did not apply
	apply_failed INTEGER,		-- series position that did not apply, or NULL
	judged_at TEXT NOT NULL,	-- when the gate first judged it (ISO 8601 UTC)
	PRIMARY KEY (run_id, position)
);

-- What every sequence of a run shares: the base commit in the cache's
-- tree repository, the config and suite keys of its builds and boots.
ALTER TABLE run ADD COLUMN base_commit TEXT;
ALTER TABLE run ADD COLUMN config TEXT;
