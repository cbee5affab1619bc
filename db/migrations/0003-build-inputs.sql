-- The files a successful build read, from its .cmd dependency files: one
-- tree-relative path per line, sorted; NULL when not recorded (builds made
-- before this migration). A tree that differs from a built one only in
-- files that build did not read makes the same kernel, so the gate answers
-- for it with that build's result instead of building again.
ALTER TABLE build ADD COLUMN inputs TEXT;
