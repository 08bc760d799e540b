-- The delivery queue's tables drop their foreign keys. Each check ran per row and locked the parent row
-- (FOR KEY SHARE, a write to the parent's page): the fact and the webhook for every delivery created, the
-- delivery for every attempt logged. Measured in the webhooks benchmark, they were ~37 % of the fan-out and
-- outcome statements' time. Every row here is written by an engine statement that reads its parent in that
-- same statement, and no parent is ever deleted: facts and deliveries are kept, webhooks are soft-deleted.
ALTER TABLE notification_deliveries DROP CONSTRAINT notification_deliveries_event_id_fkey;
ALTER TABLE notification_deliveries DROP CONSTRAINT notification_deliveries_webhook_id_fkey;
ALTER TABLE notification_attempts DROP CONSTRAINT notification_attempts_delivery_id_fkey;
