import { test } from "node:test";
import assert from "node:assert/strict";
import { BadRequestError } from "@avalanche-sdk/chainkit/models/errors";
import { avalanche, facts, network, opts, pages } from "./lib.mjs";

// The node's P-chain blocks, newest first, as the Go test read them.
const nodeBlocks = [...facts.pChain.blocks].sort((a, b) => b.height - a.height);

test("listLatest pages every P-chain block, newest first, with the SDK's iterator", async () => {
  const first = await avalanche.data.primaryNetwork.blocks.listLatest(
    { blockchainId: "p-chain", network, pageSize: 3 }, opts);
  const all = (await pages(first)).flatMap((p) => p.result.blocks);
  // Blocks accepted after the facts were read may lead the list.
  const known = all.filter((b) => Number(b.blockNumber) <= facts.pChain.height);
  assert.equal(known.length, nodeBlocks.length, "one item per block of the node");
  known.forEach((b, i) => {
    const want = nodeBlocks[i];
    assert.equal(b.blockNumber, String(want.height));
    assert.equal(b.blockHash, want.id);
    assert.equal(b.parentHash, want.parentId);
    assert.equal(b.txCount, want.txIds.length);
    assert.deepEqual(b.transactions, want.txIds);
    assert.equal(b.blockTimestamp, want.timestamp);
  });
});

test("getBlockById answers the node's block", async () => {
  const want = nodeBlocks.find((b) => b.txIds.length > 0) ?? nodeBlocks[0];
  const b = await avalanche.data.primaryNetwork.blocks.get(
    { blockchainId: "p-chain", network, blockId: want.id }, opts);
  assert.equal(b.blockNumber, String(want.height));
  assert.equal(b.blockHash, want.id);
  assert.deepEqual(b.transactions, want.txIds);
});

test("a bad pageSize is a 400 the SDK reports with the Data API's body", async () => {
  await assert.rejects(
    avalanche.data.primaryNetwork.blocks.listLatest({ blockchainId: "p-chain", network, pageSize: 101 }, opts),
    (err) => {
      // The SDK parsed the body as its 400 error type.
      assert.ok(err instanceof BadRequestError, `got ${err?.constructor?.name}: ${err}`);
      assert.equal(err.statusCode, 400);
      assert.match(String(err.message), /pageSize/);
      return true;
    });
});
