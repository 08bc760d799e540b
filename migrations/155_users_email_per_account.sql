-- An address is one active user on the whole gateway, and one user (active or invited) per account. Another
-- account may invite an address that is taken elsewhere without learning so (decisions.md, "Teams"): that
-- invitation is a row like any other, and it cannot be accepted while the address is active elsewhere.
ALTER TABLE users DROP CONSTRAINT users_email_key;
CREATE UNIQUE INDEX users_active_email_idx ON users (email) WHERE status = 'active';
CREATE UNIQUE INDEX users_account_email_idx ON users (account_id, email);
