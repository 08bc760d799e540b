-- The sandbox acquirer's payments (CARD_ACQUIRER=sandbox): kept in the database, not one process's memory, so a
-- separate `gateway worker` voids or refunds the authorizations the API made, and a restart keeps them.
CREATE TABLE IF NOT EXISTS sandbox_acquirer_payments (
  payment_id uuid PRIMARY KEY,
  order_id uuid NOT NULL,
  state text NOT NULL CHECK (state IN ('authorized', 'captured', 'denied', 'voided')),
  amount_cents bigint NOT NULL CHECK (amount_cents > 0),
  captured_cents bigint NOT NULL DEFAULT 0 CHECK (captured_cents >= 0),
  voided_cents bigint NOT NULL DEFAULT 0 CHECK (voided_cents >= 0),
  return_code text,
  return_message text,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX IF NOT EXISTS sandbox_acquirer_payments_order_idx ON sandbox_acquirer_payments (order_id, created_at);
