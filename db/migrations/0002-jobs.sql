-- The daemon's work: jobs (one per queue snapshot to gate), webhook
-- deliveries already seen, and the outbox of notifications to send.

CREATE TABLE job (
	id INTEGER PRIMARY KEY,
	queue TEXT NOT NULL,		-- the [queue "NAME"] of the configuration
	trigger TEXT NOT NULL CHECK (trigger IN ('webhook', 'poll', 'start')),
	commit_id TEXT,			-- the queue repository's commit, once fetched
	content_hash TEXT,		-- the snapshot's hash, once read
	state TEXT NOT NULL CHECK (state IN ('queued', 'running', 'done', 'superseded', 'failed')),
	attempts INTEGER NOT NULL DEFAULT 0,
	run_id INTEGER REFERENCES run(id),
	error TEXT,
	created_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%SZ', 'now')),
	started_at TEXT,
	finished_at TEXT
);
CREATE INDEX job_state ON job (state, id);
CREATE INDEX job_queue ON job (queue, content_hash);

CREATE TABLE delivery (
	id TEXT PRIMARY KEY,		-- X-GitHub-Delivery / X-Gitlab-Event-UUID
	job_id INTEGER REFERENCES job(id),
	received_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%SZ', 'now'))
);

CREATE TABLE outbox (
	id INTEGER PRIMARY KEY,
	run_id INTEGER NOT NULL REFERENCES run(id),
	url TEXT NOT NULL,
	body TEXT NOT NULL,
	state TEXT NOT NULL CHECK (state IN ('pending', 'sent', 'failed')),
	attempts INTEGER NOT NULL DEFAULT 0,
	next_attempt REAL NOT NULL DEFAULT 0,	-- unix time
	last_error TEXT,
	sent_at TEXT,
	UNIQUE (run_id, url)
);
CREATE INDEX outbox_pending ON outbox (state, next_attempt);
