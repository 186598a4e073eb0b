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
