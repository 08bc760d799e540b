-- A stored cashout outcome is replayed from its body or its error code: the HTTP status it was answered with is
-- the HTTP layer's to derive again, and nothing read the column.
ALTER TABLE cashout_idempotency DROP COLUMN IF EXISTS status_code;
