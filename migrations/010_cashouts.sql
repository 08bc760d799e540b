-- PIX cashouts (withdrawals). Amounts are integer cents; fees are frozen at creation.
-- submitting_at marks a submission to the payout provider that may have reached it: while it is set the
-- withdrawal cannot be cancelled (the provider might pay it), and every retry reuses uuid as the reference.
CREATE TABLE withdrawals (
  id bigserial PRIMARY KEY,
  uuid uuid NOT NULL UNIQUE,
  account_id bigint NOT NULL REFERENCES accounts (id),
  amount bigint NOT NULL CHECK (amount > 0),
  fee_fixed bigint NOT NULL CHECK (fee_fixed >= 0),
  fee_variable bigint NOT NULL CHECK (fee_variable >= 0),
  net_amount bigint NOT NULL CHECK (net_amount > 0),
  pix_key text NOT NULL,
  pix_key_type text NOT NULL CHECK (pix_key_type IN ('CPF', 'CNPJ', 'EMAIL', 'PHONE', 'RANDOM')),
  status text NOT NULL CHECK (status IN ('PENDING', 'PROCESSING', 'COMPLETED', 'FAILED', 'CANCELLED')),
  provider text NOT NULL DEFAULT 'sandbox',
  external_id text,
  submitting_at timestamptz,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  processed_at timestamptz,
  CHECK (amount = net_amount + fee_fixed + fee_variable)
);
CREATE INDEX withdrawals_account_idx ON withdrawals (account_id, id);

-- Idempotency-Key of POST /api/public/cashout, per account, kept 24 h. A 201 points at its withdrawal (the
-- creation form is rebuilt from immutable columns, status PENDING as it was); other outcomes keep their body.
CREATE TABLE cashout_idempotency (
  account_id bigint NOT NULL REFERENCES accounts (id),
  key text NOT NULL,
  request_hash text NOT NULL,
  status_code integer NOT NULL,
  withdrawal_id bigint REFERENCES withdrawals (id),
  response_body text,
  expires_at timestamptz NOT NULL,
  PRIMARY KEY (account_id, key)
);

-- The sandbox payout provider's own records: one payout per reference (the withdrawal uuid), however
-- many times it was submitted.
CREATE TABLE sandbox_payouts (
  reference uuid PRIMARY KEY,
  external_id text NOT NULL UNIQUE,
  amount bigint NOT NULL,
  pix_key text NOT NULL,
  pix_key_type text NOT NULL,
  submissions integer NOT NULL DEFAULT 1,
  created_at timestamptz NOT NULL DEFAULT now()
);

-- Sandbox provider switches: 'sandbox_payouts' = up | down (down: submissions are refused, as an outage).
INSERT INTO settings (key, value) VALUES ('sandbox_payouts', 'up') ON CONFLICT (key) DO NOTHING;
