// The Data API, the Metrics API and the node API of an avaindex, with
// @avalanche-sdk/chainkit 0.3.13. With devnet running (go run ./cmd/devnet),
// in a directory where `npm install @avalanche-sdk/chainkit@0.3.13` was run:
//
//   AVAINDEX_URL=http://127.0.0.1:8080 node chainkit-quickstart.mjs
//
// CI runs this very file against a real avaindex (tests/sdk_quickstart_test.go).
import assert from "node:assert/strict";
import { Avalanche, HTTPClient } from "@avalanche-sdk/chainkit";

const avaindex = process.env.AVAINDEX_URL ?? "http://127.0.0.1:8080";

// chainkit's Data API and Metrics API operations each carry the hosted
// service's address and ignore the client's serverURL. An HTTP client whose
// hook sends every request to avaindex points them all there, in one place.
const httpClient = new HTTPClient();
httpClient.addHook("beforeRequest", (req) => {
  const { pathname, search } = new URL(req.url);
  return new Request(new URL(pathname + search, avaindex), req);
});

const avalanche = new Avalanche({
  httpClient,
  network: "testnet", // the name devnet serves its local network under
  enableTelemetry: false, // otherwise every call is also reported to a telemetry host
});

// Data API: the P-chain's latest block. A list answers its first page, whose
// next() gives the next one (or iterate them all with for await).
const page = await avalanche.data.primaryNetwork.blocks.listLatest({ blockchainId: "p-chain", pageSize: 1 });
const [block] = page.result.blocks;
console.log(`Data API: P-chain block ${block.blockNumber} ${block.blockHash}, ${block.txCount} txs`);

// Metrics API: the P-chain's transactions of the current day.
const series = await avalanche.metrics.chains.getMetrics({
  chainId: "11111111111111111111111111111111LpoYY", metric: "txCount", timeInterval: "day", pageSize: 1,
});
const [today] = series.result.results;
console.log(`Metrics API: ${today.value} P-chain txs on ${new Date(today.timestamp * 1000).toISOString().slice(0, 10)}`);

// Node API: avaindex answers the node's JSON-RPC API at the node's paths, so
// any client of it works (chainkit has none): here the same block, by height.
const res = await fetch(`${avaindex}/ext/bc/P`, {
  method: "POST",
  headers: { "content-type": "application/json" },
  body: JSON.stringify({
    jsonrpc: "2.0", id: 1, method: "platform.getBlockByHeight",
    params: { height: Number(block.blockNumber), encoding: "json" },
  }),
});
const { result } = await res.json();
assert.equal(result.block.id, block.blockHash, "the node API's block is the Data API's");
assert.equal(result.block.parentID, block.parentHash);
console.log(`node API: P-chain block ${result.block.height} ${result.block.id}`);

// What was read, for a program (CI compares it with the node's own answers).
console.log(JSON.stringify({ height: block.blockNumber, blockId: block.blockHash, day: today.timestamp, dayTxCount: today.value }));
