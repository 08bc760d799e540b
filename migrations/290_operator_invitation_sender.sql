-- Who sent each operator invitation (null: the command line at the server). Disabling an operator also ends the
-- invitations they sent that are still open: a link an admin sent before being disabled (they left, or their
-- account was taken) no longer enrols anyone; another admin sends it again (docs/decisions.md, "Operators").
-- Open invitations from before are taken as sent by whoever first invited their operator.
ALTER TABLE operator_invitations ADD COLUMN IF NOT EXISTS sent_by bigint REFERENCES operators (id);
UPDATE operator_invitations i SET sent_by = o.invited_by
  FROM operators o
 WHERE o.id = i.operator_id AND i.sent_by IS NULL AND i.enrolled_at IS NULL;
CREATE INDEX IF NOT EXISTS operator_invitations_sent_by_idx ON operator_invitations (sent_by)
  WHERE enrolled_at IS NULL;
