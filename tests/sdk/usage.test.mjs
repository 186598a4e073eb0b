import { test } from "node:test";
import assert from "node:assert/strict";
import { Avalanche } from "@avalanche-sdk/chainkit";
import { facts, network, opts, pages } from "./lib.mjs";

// The usage tests/sdk_usage_test.go (TestSDKUsage) made with its key:
// facts.usage.blocks calls of the blocks route, facts.usage.rpc
// platform.getHeight calls. TestSDK's run has none, so there they skip.
const u = facts.usage;
const skip = u ? false : "needs the usage calls: run by TestSDKUsage";
const client = u && new Avalanche({ serverURL: opts.serverURL, apiKey: u.apiKey, enableTelemetry: false, network });

test("usageMetrics.getUsage counts the key's calls of a route", { skip }, async () => {
  const res = await client.data.usageMetrics.getUsage(
    { requestPath: u.route, startTimestamp: u.start, timeInterval: "hourly" }, opts);
  assert.equal(res.aggregateDuration, "1h");
  const total = res.metrics.flatMap((m) => m.values).reduce((n, v) => n + v.totalRequests, 0);
  assert.equal(total, u.blocks);
  for (const v of res.metrics.flatMap((m) => m.values)) {
    assert.equal(v.groupedBy, "None");
    assert.equal(v.successRatePercent, 100);
  }
});

test("usageMetrics.getLogs pages the key's logs with the SDK's iterator", { skip }, async () => {
  const first = await client.data.usageMetrics.getLogs(
    { requestPath: u.route, startTimestamp: u.start, pageSize: 2 }, opts);
  const logs = (await pages(first)).flatMap((p) => p.result.logs);
  assert.equal(logs.length, u.blocks);
  for (const l of logs) {
    assert.equal(l.apiKeyAlias, u.keyName);
    assert.equal(l.apiKeyId, u.keyId);
    assert.equal(l.requestType, "data");
    assert.equal(l.requestPath, u.route);
    assert.equal(l.responseCode, 200);
    assert.equal(l.chainId, "p-chain");
  }
  // Newest first.
  for (let i = 1; i < logs.length; i++) {
    assert.ok(logs[i - 1].eventTimestamp >= logs[i].eventTimestamp);
  }
});

test("usageMetrics.getSubnetRpcUsage and the deprecated getRpcUsageMetrics count the node API calls", { skip }, async () => {
  for (const f of ["getSubnetRpcUsage", "getRpcUsageMetrics"]) {
    const res = await client.data.usageMetrics[f](
      { chainId: "P", startTimestamp: u.start, groupBy: "rpcMethod" }, opts);
    const values = res.metrics.flatMap((m) => m.values);
    assert.deepEqual(values.map((v) => [v.groupValue, v.totalRequests]), [["platform.getHeight", u.rpc]], f);
  }
});
