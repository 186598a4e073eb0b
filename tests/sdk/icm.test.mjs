import { test } from "node:test";
import assert from "node:assert/strict";
import { NotFoundError, BadRequestError } from "@avalanche-sdk/chainkit/models/errors";
import { avalanche, facts, network, opts, pages } from "./lib.mjs";

// The ICM and Teleporter operations, run by TestICMRelay after it relayed
// its messages between the C-chain and the L1; facts.icm holds each
// message as the chains' receipts and blocks show it.
const icm = facts.icm;
const skip = icm ? false : "needs the ICM scenario: run by TestICMRelay";

// assertHas checks that got has every field of want, recursively (the SDK
// may add keys of its own for absent optional fields).
function assertHas(got, want, path = "") {
  if (Array.isArray(want)) {
    assert.ok(Array.isArray(got), `${path} is not an array: ${JSON.stringify(got)}`);
    assert.equal(got.length, want.length, `${path} length`);
    want.forEach((w, i) => assertHas(got[i], w, `${path}[${i}]`));
  } else if (want !== null && typeof want === "object") {
    assert.ok(got !== null && typeof got === "object", `${path} is not an object: ${JSON.stringify(got)}`);
    for (const [k, w] of Object.entries(want)) assertHas(got[k], w, `${path}.${k}`);
  } else {
    assert.equal(got, want, path);
  }
}

// teleporterShape is a message in the deprecated operations' shape.
function teleporterShape(m) {
  const { icmContractAddress, ...rest } = m;
  return { ...rest, teleporterContractAddress: icmContractAddress };
}

test("icm.get answers each message of the scenario, with its status, receipts and reward", { skip }, async () => {
  for (const want of icm.messages) {
    assertHas(await avalanche.data.icm.get({ messageId: want.messageId }, opts), want, want.messageId);
  }
  assert.deepEqual(icm.messages.map((m) => m.status).sort(), ["delivered", "delivered", "delivered", "pending"]);
});

test("teleporter.getTeleporterMessage answers in its own shape", { skip }, async () => {
  for (const want of icm.messages) {
    const got = await avalanche.data.teleporter.getTeleporterMessage({ messageId: want.messageId }, opts);
    assertHas(got, teleporterShape(want), want.messageId);
  }
});

// ids lists through the SDK's own page iterator, pages of one.
async function ids(first) {
  return (await pages(first)).flatMap((p) => p.result.messages.map((m) => m.messageId))
    .filter((id) => icm.messages.some((m) => m.messageId === id));
}

const idsOf = (pred) => icm.messages.filter(pred).map((m) => m.messageId).sort();

test("icm.list filters by chain, sender and recipient, and pages", { skip }, async () => {
  const list = (req) => avalanche.data.icm.list({ network, pageSize: 1, ...req }, opts);
  assert.deepEqual((await ids(await list({}))).sort(), idsOf(() => true));
  assert.deepEqual((await ids(await list({ sourceBlockchainId: icm.cChain }))).sort(),
    idsOf((m) => m.sourceBlockchainId === icm.cChain));
  assert.deepEqual((await ids(await list({ destinationBlockchainId: icm.cChain }))).sort(),
    idsOf((m) => m.destinationBlockchainId === icm.cChain));
  assert.deepEqual((await ids(await list({ blockchainId: icm.l1 }))).sort(), idsOf(() => true));
  assert.deepEqual((await ids(await list({ from: icm.l1App }))).sort(), idsOf((m) => m.from === icm.l1App));
  assert.deepEqual((await ids(await list({ to: icm.l1App }))).sort(), idsOf((m) => m.to === icm.l1App));
  assert.deepEqual(await ids(await avalanche.data.icm.list({ network: "mainnet" }, opts)), []);
});

// byAddress follows nextPageToken by hand: the SDK's by-address lists
// answer one page, not a page iterator.
async function byAddress(call, req) {
  const out = [];
  let pageToken;
  for (let i = 0; i < 20; i++) {
    const res = await call({ ...req, ...(pageToken ? { pageToken } : {}) }, opts);
    out.push(...res.messages.filter((m) => icm.messages.some((w) => w.messageId === m.messageId)));
    if (!res.nextPageToken) return out;
    pageToken = res.nextPageToken;
  }
  throw new Error("more pages than messages");
}

test("icm.listByAddress and the Teleporter lists", { skip }, async () => {
  const all = idsOf(() => true);
  const icmByAddr = await byAddress((r, o) => avalanche.data.icm.listByAddress(r, o), { network, address: icm.cApp, pageSize: 2 });
  assert.deepEqual(icmByAddr.map((m) => m.messageId).sort(), all);
  assert.deepEqual((await ids(await avalanche.data.teleporter.listTeleporterMessages({ network, pageSize: 3 }, opts))).sort(), all);
  const got = await byAddress((r, o) => avalanche.data.teleporter.listTeleporterMessagesByAddress(r, o), { network, address: icm.l1App });
  assert.equal(got.length, all.length);
  for (const m of got) {
    assertHas(m, teleporterShape(icm.messages.find((w) => w.messageId === m.messageId)));
  }
});

test("an unknown message is a 404, a bad id a 400, as the SDK reports them", { skip }, async () => {
  await assert.rejects(avalanche.data.icm.get({ messageId: "ab".repeat(32) }, opts), (err) => {
    assert.ok(err instanceof NotFoundError, `got ${err?.constructor?.name}: ${err}`);
    return true;
  });
  await assert.rejects(avalanche.data.icm.get({ messageId: "nope" }, opts), (err) => {
    assert.ok(err instanceof BadRequestError, `got ${err?.constructor?.name}: ${err}`);
    assert.match(String(err.message), /messageId/);
    return true;
  });
});

test("metrics.chains.getICMTimeseries and getICMSummary count the L1's one message and the C-chain's", { skip }, async () => {
  const fromL1 = await avalanche.metrics.chains.getICMTimeseries(
    { srcBlockchainId: icm.l1, groupBy: "destBlockchainId" }, opts);
  assert.equal(fromL1.results.length, 1);
  assertHas(fromL1.results[0], { value: 1, srcBlockchainId: icm.l1, destBlockchainId: icm.cChain });
  const sum = await avalanche.metrics.chains.getICMSummary({ srcBlockchainId: icm.l1 }, opts);
  assertHas(sum.result, { lastHour: sum.result.lastHour, lastDay: 1, lastYear: 1, allTime: 1, srcBlockchainId: icm.l1 });
  const sent = icm.messages.filter((m) => m.sourceBlockchainId === icm.cChain).length;
  const cToL1 = await avalanche.metrics.chains.getICMSummary({ srcBlockchainId: icm.cChain, destBlockchainId: icm.l1 }, opts);
  assert.ok(cToL1.result.allTime >= sent, `C->L1 all time ${cToL1.result.allTime}, want at least ${sent}`);
});
