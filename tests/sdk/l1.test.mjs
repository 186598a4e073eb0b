import { test } from "node:test";
import assert from "node:assert/strict";
import { NotFoundError, TooManyRequestsError } from "@avalanche-sdk/chainkit/models/errors";
import { avalanche, facts, opts, pages } from "./lib.mjs";

// The test contracts' NFTs on a real subnet-evm L1 and the L1's blocks per
// hour, as tests/sdk_evm_test.go (TestSDKL1) read them off the L1's node.
// Absent under TestSDK, which runs every file: these tests then skip.
const f = facts.l1;
const skip = f ? false : "needs the L1: run by TestSDKL1";
const hour = 3600;

test("nfts.list pages the L1's ERC-721 collection: each token's last URI and its metadata", { skip }, async () => {
  const result = await pages(await avalanche.data.nfts.list({ chainId: f.chainId, address: f.erc721.address, pageSize: 1 }, opts));
  assert.equal(result.length >= 2, true, "one token a page");
  const tokens = result.flatMap((p) => p.result.tokens);
  assert.deepEqual(tokens.map((t) => t.tokenId), Object.keys(f.erc721.tokens).sort());
  for (const t of tokens) {
    const w = f.erc721.tokens[t.tokenId];
    assert.equal(t.ercType, "ERC-721");
    assert.equal(t.address, f.erc721.address);
    assert.equal(t.name, f.erc721.name);
    assert.equal(t.symbol, f.erc721.symbol);
    assert.equal(t.tokenUri, w.tokenUri, `token ${t.tokenId}'s URI`);
    assert.equal(t.metadata.indexStatus, "INDEXED", `token ${t.tokenId}'s indexStatus`);
    assert.equal(t.metadata.name, w.name, `token ${t.tokenId}'s name`);
    assert.equal(t.metadata.description, w.description, `token ${t.tokenId}'s description`);
  }
});

test("nfts.get: the L1's ERC-721 token with its owner, the ERC-1155 token with its own URI", { skip }, async () => {
  for (const [id, w] of Object.entries(f.erc721.tokens)) {
    const t = await avalanche.data.nfts.get({ chainId: f.chainId, address: f.erc721.address, tokenId: id }, opts);
    assert.equal(t.ercType, "ERC-721");
    assert.equal(t.ownerAddress, w.owner, `token ${id}'s owner`);
    assert.equal(t.metadata.name, w.name);
  }
  const g = await avalanche.data.nfts.get({ chainId: f.chainId, address: f.erc1155.address, tokenId: "2" }, opts);
  assert.equal(g.ercType, "ERC-1155");
  assert.equal(g.tokenUri, f.erc1155.own.tokenUri);
  assert.equal(g.metadata.name, f.erc1155.own.name);
  assert.equal(g.metadata.description, f.erc1155.own.description);
  await assert.rejects(avalanche.data.nfts.get({ chainId: f.chainId, address: f.erc721.address, tokenId: "99" }, opts), NotFoundError);
});

test("nfts.reindex on the L1: 201 once, then TooManyRequests within the hour; an unknown token is not found", { skip }, async () => {
  const res = await avalanche.data.nfts.reindex({ chainId: f.chainId, address: f.erc721.address, tokenId: "2" }, opts);
  assert.equal(res, undefined, "an empty 201");
  await assert.rejects(avalanche.data.nfts.reindex({ chainId: f.chainId, address: f.erc721.address, tokenId: "2" }, opts),
    (err) => err instanceof TooManyRequestsError && /less than an hour ago/.test(err.message));
  await assert.rejects(avalanche.data.nfts.reindex({ chainId: f.chainId, address: f.erc721.address, tokenId: "99" }, opts), NotFoundError);
});

test("the L1's NFT balances: listErc721, listErc1155 and listCollectibles of Alice and Bob", { skip }, async () => {
  const b721 = (await pages(await avalanche.data.evm.address.balances.listErc721(
    { chainId: f.chainId, address: f.alice, contractAddress: f.erc721.address }, opts))).flatMap((p) => p.result.erc721TokenBalances);
  assert.deepEqual(b721.map((t) => [t.tokenId, t.chainId]), [["1", f.chainId]]);
  const b1155 = (await pages(await avalanche.data.evm.address.balances.listErc1155(
    { chainId: f.chainId, address: f.bob, contractAddress: f.erc1155.address }, opts))).flatMap((p) => p.result.erc1155TokenBalances);
  assert.deepEqual(b1155.map((t) => [t.tokenId, t.balance]).sort(), [["1", "5"], ["2", "7"]]);
  const all = (await pages(await avalanche.data.evm.address.balances.listCollectibles(
    { chainId: f.chainId, address: f.bob, pageSize: 1 }, opts))).flatMap((p) => p.result.collectibleBalances);
  assert.deepEqual(all.map((t) => `${t.ercType} ${t.tokenId} ${t.balance ?? ""}`).sort(),
    ["ERC-1155 1 5", "ERC-1155 2 7", "ERC-721 2 "]);
});

test("metrics.chains.list and .get name the L1 by its EVM chain id, blockchain and subnet", { skip }, async () => {
  const list = await avalanche.metrics.chains.list({}, opts);
  const chains = (await pages(list)).flatMap((p) => p.result.chains);
  const listed = chains.find((c) => String(c.evmChainId) === f.chainId);
  assert.ok(listed, `metrics.chains.list lacks ${f.chainId}`);
  const c = await avalanche.metrics.chains.get({ chainId: f.chainId }, opts);
  for (const got of [listed, c]) {
    assert.equal(String(got.evmChainId), f.chainId);
    assert.equal(got.blockchainId, f.blockchainId);
    assert.equal(got.subnetId, f.subnetId);
  }
});

test("metrics.chains.getMetrics: the L1's hourly txCount and gasUsed are the node's blocks', newest first", { skip }, async () => {
  const first = f.hours[0].timestamp;
  const last = f.hours[f.hours.length - 1].timestamp;
  const want = new Map(f.hours.map((h) => [h.timestamp, h]));
  for (const metric of ["txCount", "gasUsed"]) {
    const res = await avalanche.metrics.chains.getMetrics(
      { chainId: f.chainId, metric, timeInterval: "hour", startTimestamp: first, pageSize: 2 }, opts);
    const all = (await pages(res)).flatMap((p) => p.result.results);
    assert.equal(all[all.length - 1].timestamp, first, `${metric}: the series starts at the L1's first block's hour`);
    all.forEach((p, i) => {
      if (i > 0) assert.equal(p.timestamp, all[i - 1].timestamp - hour, `${metric}: consecutive hours, newest first`);
      const w = want.get(p.timestamp);
      const v = w ? (metric === "txCount" ? w.txCount : w.gasUsed) : 0;
      // Other tests' blocks on the shared L1 land in the last hour or later.
      if (p.timestamp < last) {
        assert.equal(p.value, v, `${metric} of hour ${p.timestamp}`);
      } else {
        assert.ok(p.value >= v, `${metric} of hour ${p.timestamp}: ${p.value} < ${v}`);
      }
    });
  }
  const total = f.hours.reduce((a, h) => a + h.txCount, 0);
  const cum = await avalanche.metrics.chains.getMetrics(
    { chainId: f.chainId, metric: "cumulativeTxCount", timeInterval: "day", pageSize: 1 }, opts);
  assert.ok(cum.result.results[0].value >= total, `cumulativeTxCount ${cum.result.results[0].value} < the node's ${total}`);
});

// listedErc20 runs the SDK's page iterator over an address's ERC-20
// balances on the L1 and returns them as { token address: balance item }.
async function listedErc20(req) {
  const all = await pages(await avalanche.data.evm.address.balances.listErc20(
    { chainId: f.chainId, pageSize: 1, ...req }, opts));
  const out = {};
  for (const p of all) {
    assert.equal(p.result.nativeTokenBalance.chainId, f.chainId);
    for (const b of p.result.erc20TokenBalances) {
      assert.equal(b.chainId, f.chainId);
      assert.equal(b.ercType, "ERC-20");
      assert.equal(out[b.address], undefined, `${b.address} listed twice`);
      out[b.address] = b;
    }
  }
  return out;
}

const balancesOf = (got) => Object.fromEntries(Object.entries(got).map(([a, b]) => [a, b.balance]));
const at = (c) => `${c.holder} at ${c.blockNumber || "the last block"}`;

test("address.balances.listErc20 on the L1 equals the node's balanceOf, at the last block and at every past blockNumber", { skip }, async () => {
  const contractAddresses = f.erc20.tokens.map((t) => t.address).join(",");
  for (const c of f.erc20.checks) {
    const req = { address: c.holder, contractAddresses, filterSpamTokens: false };
    if (c.blockNumber !== "") req.blockNumber = c.blockNumber;
    assert.deepEqual(balancesOf(await listedErc20(req)), c.balances, at(c));
  }
});

test("address.balances.listErc20 on the L1: contractAddresses naming one token lists that one alone", { skip }, async () => {
  for (const c of f.erc20.only) {
    const req = { address: c.holder, contractAddresses: c.token };
    if (c.blockNumber !== "") req.blockNumber = c.blockNumber;
    assert.deepEqual(balancesOf(await listedErc20(req)), c.balances, `${at(c)}, ${c.token} alone`);
  }
});

test("address.balances.listErc20 on the L1 without contractAddresses: a new holder's tokens, named", { skip }, async () => {
  const tokens = Object.fromEntries(f.erc20.tokens.map((t) => [t.address, t]));
  for (const holder of f.erc20.fresh) {
    const want = f.erc20.checks.find((c) => c.holder === holder && c.blockNumber === "").balances;
    assert.ok(Object.keys(want).length > 0, `${holder} holds a token`);
    const got = await listedErc20({ address: holder });
    assert.deepEqual(balancesOf(got), want, holder);
    for (const [a, b] of Object.entries(got)) {
      assert.equal(b.name, tokens[a].name);
      assert.equal(b.symbol, tokens[a].symbol);
      assert.equal(b.decimals, tokens[a].decimals);
    }
  }
});
