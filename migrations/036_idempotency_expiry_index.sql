-- The periodic cleanup finds expired Idempotency-Keys by their expiry instead of scanning the table.
CREATE INDEX cashout_idempotency_expires_idx ON cashout_idempotency (expires_at);
