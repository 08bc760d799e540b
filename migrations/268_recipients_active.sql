-- Recipients, round two (docs/decisions.md, "Recipients"): a recipient may be made inactive. An inactive one
-- takes no new split; its balance, receivables and payouts (automatic ones included) go on.
ALTER TABLE recipients ADD COLUMN IF NOT EXISTS active boolean NOT NULL DEFAULT true;
