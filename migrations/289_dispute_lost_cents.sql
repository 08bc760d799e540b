-- What a lost (or accepted) dispute took when it closed: its amount, or less (what a MED devolução gave back
-- before a REJEITADA, what the sale had left after refunds made during it). A MED devolução the PSP reports after
-- is the dispute's up to this and a refund of its own beyond it (docs/decisions.md, "A MED's devolução").
-- Null while open, when won, and for disputes closed before it (their amount is taken for it).
ALTER TABLE disputes ADD COLUMN IF NOT EXISTS lost_cents bigint;
