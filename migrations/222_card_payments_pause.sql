-- Risk: an account whose card refusals pass RISK_REFUSAL_RATIO in an hour has its card payments paused until a
-- risk operator clears it (its risk review approved); the refusal ratio is read from an index by account.
ALTER TABLE accounts ADD COLUMN IF NOT EXISTS card_payments_paused boolean NOT NULL DEFAULT false;
CREATE INDEX IF NOT EXISTS card_payments_account_recent_idx ON card_payments (account_id, created_at);
