import { test } from "node:test";
import assert from "node:assert/strict";
import { BadRequestError } from "@avalanche-sdk/chainkit/models/errors";
import { avalanche, facts, opts } from "./lib.mjs";

// The L1 Validator Metrics through the SDK, against what the Go test
// (tests/l1metrics_test.go) read off the node: a validation it registered
// and topped up, what it had paid at the height the test compared at
// (blocks accepted since can only add fees, up to its deposits), its node
// and subnet. Absent under TestSDK, which runs every file: then skipped.
const want = facts.l1Fees;
const skip = want ? false : "run by TestL1ValidatorMetrics";
const l1 = () => avalanche.metrics.l1Validators;
const day = 86400;

// series checks a daily series: newest first, consecutive, from today back
// to the validation's first day at least.
function series(res, name) {
  assert.ok(Array.isArray(res.results), `${name}: results`);
  const r = res.results;
  assert.ok(r.length >= 1, `${name}: no days`);
  assert.ok(r[0].timestamp >= want.today, `${name}: the latest day ${r[0].timestamp} < today ${want.today}`);
  r.forEach((p, i) => {
    assert.equal(p.timestamp % day, 0, `${name}: days start at 00:00 UTC`);
    if (i > 0) assert.equal(p.timestamp, r[i - 1].timestamp - day, `${name}: consecutive days, newest first`);
  });
  assert.ok(r[r.length - 1].timestamp <= want.firstDay, `${name}: starts after the validation's first day`);
  return r;
}

test("metrics.l1Validators.getMetricsByValidationId: what the validation paid, daily and cumulative", { skip }, async () => {
  const cum = series(await l1().getMetricsByValidationId(
    { l1ValidationId: want.validationId, metric: "validationCumulativeFeesDaily" }, opts), "cumulative");
  assert.ok(cum[0].value >= want.paid && cum[0].value <= want.deposits,
    `cumulative ${cum[0].value}: the node's ${want.paid} at the test's height, at most the deposits ${want.deposits}`);
  const daily = series(await l1().getMetricsByValidationId(
    { l1ValidationId: want.validationId, metric: "validationFeesDaily", startTimestamp: want.firstDay }, opts), "daily");
  assert.equal(daily[daily.length - 1].timestamp, want.firstDay, "startTimestamp bounds the series");
  const sum = daily.reduce((a, p) => a + p.value, 0);
  assert.ok(sum >= want.paid && sum <= want.deposits, `the daily fees sum to ${sum}`);
});

test("metrics.l1Validators.getMetricsByNodeId: the node has only this validation", { skip }, async () => {
  const r = series(await l1().getMetricsByNodeId(
    { nodeId: want.nodeId, metric: "perNodeCumulativeFeesPaid", endTimestamp: want.today + day - 1 }, opts), "node");
  assert.equal(r[0].timestamp, want.today, "endTimestamp bounds the series");
  assert.ok(r[0].value >= want.paid && r[0].value <= want.deposits, `node cumulative ${r[0].value}`);
  const d = series(await l1().getMetricsByNodeId({ nodeId: want.nodeId, metric: "perNodeDailyFeesPaid" }, opts), "node daily");
  assert.ok(d.every((p) => p.value >= 0));
});

test("metrics.l1Validators.getMetricsBySubnetId and listMetrics: the subnet's and everyone's fees", { skip }, async () => {
  const s = series(await l1().getMetricsBySubnetId(
    { subnetId: want.subnetId, metric: "perSubnetCumulativeFeesPaid" }, opts), "subnet");
  assert.ok(s[0].value >= want.subnetPaid, `subnet cumulative ${s[0].value} < ${want.subnetPaid}`);
  const paying = series(await l1().getMetricsBySubnetId(
    { subnetId: want.subnetId, metric: "perSubnetPayingValidators" }, opts), "paying");
  assert.ok(paying.every((p) => Number.isInteger(p.value) && p.value >= 0));
  const daily = await l1().getMetricsBySubnetId({ subnetId: want.subnetId, metric: "perSubnetDailyFeesPaid" }, opts);
  assert.ok(daily.results.length >= 1);
  const total = await l1().listMetrics({ metric: "totalCumulativeFeesDaily" }, opts);
  assert.ok(total.results[0].value >= want.totalPaid && total.results[0].value >= s[0].value,
    `total ${total.results[0].value}: at least ${want.totalPaid} and the subnet's`);
  for (const metric of ["totalValidatorFeesDaily", "totalPayingValidatorsDaily"]) {
    const r = await l1().listMetrics({ metric, startTimestamp: want.today }, opts);
    assert.equal(r.results.length, 1, `${metric} from today: one day`);
    assert.equal(r.results[0].timestamp, want.today);
  }
});

test("metrics.l1Validators: a malformed validation id is a 400 the SDK reports", { skip }, async () => {
  await assert.rejects(
    l1().getMetricsByValidationId({ l1ValidationId: "not-an-id", metric: "validationFeesDaily" }, opts),
    (err) => {
      assert.ok(err instanceof BadRequestError, `got ${err?.constructor?.name}: ${err}`);
      assert.equal(err.statusCode, 400);
      assert.match(`${err.message} ${err.body}`, /l1ValidationId/);
      return true;
    });
});
