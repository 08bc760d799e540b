-- Anticipation of card receivables (decisions.md, "Anticipation"): a merchant brings installments forward;
-- paid, they leave `receivable`, the net enters `available` and the fee is the company's revenue, in one
-- ledger entry. The installments an anticipation takes are marked on the receivables (ledger module's).
CREATE TABLE anticipations (
  id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  uuid uuid NOT NULL UNIQUE,
  account_id bigint NOT NULL REFERENCES accounts (id),
  status text NOT NULL CHECK (status IN ('requested', 'approved', 'rejected', 'paid')),
  -- what was asked: {amountCents} or {upTo}
  request jsonb NOT NULL,
  monthly_percent_e4 bigint NOT NULL CHECK (monthly_percent_e4 >= 0),
  gross_cents bigint NOT NULL CHECK (gross_cents > 0),
  fee_cents bigint NOT NULL CHECK (fee_cents >= 0),
  net_cents bigint NOT NULL CHECK (net_cents >= 0),
  idempotency_key text,
  request_hash text,
  reason text,
  decided_by text,
  created_at timestamptz NOT NULL DEFAULT now(),
  decided_at timestamptz,
  paid_at timestamptz,
  CHECK (net_cents = gross_cents - fee_cents)
);
CREATE UNIQUE INDEX anticipations_idempotency_idx ON anticipations (account_id, idempotency_key)
  WHERE idempotency_key IS NOT NULL;
CREATE INDEX anticipations_account_idx ON anticipations (account_id, id DESC);
CREATE INDEX anticipations_requested_idx ON anticipations (id) WHERE status = 'requested';

-- the anticipation that holds (requested) or took (paid) an installment
ALTER TABLE receivables ADD COLUMN IF NOT EXISTS anticipation_id bigint;
CREATE INDEX IF NOT EXISTS receivables_anticipation_idx ON receivables (anticipation_id)
  WHERE anticipation_id IS NOT NULL;

ALTER TABLE notification_events DROP CONSTRAINT IF EXISTS notification_events_subject_type_check;
ALTER TABLE notification_events
  ADD CONSTRAINT notification_events_subject_type_check
  CHECK (subject_type IN ('sale', 'withdrawal', 'cart', 'webhook', 'dispute', 'anticipation'));
