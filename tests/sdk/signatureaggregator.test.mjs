import { test } from "node:test";
import assert from "node:assert/strict";
import { BadRequestError, NotFoundError } from "@avalanche-sdk/chainkit/models/errors";
import { avalanche, facts, network, opts } from "./lib.mjs";

// The signature aggregator, run by tests/sdk_signature_aggregator_test.go
// on the custom network (where the node signs); TestSDK's local network has
// no signing validators, so there these tests skip.
const sa = facts.signatureAggregator;
const skip = sa ? false : "needs the custom network: run by TestSDKSignatureAggregator";

// A signed warp message in hex is the unsigned message followed by its
// signature.
function assertSigns(signedMessage, unsignedHex) {
  assert.equal(typeof signedMessage, "string");
  assert.match(signedMessage, /^[0-9a-f]+$/, "hex without 0x, as the hosted service answers");
  assert.ok(signedMessage.startsWith(unsignedHex), "the signed message carries the unsigned one");
  assert.ok(signedMessage.length > unsignedHex.length + 2 * 96, "and a BLS signature after it");
}

test("get signs a ConvertSubnetToL1Tx's conversion message", { skip }, async () => {
  const res = await avalanche.data.signatureAggregator.get({ network, txHash: sa.conversionTx }, opts);
  assertSigns(res.signedMessage, sa.conversionMessage);
});

test("aggregate signs a C-chain warp message given as SendWarpMessage log data, and raw", { skip }, async () => {
  for (const message of [sa.warpLogData, "0x" + sa.warpMessage]) {
    const res = await avalanche.data.signatureAggregator.aggregate(
      { network, signatureAggregatorRequest: { message, quorumPercentage: 67 } }, opts);
    assertSigns(res.signedMessage, sa.warpMessage);
  }
});

test("aggregate without message or justification is a 400 the SDK reports", { skip }, async () => {
  await assert.rejects(
    avalanche.data.signatureAggregator.aggregate({ network, signatureAggregatorRequest: {} }, opts),
    (err) => {
      assert.ok(err instanceof BadRequestError, `got ${err?.constructor?.name}: ${err}`);
      assert.equal(err.statusCode, 400);
      assert.match(String(err.message), /message or justification/);
      return true;
    });
});

test("get of an unknown tx is a 404 the SDK reports", { skip }, async () => {
  await assert.rejects(
    avalanche.data.signatureAggregator.get({ network, txHash: sa.unknownTx }, opts),
    (err) => {
      assert.ok(err instanceof NotFoundError, `got ${err?.constructor?.name}: ${err}`);
      assert.equal(err.statusCode, 404);
      return true;
    });
});
