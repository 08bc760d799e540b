-- Devoluções (refunds) of the Pix in bcb_received_pix. The gateway's own (requested) are one row per attempt:
-- a new attempt, with a new devolução id, only after the last one ended NAO_REALIZADO, so a repeated refund
-- request while one is in progress or done reuses its id. Devoluções the PSP reports that the gateway did not
-- request (made at the PSP or by the payer's bank) are kept too (requested = false, no attempt).
CREATE TABLE bcb_devolucoes (
  e2eid text NOT NULL REFERENCES bcb_received_pix (e2eid),
  id text NOT NULL,
  sale_id bigint REFERENCES sales (id),
  amount bigint NOT NULL,
  requested boolean NOT NULL,
  attempt integer,
  status text NOT NULL CHECK (status IN ('EM_PROCESSAMENTO', 'DEVOLVIDO', 'NAO_REALIZADO')),
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (e2eid, id),
  CHECK (requested = (attempt IS NOT NULL))
);
CREATE UNIQUE INDEX bcb_devolucoes_attempt_idx ON bcb_devolucoes (sale_id, attempt) WHERE requested;
CREATE INDEX bcb_devolucoes_in_progress_idx ON bcb_devolucoes (updated_at)
  WHERE requested AND status = 'EM_PROCESSAMENTO';
