-- Settlement moves merchant balance rows in the round trip of its COMMIT, as a statement whose values are in
-- its text. Written out, that statement was planned on every batch (~30 µs per settlement, a tenth of the
-- database's time for one merchant); as a call of this function its plan is cached per connection and only
-- the call itself is planned. Rows are locked in the order postEntry and postBucketTransfers lock an entry's
-- rows (account, then bucket), so this cannot deadlock with another batch or with a transaction writing one
-- entry (one writing several entries across merchants, e.g. a payout batch's rejections, can: PostgreSQL
-- then aborts one of them, and the settler retries its reports one by one); NO KEY UPDATE, as an UPDATE
-- takes. A missing row fails the call, and so the transaction.
CREATE FUNCTION move_balances(account_ids bigint[], buckets text[], amounts bigint[]) RETURNS void
LANGUAGE plpgsql AS $$
DECLARE
  moved integer;
BEGIN
  WITH d AS (SELECT * FROM unnest(account_ids, buckets, amounts) AS d(account_id, bucket, amount)),
  l AS (
    SELECT x.id, d.amount FROM ledger_accounts x JOIN d USING (account_id, bucket)
     ORDER BY x.account_id, x.bucket FOR NO KEY UPDATE OF x),
  b AS (UPDATE ledger_accounts x SET balance = x.balance + l.amount FROM l WHERE x.id = l.id RETURNING 1)
  SELECT count(*) INTO moved FROM b;
  IF moved <> cardinality(account_ids) THEN
    RAISE EXCEPTION 'balance rows missing: % of %', moved, cardinality(account_ids);
  END IF;
END
$$;
