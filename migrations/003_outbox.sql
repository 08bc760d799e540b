-- Notification facts (outbox). One row per fact, written in the same transaction as the state change.
-- id is the stable event id (X-Service-Event-Id). webhook_body holds the exact bytes every webhook attempt
-- and resend will send; postback_body likewise for the per-sale postback (null when the fact has none).
CREATE TABLE notification_events (
  id uuid PRIMARY KEY,
  account_id bigint NOT NULL REFERENCES accounts (id),
  event_type text NOT NULL,
  subject_type text NOT NULL CHECK (subject_type IN ('sale', 'withdrawal', 'cart')),
  subject_id bigint NOT NULL,
  webhook_body text NOT NULL,
  postback_url text,
  postback_body text,
  created_at timestamptz NOT NULL DEFAULT now(),
  fanned_out_at timestamptz
);
CREATE INDEX notification_events_subject_idx ON notification_events (subject_type, subject_id);
CREATE INDEX notification_events_pending_idx ON notification_events (created_at) WHERE fanned_out_at IS NULL;
