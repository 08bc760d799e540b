-- What the PSP gave back by MED devoluções (natureza MED_*) of a MED dispute's sale while it was open: a MED's
-- devolução is its end, so a later REJEITADA cannot win money already returned to the payer (docs/decisions.md,
-- "A MED's devolução"). Written by the pix module through the disputes module's installed statement.
ALTER TABLE disputes ADD COLUMN IF NOT EXISTS med_devolution_cents bigint NOT NULL DEFAULT 0;
