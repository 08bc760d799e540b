-- The people who run the gateway (the operators' console, /ops), apart from merchant users: their own
-- identities, invitations, sessions and an append-only audit log.
CREATE TABLE operators (
  id bigserial PRIMARY KEY,
  email text NOT NULL UNIQUE,
  role text NOT NULL CHECK (role IN ('support', 'risk', 'finance', 'admin')),
  -- invited: the link is not used yet; enrolling: password set, TOTP not confirmed; active: may log in
  status text NOT NULL DEFAULT 'invited' CHECK (status IN ('invited', 'enrolling', 'active', 'disabled')),
  password_hash text,
  totp_secret_enc text,
  totp_pending_enc text,
  totp_last_step bigint NOT NULL DEFAULT 0,
  invited_by bigint REFERENCES operators (id),
  created_at timestamptz NOT NULL DEFAULT now(),
  last_login_at timestamptz
);

-- An invitation link's token (only its hash): spent by accept-invitation (password), then by totp/enable.
CREATE TABLE operator_invitations (
  token_hash text PRIMARY KEY,
  operator_id bigint NOT NULL REFERENCES operators (id) ON DELETE CASCADE,
  expires_at timestamptz NOT NULL,
  accepted_at timestamptz,
  enrolled_at timestamptz
);
CREATE INDEX operator_invitations_operator_idx ON operator_invitations (operator_id);

CREATE TABLE operator_sessions (
  token_hash text PRIMARY KEY,
  operator_id bigint NOT NULL REFERENCES operators (id) ON DELETE CASCADE,
  csrf_token text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  expires_at timestamptz NOT NULL
);
CREATE INDEX operator_sessions_operator_idx ON operator_sessions (operator_id);

-- Every operator action: who, what, on which account, before and after, from where. Nobody changes it: the
-- trigger refuses UPDATE, DELETE and TRUNCATE for every database role, the table's owner included.
CREATE TABLE operator_audit (
  id bigserial PRIMARY KEY,
  at timestamptz NOT NULL DEFAULT now(),
  operator_id bigint REFERENCES operators (id),
  operator_email text NOT NULL,
  action text NOT NULL,
  -- no foreign key: an attempt on an account id that does not exist is recorded too
  account_id bigint,
  target text,
  before jsonb,
  after jsonb,
  ip text,
  user_agent text
);
CREATE INDEX operator_audit_account_idx ON operator_audit (account_id, id DESC) WHERE account_id IS NOT NULL;

CREATE OR REPLACE FUNCTION operator_audit_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  RAISE EXCEPTION 'operator_audit is append-only: % refused', TG_OP USING ERRCODE = 'insufficient_privilege';
END
$$;
CREATE TRIGGER operator_audit_no_change BEFORE UPDATE OR DELETE ON operator_audit
  FOR EACH ROW EXECUTE FUNCTION operator_audit_append_only();
CREATE TRIGGER operator_audit_no_truncate BEFORE TRUNCATE ON operator_audit
  FOR EACH STATEMENT EXECUTE FUNCTION operator_audit_append_only();

-- Account statuses (existing accounts are active), the profile a self sign-up gives, and the payout hold.
ALTER TABLE accounts
  ADD COLUMN IF NOT EXISTS status text NOT NULL DEFAULT 'active'
    CHECK (status IN ('pending_review', 'active', 'suspended', 'closed')),
  ADD COLUMN IF NOT EXISTS status_reason text,
  ADD COLUMN IF NOT EXISTS status_changed_at timestamptz,
  ADD COLUMN IF NOT EXISTS legal_name text,
  ADD COLUMN IF NOT EXISTS document text,
  ADD COLUMN IF NOT EXISTS phone text,
  ADD COLUMN IF NOT EXISTS address json,
  ADD COLUMN IF NOT EXISTS payout_hold boolean NOT NULL DEFAULT false,
  ADD COLUMN IF NOT EXISTS payout_hold_reason text;
CREATE INDEX IF NOT EXISTS accounts_status_idx ON accounts (status, id);
CREATE INDEX IF NOT EXISTS accounts_document_idx ON accounts (document) WHERE document IS NOT NULL;

-- A withdrawal of a held (or suspended) account waits in AWAITING_REVIEW: never sent, until released.
ALTER TABLE withdrawals DROP CONSTRAINT IF EXISTS withdrawals_status_check;
ALTER TABLE withdrawals ADD CONSTRAINT withdrawals_status_check
  CHECK (status IN ('PENDING', 'AWAITING_REVIEW', 'PROCESSING', 'COMPLETED', 'FAILED', 'CANCELLED'));
ALTER TABLE withdrawals ADD COLUMN IF NOT EXISTS review_decided_by text;
-- the creation answer (and its idempotent replays) says AWAITING_REVIEW for one created held
ALTER TABLE withdrawals ADD COLUMN IF NOT EXISTS created_held boolean NOT NULL DEFAULT false;
CREATE INDEX IF NOT EXISTS withdrawals_awaiting_review_idx ON withdrawals (created_at)
  WHERE status = 'AWAITING_REVIEW';

-- Onboarding documents, kept in PostgreSQL (the type is what the content is, not what the name says).
CREATE TABLE onboarding_documents (
  id bigserial PRIMARY KEY,
  account_id bigint NOT NULL REFERENCES accounts (id),
  kind text NOT NULL CHECK (kind IN ('id_front', 'id_back', 'selfie', 'company_contract', 'proof_of_address')),
  content_type text NOT NULL CHECK (content_type IN ('application/pdf', 'image/png', 'image/jpeg')),
  size_bytes integer NOT NULL,
  content bytea NOT NULL,
  uploaded_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX onboarding_documents_account_idx ON onboarding_documents (account_id, kind, id DESC);

-- The console's review queue: onboarding (an account waiting for approval) and risk reviews.
CREATE TABLE reviews (
  id bigserial PRIMARY KEY,
  kind text NOT NULL CHECK (kind IN ('onboarding', 'risk')),
  account_id bigint NOT NULL REFERENCES accounts (id),
  sale_id bigint,
  reason text NOT NULL,
  status text NOT NULL DEFAULT 'open' CHECK (status IN ('open', 'approved', 'rejected')),
  created_at timestamptz NOT NULL DEFAULT now(),
  decided_at timestamptz,
  decided_by text,
  decision_reason text
);
CREATE INDEX reviews_open_idx ON reviews (kind, id) WHERE status = 'open';
CREATE UNIQUE INDEX reviews_one_open_onboarding_idx ON reviews (account_id)
  WHERE status = 'open' AND kind = 'onboarding';
