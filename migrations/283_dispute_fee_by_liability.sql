-- A dispute's amount beyond the net (the sale's fee, or the fee on a part disputed) is held from and taken from
-- the parties that answer for the sale, in proportion to what each holds, as the rest of a lost dispute is
-- (decisions.md, "Split payments"). Disputes opened before this rule held it from the account alone, and are
-- closed as they were opened: false for them, true for every dispute opened from now on.
ALTER TABLE disputes ADD COLUMN IF NOT EXISTS fee_by_liability boolean NOT NULL DEFAULT false;
ALTER TABLE disputes ALTER COLUMN fee_by_liability SET DEFAULT true;
