-- Pix Automático through the bcb processor (decisions.md, "Pix Automático through the bcb processor"): the
-- mandates its PSP reports approved become recurrences too. Each recurrence names who plays it: the sandbox,
-- or the PSP ('bcb'); the sandbox's cycle route debits only its own.
ALTER TABLE recurrences ADD COLUMN processor text NOT NULL DEFAULT 'sandbox';
-- A mandate of varying amounts (the standard's rec without valorRec) has no amount of its own: each cycle's
-- charge (cobr) carries it. Sandbox recurrences always have one.
ALTER TABLE recurrences ALTER COLUMN amount DROP NOT NULL;
