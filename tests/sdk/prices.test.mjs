import { test } from "node:test";
import assert from "node:assert/strict";
import { avalanche, facts, network, opts, pages } from "./lib.mjs";

// Prices, served by avaindex from the loopback CoinGecko-compatible feed
// the Go test started: the values the feed tells, in two currencies.
const p = facts.prices;
const currencies = ["usd", "eur"];

// near compares a float computed on two sides up to rounding.
function near(got, want, what) {
  assert.ok(Math.abs(got - want) <= 1e-9 * Math.max(1, Math.abs(want)), `${what}: ${got}, want ${want}`);
}

for (const currency of currencies) {
  const want = p.currencies[currency];

  test(`getNative prices the native balance in ${currency}`, async () => {
    const res = await avalanche.data.evm.address.balances.getNative(
      { chainId: p.chainId, address: p.address, blockNumber: p.blockNumber, currency }, opts);
    const b = res.nativeTokenBalance;
    assert.equal(b.balance, p.balance);
    assert.deepEqual(b.price, { currencyCode: currency, value: want.avax });
    assert.equal(b.balanceValue.currencyCode, currency);
    near(b.balanceValue.value, want.balanceValue, "balanceValue");
  });

  test(`getDeploymentTransaction carries the AVAX and token prices in ${currency}`, async () => {
    const res = await avalanche.data.evm.contracts.getDeploymentTransaction(
      { chainId: p.chainId, address: p.token, currency }, opts);
    assert.equal(res.nativeTransaction.txHash, p.deployTx);
    assert.deepEqual(res.networkTokenDetails.currentPrice, { currencyCode: currency, value: want.avax });
    assert.deepEqual(res.networkTokenDetails.historicalPrice, { currencyCode: currency, value: want.deployed });
    assert.equal(res.erc20Transfers.length, 1);
    const t = res.erc20Transfers[0];
    assert.equal(t.value, p.tokenAmount);
    assert.equal(t.erc20Token.address, p.token);
    assert.deepEqual(t.erc20Token.price, { currencyCode: currency, value: want.token });
  });

  test(`listHistoricalRewards carries each reward's historical price in ${currency}`, async () => {
    const first = await avalanche.data.primaryNetwork.rewards.listHistoricalRewards(
      { network, nodeIds: facts.rewards.nodeId, pageSize: 2, currency }, opts);
    const items = (await pages(first)).flatMap((pg) => pg.result.historicalRewards);
    assert.equal(items.length, Object.keys(want.rewards).length);
    for (const h of items) {
      assert.ok(h.utxoId in want.rewards, `reward ${h.utxoId} is not the node's`);
      assert.deepEqual(h.reward.historicalPrice, { currencyCode: currency, value: want.rewards[h.utxoId] });
    }
  });
}
