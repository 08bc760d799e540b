-- A dispute's amount beyond the net (the sale's fee, which a dispute does not give back, or the fee on a part
-- disputed) is held from and taken from the parties that answer for the sale, in proportion to what each holds,
-- as the rest of a lost dispute is (decisions.md, "Split payments"). Who held what is kept at the opening,
-- [{"accountId"|"recipientId": id, "amount": cents}], so that the close undoes exactly what the opening held
-- and takes the fee from the same parties, whatever moved on the sale meanwhile (a refund in flight when the
-- dispute opened ends during it). Null: a dispute opened before this rule, whose fee the account held alone.
ALTER TABLE disputes ADD COLUMN IF NOT EXISTS fee_parts jsonb;
