-- Reconciliation with the PSP. A run is one window of received Pix (GET /pix?inicio=&fim=), read page by page:
-- one row per (schedule, window), so several workers run each window once; `next_page` and the lease let
-- another worker resume a run whose worker died mid-window.
CREATE TABLE reconciliation_runs (
  id bigserial PRIMARY KEY,
  schedule text NOT NULL CHECK (schedule IN ('frequent', 'daily', 'manual')),
  window_start timestamptz NOT NULL,
  window_end timestamptz NOT NULL,
  next_page integer NOT NULL DEFAULT 0,
  received integer NOT NULL DEFAULT 0,
  matched integer NOT NULL DEFAULT 0,
  credited_now integer NOT NULL DEFAULT 0,
  refunded_now integer NOT NULL DEFAULT 0,
  leased_until timestamptz,
  created_at timestamptz NOT NULL DEFAULT now(),
  finished_at timestamptz,
  CHECK (window_end > window_start)
);
CREATE UNIQUE INDEX reconciliation_runs_window_idx ON reconciliation_runs (schedule, window_start, window_end)
  WHERE schedule <> 'manual';
CREATE INDEX reconciliation_runs_unfinished_idx ON reconciliation_runs (id) WHERE finished_at IS NULL;

-- The end-to-end ids a run has read from the PSP so far (kept until the run ends): what the PSP did not list
-- among the gateway's credits of the window is missing at the PSP.
CREATE TABLE reconciliation_listed (
  run_id bigint NOT NULL REFERENCES reconciliation_runs (id) ON DELETE CASCADE,
  e2eid text NOT NULL,
  PRIMARY KEY (run_id, e2eid)
);

-- What the PSP's records and the gateway's disagree on, once per Pix and kind however many windows see it
-- (`last_run_id`: the latest run that found it). Nothing here ever moved money; `resolved_at` is set when a
-- later run lists a Pix that was missing at the PSP.
CREATE TABLE reconciliation_discrepancies (
  id bigserial PRIMARY KEY,
  kind text NOT NULL CHECK (kind IN ('unknown_charge', 'amount_mismatch', 'missing_at_psp')),
  e2eid text NOT NULL,
  txid text,
  amount bigint NOT NULL,
  detail text NOT NULL,
  last_run_id bigint REFERENCES reconciliation_runs (id) ON DELETE SET NULL,
  found_at timestamptz NOT NULL DEFAULT now(),
  resolved_at timestamptz,
  UNIQUE (kind, e2eid)
);
CREATE INDEX reconciliation_discrepancies_found_idx ON reconciliation_discrepancies (found_at DESC, id DESC);
CREATE INDEX reconciliation_discrepancies_run_idx ON reconciliation_discrepancies (last_run_id);
