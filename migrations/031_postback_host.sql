-- host:port of a fact's postback URL as the WHATWG URL parser normalizes it (written when the fact is
-- recorded), so fan-out can place postback deliveries in their host's queue within one statement. Facts not
-- fanned out yet get it from the URL text (scheme and credentials cannot occur: postback URLs are validated).
ALTER TABLE notification_events ADD COLUMN postback_host text;
UPDATE notification_events
   SET postback_host = lower(substring(postback_url FROM '^[A-Za-z][A-Za-z0-9+.-]*://([^/?#]+)'))
 WHERE postback_url IS NOT NULL AND fanned_out_at IS NULL;
