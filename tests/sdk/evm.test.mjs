import { test } from "node:test";
import assert from "node:assert/strict";
import { avalanche, facts, opts, pages } from "./lib.mjs";

// What the EVM scenarios did on the C-chain (TestSDK) or on a subnet-evm
// L1 (TestSDKL1), as the Go test recorded it and read off the node.
const evm = facts.evm;
const chainId = evm.chainId;
const erc20 = evm.tokens["ERC-20"];
const erc721 = evm.tokens["ERC-721"];
const erc1155 = evm.tokens["ERC-1155"];

// tokenOf is the token of a listed transfer, whichever standard's it is.
function tokenOf(t) {
  return t.erc20Token ?? t.erc721Token ?? t.erc1155Token;
}

// assertTransfers compares listed transfers with the scenario's, in order.
function assertTransfers(what, got, want) {
  assert.equal(got.length, want.length, `${what}: ${got.length} transfers, the scenario made ${want.length}`);
  want.forEach((w, i) => {
    const g = got[i];
    const token = tokenOf(g);
    assert.ok(token, `${what} #${i}: no token in ${JSON.stringify(g)}`);
    assert.equal(token.address, w.contract, `${what} #${i}: token`);
    assert.equal(token.ercType, w.standard, `${what} #${i}: ercType`);
    assert.equal(g.txHash, w.txHash, `${what} #${i}: txHash`);
    assert.equal(g.blockNumber, w.blockNumber, `${what} #${i}: blockNumber`);
    assert.equal(g.blockHash, w.blockHash, `${what} #${i}: blockHash`);
    assert.equal(g.from.address, w.from, `${what} #${i}: from`);
    assert.equal(g.to.address, w.to, `${what} #${i}: to`);
    if (w.standard === "ERC-721") {
      assert.equal(token.tokenId, w.tokenId, `${what} #${i}: tokenId`);
      assert.equal(token.name, erc721.name);
      assert.equal(token.symbol, erc721.symbol);
    } else if (w.standard === "ERC-1155") {
      assert.equal(token.tokenId, w.tokenId, `${what} #${i}: tokenId`);
      assert.equal(g.value, w.value, `${what} #${i}: value`);
    } else {
      assert.equal(g.value, w.value, `${what} #${i}: value`);
      assert.equal(token.name, erc20.name);
      assert.equal(token.symbol, erc20.symbol);
      assert.equal(token.decimals, erc20.decimals);
    }
  });
}

test("chains.list lists the C-chain, and chains.get answers it by its EVM and its blockchain id", async () => {
  const list = await avalanche.data.evm.chains.list({}, opts);
  const listed = list.chains.find((c) => c.chainId === chainId);
  assert.ok(listed, `chains.list lacks ${chainId}: ${JSON.stringify(list.chains.map((c) => c.chainId))}`);
  for (const id of [chainId, evm.blockchainId]) {
    const c = await avalanche.data.evm.chains.get({ chainId: id }, opts);
    assert.equal(c.chainId, chainId);
    assert.equal(c.platformChainId, evm.blockchainId);
    assert.equal(c.vmName, "EVM");
    assert.equal(c.networkToken.symbol, evm.symbol);
    assert.equal(c.networkToken.decimals, 18);
    assert.equal(c.chainName, listed.chainName);
  }
});

test("contracts.getMetadata describes the tokens and the factory's children", async () => {
  for (const [standard, t] of Object.entries(evm.tokens)) {
    const m = await avalanche.data.evm.contracts.getMetadata({ chainId, address: t.address }, opts);
    assert.equal(m.address, t.address);
    assert.equal(m.ercType, standard);
    assert.equal(m.name, t.name);
    assert.equal(m.symbol, t.symbol);
    if (standard === "ERC-20") {
      assert.equal(m.decimals, t.decimals);
    }
    assert.deepEqual(m.deploymentDetails, { txHash: t.deploy.hash, deployerAddress: evm.deployer });
  }
  for (const [child, tx] of [[evm.childCreate, evm.createTx], [evm.childCreate2, evm.create2Tx]]) {
    const m = await avalanche.data.evm.contracts.getMetadata({ chainId, address: child }, opts);
    assert.equal(m.ercType, "UNKNOWN");
    assert.deepEqual(m.deploymentDetails,
      { txHash: tx.hash, deployerAddress: evm.deployer, deployerContractAddress: evm.factory });
  }
});

test("contracts.getDeploymentTransaction answers the deploying tx, internal CREATE and CREATE2 included", async () => {
  const d = await avalanche.data.evm.contracts.getDeploymentTransaction({ chainId, address: erc20.address }, opts);
  assert.equal(d.nativeTransaction.txHash, erc20.deploy.hash);
  assert.equal(d.nativeTransaction.blockNumber, erc20.deploy.blockNumber);
  assert.equal(d.nativeTransaction.blockHash, erc20.deploy.blockHash);
  assert.equal(d.nativeTransaction.gasUsed, erc20.deploy.gasUsed);
  assert.equal(d.nativeTransaction.from.address, evm.deployer);
  assert.equal(d.nativeTransaction.to.address, erc20.address);
  assert.equal(d.nativeTransaction.method.callType, "CONTRACT_CREATION");
  for (const [child, tx, op] of [[evm.childCreate, evm.createTx, "CREATE"], [evm.childCreate2, evm.create2Tx, "CREATE2"]]) {
    const c = await avalanche.data.evm.contracts.getDeploymentTransaction({ chainId, address: child }, opts);
    assert.equal(c.nativeTransaction.txHash, tx.hash);
    assert.equal(c.nativeTransaction.to.address, evm.factory);
    assert.equal(c.nativeTransaction.value, evm.childValue);
    assert.equal(c.nativeTransaction.method.callType, "CONTRACT_CALL");
    const frame = c.internalTransactions.find((it) => it.internalTxType === op && it.to.address === child);
    assert.ok(frame, `no ${op} frame to ${child}: ${JSON.stringify(c.internalTransactions)}`);
    assert.equal(frame.from.address, evm.factory);
    assert.equal(frame.value, evm.childValue);
    assert.equal(frame.isReverted, false);
  }
});

test("address.contracts.listDeployments pages the deployer's and the factory's contracts, newest first", async () => {
  const mine = (await pages(await avalanche.data.evm.address.contracts.listDeployments(
    { chainId, address: evm.deployer, pageSize: 2 }, opts))).flatMap((p) => p.result.contracts.map((c) => c.address));
  const at = [evm.factory, erc1155.address, erc721.address, erc20.address].map((a) => mine.indexOf(a));
  assert.ok(at.every((i) => i >= 0), `the deployer's deployments ${mine} lack the scenario's`);
  assert.deepEqual(at, [...at].sort((a, b) => a - b), "newest first");
  const factory = (await pages(await avalanche.data.evm.address.contracts.listDeployments(
    { chainId, address: evm.factory, pageSize: 1 }, opts))).flatMap((p) => p.result.contracts);
  assert.deepEqual(factory.map((c) => c.address), [evm.childCreate2, evm.childCreate]);
  assert.deepEqual(factory.map((c) => c.ercType), ["UNKNOWN", "UNKNOWN"]);
});

test("contracts.listTransfers pages each token's transfers as the scenario made them", async () => {
  for (const t of [erc20, erc721, erc1155]) {
    const got = (await pages(await avalanche.data.evm.contracts.listTransfers(
      { chainId, address: t.address, pageSize: 2 }, opts))).flatMap((p) => p.result.transfers);
    assertTransfers(`${t.symbol}'s transfers`, got, evm.transfers.filter((w) => w.contract === t.address));
  }
});

test("address.transactions.listErc721 and listErc1155 page Alice's and Bob's transfers", async () => {
  for (const [name, who] of [["Alice", evm.alice], ["Bob", evm.bob]]) {
    const touches = (w) => w.from === who || w.to === who;
    const nft = (await pages(await avalanche.data.evm.address.transactions.listErc721(
      { chainId, address: who, pageSize: 1 }, opts))).flatMap((p) => p.result.transactions);
    assertTransfers(`${name}'s ERC-721 transfers`, nft, evm.transfers.filter((w) => w.standard === "ERC-721" && touches(w)));
    const multi = (await pages(await avalanche.data.evm.address.transactions.listErc1155(
      { chainId, address: who, pageSize: 1 }, opts))).flatMap((p) => p.result.transactions);
    assertTransfers(`${name}'s ERC-1155 transfers`, multi, evm.transfers.filter((w) => w.standard === "ERC-1155" && touches(w)));
  }
});

test("address.balances.getNative answers the node's balance at every block", async () => {
  for (const b of evm.balances) {
    const r = await avalanche.data.evm.address.balances.getNative(
      { chainId, address: b.address, blockNumber: b.blockNumber }, opts);
    assert.equal(r.nativeTokenBalance.balance, b.balance, `${b.address} at ${b.blockNumber}`);
    assert.equal(r.nativeTokenBalance.chainId, chainId);
    assert.equal(r.nativeTokenBalance.symbol, evm.symbol);
    assert.equal(r.nativeTokenBalance.decimals, 18);
  }
});

test("address.transactions.listErc20 pages Alice's and Bob's ERC-20 transfers", async () => {
  for (const [name, who] of [["Alice", evm.alice], ["Bob", evm.bob]]) {
    const touches = (w) => w.from === who || w.to === who;
    const got = (await pages(await avalanche.data.evm.address.transactions.listErc20(
      { chainId, address: who, pageSize: 1 }, opts))).flatMap((p) => p.result.transactions);
    assertTransfers(`${name}'s ERC-20 transfers`, got, evm.transfers.filter((w) => w.standard === "ERC-20" && touches(w)));
  }
});

test("healthCheck and liveCheck answer ok", async () => {
  const health = await avalanche.data.healthCheck(opts);
  assert.equal(health.status, "ok");
  assert.equal(health.details.database.status, "up");
  assert.equal((await avalanche.data.liveCheck(opts)).status, "ok");
});

test("blocks.get, blocks.listTransactions and transactions.get answer each token's deployment", async () => {
  for (const t of [erc20, erc721, erc1155]) {
    const d = t.deploy;
    for (const blockId of [d.blockNumber, d.blockHash]) {
      const b = await avalanche.data.evm.blocks.get({ chainId, blockId }, opts);
      assert.equal(b.blockNumber, d.blockNumber, `block ${blockId}`);
      assert.equal(b.blockHash, d.blockHash, `block ${blockId}`);
      assert.equal(b.chainId, chainId);
      assert.ok(b.txCount >= 1, `block ${blockId} has ${b.txCount} txs`);
      assert.ok(BigInt(b.feesSpent) > 0n, `block ${blockId} spent ${b.feesSpent}`);
      assert.ok(BigInt(b.cumulativeTransactions) >= BigInt(b.txCount));
      // Not paged by the SDK: the default pageSize (0) is the whole block.
      const txs = (await avalanche.data.evm.blocks.listTransactions({ chainId, blockId }, opts)).transactions;
      assert.equal(txs.length, b.txCount, `the txs of block ${blockId}`);
      txs.forEach((tx, i) => assert.equal(tx.blockIndex, i, `block ${blockId}: txs in block order`));
      assert.ok(txs.some((tx) => tx.txHash === d.hash), `block ${blockId} lacks ${d.hash}`);
    }
    const tx = await avalanche.data.evm.transactions.get({ chainId, txHash: d.hash }, opts);
    const n = tx.nativeTransaction;
    assert.equal(n.txHash, d.hash);
    assert.equal(n.blockHash, d.blockHash);
    assert.equal(n.blockNumber, d.blockNumber);
    assert.equal(n.gasUsed, d.gasUsed);
    assert.equal(n.txStatus, "1");
    assert.equal(n.to.address, t.address, "a creation's to is the contract it made");
    assert.equal(n.method.callType, "CONTRACT_CREATION");
    assert.equal(tx.networkTokenDetails.networkToken.symbol, evm.symbol);
  }
});

test("blocks.listLatest, transactions.listLatest and their all-chains lists reach the scenario", async () => {
  const latest = await avalanche.data.evm.blocks.listLatest({ chainId, pageSize: 5 }, opts);
  const top = latest.result.blocks;
  assert.equal(top.length, 5);
  assert.ok(BigInt(top[0].blockNumber) >= BigInt(evm.create2Tx.blockNumber));
  for (let i = 1; i < top.length; i++) {
    assert.equal(BigInt(top[i].blockNumber), BigInt(top[i - 1].blockNumber) - 1n, "blocks most recent first");
    assert.equal(top[i].blockHash, top[i - 1].parentHash);
  }
  // Other served chains (under TestSDKL1, the L1 network's C-chain, where
  // the ICM scenario ran) may hold newer blocks: the page is newest first
  // across chains, and this chain's share of it is its own newest blocks.
  const all = (await avalanche.data.evm.blocks.listLatestAllChains({ pageSize: 5 }, opts)).result.blocks;
  assert.equal(all.length, 5);
  for (let i = 1; i < all.length; i++) {
    assert.ok(Number(all[i].blockTimestamp) <= Number(all[i - 1].blockTimestamp), "all chains: newest first");
  }
  const mine = all.filter((b) => b.chainId === chainId).map((b) => b.blockHash);
  assert.deepEqual(mine, top.slice(0, mine.length).map((b) => b.blockHash), "all chains: this chain's newest blocks");
  const served = (await avalanche.data.evm.chains.list({}, opts)).chains;
  if (served.length === 1) assert.equal(mine.length, 5, "one chain served: the page is its blocks");

  for (const list of [
    (q) => avalanche.data.evm.transactions.listLatest({ chainId, ...q }, opts),
    (q) => avalanche.data.evm.transactions.listLatestAllChains(q, opts),
  ]) {
    const seen = (await pages(await list({ pageSize: 100, status: "success" }), 50))
      .flatMap((p) => p.result.transactions);
    for (const d of [evm.createTx, evm.create2Tx, erc20.deploy]) {
      const tx = seen.find((t) => t.txHash === d.hash);
      assert.ok(tx, `the latest successful txs lack ${d.hash}`);
      assert.equal(tx.blockNumber, d.blockNumber);
      assert.equal(tx.gasUsed, d.gasUsed);
    }
    assert.ok(seen.every((t) => t.txStatus === "1"), "status=success lists only successful txs");
  }
});

// The scenario's blocks: from the first token's deployment to its last
// transfer.
const scenarioStart = Number(erc20.deploy.blockNumber);
const scenarioEnd = Math.max(...evm.transfers.map((w) => Number(w.blockNumber)), Number(evm.create2Tx.blockNumber)) + 1;

test("address.transactions.list groups Alice's and Bob's transfers by tx, in either order", async () => {
  for (const [name, who] of [["Alice", evm.alice], ["Bob", evm.bob]]) {
    const q = { chainId, address: who, pageSize: 2, startBlock: scenarioStart, endBlock: scenarioEnd };
    const desc = (await pages(await avalanche.data.evm.address.transactions.list(q, opts))).flatMap((p) => p.result.transactions);
    const asc = (await pages(await avalanche.data.evm.address.transactions.list({ ...q, sortOrder: "asc" }, opts)))
      .flatMap((p) => p.result.transactions);
    const hashes = desc.map((d) => d.nativeTransaction.txHash);
    assert.deepEqual(asc.map((d) => d.nativeTransaction.txHash), [...hashes].reverse(), `${name}: asc is desc reversed`);
    for (let i = 1; i < desc.length; i++) {
      assert.ok(BigInt(desc[i].nativeTransaction.blockNumber) <= BigInt(desc[i - 1].nativeTransaction.blockNumber),
        `${name}: most recent first`);
    }
    const mine = evm.transfers.filter((w) => w.from === who || w.to === who);
    assert.ok(mine.length > 0, `the scenario made no transfer of ${name}'s`);
    assert.equal(new Set(hashes).size, hashes.length, `${name}: each tx once`);
    for (const w of mine) {
      const d = desc.find((x) => x.nativeTransaction.txHash === w.txHash);
      assert.ok(d, `${name}'s history lacks ${w.txHash}`);
      assert.equal(d.nativeTransaction.blockNumber, w.blockNumber);
      assert.equal(d.nativeTransaction.blockHash, w.blockHash);
      const list = { "ERC-20": d.erc20Transfers, "ERC-721": d.erc721Transfers, "ERC-1155": d.erc1155Transfers }[w.standard] ?? [];
      const t = list.find((x) => x.from.address === w.from && x.to.address === w.to &&
        (w.standard === "ERC-721" ? tokenOf(x).tokenId === w.tokenId : x.value === w.value));
      assert.ok(t, `${name}: tx ${w.txHash} lacks its ${w.standard} transfer ${w.from} -> ${w.to}: ${JSON.stringify(list)}`);
      assert.equal(tokenOf(t).address, w.contract);
    }
  }
});

test("address.transactions.listNative pages the deployer's deployments and factory calls", async () => {
  const got = (await pages(await avalanche.data.evm.address.transactions.listNative(
    { chainId, address: evm.deployer, pageSize: 3, startBlock: scenarioStart, endBlock: scenarioEnd }, opts)))
    .flatMap((p) => p.result.transactions);
  assert.ok(got.every((tx) => tx.from.address === evm.deployer || tx.to.address === evm.deployer), "only the deployer's txs");
  for (const [d, to] of [[erc20.deploy, erc20.address], [erc721.deploy, erc721.address], [erc1155.deploy, erc1155.address],
    [evm.createTx, evm.factory], [evm.create2Tx, evm.factory]]) {
    const tx = got.find((t) => t.txHash === d.hash);
    assert.ok(tx, `the deployer's native txs lack ${d.hash}`);
    assert.equal(tx.blockNumber, d.blockNumber);
    assert.equal(tx.blockHash, d.blockHash);
    assert.equal(tx.gasUsed, d.gasUsed);
    assert.equal(tx.to.address, to);
  }
});

test("address.transactions.listInternal answers the factory's CREATE and CREATE2 of each child", async () => {
  for (const [child, d, op] of [[evm.childCreate, evm.createTx, "CREATE"], [evm.childCreate2, evm.create2Tx, "CREATE2"]]) {
    const got = (await pages(await avalanche.data.evm.address.transactions.listInternal(
      { chainId, address: child, pageSize: 1 }, opts))).flatMap((p) => p.result.transactions);
    const it = got.find((x) => x.txHash === d.hash && x.internalTxType === op);
    assert.ok(it, `${child}'s internal txs lack the ${op} of ${d.hash}: ${JSON.stringify(got)}`);
    assert.equal(it.from.address, evm.factory);
    assert.equal(it.to.address, child);
    assert.equal(it.value, evm.childValue);
    assert.equal(it.blockNumber, d.blockNumber);
    assert.equal(it.blockHash, d.blockHash);
    assert.equal(it.isReverted, false);
  }
});

test("address.chains.list and the deprecated chains.getAddressChains name the chain Alice used, none for an unused address", async () => {
  for (const list of [
    (address) => avalanche.data.evm.address.chains.list({ address }, opts),
    (address) => avalanche.data.evm.chains.getAddressChains({ address }, opts),
  ]) {
    const alice = await list(evm.alice);
    assert.ok(alice.indexedChains.some((c) => c.chainId === chainId), `Alice's chains: ${JSON.stringify(alice.indexedChains)}`);
    const unused = await list("0x000000000000000000000000000000000000dEaD");
    assert.deepEqual(unused.indexedChains ?? [], []);
  }
});
