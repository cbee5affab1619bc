-- A webhook delivery per queue it queued a job for. One push to a
-- repository that holds several branches (queue-6.1 and queue-6.12 as two
-- [queue] sections on one url) queues a job for each, and a redelivery of
-- that push is recognised queue by queue: a retry after a refusal half-way
-- (the database locked for the second queue) queues only what is missing.
CREATE TABLE delivery_per_queue (
	id TEXT NOT NULL,		-- X-GitHub-Delivery / X-Gitlab-Event-UUID
	queue TEXT NOT NULL,
	job_id INTEGER REFERENCES job(id),
	received_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%SZ', 'now')),
	PRIMARY KEY (id, queue)
);
INSERT INTO delivery_per_queue (id, queue, job_id, received_at)
	SELECT d.id, COALESCE(j.queue, ''), d.job_id, d.received_at
	FROM delivery d LEFT JOIN job j ON j.id = d.job_id;
DROP TABLE delivery;
ALTER TABLE delivery_per_queue RENAME TO delivery;
