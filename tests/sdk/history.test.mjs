import { test } from "node:test";
import assert from "node:assert/strict";
import { BadRequestError } from "@avalanche-sdk/chainkit/models/errors";
import { avalanche, facts, network, opts, pages } from "./lib.mjs";

// Address histories and blocks by proposer, run by tests/sdk_history_test.go:
// TestSDKHistory (the local network, facts.history) and TestSDKBlocksByNode
// (the custom network, whose node signs its blocks: facts.proposers). Each
// group skips when its facts are absent (TestSDK runs every file).
const h = facts.history;
const skipHistory = h ? false : "run by TestSDKHistory";
const p = facts.proposers;
const skipProposers = p ? false : "run by TestSDKBlocksByNode";

const txs = avalanche.data.primaryNetwork.transactions;

async function history(req) {
  const first = await txs.listLatest({ network, pageSize: 2, ...req }, opts);
  return (await pages(first)).flatMap((pg) => pg.result.transactions);
}

test("listLatest: the recipient's P- and X-chain history is the BaseTx sent to it", { skip: skipHistory }, async () => {
  const p = await history({ blockchainId: "p-chain", addresses: h.recipient });
  assert.deepEqual(p.map((t) => t.txHash), [h.pBaseTx]);
  assert.equal(p[0].txType, "BaseTx");
  assert.equal(p[0].blockNumber, h.pBaseTxBlock);
  const x = await history({ blockchainId: "x-chain", addresses: "X-" + h.recipient });
  assert.deepEqual(x.map((t) => t.txHash), [h.xBaseTx]);
});

test("listLatest: the funded key's history holds every tx it paid for, newest first", { skip: skipHistory }, async () => {
  for (const [chain, want] of Object.entries(h.funded)) {
    const all = await history({ blockchainId: chain, addresses: h.fundedAddress });
    const ids = all.map((t) => t.txHash);
    for (const id of want) assert.ok(ids.includes(id), `${chain}: ${id} listed`);
    assert.equal(new Set(ids).size, ids.length, "each tx once");
    const times = all.map((t) => t.blockTimestamp ?? t.timestamp);
    assert.deepEqual(times, [...times].sort((a, b) => b - a), "newest first");
  }
});

test("listLatest: txTypes keeps the P-chain imports", { skip: skipHistory }, async () => {
  const all = await history({ blockchainId: "p-chain", addresses: h.fundedAddress, txTypes: ["ImportTx"] });
  assert.deepEqual(all.map((t) => t.txHash).sort(), [...h.pImports].sort());
});

test("listLatest: a bad address is a 400 naming addresses", { skip: skipHistory }, async () => {
  await assert.rejects(txs.listLatest({ blockchainId: "p-chain", network, addresses: "nope" }, opts),
    (err) => err instanceof BadRequestError && JSON.stringify(err).includes("addresses"));
});

test("listByNodeId: the node's signed blocks, newest first, with their proposer", { skip: skipProposers }, async () => {
  for (const [chain, want] of Object.entries(p.blocks)) {
    const first = await avalanche.data.primaryNetwork.blocks.listByNodeId(
      { blockchainId: chain, network, nodeId: p.nodeId, pageSize: 2 }, opts);
    const all = (await pages(first)).flatMap((pg) => pg.result.blocks)
      .filter((b) => Number(b.blockNumber) <= want.top);
    assert.deepEqual(all.map((b) => b.blockNumber), want.heights, chain);
    for (const b of all) assert.equal(b.proposerDetails.proposerNodeId, p.nodeId);
  }
});
