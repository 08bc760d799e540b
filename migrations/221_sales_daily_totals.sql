-- What the console's reports read: paid sales per day (America/Sao_Paulo), account and method, kept by a
-- trigger in the transaction that pays the sale, so a report reads a few rows per day however many sales
-- there are. A sale counts on the day it was first paid (completed_at), with what was paid and its fee.
CREATE TABLE sales_daily_totals (
  day date NOT NULL,
  account_id bigint NOT NULL,
  payment_method text NOT NULL,
  sales_count bigint NOT NULL DEFAULT 0,
  tpv_cents bigint NOT NULL DEFAULT 0,
  fee_cents bigint NOT NULL DEFAULT 0,
  PRIMARY KEY (day, account_id, payment_method)
);

CREATE OR REPLACE FUNCTION sales_daily_totals_add(d date, acct bigint, method text, n bigint, tpv bigint, fee bigint)
RETURNS void LANGUAGE sql AS $$
  INSERT INTO sales_daily_totals (day, account_id, payment_method, sales_count, tpv_cents, fee_cents)
  VALUES (d, acct, method, n, tpv, fee)
  ON CONFLICT (day, account_id, payment_method) DO UPDATE
    SET sales_count = sales_daily_totals.sales_count + EXCLUDED.sales_count,
        tpv_cents = sales_daily_totals.tpv_cents + EXCLUDED.tpv_cents,
        fee_cents = sales_daily_totals.fee_cents + EXCLUDED.fee_cents;
$$;

CREATE OR REPLACE FUNCTION sales_daily_totals_keep() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'UPDATE' AND OLD.completed_at IS NOT DISTINCT FROM NEW.completed_at
     AND OLD.paid_amount IS NOT DISTINCT FROM NEW.paid_amount AND OLD.amount = NEW.amount
     AND OLD.system_fee = NEW.system_fee AND OLD.payment_method = NEW.payment_method THEN
    RETURN NULL;
  END IF;
  IF TG_OP = 'UPDATE' AND OLD.completed_at IS NOT NULL THEN
    PERFORM sales_daily_totals_add((OLD.completed_at AT TIME ZONE 'America/Sao_Paulo')::date, OLD.account_id,
      OLD.payment_method, -1, -COALESCE(OLD.paid_amount, OLD.amount), -OLD.system_fee);
  END IF;
  IF NEW.completed_at IS NOT NULL THEN
    PERFORM sales_daily_totals_add((NEW.completed_at AT TIME ZONE 'America/Sao_Paulo')::date, NEW.account_id,
      NEW.payment_method, 1, COALESCE(NEW.paid_amount, NEW.amount), NEW.system_fee);
  END IF;
  RETURN NULL;
END
$$;

CREATE TRIGGER sales_daily_totals_keep AFTER INSERT OR UPDATE OF completed_at, paid_amount, amount, system_fee, payment_method
  ON sales FOR EACH ROW EXECUTE FUNCTION sales_daily_totals_keep();

INSERT INTO sales_daily_totals (day, account_id, payment_method, sales_count, tpv_cents, fee_cents)
SELECT (completed_at AT TIME ZONE 'America/Sao_Paulo')::date, account_id, payment_method, count(*),
       sum(COALESCE(paid_amount, amount)), sum(system_fee)
  FROM sales WHERE completed_at IS NOT NULL
 GROUP BY 1, 2, 3;
