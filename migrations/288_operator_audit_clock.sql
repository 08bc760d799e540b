-- An operator audit row's time is when it was written, not when its transaction began: a change that waited its
-- turn behind another (an operator disabled while they finished enrolling) is recorded after it, in time as in id.
ALTER TABLE operator_audit ALTER COLUMN at SET DEFAULT clock_timestamp();
