import { test } from "node:test";
import assert from "node:assert/strict";
import { BadRequestError } from "@avalanche-sdk/chainkit/models/errors";
import { avalanche, facts, opts, pages } from "./lib.mjs";

const pChainId = "11111111111111111111111111111111LpoYY";
const hour = 3600;

// The node's P-chain txs per UTC hour, from the facts' blocks (the
// genesis and blocks without a time are no hour's).
const perHour = new Map();
for (const b of facts.pChain.blocks) {
  if (b.height === 0 || !b.timestamp) continue;
  const h = Math.floor(b.timestamp / hour) * hour;
  perHour.set(h, (perHour.get(h) ?? 0) + b.txIds.length);
}
const hours = [...perHour.keys()].sort((a, b) => a - b);
const firstHour = hours[0];
// Blocks accepted after the facts were read land in this hour or later.
const lastHour = hours[hours.length - 1];

test("metrics.chains.getMetrics pages the P-chain's hourly txCount to the end: the node's counts, newest first", async () => {
  const first = await avalanche.metrics.chains.getMetrics(
    { chainId: pChainId, metric: "txCount", timeInterval: "hour", startTimestamp: firstHour, pageSize: 2 }, opts);
  const all = (await pages(first)).flatMap((p) => p.result.results);
  assert.ok(all.length >= hours.length, `${all.length} hours, want at least ${hours.length}`);
  assert.equal(all[all.length - 1].timestamp, firstHour, "the series starts at the first block's hour");
  all.forEach((p, i) => {
    if (i > 0) assert.equal(p.timestamp, all[i - 1].timestamp - hour, "consecutive hours, newest first");
    const want = perHour.get(p.timestamp) ?? 0;
    if (p.timestamp < lastHour) {
      assert.equal(p.value, want, `txCount of hour ${p.timestamp}`);
    } else {
      assert.ok(p.value >= want, `txCount of hour ${p.timestamp}: ${p.value} < ${want}`);
    }
  });
});

test("metrics.chains.getMetrics answers the cumulative count of days with the total of the chains", async () => {
  const total = [...perHour.values()].reduce((a, b) => a + b, 0);
  const res = await avalanche.metrics.chains.getMetrics(
    { chainId: pChainId, metric: "cumulativeTxCount", timeInterval: "day", pageSize: 1 }, opts);
  const latest = res.result.results[0];
  assert.equal(latest.timestamp % 86400, 0, "days start at 00:00 UTC");
  assert.ok(latest.value >= total, `cumulativeTxCount ${latest.value} < the node's ${total}`);
  const all = await avalanche.metrics.chains.getMetrics(
    { chainId: "total", metric: "cumulativeTxCount", timeInterval: "day", pageSize: 1 }, opts);
  assert.ok(all.result.results[0].value >= latest.value, "total covers the P-chain");
});

test("metrics.chains.getMetrics: an interval a metric is not defined over is a 400 the SDK reports", async () => {
  await assert.rejects(
    avalanche.metrics.chains.getMetrics({ chainId: pChainId, metric: "avgTps", timeInterval: "hour" }, opts),
    (err) => {
      assert.ok(err instanceof BadRequestError, `got ${err?.constructor?.name}: ${err}`);
      assert.equal(err.statusCode, 400);
      return true;
    });
});

// The first whole UTC hour at or after t: where a rolling window starts.
const windowStart = (t) => Math.ceil(t / hour) * hour;
const spans = { lastHour: hour, lastDay: 24 * hour, lastWeek: 7 * 24 * hour, lastMonth: 30 * 24 * hour,
  last90Days: 90 * 24 * hour, lastYear: 365 * 24 * hour };

test("metrics.chains.getRollingWindowMetrics counts the P-chain's txs per window: the node's blocks, and all time the cumulative count", async () => {
  const before = Math.floor(Date.now() / 1000);
  const res = await avalanche.metrics.chains.getRollingWindowMetrics({ chainId: pChainId, metric: "txCount" }, opts);
  const cum = await avalanche.metrics.chains.getMetrics(
    { chainId: pChainId, metric: "cumulativeTxCount", timeInterval: "day", pageSize: 1 }, opts);
  const again = await avalanche.metrics.chains.getRollingWindowMetrics({ chainId: pChainId, metric: "txCount" }, opts);
  const r = res.result;
  assert.deepEqual(Object.keys(r).sort(), [...Object.keys(spans), "allTime"].sort(), "every window");
  // All time is the chain's cumulative count, read between the two.
  const total = cum.result.results[0].value;
  assert.ok(r.allTime <= total && total <= again.result.allTime, `allTime ${r.allTime}, cumulative ${total}`);
  // Each window holds at least the node's txs of its hours (blocks
  // accepted after the facts were read add to it).
  for (const [name, span] of Object.entries(spans)) {
    const from = windowStart(before - span);
    const want = facts.pChain.blocks.filter((b) => b.height > 0 && b.timestamp >= from)
      .reduce((n, b) => n + b.txIds.length, 0);
    assert.ok(r[name] >= want, `${name}: ${r[name]} < the node's ${want}`);
  }
  // The local network is younger than a year: the year is all time.
  assert.equal(r.lastYear, r.allTime);
});

test("metrics.chains.getRollingWindowMetrics: activeSenders over the last hour, day and week only", async () => {
  const res = await avalanche.metrics.chains.getRollingWindowMetrics({ chainId: pChainId, metric: "activeSenders" }, opts);
  const r = res.result;
  assert.deepEqual(Object.keys(r).sort(), ["lastDay", "lastHour", "lastWeek"]);
  assert.ok(r.lastHour <= r.lastDay && r.lastDay <= r.lastWeek && r.lastWeek > 0, JSON.stringify(r));
});

test("metrics.networks.getStakingMetrics: today's validator count is the node's current validators", async () => {
  const res = await avalanche.metrics.networks.getStakingMetrics({ network: facts.network, metric: "validatorCount", pageSize: 2 }, opts);
  const today = Math.floor(Date.now() / 1000 / 86400) * 86400;
  const [latest] = res.result.results;
  assert.equal(latest.timestamp, today);
  assert.equal(latest.value, facts.primary.validatorCount);
});

test("metrics.healthCheck: ok, with the database up", async () => {
  const res = await avalanche.metrics.healthCheck(opts);
  assert.equal(res.status, "ok");
  assert.equal(res.details.database.status, "up");
});

test("metrics.subnets.getValidators pages the current validators' reward addresses: as many as the node's validators", async () => {
  const now = Math.floor(Date.now() / 1000);
  const first = await avalanche.metrics.subnets.getValidators(
    { subnetId: pChainId, startTimestamp: now, endTimestamp: now, pageSize: 2, network: facts.network }, opts);
  const all = (await pages(first)).flatMap((p) => p.result.addresses);
  assert.equal(all.length, facts.primary.validatorCount);
  for (const d of all) {
    assert.ok(d.addresses.length > 0 && d.addresses.every((a) => /^[a-z]+1[02-9ac-hj-np-z]{38}$/.test(a)), JSON.stringify(d));
    assert.ok(Number(d.sortKey) <= now, `sortKey ${d.sortKey} is a start after now`);
  }
  const keys = all.map((d) => Number(d.sortKey));
  assert.deepEqual(keys, [...keys].sort((a, b) => a - b), "by start");
});
