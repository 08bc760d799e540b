-- An anticipation's receivables as they were asked for, by date ({date, amountCents}[]): a rejected one's
-- installments go back to the merchant (their anticipation_id cleared), so the receivables table no longer tells
-- what it asked for. Null for anticipations made before (their view reads the installments they hold).
ALTER TABLE anticipations ADD COLUMN IF NOT EXISTS receivables jsonb;
