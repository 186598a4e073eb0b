import { test } from "node:test";
import assert from "node:assert/strict";
import { avalanche, facts, network, opts, pages } from "./lib.mjs";

const txs = avalanche.data.primaryNetwork.transactions;

// The node's block that holds each P-chain tx, from the node's own blocks.
const pBlockOf = new Map();
for (const b of facts.pChain.blocks) {
  for (const id of b.txIds) pBlockOf.set(id, b);
}

test("getTxByHash answers each issued tx in its chain's shape", async () => {
  for (const want of facts.txs) {
    const tx = await txs.get({ blockchainId: want.chain, network, txHash: want.id }, opts);
    assert.equal(tx.txHash, want.id, `${want.chain} ${want.type}`);
    assert.equal(tx.txType, want.type, `${want.chain} ${want.id}`);
    if (want.chain === "p-chain") {
      const block = pBlockOf.get(want.id);
      assert.ok(block, `the node has no block with ${want.id}`);
      assert.equal(tx.blockNumber, String(block.height), `${want.type} ${want.id}`);
      assert.equal(tx.blockHash, block.id);
    } else if (want.chain === "x-chain") {
      assert.equal(tx.chainFormat, "linear");
    } else {
      // The C-chain's atomic txs move AVAX to or from the P-chain.
      assert.equal(tx.sourceChain !== tx.destinationChain, true);
      assert.ok(want.type === "ExportTx" ? tx.emittedUtxos.length > 0 : tx.consumedUtxos.length > 0);
    }
  }
});

test("listAssetTransactions pages the created asset's txs with the SDK's iterator", async () => {
  const first = await txs.listAssetTransactions(
    { blockchainId: "x-chain", network, assetId: facts.assetId, pageSize: 1 }, opts);
  const all = (await pages(first)).flatMap((p) => p.result.transactions);
  const ids = all.map((t) => t.txHash);
  assert.equal(new Set(ids).size, ids.length, "each tx once");
  const created = facts.txs.find((t) => t.type === "CreateAssetTx").id;
  const tx = all.find((t) => t.txHash === created);
  assert.ok(tx, "the CreateAssetTx is listed");
  assert.equal(tx.assetCreated.assetId, facts.assetId);
});

test("listActiveStakingTransactions lists exactly the node's current stakers", async () => {
  const first = await txs.listActiveStakingTransactions({ blockchainId: "p-chain", network, pageSize: 2 }, opts);
  const ids = (await pages(first)).flatMap((p) => p.result.transactions).map((t) => t.txHash);
  assert.deepEqual([...ids].sort(), [...facts.stakers].sort());
});
