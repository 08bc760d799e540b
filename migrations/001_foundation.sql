-- Merchant accounts. One account has one panel user; accounts.id is the userId of notifications.
-- Percentages are stored as integer ten-thousandths of a percent (1.2 % = 12000) so fee maths stays in integers.
CREATE TABLE accounts (
  id bigserial PRIMARY KEY,
  name text NOT NULL,
  email text NOT NULL UNIQUE,
  password_hash text NOT NULL,
  cashout_fee_fixed bigint NOT NULL DEFAULT 0 CHECK (cashout_fee_fixed >= 0),
  cashout_fee_percent_e4 bigint NOT NULL DEFAULT 0 CHECK (cashout_fee_percent_e4 BETWEEN 0 AND 1000000),
  sale_fee_fixed bigint NOT NULL DEFAULT 0 CHECK (sale_fee_fixed >= 0),
  sale_fee_percent_e4 bigint NOT NULL DEFAULT 0 CHECK (sale_fee_percent_e4 BETWEEN 0 AND 1000000),
  reserve_percent_e4 bigint NOT NULL DEFAULT 0 CHECK (reserve_percent_e4 BETWEEN 0 AND 1000000),
  api_cashout_enabled boolean NOT NULL DEFAULT true,
  transfers_enabled boolean NOT NULL DEFAULT true,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);

-- Operator switches (e.g. api_withdrawals = on/off).
CREATE TABLE settings (
  key text PRIMARY KEY,
  value text NOT NULL,
  updated_at timestamptz NOT NULL DEFAULT now()
);
INSERT INTO settings (key, value) VALUES ('api_withdrawals', 'on');

-- API key pairs. The private key is never stored: only its SHA-256 (it carries 128+ random bits, so a
-- fast hash is enough; passwords are the ones that need a slow hash).
CREATE TABLE api_credentials (
  id bigserial PRIMARY KEY,
  account_id bigint NOT NULL REFERENCES accounts (id),
  public_key text NOT NULL UNIQUE,
  private_key_hash text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  last_used_at timestamptz,
  revoked_at timestamptz
);
CREATE INDEX api_credentials_account_idx ON api_credentials (account_id, created_at DESC);

-- Panel sessions, stored so they survive restarts and are shared by every server process.
CREATE TABLE panel_sessions (
  token_hash text PRIMARY KEY,
  account_id bigint NOT NULL REFERENCES accounts (id),
  csrf_token text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  expires_at timestamptz NOT NULL
);
CREATE INDEX panel_sessions_account_idx ON panel_sessions (account_id);

-- Failed-login throttling, per email, shared across processes.
CREATE TABLE login_failures (
  email text PRIMARY KEY,
  failures integer NOT NULL,
  window_started_at timestamptz NOT NULL,
  locked_until timestamptz
);

-- IP allow-list of API keys; position keeps the merchant's order.
CREATE TABLE allowed_ips (
  account_id bigint NOT NULL REFERENCES accounts (id),
  ip text NOT NULL,
  position integer NOT NULL,
  PRIMARY KEY (account_id, ip)
);
