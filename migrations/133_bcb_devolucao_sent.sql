-- When each requested devolução was last sent (a repeated refund request sends the same id again) and whether
-- the PSP ever acknowledged it (a PUT answered 2xx, or read back): one the PSP has acknowledged is never taken
-- for lost, and one it does not know is taken for never received only 10 minutes after its last sending.
ALTER TABLE bcb_devolucoes ADD COLUMN IF NOT EXISTS sent_at timestamptz NOT NULL DEFAULT now();
ALTER TABLE bcb_devolucoes ADD COLUMN IF NOT EXISTS acknowledged boolean NOT NULL DEFAULT false;
UPDATE bcb_devolucoes SET sent_at = created_at, acknowledged = true WHERE status <> 'EM_PROCESSAMENTO';
-- Made devoluções of the last days, for the read-back worker to finish a sale a crash left PAGO after its
-- refund was recorded DEVOLVIDO.
CREATE INDEX IF NOT EXISTS bcb_devolucoes_made_idx ON bcb_devolucoes (updated_at)
  WHERE requested AND status = 'DEVOLVIDO';
