-- Teams: an account has users, each with a role, their own password, two-factor and sessions. The account's
-- single login becomes its first owner, with the account's id as the user's id (so audit entries written
-- before keep naming the same person).
CREATE TABLE users (
  id bigserial PRIMARY KEY,
  account_id bigint NOT NULL REFERENCES accounts (id),
  name text NOT NULL,
  email text NOT NULL UNIQUE,
  role text NOT NULL CHECK (role IN ('owner', 'admin', 'finance', 'developer', 'viewer')),
  status text NOT NULL CHECK (status IN ('active', 'invited')),
  password_hash text,
  totp_secret_enc text,
  totp_pending_enc text,
  totp_last_step bigint NOT NULL DEFAULT 0,
  created_at timestamptz NOT NULL DEFAULT now(),
  last_login_at timestamptz,
  CHECK (status = 'invited' OR password_hash IS NOT NULL)
);
CREATE INDEX users_account_idx ON users (account_id, id);

INSERT INTO users (id, account_id, name, email, role, status, password_hash, totp_secret_enc, totp_pending_enc,
                   totp_last_step, created_at)
SELECT id, id, name, email, 'owner', 'active', password_hash, totp_secret_enc, totp_pending_enc, totp_last_step,
       created_at
  FROM accounts;
SELECT setval('users_id_seq', COALESCE((SELECT max(id) FROM users), 0) + 1, false);

ALTER TABLE accounts
  DROP COLUMN password_hash,
  DROP COLUMN totp_secret_enc,
  DROP COLUMN totp_pending_enc,
  DROP COLUMN totp_last_step;

ALTER TABLE panel_sessions ADD COLUMN user_id bigint REFERENCES users (id);
UPDATE panel_sessions SET user_id = account_id;
ALTER TABLE panel_sessions ALTER COLUMN user_id SET NOT NULL;
CREATE INDEX panel_sessions_user_idx ON panel_sessions (user_id);

-- One-time links sent by e-mail (invitations, password resets). Only the token's SHA-256 is stored.
CREATE TABLE user_tokens (
  token_hash text PRIMARY KEY,
  user_id bigint NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  purpose text NOT NULL CHECK (purpose IN ('invitation', 'password_reset')),
  created_at timestamptz NOT NULL DEFAULT now(),
  expires_at timestamptz NOT NULL,
  used_at timestamptz
);
CREATE INDEX user_tokens_user_idx ON user_tokens (user_id, purpose);

-- E-mail outbox: a message is written in the transaction of its cause (at most one per cause) and sent by the
-- job queue.
CREATE TABLE mail_messages (
  id bigserial PRIMARY KEY,
  cause text NOT NULL UNIQUE,
  recipient text NOT NULL,
  subject text NOT NULL,
  text_body text NOT NULL,
  html_body text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  attempts integer NOT NULL DEFAULT 0,
  last_error text,
  sent_at timestamptz
);

-- Withdrawal approval: at or above an account's threshold, a withdrawal waits for a second person.
CREATE TABLE withdrawal_approval_rules (
  account_id bigint PRIMARY KEY REFERENCES accounts (id),
  threshold_cents bigint NOT NULL CHECK (threshold_cents > 0),
  updated_at timestamptz NOT NULL DEFAULT now()
);

ALTER TABLE withdrawals
  ADD COLUMN approval_status text CHECK (approval_status IN ('awaiting', 'approved', 'declined', 'expired')),
  ADD COLUMN approval_requested_by text,
  ADD COLUMN approval_decided_by text,
  ADD COLUMN approval_decided_at timestamptz;
CREATE INDEX withdrawals_awaiting_approval_idx ON withdrawals (created_at) WHERE approval_status = 'awaiting';
