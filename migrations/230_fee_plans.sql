-- Fee plans (decisions.md, "Fee plans"): named price lists finance operators keep and assign to accounts. An
-- account without a plan is priced by its own columns (gateway accounts update), as before. Percentages are
-- integer ten-thousandths of a percent, as everywhere.
CREATE TABLE fee_plans (
  id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  name text NOT NULL UNIQUE CHECK (length(name) BETWEEN 1 AND 100),
  pix_percent_e4 bigint NOT NULL CHECK (pix_percent_e4 BETWEEN 0 AND 1000000),
  pix_fixed bigint NOT NULL CHECK (pix_fixed >= 0),
  boleto_fixed bigint NOT NULL CHECK (boleto_fixed >= 0),
  credit_1_percent_e4 bigint NOT NULL CHECK (credit_1_percent_e4 BETWEEN 0 AND 1000000),
  credit_2_6_percent_e4 bigint NOT NULL CHECK (credit_2_6_percent_e4 BETWEEN 0 AND 1000000),
  credit_7_12_percent_e4 bigint NOT NULL CHECK (credit_7_12_percent_e4 BETWEEN 0 AND 1000000),
  debit_percent_e4 bigint NOT NULL CHECK (debit_percent_e4 BETWEEN 0 AND 1000000),
  anticipation_monthly_percent_e4 bigint NOT NULL CHECK (anticipation_monthly_percent_e4 BETWEEN 0 AND 1000000),
  cashout_fixed bigint NOT NULL CHECK (cashout_fixed >= 0),
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);

ALTER TABLE accounts ADD COLUMN IF NOT EXISTS fee_plan_id bigint REFERENCES fee_plans (id);
-- the anticipation rate of an account priced by its own columns (no plan): 2.99 % a month unless changed
ALTER TABLE accounts ADD COLUMN IF NOT EXISTS anticipation_monthly_percent_e4 bigint NOT NULL DEFAULT 29900
  CHECK (anticipation_monthly_percent_e4 BETWEEN 0 AND 1000000);

-- The terms a sale's fee was computed with when it was created (percent of what is paid, plus fixed cents),
-- so that a later amount (a boleto paid with fine or discount, a card captured for less) is priced as the
-- sale was, whatever plan the account has since. Null on sales made before: their account's own rates.
ALTER TABLE sales ADD COLUMN IF NOT EXISTS fee_percent_e4 bigint;
ALTER TABLE sales ADD COLUMN IF NOT EXISTS fee_fixed bigint;
