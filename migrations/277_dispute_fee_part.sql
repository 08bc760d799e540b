-- A dispute of part of a sale holds, from the parties that answer for the sale, the share of the net a loss of
-- that part takes (the rest of what they held is released), and from the account the fee on that part: the part
-- the account holds is kept here so that its close undoes exactly what its opening did. 0: the rule before it
-- (the whole difference moved among the holders), for disputes opened before this column.
ALTER TABLE disputes ADD COLUMN IF NOT EXISTS fee_part_cents bigint NOT NULL DEFAULT 0;
