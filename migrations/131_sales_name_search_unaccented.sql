-- The panel's search by customer name ignores accents and case ("conceicao" finds "Maria Conceição"): Brazilian
-- merchants often type names without them. unaccent() is only STABLE (its dictionary could change), so an
-- IMMUTABLE wrapper naming the dictionary is what an index can use; the search compares search_fold() of both
-- sides, so what is typed and what is stored are folded by the same function.
CREATE EXTENSION IF NOT EXISTS unaccent SCHEMA public;
CREATE OR REPLACE FUNCTION search_fold(text) RETURNS text
  LANGUAGE sql IMMUTABLE PARALLEL SAFE STRICT
  AS $$ SELECT lower(public.unaccent('public.unaccent'::regdictionary, $1)) $$;
-- Built inside the migration's transaction, sale writes wait while it builds. On a large table build it
-- beforehand without blocking, and this statement then finds it:
--   CREATE INDEX CONCURRENTLY sales_customer_name_fold_trgm_idx ON sales
--     USING gin (search_fold(customer ->> 'name') gin_trgm_ops);
CREATE INDEX IF NOT EXISTS sales_customer_name_fold_trgm_idx ON sales
  USING gin (search_fold(customer ->> 'name') gin_trgm_ops);
DROP INDEX IF EXISTS sales_customer_name_trgm_idx;
