import { test } from "node:test";
import assert from "node:assert/strict";
import { BadRequestError } from "@avalanche-sdk/chainkit/models/errors";
import { avalanche, facts, network, opts, pages } from "./lib.mjs";

// The UTXO lists of two keys no other test touches, and the rewards of
// the scenario's validator node, as the Go test read them off the node.
const f = facts.utxos;
const r = facts.rewards;

// checkList checks a list's items against the node's UTXOs by id.
function checkList(items, want, what) {
  assert.deepEqual(items.map((u) => u.utxoId).sort(), Object.keys(want).sort(), `${what}: the node's UTXOs`);
  for (const u of items) {
    const w = want[u.utxoId];
    assert.equal(u.utxoBytes, w.bytes, `${what}: bytes of ${u.utxoId}`);
    assert.equal(u.asset.amount, w.amount, `${what}: amount of ${u.utxoId}`);
    assert.equal(u.createdOnChainId, w.createdOnChainId, `${what}: created on`);
    assert.equal(u.consumedOnChainId, w.consumedOnChainId, `${what}: consumed on`);
    assert.equal(u.consumingTxHash, undefined, `${what}: ${u.utxoId} is unspent`);
  }
}

for (const chain of ["p-chain", "x-chain", "c-chain"]) {
  test(`listByAddresses pages ${chain}'s list with the SDK's iterator: the node's UTXOs`, async () => {
    const first = await avalanche.data.primaryNetwork.utxos.listByAddresses(
      { blockchainId: chain, network, addresses: f.address, pageSize: 2 }, opts);
    const result = await pages(first);
    const items = result.flatMap((p) => p.result.utxos);
    assert.ok(items.length > 0, "the list is not empty");
    checkList(items, f.lists[chain], chain);
    for (const p of result) {
      assert.equal(p.result.chainInfo.chainName, chain);
      assert.equal(p.result.chainInfo.network, network);
    }
    for (const u of items) {
      assert.ok(u.addresses.includes(f.address), "k1 owns it");
      // P-chain items number their output index, X- and C-chain ones spell it.
      assert.equal(typeof u.outputIndex, chain === "p-chain" ? "number" : "string");
    }
  });
}

test("listByAddressesV2 lists the 2-of-2 outputs of both owners, in pages of up to 1024", async () => {
  const first = await avalanche.data.primaryNetwork.utxos.listByAddressesV2(
    { blockchainId: "p-chain", network, pageSize: 1024, primaryNetworkAddressesBodyDto: { addresses: f.pair } }, opts);
  const items = (await pages(first)).flatMap((p) => p.result.utxos);
  checkList(items, f.pairP, "k1 and k2");
  assert.ok(items.some((u) => u.threshold === 2), "a 2-of-2 output");
  assert.ok(Object.keys(f.pairP).length > Object.keys(f.lists["p-chain"]).length, "more than k1's alone");
});

test("listByAddresses sorts by amount, ascending, one item a page", async () => {
  const first = await avalanche.data.primaryNetwork.utxos.listByAddresses(
    { blockchainId: "x-chain", network, addresses: `X-${f.address}`, pageSize: 1, sortBy: "amount", sortOrder: "asc" }, opts);
  const items = (await pages(first)).flatMap((p) => p.result.utxos);
  checkList(items, f.lists["x-chain"], "x-chain by amount");
  const amounts = items.map((u) => BigInt(u.asset.amount));
  for (let i = 1; i < amounts.length; i++) {
    assert.ok(amounts[i - 1] <= amounts[i], `amounts ascend: ${amounts}`);
  }
});

test("listHistoricalRewards pages the validator node's rewards, newest first", async () => {
  const first = await avalanche.data.primaryNetwork.rewards.listHistoricalRewards(
    { network, nodeIds: r.nodeId, pageSize: 1 }, opts);
  const items = (await pages(first)).flatMap((p) => p.result.historicalRewards);
  assert.equal(items.length, r.rewards.length, "one record per reward UTXO");
  assert.deepEqual(items.map((h) => h.rewardType).sort(), ["DELEGATOR", "VALIDATOR", "VALIDATOR_FEE"]);
  items.forEach((h, i) => {
    const w = r.rewards[i];
    assert.equal(h.utxoId, w.utxoId);
    assert.equal(h.rewardType, w.rewardType);
    assert.equal(h.reward.amount, w.reward.amount);
    assert.equal(h.reward.symbol, "AVAX");
    assert.equal(h.txHash, w.txHash);
    assert.equal(h.rewardTxHash, w.rewardTxHash);
    assert.equal(h.nodeId, w.nodeId);
    assert.equal(h.amountStaked, w.amountStaked);
    assert.equal(h.outputIndex, w.outputIndex);
    assert.deepEqual(h.addresses, w.addresses);
  });
});

test("65 addresses are a 400 naming addresses", async () => {
  const many = Array.from({ length: 65 }, () => f.address).join(",");
  await assert.rejects(
    avalanche.data.primaryNetwork.utxos.listByAddresses({ blockchainId: "p-chain", network, addresses: many }, opts),
    (err) => {
      assert.ok(err instanceof BadRequestError, `got ${err?.constructor?.name}: ${err}`);
      assert.match(String(err.message), /addresses/);
      return true;
    });
});
