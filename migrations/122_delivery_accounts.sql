-- Each delivery carries the account whose fact it delivers, so a process can give every account a fair share
-- of the attempts it holds (claims and fan-out skip an account at its share without joining the events).
ALTER TABLE notification_deliveries ADD COLUMN account_id bigint;
UPDATE notification_deliveries d SET account_id = e.account_id
  FROM notification_events e WHERE e.id = d.event_id;
ALTER TABLE notification_deliveries ALTER COLUMN account_id SET NOT NULL;
