-- What the sandbox payout provider decided for each payout, kept as a real provider keeps it: a withdrawal whose
-- callback was lost is read back from here.
ALTER TABLE sandbox_payouts ADD COLUMN IF NOT EXISTS result text CHECK (result IN ('COMPLETED', 'REJECTED'));
