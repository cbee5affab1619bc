-- The reply on the stable review thread (issue 25): a job may know the
-- thread it answers (a webhook's "in_reply_to" and "subject"), and the
-- outbox holds mail beside webhooks. A mail row's url is the relay
-- (smtp:// or smtps://), its body the whole RFC 5322 message, its
-- envelope the sender and the recipients, one per line.
ALTER TABLE job ADD COLUMN in_reply_to TEXT;
ALTER TABLE job ADD COLUMN review_subject TEXT;

ALTER TABLE outbox ADD COLUMN kind TEXT NOT NULL DEFAULT 'webhook'
	CHECK (kind IN ('webhook', 'mail'));
ALTER TABLE outbox ADD COLUMN mail_from TEXT;
ALTER TABLE outbox ADD COLUMN rcpt TEXT;
