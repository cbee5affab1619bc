-- What a run calls safe, as git objects in the cache's tree repository:
-- the tree of base plus every kept patch in series order, and the commit
-- of that sequence (`backport-gate export RUN DIR` writes it out). NULL
-- for runs without a verdict and runs made before this migration.
ALTER TABLE run ADD COLUMN kept_tree TEXT;
ALTER TABLE run ADD COLUMN kept_commit TEXT;
-- A patch's mail headers, as git mailinfo reads them: the Date: and
-- Message-ID: of the message (NULL when it has none).
ALTER TABLE patch ADD COLUMN date TEXT;
ALTER TABLE patch ADD COLUMN message_id TEXT;
