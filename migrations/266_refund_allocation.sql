-- Refunds say who paid (docs/decisions.md, "Refunds"): each refund keeps its allocation among the sale's
-- parties ({party, amountCents, fromReceivableCents, fromAvailableCents}), the part of the fee the gateway gives
-- back, and the card installments it took from (so a refund that ends not made gives them back).
ALTER TABLE sale_refunds ADD COLUMN IF NOT EXISTS allocation jsonb NOT NULL DEFAULT '[]';
ALTER TABLE sale_refunds ADD COLUMN IF NOT EXISTS fee_returned bigint NOT NULL DEFAULT 0;
ALTER TABLE sale_refunds ADD COLUMN IF NOT EXISTS receivable_takes jsonb NOT NULL DEFAULT '[]';
-- refunds made before: the fee they gave back is what their net share left of their amount
UPDATE sale_refunds SET fee_returned = GREATEST(amount - net, 0) WHERE fee_returned = 0;
