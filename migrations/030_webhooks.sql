-- Permanent webhooks. The secret is stored only encrypted (AES-256-GCM under SECRETS_KEY); events holds the
-- selected event names or '*'. A deleted webhook keeps its row (its deliveries refer to it) but gets nothing more.
CREATE TABLE webhooks (
  id bigserial PRIMARY KEY,
  account_id bigint NOT NULL REFERENCES accounts (id),
  url text NOT NULL,
  -- host:port of url as the WHATWG URL parser normalizes it, for per-host delivery limits
  target_host text NOT NULL,
  events text[] NOT NULL,
  secret_enc text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  deleted_at timestamptz
);
CREATE INDEX webhooks_account_idx ON webhooks (account_id, id DESC) WHERE deleted_at IS NULL;

-- One delivery per (fact, webhook), or per fact for the per-sale postback (webhook_id null). The table is also
-- the delivery queue: a PENDING row with a ticket is due at next_attempt_at. A worker claims the next attempt by
-- clearing the ticket (SKIP LOCKED), so two workers can never make the same attempt twice. lease_until bounds
-- an attempt in flight; an expired lease means the worker died mid-attempt and the sweeper reschedules it.
-- target_host (host:port) is what per-host concurrency limits count.
CREATE TABLE notification_deliveries (
  id bigserial PRIMARY KEY,
  event_id uuid NOT NULL REFERENCES notification_events (id),
  webhook_id bigint REFERENCES webhooks (id),
  kind text NOT NULL CHECK (kind IN ('webhook', 'postback')),
  target_host text NOT NULL,
  status text NOT NULL DEFAULT 'PENDING' CHECK (status IN ('PENDING', 'DELIVERED', 'FAILED')),
  attempts integer NOT NULL DEFAULT 0,
  status_code integer,
  error text,
  ticket uuid,
  redelivery boolean NOT NULL DEFAULT false,
  next_attempt_at timestamptz,
  lease_until timestamptz,
  created_at timestamptz NOT NULL DEFAULT now(),
  last_attempt_at timestamptz,
  CHECK ((kind = 'webhook') = (webhook_id IS NOT NULL))
);
CREATE UNIQUE INDEX notification_deliveries_webhook_uq ON notification_deliveries (event_id, webhook_id)
  WHERE webhook_id IS NOT NULL;
CREATE UNIQUE INDEX notification_deliveries_postback_uq ON notification_deliveries (event_id)
  WHERE webhook_id IS NULL;
CREATE INDEX notification_deliveries_webhook_idx ON notification_deliveries (webhook_id, id DESC);
CREATE INDEX notification_deliveries_due_idx ON notification_deliveries (next_attempt_at)
  WHERE status = 'PENDING' AND ticket IS NOT NULL;
CREATE INDEX notification_deliveries_leased_idx ON notification_deliveries (lease_until)
  WHERE status = 'PENDING' AND ticket IS NULL;

-- Every attempt, as made. The payload of an attempt is its fact's stored body (notification_events), the exact
-- bytes every attempt and resend of that delivery sends; it is referenced, not copied.
CREATE TABLE notification_attempts (
  id bigserial PRIMARY KEY,
  delivery_id bigint NOT NULL REFERENCES notification_deliveries (id),
  attempt integer NOT NULL,
  event_type text NOT NULL,
  url text NOT NULL,
  redelivery boolean NOT NULL,
  status_code integer,
  error text,
  duration_ms integer NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  UNIQUE (delivery_id, attempt)
);
