-- Since when the PSP has answered nothing but 404 for a requested devolução (null after any other answer, or a
-- new sending): only ten minutes of nothing but 404s count as "never received". A 5xx or a timeout proves
-- nothing either way.
ALTER TABLE bcb_devolucoes ADD COLUMN IF NOT EXISTS unknown_since timestamptz;
