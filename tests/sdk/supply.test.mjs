import { test } from "node:test";
import assert from "node:assert/strict";
import { avalanche, facts, opts } from "./lib.mjs";

// getAvaxSupply through the SDK, against the supply the Go test worked out
// from the node (facts.supply: tests/supply_test.go's supplyFromNode).
// Absent under TestSDK, which runs every file: the test then skips.
const want = facts.supply;
const skip = want ? false : "run by TestSDKSupply";

test("avaxSupply.get answers the supply worked out from the node", { skip }, async () => {
  const s = await avalanche.avaxSupply.get(opts);
  for (const k of ["circulatingSupply", "totalSupply", "totalPBurned", "totalCBurned", "totalXBurned",
    "totalStaked", "totalLocked", "totalRewards", "genesisUnlock", "l1ValidatorFees"]) {
    assert.equal(s[k], want[k], k);
  }
  // The SDK parses lastUpdated into a Date.
  assert.ok(s.lastUpdated instanceof Date);
  assert.equal(s.lastUpdated.toISOString(), want.lastUpdated);
  assert.ok(Number(s.totalCBurned) > 0 && Number(s.totalPBurned) > 0 && Number(s.totalXBurned) > 0);
  assert.ok(Number(s.totalLocked) > 0, "a locked output to count");
});
