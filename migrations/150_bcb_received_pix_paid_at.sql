-- When each credited Pix was paid at the PSP (its `horario`): reconciliation finds the credits of a window by
-- it, in the PSP's own clock, whatever time the webhook that credited them arrived.
ALTER TABLE bcb_received_pix ADD COLUMN IF NOT EXISTS paid_at timestamptz;
UPDATE bcb_received_pix r SET paid_at = date_trunc('milliseconds', s.completed_at)
  FROM sales s WHERE s.id = r.sale_id AND r.credited AND r.paid_at IS NULL;
CREATE INDEX IF NOT EXISTS bcb_received_pix_paid_idx ON bcb_received_pix (paid_at, e2eid) WHERE credited;
