import { test } from "node:test";
import assert from "node:assert/strict";
import { avalanche, facts, opts, pages } from "./lib.mjs";

// What TestSDKERC20Balances recorded: the test tokens, their holders, and
// the node's balanceOf of each at the last block and at an earlier one.
// Absent under TestSDK, which runs every file: these tests then skip.
const f = facts.erc20;
const skip = f ? false : "run by TestSDKERC20Balances";

// listed runs the SDK's page iterator over an address's ERC-20 balances
// and returns them as { token address: balance }.
async function listed(req) {
  const all = await pages(await avalanche.data.evm.address.balances.listErc20(
    { chainId: f.chainId, pageSize: 1, ...req }, opts));
  const out = {};
  for (const p of all) {
    assert.equal(p.result.nativeTokenBalance.chainId, f.chainId);
    for (const b of p.result.erc20TokenBalances) {
      assert.equal(b.chainId, f.chainId);
      assert.equal(b.ercType, "ERC-20");
      out[b.address] = b;
    }
  }
  return out;
}

test("address.balances.listErc20 equals the node's balanceOf, at the last block and at a past blockNumber", { skip }, async () => {
  for (const at of f.checks) {
    const req = { address: at.holder, contractAddresses: f.tokens.join(","), filterSpamTokens: false };
    if (at.blockNumber !== "") req.blockNumber = at.blockNumber;
    const got = await listed(req);
    const balances = Object.fromEntries(Object.entries(got).map(([a, b]) => [a, b.balance]));
    assert.deepEqual(balances, at.balances, `${at.holder} at ${at.blockNumber || "the last block"}`);
  }
});

test("address.balances.listErc20 names the tokens and filters spam by default", { skip }, async () => {
  const got = await listed({ address: f.carol });
  assert.deepEqual(Object.keys(got).sort(), [f.fee, f.second].sort());
  assert.equal(got[f.fee].symbol, "AFT");
  assert.equal(got[f.fee].name, "Avaindex Fee Token");
  assert.equal(got[f.fee].decimals, 18);
  assert.equal(got[f.second].decimals, 6);
  assert.equal(got[f.second].tokenReputation, "Benign");
  const withSpam = await listed({ address: f.carol, filterSpamTokens: false });
  assert.equal(withSpam[f.spam].balance, "5");
  assert.equal(withSpam[f.spam].tokenReputation, "Malicious");
});
