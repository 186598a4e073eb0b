-- primary_network_address_activity and validator_activity webhooks: what
-- they watch beyond their keys (webhook_addresses: bech32 addresses, node
-- ids or subnet ids), as JSON (store.WebhookFilter). '{}' for
-- address_activity webhooks.
ALTER TABLE webhooks ADD COLUMN filter TEXT NOT NULL DEFAULT '{}';
