-- What every gateway process publishes at start for the e-mail a process without its secrets queues
-- (docs/decisions.md, "Operators"; `gateway operators create`, an operator command): the public half of the key
-- pair it derives from SECRETS_KEY, which the command seals the e-mail to and only SECRETS_KEY opens, and its
-- PUBLIC_URL, where the e-mail's links point. One row.
CREATE TABLE mail_gateway (
  one boolean PRIMARY KEY DEFAULT true CHECK (one),
  public_key text NOT NULL,
  public_url text NOT NULL,
  published_at timestamptz NOT NULL DEFAULT now()
);
