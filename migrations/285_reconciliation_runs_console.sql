-- Runs asked for from the console or the command line say who asked (`requested_by`: an operator's e-mail, or
-- 'cli'), and a run that failed keeps why until a later try gets past a page (`last_error`), so the console can
-- say "tried again at HH:MM: the PSP answered 503" instead of showing it as running.
ALTER TABLE reconciliation_runs ADD COLUMN requested_by text;
ALTER TABLE reconciliation_runs ADD COLUMN last_error text;
