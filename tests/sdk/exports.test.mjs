import { test } from "node:test";
import assert from "node:assert/strict";
import { Avalanche } from "@avalanche-sdk/chainkit";
import { facts, network, opts } from "./lib.mjs";

// The transaction export operations, with the key and address
// tests/exports_test.go (TestExports) used; TestSDK's run has none, so
// there they skip.
const e = facts.exports;
const skip = e ? false : "needs the export facts: run by TestExports";
const client = e && new Avalanche({ serverURL: opts.serverURL, apiKey: e.apiKey, enableTelemetry: false, network });

test("operations.exportTransactions and getResult export the address's P-chain txs", { skip }, async () => {
  const created = await client.data.operations.exportTransactions(
    { type: "TRANSACTION_EXPORT_PRIMARY_NETWORK", firstDate: e.firstDate, lastDate: e.lastDate,
      options: { includeChains: ["p-chain"], addresses: [e.address] } }, opts);
  assert.equal(created.operationType, "TRANSACTION_EXPORT_PRIMARY_NETWORK");
  assert.equal(created.operationStatus, "RUNNING");
  assert.match(created.operationId, /^[0-9a-f-]{36}$/);
  assert.ok(created.createdAtTimestamp > 0 && created.updatedAtTimestamp >= created.createdAtTimestamp);

  let op = created;
  for (let i = 0; op.operationStatus === "RUNNING"; i++) {
    assert.ok(i < 600, "still running after a minute");
    await new Promise((r) => setTimeout(r, 100));
    op = await client.data.operations.getResult({ operationId: created.operationId }, opts);
  }
  assert.equal(op.operationStatus, "COMPLETED");
  assert.equal(op.operationId, created.operationId);
  assert.match(op.message, /^exported \d+ rows$/);
  const url = new URL(op.metadata.downloadUrl);
  assert.equal(url.pathname, `/v1/operations/${created.operationId}/download`);

  // The link needs no key.
  const res = await fetch(url);
  assert.equal(res.status, 200);
  const lines = (await res.text()).trimEnd().split("\n");
  assert.equal(lines[0], e.columns.join(","));
  const rows = lines.slice(1).map((l) => l.split(","));
  assert.equal(rows.length, Number(op.message.match(/\d+/)[0]));
  const hashes = new Set(rows.map((r) => r[e.columns.indexOf("txHash")]));
  for (const h of e.pTxs) {
    assert.ok(hashes.has(h), `tx ${h} is not in the file`);
  }
  for (const r of rows) {
    assert.equal(r[e.columns.indexOf("chainName")], "p-chain");
  }
});

test("operations.exportTransactions refuses a bad date with a 400 naming it", { skip }, async () => {
  await assert.rejects(
    client.data.operations.exportTransactions(
      { type: "TRANSACTION_EXPORT_PRIMARY_NETWORK", firstDate: "2024-02-31",
        options: { includeChains: ["p-chain"], addresses: [e.address] } }, opts),
    (err) => err.statusCode === 400 && /firstDate/.test(err.message));
});

test("operations.getResult of an unknown operation is a 404", { skip }, async () => {
  await assert.rejects(
    client.data.operations.getResult({ operationId: "aa22054a-cb7c-4a4e-9b83-59f2ede74138" }, opts),
    (err) => err.statusCode === 404);
});
