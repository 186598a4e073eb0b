// The Webhooks tag through the real client: the ten operations, with the
// values the Go test (tests/sdk_webhooks_test.go) chose.
import { test } from "node:test";
import assert from "node:assert/strict";
import { Avalanche } from "@avalanche-sdk/chainkit";
import { facts, opts, pages } from "./lib.mjs";

// Absent under TestSDK, which runs every file: the tests then skip.
const w = facts.webhooks;
const skip = w ? false : "run by TestSDKWebhooks";
const client = (apiKey) =>
  new Avalanche({ serverURL: process.env.AVAINDEX_URL, enableTelemetry: false, network: facts.network, apiKey });
const alice = w && client(w.key);
const bob = w && client(w.otherKey);

test("webhooks: create, read, change, list, deactivate", { skip }, async () => {
  const created = await alice.webhooks.create(
    {
      eventType: "address_activity",
      url: w.url,
      name: "sdk",
      description: "made by chainkit",
      chainId: w.chainId,
      metadata: { addresses: [w.addresses[0], w.addresses[1]], eventSignatures: [w.signature] },
      includeLogs: true,
    },
    opts,
  );
  assert.equal(created.eventType, "address_activity");
  assert.equal(created.status, "active");
  assert.equal(created.url, w.url);
  assert.equal(created.chainId, w.chainId);
  assert.equal(created.includeLogs, true);
  assert.deepEqual([...created.metadata.addresses].sort(), [w.addresses[0], w.addresses[1]].map((a) => a.toLowerCase()).sort());
  assert.deepEqual(created.metadata.eventSignatures, [w.signature]);
  const id = created.id;
  assert.match(id, /^[0-9a-f-]{36}$/);

  const got = await alice.webhooks.get({ id }, opts);
  assert.equal(got.name, "sdk");
  assert.equal(got.description, "made by chainkit");

  // Another key sees none of it.
  await assert.rejects(bob.webhooks.get({ id }, opts), (e) => e.statusCode === 404 || /404/.test(String(e)));

  const added = await alice.webhooks.addresses.add({ id, addressesChangeRequest: { addresses: [w.addresses[2]] } }, opts);
  assert.equal(added.metadata.addresses.length, 3);
  const removed = await alice.webhooks.addresses.remove({ id, addressesChangeRequest: { addresses: [w.addresses[0]] } }, opts);
  assert.ok(!removed.metadata.addresses.includes(w.addresses[0].toLowerCase()));
  const addrPages = await pages(await alice.webhooks.addresses.list({ id, pageSize: 1 }, opts));
  assert.equal(addrPages.length, 2);
  assert.equal(addrPages[0].result.totalAddresses, 2);
  assert.deepEqual(
    addrPages.flatMap((p) => p.result.addresses),
    [w.addresses[1], w.addresses[2]].map((a) => a.toLowerCase()).sort(),
  );

  const updated = await alice.webhooks.update({ id, updateWebhookRequest: { name: "renamed", includeInternalTxs: true } }, opts);
  assert.equal(updated.name, "renamed");
  assert.equal(updated.includeInternalTxs, true);

  const listed = await pages(await alice.webhooks.list({ pageSize: 10, status: "active" }, opts));
  assert.deepEqual(listed.flatMap((p) => p.result.webhooks.map((h) => h.id)), [id]);

  const off = await alice.webhooks.deactivate({ id }, opts);
  assert.equal(off.status, "inactive");
  const inactive = await pages(await alice.webhooks.list({ status: "inactive" }, opts));
  assert.deepEqual(inactive.flatMap((p) => p.result.webhooks.map((h) => h.id)), [id]);
  const none = await pages(await bob.webhooks.list({}, opts));
  assert.equal(none.flatMap((p) => p.result.webhooks).length, 0);
});

test("webhooks: the shared secret", { skip }, async () => {
  const first = await alice.webhooks.getSharedSecret(opts);
  assert.match(first.secret, /^[0-9a-f]{64}$/);
  const rotated = await alice.webhooks.generateOrRotateSharedSecret(opts);
  assert.notEqual(rotated.secret, first.secret);
  assert.equal((await alice.webhooks.getSharedSecret(opts)).secret, rotated.secret);
  assert.notEqual((await bob.webhooks.getSharedSecret(opts)).secret, rotated.secret);
});
