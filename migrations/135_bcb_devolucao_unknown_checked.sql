-- When the PSP last answered 404 for a requested devolução: a run of 404s counts only while it is unbroken,
-- each read-back within two minutes of the one before. Rounds lost to a PSP outage, or a gateway that was not
-- running, leave a gap, and the run starts again: ten minutes with nobody asking prove nothing.
ALTER TABLE bcb_devolucoes ADD COLUMN IF NOT EXISTS unknown_checked_at timestamptz;
