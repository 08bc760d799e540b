-- Signed processor callbacks already applied, kept for the signature's freshness window (5 minutes) so a
-- captured callback cannot be replayed to move a sale back (e.g. re-opening a dispute that was settled).
CREATE TABLE processor_callbacks (
  processor text NOT NULL,
  signature text NOT NULL,
  received_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (processor, signature)
);
CREATE INDEX processor_callbacks_received_idx ON processor_callbacks (received_at);
