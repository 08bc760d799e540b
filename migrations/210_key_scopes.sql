-- Keys bounded by their creator: a third scope, `charges` (read, plus opening charges, links, checkout sessions,
-- tokenizing and capturing), and who made each key, so that a key wider than its creator's role after a demotion
-- or a removal can be listed for review. `created_by_user_id` is null for keys made by an operator's command, and
-- for keys whose creator was removed (`created_by_user` stays true then).
ALTER TABLE api_credentials DROP CONSTRAINT api_credentials_scope_check;
ALTER TABLE api_credentials
  ADD CONSTRAINT api_credentials_scope_check CHECK (scope IN ('read', 'charges', 'full')),
  ADD COLUMN created_by_user boolean NOT NULL DEFAULT false,
  ADD COLUMN created_by_user_id bigint REFERENCES users (id) ON DELETE SET NULL;

-- keys made in the panel before: their creator is the user the audit log names
UPDATE api_credentials c
   SET created_by_user = true,
       created_by_user_id = (SELECT u.id FROM users u WHERE u.id = a.actor_id AND u.account_id = c.account_id)
  FROM audit_log a
 WHERE a.account_id = c.account_id
   AND a.action IN ('credential.created', 'credential.rolled')
   AND a.actor_type = 'user'
   AND (a.target = 'credential:' || c.id
        OR (a.action = 'credential.rolled' AND a.target = 'credential:' || (
              SELECT o.id FROM api_credentials o WHERE o.rolled_to = c.id)));
