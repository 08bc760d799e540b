-- Trust controls (decisions.md Part 2): key lifecycle, two-factor login, webhook operations, audit log.

-- API keys: a name, a scope (read keys open GET routes only), an expiry (set by the key's creator, or by a
-- roll: the old pair keeps working for the grace period), and where it was last used (written in batches).
ALTER TABLE api_credentials
  ADD COLUMN name text NOT NULL DEFAULT '',
  ADD COLUMN scope text NOT NULL DEFAULT 'full' CHECK (scope IN ('full', 'read')),
  ADD COLUMN expires_at timestamptz,
  ADD COLUMN last_used_ip text,
  ADD COLUMN rolled_to bigint REFERENCES api_credentials (id);

-- Two-factor login (TOTP). Secrets are encrypted under SECRETS_KEY like webhook secrets; a secret being set up
-- waits in totp_pending_enc until a code proves the authenticator has it. totp_last_step is the time step of
-- the last code accepted: a code is accepted only for a later step, so each works once.
ALTER TABLE accounts
  ADD COLUMN totp_secret_enc text,
  ADD COLUMN totp_pending_enc text,
  ADD COLUMN totp_last_step bigint NOT NULL DEFAULT 0;

-- Webhook operations: an endpoint can be disabled (by hand or automatically after repeated failures); a
-- disabled webhook's deliveries are logged SKIPPED. (A secret rotation's overlap lives in the sealed
-- secret_enc itself, src/webhooks/crypto.ts, so every reader of the secret sees both keys or neither.)
ALTER TABLE webhooks
  ADD COLUMN status text NOT NULL DEFAULT 'active' CHECK (status IN ('active', 'disabled')),
  ADD COLUMN disabled_reason text,
  ADD COLUMN enabled_at timestamptz NOT NULL DEFAULT now();
UPDATE webhooks SET enabled_at = created_at;

ALTER TABLE notification_deliveries DROP CONSTRAINT notification_deliveries_status_check;
ALTER TABLE notification_deliveries
  ADD CONSTRAINT notification_deliveries_status_check
  CHECK (status IN ('PENDING', 'DELIVERED', 'FAILED', 'SKIPPED'));
CREATE INDEX notification_deliveries_webhook_created_idx
  ON notification_deliveries (webhook_id, created_at) WHERE webhook_id IS NOT NULL;

ALTER TABLE notification_events DROP CONSTRAINT notification_events_subject_type_check;
ALTER TABLE notification_events
  ADD CONSTRAINT notification_events_subject_type_check
  CHECK (subject_type IN ('sale', 'withdrawal', 'cart', 'webhook'));

-- Who did what, per account. Written in the transaction of the change it records; append-only.
CREATE TABLE audit_log (
  id bigserial PRIMARY KEY,
  account_id bigint NOT NULL REFERENCES accounts (id),
  at timestamptz NOT NULL DEFAULT now(),
  actor_type text NOT NULL CHECK (actor_type IN ('user', 'api_key', 'operator')),
  actor_id bigint,
  actor_label text NOT NULL,
  action text NOT NULL,
  target text,
  ip text,
  user_agent text
);
CREATE INDEX audit_log_account_idx ON audit_log (account_id, id DESC);

CREATE FUNCTION audit_log_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  RAISE EXCEPTION 'audit_log is append-only: % refused', TG_OP USING ERRCODE = 'insufficient_privilege';
END;
$$;
CREATE TRIGGER audit_log_no_update BEFORE UPDATE OR DELETE ON audit_log
  FOR EACH ROW EXECUTE FUNCTION audit_log_append_only();
CREATE TRIGGER audit_log_no_truncate BEFORE TRUNCATE ON audit_log
  FOR EACH STATEMENT EXECUTE FUNCTION audit_log_append_only();
