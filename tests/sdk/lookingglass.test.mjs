import { test } from "node:test";
import assert from "node:assert/strict";
import { NotFoundError, BadRequestError } from "@avalanche-sdk/chainkit/models/errors";
import { avalanche, facts, opts } from "./lib.mjs";

// The Looking Glass operations chainkit 0.3.13 calls, against avaindex
// started by tests/lookingglass_test.go (TestLookingGlassOnLocalNetwork)
// without --btcb-bridge; TestSDK's run has no such facts, so there these
// tests skip.
const f = facts.lookingGlass;
const skip = f ? false : "needs the Looking Glass facts: run by TestLookingGlassOnLocalNetwork";

test("metrics.chains.listBTCbBridgersAboveThreshold: a 404 naming the flag where no BTC.b bridge is configured", { skip }, async () => {
  await assert.rejects(
    avalanche.metrics.chains.listBTCbBridgersAboveThreshold({ threshold: "1", pageSize: 10 }, opts),
    (err) => {
      assert.ok(err instanceof NotFoundError, `got ${err?.constructor?.name}: ${err}`);
      assert.equal(err.statusCode, 404);
      assert.match(err.message, /--btcb-bridge/);
      assert.match(err.message, new RegExp(f.btcbChainId));
      return true;
    });
});

test("metrics.chains.listBTCbBridgersAboveThreshold: a threshold that is no amount is a 400 naming it", { skip }, async () => {
  await assert.rejects(
    avalanche.metrics.chains.listBTCbBridgersAboveThreshold({ threshold: "-1" }, opts),
    (err) => {
      assert.ok(err instanceof BadRequestError, `got ${err?.constructor?.name}: ${err}`);
      assert.match(err.message, /threshold/);
      return true;
    });
});
