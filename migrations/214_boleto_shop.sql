-- What a boleto prints of the sale: the shop that sold (the beneficiário final, in FEBRABAN's "Sacador/Avalista"
-- field, the gateway being the beneficiary) and what was bought, in its instructions. Kept as they were when
-- the boleto was issued, like every other printed field.
ALTER TABLE boletos
  ADD COLUMN IF NOT EXISTS shop_name text,
  ADD COLUMN IF NOT EXISTS description text;
