-- Events API: every notification fact but the webhook tests is an event of its account.
-- txid: the transaction that recorded the fact. Facts whose transaction is older than every transaction still
-- running (pg_snapshot_xmin) are final: nothing can commit before them any more, so a stream that has sent
-- everything up to a (txid, id) position below that bound never misses a later commit.
ALTER TABLE notification_events ADD COLUMN IF NOT EXISTS txid xid8 NOT NULL DEFAULT pg_current_xact_id();
CREATE INDEX IF NOT EXISTS notification_events_stream_idx ON notification_events (txid, id);
-- an account's events, newest first (GET /api/events)
CREATE INDEX IF NOT EXISTS notification_events_account_idx
  ON notification_events (account_id, created_at DESC, id DESC) WHERE event_type <> 'webhook.test';
