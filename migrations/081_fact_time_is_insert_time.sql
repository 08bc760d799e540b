-- A fact's time is when it was written, not when its transaction began: a refund whose transaction started
-- first but waited for the sale's lock held by the payment is written after it, and must sort after it
-- (facts and their outbox rows are ordered by created_at).
ALTER TABLE notification_events ALTER COLUMN created_at SET DEFAULT clock_timestamp();
