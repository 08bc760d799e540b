-- The public half of the key pair every gateway process with SECRETS_KEY derives from it and publishes at start
-- (docs/decisions.md, "Operators"): a process without SECRETS_KEY (`gateway operators create`, an operator
-- command) seals the e-mail it queues to it, and only a process holding SECRETS_KEY can open it. One row.
CREATE TABLE mail_sealing_key (
  one boolean PRIMARY KEY DEFAULT true CHECK (one),
  public_key text NOT NULL,
  published_at timestamptz NOT NULL DEFAULT now()
);
