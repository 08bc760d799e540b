-- A dispute of a paid sale: a card chargeback or a Pix mediation (MED). While it is open its amount is out of
-- the merchant's available balance; `adjustment_cents` is the part of that amount the disputes module moved
-- itself, beyond what the sale's own transition moved (the sale's net less a reserve still held).
CREATE TABLE IF NOT EXISTS disputes (
  id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  uuid uuid NOT NULL UNIQUE DEFAULT gen_random_uuid(),
  account_id bigint NOT NULL REFERENCES accounts (id),
  sale_id bigint NOT NULL,
  sale_uuid uuid NOT NULL,
  kind text NOT NULL CHECK (kind IN ('chargeback', 'med')),
  status text NOT NULL DEFAULT 'needs_response'
    CHECK (status IN ('needs_response', 'under_review', 'won', 'lost', 'accepted')),
  amount_cents bigint NOT NULL CHECK (amount_cents > 0),
  adjustment_cents bigint NOT NULL DEFAULT 0,
  reason text,
  source text NOT NULL DEFAULT 'sandbox',
  external_id text,
  response_text text,
  respond_by timestamptz NOT NULL,
  reminded_at timestamptz,
  created_at timestamptz NOT NULL DEFAULT date_trunc('milliseconds', now()),
  closed_at timestamptz,
  CHECK ((closed_at IS NULL) = (status IN ('needs_response', 'under_review')))
);
-- one open dispute per sale
CREATE UNIQUE INDEX IF NOT EXISTS disputes_open_sale_idx ON disputes (sale_id) WHERE closed_at IS NULL;
CREATE INDEX IF NOT EXISTS disputes_account_idx ON disputes (account_id, id DESC);
CREATE INDEX IF NOT EXISTS disputes_due_idx ON disputes (respond_by) WHERE status = 'needs_response';
CREATE UNIQUE INDEX IF NOT EXISTS disputes_external_idx ON disputes (source, external_id)
  WHERE external_id IS NOT NULL;

CREATE TABLE IF NOT EXISTS dispute_evidence (
  id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  uuid uuid NOT NULL UNIQUE DEFAULT gen_random_uuid(),
  dispute_id bigint NOT NULL REFERENCES disputes (id),
  name text NOT NULL,
  content_type text NOT NULL CHECK (content_type IN ('application/pdf', 'image/png', 'image/jpeg')),
  size integer NOT NULL CHECK (size > 0 AND size <= 5242880),
  content bytea NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX IF NOT EXISTS dispute_evidence_dispute_idx ON dispute_evidence (dispute_id, id);

-- dispute facts (dispute.opened, dispute.won, dispute.lost) in the notification outbox
ALTER TABLE notification_events DROP CONSTRAINT IF EXISTS notification_events_subject_type_check;
ALTER TABLE notification_events
  ADD CONSTRAINT notification_events_subject_type_check
  CHECK (subject_type IN ('sale', 'withdrawal', 'cart', 'webhook', 'dispute'));
