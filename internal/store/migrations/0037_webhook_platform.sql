-- primary_network_address_activity and validator_activity webhooks: what
-- they watch beyond their keys (webhook_addresses: bech32 addresses, node
-- ids or subnet ids), as JSON (store.WebhookFilter). '{}' for
-- address_activity webhooks.
ALTER TABLE webhooks ADD COLUMN filter TEXT NOT NULL DEFAULT '{}';

-- Delivered events stay in the outbox for the retention
-- (--webhook-retention), for the per-webhook event stream to resume from:
-- delivered_at (unix milliseconds) is NULL until the receiver took the
-- event; the delivery worker deletes those delivered before the retention.
ALTER TABLE webhook_outbox ADD COLUMN delivered_at BIGINT;
CREATE INDEX webhook_outbox_pending ON webhook_outbox (webhook_id, block_number, position) WHERE delivered_at IS NULL;
CREATE INDEX webhook_outbox_delivered ON webhook_outbox (delivered_at) WHERE delivered_at IS NOT NULL;
CREATE INDEX webhook_outbox_message ON webhook_outbox (webhook_id, message_id);
