-- What of a sale's net is held in `blocked` while a refund the merchant asked for is at the processor: the
-- merchant cannot withdraw money that is on its way back to the payer (0: no refund in progress).
ALTER TABLE sales ADD COLUMN refund_hold bigint NOT NULL DEFAULT 0;
