-- Cross-process propagation of auth changes (API keys, IP lists). Every change takes a number from
-- auth_change_seq and NOTIFYs it; every server process holding an auth cache has a row here (id = the
-- application_name of its LISTEN connection) recording the highest change it has applied. The request that
-- made a change answers once every process whose LISTEN connection is alive has applied it, so the caller's
-- next request sees the change whichever process it reaches.
CREATE SEQUENCE auth_change_seq;

CREATE TABLE auth_nodes (
  id text PRIMARY KEY,
  seen_seq bigint NOT NULL DEFAULT 0,
  started_at timestamptz NOT NULL DEFAULT now()
);
