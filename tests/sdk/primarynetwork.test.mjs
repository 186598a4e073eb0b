import { test } from "node:test";
import assert from "node:assert/strict";
import { avalanche, facts, network, opts, pages } from "./lib.mjs";

// The Primary Network tag, its balances, pending rewards, vertices and
// last activity, through the SDK, against what the Go test read off the
// node (facts.primary).
const want = facts.primary;

test("listSubnets pages platform.getSubnets' subnets, getSubnetById each", async () => {
  const first = await avalanche.data.primaryNetwork.listSubnets({ network, pageSize: 1 }, opts);
  const subnets = (await pages(first)).flatMap((p) => p.result.subnets);
  assert.deepEqual(subnets.map((s) => s.subnetId).sort(), [...want.subnets].sort());
  for (const s of subnets) {
    const one = await avalanche.data.primaryNetwork.getSubnetById({ network, subnetId: s.subnetId }, opts);
    assert.equal(one.subnetId, s.subnetId);
    assert.equal(one.isL1, s.isL1);
  }
});

test("listBlockchains pages platform.getBlockchains' chains, getBlockchainById each", async () => {
  const first = await avalanche.data.primaryNetwork.listBlockchains({ network, pageSize: 2 }, opts);
  const chains = (await pages(first)).flatMap((p) => p.result.blockchains);
  const byId = new Map(chains.map((c) => [c.blockchainId, c]));
  assert.equal(chains.length, want.blockchains.length);
  for (const w of want.blockchains) {
    const c = byId.get(w.id);
    assert.ok(c, `blockchain ${w.id} listed`);
    assert.equal(c.blockchainName, w.name);
    assert.equal(c.subnetId, w.subnetId);
    assert.equal(c.vmId, w.vmId);
    const one = await avalanche.data.primaryNetwork.getBlockchainById({ network, blockchainId: w.id }, opts);
    assert.equal(one.blockchainName, w.name);
  }
});

test("getAssetDetails answers avm.getAssetDescription", async () => {
  const a = await avalanche.data.primaryNetwork.getAssetDetails(
    { network, blockchainId: "x-chain", assetId: want.asset.id }, opts);
  assert.equal(a.assetId, want.asset.id);
  assert.equal(a.name, want.asset.name);
  assert.equal(a.symbol, want.asset.symbol);
  assert.equal(a.denomination, want.asset.denomination);
});

test("getNetworkDetails counts the current validators", async () => {
  const d = await avalanche.data.primaryNetwork.getNetworkDetails({ network }, opts);
  assert.equal(d.validatorDetails.validatorCount, want.validatorCount);
  assert.ok(BigInt(d.validatorDetails.totalAmountStaked) > 0n);
});

test("balances.listByAddresses: the P-chain's as platform.getBalance", async () => {
  const b = await avalanche.data.primaryNetwork.balances.listByAddresses(
    { network, blockchainId: "p-chain", addresses: facts.utxos.pair }, opts);
  const sum = (lines) => lines.reduce((s, l) => s + BigInt(l.amount), 0n);
  assert.equal(sum(b.balances.unlockedUnstaked), BigInt(want.unlocked));
  assert.equal(sum(b.balances.lockedPlatform), BigInt(want.lockedNotStakeable));
  assert.equal(b.chainInfo.chainName, "p-chain");
});

test("rewards.listPendingRewards lists a validator node's current stakers", async () => {
  const first = await avalanche.data.primaryNetwork.rewards.listPendingRewards(
    { network, nodeIds: want.nodeId, pageSize: 1 }, opts);
  const items = (await pages(first)).flatMap((p) => p.result.pendingRewards);
  assert.deepEqual(items.map((r) => r.txHash).sort(), [...want.pending].sort());
  for (const r of items) {
    assert.equal(r.nodeId, want.nodeId);
    assert.ok(r.progress >= 0 && r.progress <= 100);
  }
});

test("vertices.listLatest: the local X-chain is linear, no vertex", async () => {
  const first = await avalanche.data.primaryNetwork.vertices.listLatest({ network, blockchainId: "x-chain" }, opts);
  const all = (await pages(first)).flatMap((p) => p.result.vertices);
  assert.deepEqual(all, []);
});

test("utxos.getLastActivityTimestampByAddresses, GET and POST agree", async () => {
  const get = await avalanche.data.primaryNetwork.utxos.getLastActivityTimestampByAddresses(
    { network, blockchainId: "p-chain", addresses: facts.utxos.pair }, opts);
  assert.equal(get.chainName, "p-chain");
  assert.ok(get.timestamp > 0);
  const post = await avalanche.data.primaryNetwork.utxos.getLastActivityTimestampByAddressesV2(
    { network, blockchainId: "p-chain", primaryNetworkAddressesBodyDto: { addresses: facts.utxos.pair } }, opts);
  assert.equal(post.txHash, get.txHash);
  assert.equal(post.blockNumber, get.blockNumber);
});
