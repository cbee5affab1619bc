-- backport-gate's record: what was gated, what was built and booted, what
-- every case did, and the verdicts. Builds and boots are keyed by the git
-- tree they were made from, so any queue that reaches the same tree reuses
-- them.

CREATE TABLE snapshot (
	id INTEGER PRIMARY KEY,
	queue TEXT NOT NULL,		-- e.g. queue-6.1
	source TEXT NOT NULL,		-- path or URL it was read from
	ref TEXT,			-- git ref, NULL for a plain directory
	commit_id TEXT,			-- the queue repository's commit, if any
	content_hash TEXT NOT NULL,	-- sha256 over the series and every patch
	created_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%SZ', 'now')),
	UNIQUE (queue, content_hash)
);

CREATE TABLE patch (
	id INTEGER PRIMARY KEY,
	snapshot_id INTEGER NOT NULL REFERENCES snapshot(id),
	position INTEGER NOT NULL,	-- 1-based, in series order
	name TEXT NOT NULL,
	upstream TEXT,			-- 40-hex (or as written), NULL when none
	subject TEXT,
	author TEXT,
	content_hash TEXT,
	error TEXT,			-- why it could not be read, if it could not
	UNIQUE (snapshot_id, position)
);
CREATE INDEX patch_upstream ON patch (upstream);
CREATE INDEX patch_name ON patch (name);

CREATE TABLE build (
	id INTEGER PRIMARY KEY,
	tree TEXT NOT NULL,		-- git tree id of the source
	config TEXT NOT NULL,		-- sha256 of the config fragment
	status TEXT NOT NULL CHECK (status IN ('ok', 'failed')),
	first_error TEXT,
	seconds REAL,
	created_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%SZ', 'now')),
	UNIQUE (tree, config)
);

CREATE TABLE boot (
	id INTEGER PRIMARY KEY,
	tree TEXT NOT NULL,
	config TEXT NOT NULL,
	suite TEXT NOT NULL,		-- sha256 of the suite binaries
	attempt INTEGER NOT NULL,	-- 1, then fresh boots that re-check a regression
	status TEXT NOT NULL CHECK (status IN ('ok', 'panic', 'timeout', 'incomplete')),
	evidence TEXT,
	accel TEXT,
	seconds REAL,
	created_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%SZ', 'now')),
	UNIQUE (tree, config, suite, attempt)
);

CREATE TABLE case_result (
	boot_id INTEGER NOT NULL REFERENCES boot(id),
	name TEXT NOT NULL,
	kind TEXT NOT NULL CHECK (kind IN ('contract', 'quirk')),
	status TEXT NOT NULL CHECK (status IN ('pass', 'fail', 'quirk-changed', 'error')),
	diagnostic TEXT,
	PRIMARY KEY (boot_id, name)
);
CREATE INDEX case_result_name ON case_result (name);

CREATE TABLE run (
	id INTEGER PRIMARY KEY,
	snapshot_id INTEGER NOT NULL REFERENCES snapshot(id),
	base TEXT NOT NULL,		-- e.g. 6.1.192
	suite TEXT NOT NULL,
	verdict TEXT NOT NULL CHECK (verdict IN ('running', 'pass', 'drop', 'error')),
	error TEXT,
	report TEXT,			-- the JSON report, once finished
	builds INTEGER NOT NULL DEFAULT 0,	-- kernel builds this run made
	boots INTEGER NOT NULL DEFAULT 0,	-- guests this run booted
	evaluations INTEGER NOT NULL DEFAULT 0,	-- sequences judged, cached or not
	started_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%SZ', 'now')),
	finished_at TEXT,
	seconds REAL
);
CREATE INDEX run_snapshot ON run (snapshot_id);

CREATE TABLE apply_result (
	run_id INTEGER NOT NULL REFERENCES run(id),
	patch_id INTEGER NOT NULL REFERENCES patch(id),
	status TEXT NOT NULL CHECK (status IN ('applied', 'offset', 'already', 'failed', 'refused')),
	offset_lines INTEGER,
	message TEXT,
	PRIMARY KEY (run_id, patch_id)
);

CREATE TABLE verdict (
	run_id INTEGER NOT NULL REFERENCES run(id),
	patch_id INTEGER NOT NULL REFERENCES patch(id),
	status TEXT NOT NULL CHECK (status IN ('ok', 'drop', 'not-exercised')),
	reason TEXT CHECK (reason IN ('apply', 'build', 'boot', 'regression', 'dependency')),
	regressions TEXT NOT NULL DEFAULT '[]',	-- JSON array of case names
	changes TEXT NOT NULL DEFAULT '[]',	-- JSON array of quirk case names
	evidence TEXT,
	steps TEXT,
	PRIMARY KEY (run_id, patch_id)
);
