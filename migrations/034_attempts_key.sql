-- An attempt is identified by its delivery and number: that pair becomes the primary key and the surrogate id
-- (never read) goes, so logging an attempt writes one index entry and takes no sequence value.
ALTER TABLE notification_attempts DROP CONSTRAINT notification_attempts_pkey;
ALTER TABLE notification_attempts DROP COLUMN id;
ALTER TABLE notification_attempts DROP CONSTRAINT notification_attempts_delivery_id_attempt_key;
ALTER TABLE notification_attempts ADD PRIMARY KEY (delivery_id, attempt);
