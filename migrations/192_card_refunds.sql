-- A card sale's refunds are voids at the acquirer, which are not idempotent: one refund of a sale speaks to the
-- acquirer at a time (refund_claimed_until), and each attempt keeps what the acquirer had voided of the payment
-- when it was about to be sent. Whether an attempt whose answer was lost was made is then read from the payment's
-- voided amount: as it is now if no attempt followed, else as the next attempt found it.
ALTER TABLE card_payments ADD COLUMN IF NOT EXISTS refund_claimed_until timestamptz;
CREATE TABLE IF NOT EXISTS card_refund_attempts (
  id bigserial PRIMARY KEY,
  refund_id bigint NOT NULL UNIQUE,
  sale_id bigint NOT NULL,
  amount bigint NOT NULL CHECK (amount > 0),
  voided_before bigint NOT NULL CHECK (voided_before >= 0),
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX IF NOT EXISTS card_refund_attempts_sale_idx ON card_refund_attempts (sale_id, id);
