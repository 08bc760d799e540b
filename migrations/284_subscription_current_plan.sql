-- The plan the subscription's current period was charged at. A plan change takes effect with the next
-- period's first try (`plan_id` then names the plan being billed), which for a Pix or boleto period is days before
-- the period starts, and for a card in dunning lasts until it is paid: meanwhile the current period is still the
-- one paid at the plan before, and the subscription shows that plan (`planId`, `amountCents`) and the new one as
-- `nextPlanId`. Set when a period is paid; null (subscriptions from before) reads as `plan_id`.
ALTER TABLE subscriptions ADD COLUMN IF NOT EXISTS current_plan_id bigint;
