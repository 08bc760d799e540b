-- Runs asked for from the console or the command line say who asked (`requested_by`: an operator's e-mail, or
-- 'cli'), and a run that failed keeps why until a later try gets past a page (`last_error`), so the console can
-- say "tried again at HH:MM: the PSP answered 503" instead of showing it as running.
ALTER TABLE reconciliation_runs ADD COLUMN requested_by text;
ALTER TABLE reconciliation_runs ADD COLUMN last_error text;
-- What a run found, fixed when it finishes: a discrepancy names only the latest run to find it, so a count read
-- through that link later dropped as later runs found the same ones again.
ALTER TABLE reconciliation_runs ADD COLUMN discrepancies_found integer;
-- Who resolved a discrepancy by hand: an operator's e-mail, or 'cli' (`gateway reconcile --resolve`).
ALTER TABLE reconciliation_discrepancies ADD COLUMN resolved_by text;
