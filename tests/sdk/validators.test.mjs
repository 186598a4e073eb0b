import { test } from "node:test";
import assert from "node:assert/strict";
import { avalanche, facts, network, opts, pages } from "./lib.mjs";

// The validator lists through the SDK, against what the Go test read off
// the node: the current primary-network validators (facts.primary,
// facts.stakers) and the reward UTXOs of the issued validator's node
// (facts.rewards).
const primary = "11111111111111111111111111111111LpoYY";
const rewards = facts.rewards.rewards;
const rewardSum = (txHash, types) =>
  rewards.filter((r) => r.txHash === txHash && types.includes(r.rewardType))
    .reduce((s, r) => s + BigInt(r.reward.amount), 0n);

test("listValidators: the node's current primary-network validators", async () => {
  const first = await avalanche.data.primaryNetwork.listValidators(
    { network, validationStatus: "active", subnetId: primary, pageSize: 2 }, opts);
  const vs = (await pages(first)).flatMap((p) => p.result.validators);
  assert.equal(vs.length, facts.primary.validatorCount);
  assert.ok(vs.some((v) => v.txHash === facts.primary.pending[0] && v.nodeId === facts.primary.nodeId));
  for (const v of vs) {
    assert.equal(v.validationStatus, "active");
    assert.ok(facts.stakers.includes(v.txHash), `${v.txHash} is a current staker`);
    // The capacity rule: min(5 × stake, 3M AVAX) − stake − delegated.
    const stake = BigInt(v.amountStaked), bound = 5n * stake < 3000000n * 10n ** 9n ? 5n * stake : 3000000n * 10n ** 9n;
    const used = stake + BigInt(v.amountDelegated);
    assert.equal(BigInt(v.delegationCapacity), used < bound ? bound - used : 0n);
    assert.equal(v.geolocation, null);
  }
});

test("listValidators sorts and filters", async () => {
  const first = await avalanche.data.primaryNetwork.listValidators(
    { network, sortBy: "timeRemaining", sortOrder: "asc", minTimeRemaining: 0, pageSize: 3 }, opts);
  const vs = (await pages(first)).flatMap((p) => p.result.validators);
  assert.ok(vs.length >= facts.primary.validatorCount);
  for (let i = 1; i < vs.length; i++) {
    assert.ok(vs[i].endTimestamp >= vs[i - 1].endTimestamp);
  }
  const none = await avalanche.data.primaryNetwork.listValidators(
    { network, validationStatus: "active", minDelegationCapacity: "720000000000000000" }, opts);
  assert.deepEqual((await pages(none)).flatMap((p) => p.result.validators), []);
});

test("getSingleValidatorDetails: the completed validation's rewards are its reward UTXOs", async () => {
  const first = await avalanche.data.primaryNetwork.getValidatorDetails(
    { network, nodeId: facts.rewards.nodeId, validationStatus: "completed" }, opts);
  const vs = (await pages(first)).flatMap((p) => p.result.validators);
  assert.equal(vs.length, 1);
  const v = vs[0];
  assert.equal(v.validationStatus, "completed");
  assert.equal(v.delegatorCount, 1);
  const got = BigInt(v.rewards.validationRewardAmount) + BigInt(v.rewards.delegationRewardAmount);
  assert.equal(got, rewardSum(v.txHash, ["VALIDATOR", "VALIDATOR_FEE"]));
  assert.ok(got > 0n);
});

test("listDelegators: the completed delegation's net reward is its reward UTXOs", async () => {
  const first = await avalanche.data.primaryNetwork.listDelegators(
    { network, nodeIds: facts.rewards.nodeId, delegationStatus: "completed" }, opts);
  const ds = (await pages(first)).flatMap((p) => p.result.delegators);
  assert.equal(ds.length, 1);
  assert.equal(BigInt(ds[0].netReward), rewardSum(ds[0].txHash, ["DELEGATOR"]));
  assert.ok(BigInt(ds[0].grossReward) >= BigInt(ds[0].netReward));
});

test("listL1Validators: the L1's validators, on its subnet", async () => {
  const first = await avalanche.data.primaryNetwork.listL1Validators(
    { network, includeInactiveL1Validators: true, pageSize: 1 }, opts);
  const resp = await pages(first);
  const vs = resp.flatMap((p) => p.result.validators);
  assert.ok(vs.length > 0);
  for (const v of vs) {
    assert.ok(facts.primary.subnets.includes(v.subnetId));
    assert.equal(v.validationIdHex.length, 66);
    const one = await avalanche.data.primaryNetwork.listL1Validators(
      { network, l1ValidationId: v.validationId, includeInactiveL1Validators: true }, opts);
    const again = (await pages(one)).flatMap((p) => p.result.validators);
    assert.deepEqual(again, [v]);
  }
  assert.ok(BigInt(resp[0].result.blockHeight) > 0n);
});
