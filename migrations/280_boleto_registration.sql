-- What the bank was told of each boleto (gateway boletos remessa): the São Paulo day of the file that registered
-- it (movement 01), and of the file that asked for its baixa (movement 02) once it could no longer be paid to
-- the gateway's credit (cancelled by its merchant, or paid by its Pix) while the bank still held it open.
ALTER TABLE boletos ADD COLUMN IF NOT EXISTS registered_on date;
ALTER TABLE boletos ADD COLUMN IF NOT EXISTS baixa_on date;
-- the registered boletos a later file may still have to ask the bank to take down, and those a day's file
-- asked (written again alike); a boleto issued and never sent is in neither, so issuing one pays for neither
CREATE INDEX IF NOT EXISTS boletos_open_at_bank_idx ON boletos (registered_on)
  WHERE registered_on IS NOT NULL AND baixa_on IS NULL AND cnab_paid_on IS NULL;
CREATE INDEX IF NOT EXISTS boletos_baixa_idx ON boletos (baixa_on) WHERE baixa_on IS NOT NULL;
