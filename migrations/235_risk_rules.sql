-- Risk rules (decisions.md, "Risk"): risk operators write rules that block a sale or hold a card authorization
-- for review. A sale keeps the decision taken on it; a card token keeps what rules may match of the card (its
-- BIN, its fingerprint — an HMAC, never the number — and the address it was typed from).
CREATE TABLE IF NOT EXISTS risk_rules (
  id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  name text NOT NULL,
  conditions jsonb NOT NULL,
  action text NOT NULL CHECK (action IN ('review', 'block')),
  created_by text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now()
);

ALTER TABLE sales ADD COLUMN IF NOT EXISTS risk jsonb;

ALTER TABLE card_tokens ADD COLUMN IF NOT EXISTS bin char(6);
ALTER TABLE card_tokens ADD COLUMN IF NOT EXISTS fingerprint text;
ALTER TABLE card_tokens ADD COLUMN IF NOT EXISTS ip text;

-- an authorization held for a risk review: not captured until an operator approves it
ALTER TABLE card_payments ADD COLUMN IF NOT EXISTS risk_hold boolean NOT NULL DEFAULT false;
CREATE INDEX IF NOT EXISTS card_payments_risk_hold_idx ON card_payments (authorized_at) WHERE risk_hold;
CREATE INDEX IF NOT EXISTS reviews_sale_idx ON reviews (sale_id) WHERE sale_id IS NOT NULL;
