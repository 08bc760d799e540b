-- Cross-process propagation of auth changes (API keys, IP lists). Every change takes a number from
-- auth_change_seq and NOTIFYs it; every server process holding an auth cache has a row here, heartbeats it,
-- and records the highest change it has applied. The request that made a change answers only once every live
-- process has applied it, so the caller's next request sees the change whichever process it reaches.
CREATE SEQUENCE auth_change_seq;

CREATE TABLE auth_nodes (
  id text PRIMARY KEY,
  seen_seq bigint NOT NULL DEFAULT 0,
  heartbeat_at timestamptz NOT NULL DEFAULT now()
);
