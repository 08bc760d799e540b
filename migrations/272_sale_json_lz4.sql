-- A sale's JSON columns compressed by lz4 where the server was built with it (Debian's PostgreSQL is; the
-- embedded server is not, and keeps the default, pglz). A boleto's row carries its Pix QR image (~5 KB, in
-- `boleto` and again in `public_json`), which pglz compressed at about twice lz4's CPU (docs/performance.md,
-- "Charges at the cost of a write"); lz4 also reads back faster. Values already stored keep their compression.
DO $$
BEGIN
  ALTER TABLE sales ALTER COLUMN public_json SET COMPRESSION lz4, ALTER COLUMN boleto SET COMPRESSION lz4;
EXCEPTION WHEN feature_not_supported THEN
  NULL;
END
$$;
