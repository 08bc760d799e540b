-- Recipients' withdrawals (decisions.md, "Split payments"): a withdrawal may belong to one of its account's
-- recipients; its money then moves in the recipient's ledger accounts, and its notifications (to the platform
-- account's webhooks) carry the recipient's public id, kept on the row beside the internal one.
ALTER TABLE withdrawals ADD COLUMN IF NOT EXISTS recipient_id bigint REFERENCES recipients (id);
ALTER TABLE withdrawals ADD COLUMN IF NOT EXISTS recipient_uuid uuid;
ALTER TABLE withdrawals ADD CONSTRAINT withdrawals_recipient_check
  CHECK ((recipient_id IS NULL) = (recipient_uuid IS NULL));
CREATE INDEX IF NOT EXISTS withdrawals_recipient_idx ON withdrawals (recipient_id, id DESC)
  WHERE recipient_id IS NOT NULL;

-- Automatic payouts by transferInterval (the recipients module's): one row per recipient and period (the São
-- Paulo date the period began), written in the transaction that creates its withdrawal, so two workers racing
-- on one period make one withdrawal. A period that paid nothing (nothing to pay, below the minimum, refused)
-- keeps its row with the reason.
CREATE TABLE recipient_payouts (
  recipient_id bigint NOT NULL REFERENCES recipients (id),
  period_date date NOT NULL,
  withdrawal_id bigint REFERENCES withdrawals (id),
  skipped_reason text,
  created_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (recipient_id, period_date)
);
-- the scheduler's scan: recipients paid automatically
CREATE INDEX IF NOT EXISTS recipients_transfer_interval_idx ON recipients (transfer_interval, id)
  WHERE transfer_interval <> 'manual';
